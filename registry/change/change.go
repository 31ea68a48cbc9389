// Package change is the model of what changes between two registries, and
// Diff, which computes it. One model serves every use: otelgov registry
// diff (text, JSON, Markdown, Weaver's SchemaChanges), the impact of an
// upgrade on consumers and traffic, the transition configuration and a
// shadow registry; it has no field that belongs to one output.
//
// The API:
//
//	set, err := change.Diff(oldIx, newIx)  // two resolved *registry.Index
//	for _, c := range set.Changes {         // sorted: Item, Name, Context, Kind, Member
//		c.Kind          // attribute_renamed, unit_changed, ... (Kind.String, ParseKind)
//		c.Item          // attribute, metric, event, span, entity
//		c.Name          // the item's name on the old side (an addition: the new side)
//		c.NewName       // its name on the new side when that differs (collapsed rename target)
//		c.Context       // the metric, event name or span id of a per-signal change
//		c.Member        // the enum member value of an enum_member_* change
//		c.OldValue, c.NewValue // the field's values on each side (kind-specific, see Kind)
//		c.Migratable, c.Why    // whether the processor can carry old data over, and why not
//		c.Carry(window)        // who carries it over: collector, kept, person (and why), none
//	}
//	set.Count()[change.AttributeRenamed]
//
// Names are compared as the processor sees them: an attribute's current
// name is its chain-collapsed rename target in each registry (registry
// renamed_to, schema files and rules files together), so a -> b, b -> c
// is a -> c, and a key whose target moves (a -> b before, a -> c now) is an
// attribute_renamed change whose OldValue is b. Field changes (type, unit,
// instrument, enum members, stability, requirement levels and attribute
// sets) compare an item's old definition with the definition of its current
// name on the new side, so a rename that also changes the unit is both a
// metric_renamed and a unit_changed.
//
// Each change also carries the item's deprecation as each side declares it
// (OldDeprecation, Deprecation): Weaver's SchemaChanges is derived from
// them (see Weaver in weaver.go).
package change

import (
	"fmt"
	"slices"
	"strings"

	"github.com/otelgov/otelcol-governance/registry"
)

// Item is the kind of registry item a change is about.
type Item uint8

// Item values.
const (
	ItemAttribute Item = iota
	ItemMetric
	ItemEvent
	ItemSpan
	ItemEntity
	numItems
)

var itemNames = [...]string{
	ItemAttribute: "attribute",
	ItemMetric:    "metric",
	ItemEvent:     "event",
	ItemSpan:      "span",
	ItemEntity:    "entity",
}

func (i Item) String() string {
	if int(i) < len(itemNames) {
		return itemNames[i]
	}
	return fmt.Sprintf("item(%d)", uint8(i))
}

// ParseItem parses an Item's name.
func ParseItem(s string) (Item, bool) {
	for i, n := range itemNames {
		if n == s {
			return Item(i), true
		}
	}
	return 0, false
}

// MarshalText writes the Item's name.
func (i Item) MarshalText() ([]byte, error) { return []byte(i.String()), nil }

// Change is one difference between the old and the new registry. Treat it
// as read-only.
type Change struct {
	Kind Kind
	Item Item
	// Name is the item's name on the old side (attribute key, metric or
	// event name, span or entity id); for an addition, on the new side.
	Name string
	// NewName is the item's current name on the new side when it differs
	// from Name: the collapsed rename target (a renamed template keeps its
	// prefix form), the key whose definition a field change compares
	// against, a merge's target.
	NewName string
	// Context is the metric name, event name or span id of a per-signal
	// change (requirement_level_changed, attribute_set_changed); "" else.
	Context string
	// Member is the enum member value of an enum_member_* change.
	Member string
	// OldValue and NewValue are the changed field's values on each side:
	// the previous rename target (attribute_renamed, metric_renamed: ""
	// when the old side kept the name), the type, unit, instrument,
	// stability or requirement level (as the model writes them; ""
	// when absent from the set); NewValue is a renamed enum member's new
	// value.
	OldValue, NewValue string
	// Factor converts a value in the old unit to the new one (ms -> s is
	// 0.001); 0 when no factor is known. Only unit_changed sets it.
	Factor float64
	// Values maps old values to new ones where the change comes with a
	// value map: the rules file's values: on a rename or type change, or
	// the enum members renamed alongside a renamed key.
	Values map[string]string
	// Into lists the keys a split fills, or the keys a merge reads.
	Into []string
	// Scope is the set of contexts an attribute_renamed applies in; nil for
	// every context. When a key has several, each names the rename that
	// decides it (the new side's; the old side's where the new one keeps
	// the key), so a later, wider scope may include contexts an earlier
	// change of the key already covers: the first match wins, as in
	// registry.Attribute.Renames.
	Scope *registry.Scope
	// OldDeprecation and Deprecation are the item's deprecation as each
	// side declares it (before rules and schema files).
	OldDeprecation, Deprecation registry.Deprecation
	// Migratable reports whether the processor (renames, value maps,
	// conversions, splits) can carry data of the old form into the new one
	// without a person deciding; Why says why not.
	Migratable bool
	Why        string
	// Source is the file that defines the item on the new side (the old
	// side for a removal); "" for the embedded default.
	Source string
}

