package change

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/otelgov/otelcol-governance/registry"
)

// SchemaChanges is Weaver's v1 schema-changes document
// (crates/weaver_version/src/schema_changes.rs at afa9700c), the output of
// weaver registry diff: both sides' semconv_version and the changes by
// item type. Weaver matches items by name and compares no fields.
type SchemaChanges struct {
	Head     WeaverManifest                `json:"head"`
	Baseline WeaverManifest                `json:"baseline"`
	Changes  map[string][]WeaverItemChange `json:"changes"`
}

// WeaverManifest is Weaver's RegistryManifest in SchemaChanges.
type WeaverManifest struct {
	SemconvVersion string `json:"semconv_version"`
}

// WeaverItemChange is one SchemaItemChange: Type is added, renamed,
// obsoleted, uncategorized or removed.
type WeaverItemChange struct {
	Type    string `json:"type"`
	Name    string `json:"name,omitempty"`
	OldName string `json:"old_name,omitempty"`
	NewName string `json:"new_name,omitempty"`
	Note    string `json:"note,omitempty"`
}

// MarshalJSON writes the fields Weaver's serde writes for the type (a
// note is written even when empty).
func (w WeaverItemChange) MarshalJSON() ([]byte, error) {
	switch w.Type {
	case "renamed":
		return json.Marshal(struct {
			Type    string `json:"type"`
			OldName string `json:"old_name"`
			NewName string `json:"new_name"`
			Note    string `json:"note"`
		}{w.Type, w.OldName, w.NewName, w.Note})
	case "obsoleted", "uncategorized":
		return json.Marshal(struct {
			Type string `json:"type"`
			Name string `json:"name"`
			Note string `json:"note"`
		}{w.Type, w.Name, w.Note})
	}
	return json.Marshal(struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}{w.Type, w.Name})
}

// WeaverItemTypes are Weaver's SchemaItemType names, by Item.
var WeaverItemTypes = [numItems]string{
	ItemAttribute: "registry_attributes",
	ItemMetric:    "metrics",
	ItemEvent:     "events",
	ItemSpan:      "spans",
	ItemEntity:    "entities",
}

// Weaver derives Weaver's SchemaChanges from the set: additions and
// removals as they are, and for an item on both sides whose declared
// deprecation changes and is now set, one change by its reason (renamed
// with the declared renamed_to, not the collapsed target). Spans are
// always empty: Weaver v1 does not diff them. Changes within an item type
// are sorted by name (Weaver's order is a hash map's).
func (s *Set) Weaver() *SchemaChanges {
	out := &SchemaChanges{
		Head:     WeaverManifest{SemconvVersion: s.New.Version},
		Baseline: WeaverManifest{SemconvVersion: s.Old.Version},
		Changes:  map[string][]WeaverItemChange{},
	}
	for _, t := range WeaverItemTypes {
		out.Changes[t] = []WeaverItemChange{}
	}
	seen := map[[2]string]bool{}
	for i := range s.Changes {
		c := &s.Changes[i]
		if c.Item == ItemSpan {
			continue
		}
		t := WeaverItemTypes[c.Item]
		item, op, lifecycle := LifecycleOf(c.Kind)
		switch {
		case lifecycle && item == c.Item && op == OpAdded:
			out.Changes[t] = append(out.Changes[t], WeaverItemChange{Type: "added", Name: c.Name})
			continue
		case lifecycle && item == c.Item && op == OpRemoved:
			out.Changes[t] = append(out.Changes[t], WeaverItemChange{Type: "removed", Name: c.Name})
			continue
		case !lifecycle && c.Kind != DeprecationChanged:
			continue
		}
		d := c.Deprecation
		if d == c.OldDeprecation || d.Reason == registry.NotDeprecated || seen[[2]string{t, c.Name}] {
			continue
		}
		seen[[2]string{t, c.Name}] = true
		w := WeaverItemChange{Name: c.Name, Note: d.Note}
		switch d.Reason {
		case registry.DeprecatedRenamed:
			w = WeaverItemChange{Type: "renamed", OldName: c.Name, NewName: d.RenamedTo, Note: d.Note}
			if w.Note == "" {
				w.Note = fmt.Sprintf("Replaced by `%s`.", d.RenamedTo)
			}
		case registry.DeprecatedObsoleted:
			w.Type = "obsoleted"
		default:
			w.Type = "uncategorized"
		}
		out.Changes[t] = append(out.Changes[t], w)
	}
	for t := range out.Changes {
		slices.SortStableFunc(out.Changes[t], func(a, b WeaverItemChange) int {
			return strings.Compare(a.Name+a.OldName, b.Name+b.OldName)
		})
	}
	return out
}
