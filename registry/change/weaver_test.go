package change_test

import (
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/registry/change"
)

// weaverSides lists the items of one registry by Weaver's item type:
// registry_attribute_map (lib.rs:244-272: every attribute a group defines,
// not a refinement: the Index's non-placeholder attributes), and
// groups_by_name (lib.rs:287-294) for metrics (metric_name), events and
// entities (name). Spans: signal_name is the group's name
// (registry.rs:209-223), which semconv span groups do not have, so Weaver
// finds none (the comment at lib.rs:343-345).
func weaverSides(ix *registry.Index) map[string]map[string]registry.Deprecation {
	out := map[string]map[string]registry.Deprecation{
		"registry_attributes": {}, "metrics": {}, "events": {}, "spans": {}, "entities": {},
	}
	for _, a := range ix.Attributes() {
		if !a.Placeholder {
			out["registry_attributes"][a.Key] = a.Deprecation
		}
	}
	for _, m := range ix.Metrics() {
		if !m.Placeholder {
			out["metrics"][m.Name] = m.Deprecation
		}
	}
	for _, g := range ix.Groups() {
		switch g.Kind {
		case registry.GroupEvent:
			out["events"][g.Name] = g.Deprecation
		case registry.GroupEntity:
			out["entities"][g.Name] = g.Deprecation
		case registry.GroupMetric, registry.GroupSpan:
		}
	}
	return out
}

// weaverOracle is Weaver's ResolvedTelemetrySchema::diff (lib.rs:308-364)
// written out again: for every item of the head (latest) registry that the
// baseline has, when the head declares a deprecation that differs from the
// baseline's (lib.rs:382-390, 465-471), one change by its reason: renamed
// with the declared renamed_to and the note (lib.rs:393-405, Deprecated::note
// in weaver_semconv deprecated.rs:186-199 supplies "Replaced by `x`." when
// there is none), obsoleted (406-414), uncategorized for uncategorized and
// unspecified (415-423); an item the baseline lacks is added (426-433); a
// baseline item the head lacks is removed (436-449, 517-530). Attributes
// and signals follow the same rules (diff_attributes, diff_signals).
func weaverOracle(baseline, head *registry.Index) []string {
	var out []string
	b, h := weaverSides(baseline), weaverSides(head)
	for typ, items := range h {
		for name, dep := range items {
			bd, ok := b[typ][name]
			if !ok {
				out = append(out, fmt.Sprintf("%s added %s", typ, name))
				continue
			}
			if dep.Reason == registry.NotDeprecated || dep == bd {
				continue
			}
			switch dep.Reason {
			case registry.DeprecatedRenamed:
				note := dep.Note
				if note == "" {
					note = "Replaced by `" + dep.RenamedTo + "`."
				}
				out = append(out, fmt.Sprintf("%s renamed %s -> %s (%s)", typ, name, dep.RenamedTo, note))
			case registry.DeprecatedObsoleted:
				out = append(out, fmt.Sprintf("%s obsoleted %s (%s)", typ, name, dep.Note))
			case registry.DeprecatedUncategorized, registry.DeprecatedUnspecified:
				out = append(out, fmt.Sprintf("%s uncategorized %s (%s)", typ, name, dep.Note))
			case registry.NotDeprecated:
			}
		}
	}
	for typ, items := range b {
		for name := range items {
			if _, ok := h[typ][name]; !ok {
				out = append(out, fmt.Sprintf("%s removed %s", typ, name))
			}
		}
	}
	sort.Strings(out)
	return out
}

func flatten(sc *change.SchemaChanges) []string {
	var out []string
	for typ, cs := range sc.Changes {
		for _, c := range cs {
			switch c.Type {
			case "renamed":
				out = append(out, fmt.Sprintf("%s renamed %s -> %s (%s)", typ, c.OldName, c.NewName, c.Note))
			case "obsoleted", "uncategorized":
				out = append(out, fmt.Sprintf("%s %s %s (%s)", typ, c.Type, c.Name, c.Note))
			default:
				out = append(out, fmt.Sprintf("%s %s %s", typ, c.Type, c.Name))
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestWeaverSameSet: for the kinds Weaver has, Set.Weaver (derived from
// the change model) is exactly what Weaver's algorithm finds on the same
// pair; the test then lists what the model finds beside it.
func TestWeaverSameSet(t *testing.T) {
	for _, p := range pairs {
		t.Run(p.old+"->"+p.new, func(t *testing.T) {
			oldIx, newIx := load(t, p.old), load(t, p.new)
			set, err := change.Diff(oldIx, newIx)
			require.NoError(t, err)
			want := weaverOracle(oldIx, newIx)
			require.NotEmpty(t, want)
			got := flatten(set.Weaver())
			assert.Equal(t, want, got)
			assert.Empty(t, set.Weaver().Changes["spans"])
			assert.Len(t, want, p.weaver)

			// The field changes Weaver leaves out (its Updated change is an
			// empty placeholder, schema_changes.rs:70-72).
			beyond := map[change.Kind]int{}
			for _, c := range set.Changes {
				if _, _, lifecycle := change.LifecycleOf(c.Kind); !lifecycle || c.Item == change.ItemSpan {
					beyond[c.Kind]++
				}
			}
			var lines []string
			for k, n := range beyond {
				lines = append(lines, fmt.Sprintf("%s: %d", k, n))
			}
			slices.Sort(lines)
			t.Logf("beside Weaver's %d changes, the model has: %v", len(want), lines)
			assert.Equal(t, p.beyond, beyond)
		})
	}
}