// String renders a change on one line, for messages and tests.
func (c *Change) String() string {
	var b strings.Builder
	b.WriteString(c.Kind.String())
	b.WriteByte(' ')
	b.WriteString(c.Name)
	switch {
	case c.Member != "":
		b.WriteString("=" + c.Member)
		if c.NewValue != "" {
			b.WriteString(" -> " + c.NewValue)
		}
		if c.NewName != "" {
			b.WriteString(" (in " + c.NewName + ")")
		}
	case c.NewName != "":
		b.WriteString(" -> " + c.NewName)
	}
	if c.Context != "" {
		b.WriteString(" on " + c.Context)
	}
	switch _, op, _ := LifecycleOf(c.Kind); {
	case op == OpRenamed && c.OldValue != "":
		fmt.Fprintf(&b, " (was -> %s)", c.OldValue)
	case op == OpRenamed:
	case c.Member != "":
	case c.OldValue != "" || c.NewValue != "":
		fmt.Fprintf(&b, " (%s -> %s)", orNone(c.OldValue), orNone(c.NewValue))
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// Side identifies one registry of a diff.
type Side struct {
	// SchemaURL is the registry's schema URL; Version its last path
	// segment (1.44.0), the semconv_version Weaver reports.
	SchemaURL string `json:"schema_url"`
	Version   string `json:"version"`
	// Digest is the registry's content digest (registry.Index.Digest).
	Digest string `json:"digest"`
	// Warnings are what loading the registry accepted with leniency
	// (registry.Index.Warnings), for the front-end to show.
	Warnings []string `json:"warnings,omitempty"`
}

func sideOf(ix *registry.Index) Side {
	u := ix.SchemaURL()
	v := u
	if i := strings.LastIndexByte(u, '/'); i >= 0 {
		v = u[i+1:]
	}
	return Side{SchemaURL: u, Version: v, Digest: ix.Digest(), Warnings: ix.Warnings()}
}

// Set is the result of Diff: both sides and every change, sorted.
type Set struct {
	Old, New Side
	Changes  []Change
}

// Kinds lists the kinds the set has, in Kind order.
func (s *Set) Kinds() []Kind { return sortedKinds(s.Count()) }

// Count returns the number of changes per kind.
func (s *Set) Count() map[Kind]int {
	out := map[Kind]int{}
	for i := range s.Changes {
		out[s.Changes[i].Kind]++
	}
	return out
}

// Of returns the changes of the given kinds, in order.
func (s *Set) Of(kinds ...Kind) []Change {
	var out []Change
	for _, c := range s.Changes {
		if slices.Contains(kinds, c.Kind) {
			out = append(out, c)
		}
	}
	return out
}

func (s *Set) sort() {
	slices.SortStableFunc(s.Changes, func(a, b Change) int {
		if a.Item != b.Item {
			return int(a.Item) - int(b.Item)
		}
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		if c := strings.Compare(a.Context, b.Context); c != 0 {
			return c
		}
		if a.Kind != b.Kind {
			return int(a.Kind) - int(b.Kind)
		}
		if c := strings.Compare(a.Member, b.Member); c != 0 {
			return c
		}
		return strings.Compare(a.NewName, b.NewName)
	})
}
