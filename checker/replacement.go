package checker

import (
	"slices"
	"strings"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// Replacement is what the registry says to use instead of a name a
// deprecated finding is about: the deprecation's reason and note, as
// Weaver's deprecated advisor reports them, and the current name(s), each
// with the contexts it applies in when it depends on them (net.peer.name
// is server.address on client spans and client.address on server spans).
// The current names are the registry's renames (otelgov explain's
// "current name by context"), not read from the note.
type Replacement struct {
	// Reason is Weaver's deprecation reason: renamed, obsoleted or
	// uncategorized (deprecated_advisor.rs reports an unstructured
	// deprecation as uncategorized).
	Reason string `json:"reason"`
	// Note is Weaver's deprecation note (Deprecated::note): the model's
	// note, or "Replaced by `new.name`." for a rename without one,
	// "Obsoleted." or "Uncategorized." for those without one.
	Note string `json:"note"`
	// Current are the names to use instead; empty when there is none.
	Current []CurrentName `json:"current"`
}

// CurrentName is one name to use instead of a deprecated one.
type CurrentName struct {
	Name string `json:"name"`
	// Contexts are where it applies, e.g. "span, span_event, span_link
	// (server, consumer)"; empty when it applies wherever the old name
	// is found.
	Contexts []string `json:"contexts,omitempty"`
}

// String is the replacement as the text renderers print it after the old
// name: "http.request.method", "client.address on span, span_event,
// span_link (server, consumer) or server.address on ..." or, without a
// current name, the note.
func (r *Replacement) String() string {
	if len(r.Current) == 0 {
		if r.Note == "" {
			return "no current name (" + r.Reason + ")"
		}
		return "no current name: " + strings.TrimSpace(r.Note)
	}
	parts := make([]string, len(r.Current))
	for i, c := range r.Current {
		parts[i] = c.Name
		if len(c.Contexts) > 0 {
			parts[i] += " on " + strings.Join(c.Contexts, "; ")
		}
	}
	return strings.Join(parts, " or ")
}

// ReplacementOf is the replacement of name, the subject of a deprecated
// finding (an attribute key, a metric or an event name), in ix; nil when
// ix knows nothing of it. For a key, metricName and spanName are the
// metric or span it was found on ("" when not known): they select the
// renames scoped to a metric or a span name.
func ReplacementOf(ix *registry.Index, subj vocab.Subject, name, metricName, spanName string) *Replacement {
	switch subj {
	case vocab.SubjectKey:
		a := ix.Lookup(name)
		if a == nil {
			return nil
		}
		r := &Replacement{Current: nonNil(currentNames(a.CurrentNames(name, metricName, spanName)))}
		r.Reason, r.Note = weaverDeprecation(a.Deprecation, r.Current)
		return r
	case vocab.SubjectMetric:
		m := ix.Metric(name)
		if m == nil {
			return nil
		}
		r := &Replacement{Current: []CurrentName{}}
		if m.RenamedTo != "" {
			r.Current = []CurrentName{{Name: m.RenamedTo}}
		}
		r.Reason, r.Note = weaverDeprecation(m.Deprecation, r.Current)
		return r
	case vocab.SubjectEvent:
		if g := ix.EventGroup(name); g != nil && g.Deprecated {
			r := &Replacement{Current: []CurrentName{}}
			if g.Deprecation.RenamedTo != "" {
				r.Current = append(r.Current, CurrentName{Name: g.Deprecation.RenamedTo})
			}
			r.Reason, r.Note = weaverDeprecation(g.Deprecation, r.Current)
			return r
		}
	case vocab.SubjectSpan, vocab.NumSubjects:
	}
	return nil
}

// deprecatedReasons are Weaver's deprecated_to_reason: an unspecified
// (unstructured, string) deprecation is uncategorized.
var deprecatedReasons = map[registry.DeprecationReason]string{
	registry.DeprecatedRenamed:       "renamed",
	registry.DeprecatedObsoleted:     "obsoleted",
	registry.DeprecatedUncategorized: "uncategorized",
	registry.DeprecatedUnspecified:   "uncategorized",
}

// weaverDeprecation is Weaver's reason and note of d
// (crates/weaver_semconv/src/deprecated.rs, Deprecated::note, at
// afa9700c). A name only a schema or rules file renames (not deprecated in
// the model) is reported as renamed to its current name.
func weaverDeprecation(d registry.Deprecation, current []CurrentName) (reason, note string) {
	switch d.Reason {
	case registry.NotDeprecated:
		if len(current) == 0 {
			return deprecatedReasons[registry.DeprecatedUncategorized], ""
		}
		return deprecatedReasons[registry.DeprecatedRenamed], "Replaced by `" + current[0].Name + "`."
	case registry.DeprecatedRenamed:
		if d.Note == "" {
			return deprecatedReasons[d.Reason], "Replaced by `" + d.RenamedTo + "`."
		}
	case registry.DeprecatedObsoleted:
		if d.Note == "" {
			return deprecatedReasons[d.Reason], "Obsoleted."
		}
	case registry.DeprecatedUncategorized:
		if d.Note == "" {
			return deprecatedReasons[d.Reason], "Uncategorized."
		}
	case registry.DeprecatedUnspecified: // the string form: the string is the note
	}
	return deprecatedReasons[d.Reason], d.Note
}

// currentNames groups the renamed contexts of cs by current name: a name
// that holds wherever the old one is renamed has no contexts; otherwise
// each context lists its locations, with the span kinds where the name
// depends on them.
func currentNames(cs []registry.ContextName) []CurrentName {
	var out []CurrentName
	renamed, all := 0, true
	for _, c := range cs {
		if !c.Renamed {
			all = false
			continue
		}
		renamed++
		i := slices.IndexFunc(out, func(n CurrentName) bool { return n.Name == c.Name })
		if i < 0 {
			out = append(out, CurrentName{Name: c.Name})
		}
	}
	if len(out) == 1 && all {
		return out // one name everywhere
	}
	for i := range out {
		out[i].Contexts = contextsOf(cs, out[i].Name)
	}
	return out
}

// contextsOf lists the contexts of cs where the current name is name:
// the locations with the same span kinds joined, e.g. "span, span_event,
// span_link (client, producer)", then "data_point".
func contextsOf(cs []registry.ContextName, name string) []string {
	type group struct {
		locs  []string
		kinds string
	}
	var groups []group
	var kinds map[registry.Location][]string
	for _, c := range cs {
		if !c.Renamed || c.Name != name {
			continue
		}
		if c.ByKind {
			if kinds == nil {
				kinds = map[registry.Location][]string{}
			}
			if c.Context.SpanKind != registry.SpanKindUnspecified { // unspecified reads as internal
				kinds[c.Context.Location] = append(kinds[c.Context.Location], c.Context.SpanKind.String())
			}
			continue
		}
		loc := c.Context.Location.String()
		if c.Context.MetricName != "" {
			loc += " (metric " + c.Context.MetricName + ")"
		}
		groups = append(groups, group{locs: []string{loc}})
	}
	for _, l := range registry.Locations {
		ks, ok := kinds[l]
		if !ok {
			continue
		}
		k := strings.Join(ks, ", ")
		if i := slices.IndexFunc(groups, func(g group) bool { return g.kinds == k }); i >= 0 {
			groups[i].locs = append(groups[i].locs, l.String())
			continue
		}
		groups = append(groups, group{locs: []string{l.String()}, kinds: k})
	}
	out := make([]string, len(groups))
	for i, g := range groups {
		out[i] = strings.Join(g.locs, ", ")
		if g.kinds != "" {
			out[i] += " (" + g.kinds + ")"
		}
	}
	return out
}
