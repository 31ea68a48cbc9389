package change

import (
	"encoding/json"
	"slices"

	"github.com/otelgov/otelcol-governance/registry"
)

// MarshalJSON writes the set as one document: both sides, the counts per
// kind and every change (empty fields left out). It is otelgov registry
// diff --format json, and the form other tools read the model in.
func (s *Set) MarshalJSON() ([]byte, error) {
	doc := jsonSet{Old: s.Old, New: s.New, Counts: map[string]int{}, Changes: make([]jsonChange, 0, len(s.Changes))}
	for k, n := range s.Count() {
		doc.Counts[k.String()] = n
	}
	for i := range s.Changes {
		c := &s.Changes[i]
		jc := jsonChange{
			Kind: c.Kind, Item: c.Item, Name: c.Name, NewName: c.NewName, Context: c.Context, Member: c.Member,
			OldValue: c.OldValue, NewValue: c.NewValue, Factor: c.Factor, Values: c.Values, Into: c.Into,
			OldDeprecation: jsonDep(c.OldDeprecation), Deprecation: jsonDep(c.Deprecation),
			Migratable: c.Migratable, Why: c.Why, Source: c.Source,
		}
		jc.Carrier, _ = c.Carry(false)
		if sc := c.Scope; sc != nil {
			js := &jsonScope{Metrics: sc.Metrics, Spans: sc.Spans}
			for _, l := range sc.Locations {
				js.Locations = append(js.Locations, l.String())
			}
			for _, k := range sc.SpanKinds {
				js.SpanKinds = append(js.SpanKinds, k.String())
			}
			jc.Scope = js
		}
		doc.Changes = append(doc.Changes, jc)
	}
	return json.Marshal(doc)
}

type jsonSet struct {
	Old     Side           `json:"old"`
	New     Side           `json:"new"`
	Counts  map[string]int `json:"counts"`
	Changes []jsonChange   `json:"changes"`
}

type jsonChange struct {
	Kind           Kind              `json:"kind"`
	Item           Item              `json:"item"`
	Name           string            `json:"name"`
	NewName        string            `json:"new_name,omitempty"`
	Context        string            `json:"context,omitempty"`
	Member         string            `json:"member,omitempty"`
	OldValue       string            `json:"old_value,omitempty"`
	NewValue       string            `json:"new_value,omitempty"`
	Factor         float64           `json:"factor,omitempty"`
	Values         map[string]string `json:"values,omitempty"`
	Into           []string          `json:"into,omitempty"`
	Scope          *jsonScope        `json:"scope,omitempty"`
	OldDeprecation *jsonDeprecation  `json:"old_deprecation,omitempty"`
	Deprecation    *jsonDeprecation  `json:"deprecation,omitempty"`
	Migratable     bool              `json:"migratable"`
	Why            string            `json:"why,omitempty"`
	Carrier        Carrier           `json:"carrier"`
	Source         string            `json:"source,omitempty"`
}

type jsonScope struct {
	Locations []string `json:"locations,omitempty"`
	SpanKinds []string `json:"span_kinds,omitempty"`
	Metrics   []string `json:"metrics,omitempty"`
	Spans     []string `json:"spans,omitempty"`
}

type jsonDeprecation struct {
	Reason    string `json:"reason"`
	RenamedTo string `json:"renamed_to,omitempty"`
	Note      string `json:"note,omitempty"`
}

func jsonDep(d registry.Deprecation) *jsonDeprecation {
	if d.Reason == registry.NotDeprecated {
		return nil
	}
	return &jsonDeprecation{Reason: d.Reason.String(), RenamedTo: d.RenamedTo, Note: d.Note}
}

// sortedKinds returns the kinds of counts in Kind order.
func sortedKinds(counts map[Kind]int) []Kind {
	out := make([]Kind, 0, len(counts))
	for k := range counts {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
