package upgrade

import (
	"slices"

	"github.com/otelgov/otelcol-governance/registry/change"
)

// Touch is what a change set does to one old attribute key or metric name
// that data can carry.
type Touch struct {
	Item change.Item
	// Name is the old name; NewName its current name on the new side ("" when
	// the change set names none).
	Name    string
	NewName string
	// Kinds are the change kinds on the name, in the set's order.
	Kinds []change.Kind
	// Rewritten: the collector on the new registry rewrites the name
	// (attribute_renamed, metric_renamed, split, merge): a consumer reading
	// it stops seeing data once the old name no longer arrives.
	Rewritten bool
	// OldTarget is the name the old registry already renamed it to (the
	// name consumers saw before the upgrade); "" when the name was current
	// in the old registry.
	OldTarget string
	// Values are the old values the change rewrites, to their new value
	// (renamed enum members, value maps).
	Values map[string]string
	// Copyable: the transition window copies the name (old and new side
	// by side, deprecated_names: copy): the collector rewrites it (Breaks)
	// and carries every change that rewrites it in copy mode
	// (change.Carry): a rename, not a split or a merge.
	Copyable bool
}

// Touches indexes a change set by old name: the attributes (keys) and
// metrics whose data a producer sends in its old form. Additions, and
// per-signal changes (requirement levels, attribute sets) are left out: no
// old data carries them.
type Touches struct {
	Attributes map[string]*Touch
	Metrics    map[string]*Touch
	// Manual are the changes a person must carry over during the window
	// (change.Carry: CarrierPerson), per item, name and signal, in the
	// set's order: per-signal changes too (producers must now send an
	// attribute), which no old data carries.
	Manual []Manual
}

// dataKinds are the kinds that change what an old name carries.
var dataKinds = map[change.Kind]bool{
	change.AttributeRenamed: true, change.AttributeRemoved: true, change.AttributeObsoleted: true,
	change.AttributeUncategorized: true, change.EnumMemberRenamed: true, change.EnumMemberRemoved: true,
	change.EnumMemberObsoleted: true, change.TypeChanged: true, change.UnitChanged: true,
	change.InstrumentChanged: true, change.MetricRenamed: true, change.MetricRemoved: true,
	change.MetricObsoleted: true, change.MetricUncategorized: true, change.Split: true, change.Merge: true,
}

// rewriting are the kinds after which the collector sends the name under
// another name.
var rewriting = map[change.Kind]bool{
	change.AttributeRenamed: true, change.MetricRenamed: true, change.Split: true, change.Merge: true,
}

// NewTouches indexes set.
func NewTouches(set *change.Set) *Touches {
	t := &Touches{Attributes: map[string]*Touch{}, Metrics: map[string]*Touch{}, Manual: []Manual{}}
	personInWindow := map[*Touch]bool{}
	for i := range set.Changes {
		c := &set.Changes[i]
		by, why := c.Carry(true)
		if by == change.CarrierPerson {
			t.addManual(c, why)
		}
		if !dataKinds[c.Kind] {
			continue
		}
		var m map[string]*Touch
		switch c.Item {
		case change.ItemAttribute:
			m = t.Attributes
		case change.ItemMetric:
			m = t.Metrics
		case change.ItemEvent, change.ItemSpan, change.ItemEntity:
			continue
		default:
			continue
		}
		tc := m[c.Name]
		if tc == nil {
			tc = &Touch{Item: c.Item, Name: c.Name}
			m[c.Name] = tc
		}
		if !slices.Contains(tc.Kinds, c.Kind) {
			tc.Kinds = append(tc.Kinds, c.Kind)
		}
		switch {
		case c.Kind == change.EnumMemberRenamed:
			if tc.Values == nil {
				tc.Values = map[string]string{}
			}
			tc.Values[c.Member] = c.NewValue
		case rewriting[c.Kind]:
			tc.Rewritten = true
			if c.Kind == change.AttributeRenamed || c.Kind == change.MetricRenamed {
				tc.OldTarget = c.OldValue
			}
			if c.NewName != "" {
				tc.NewName = c.NewName
			}
			for from, to := range c.Values {
				if tc.Values == nil {
					tc.Values = map[string]string{}
				}
				tc.Values[from] = to
			}
		case (c.Kind == change.TypeChanged || c.Kind == change.UnitChanged || c.Kind == change.InstrumentChanged) && c.NewName != "" && tc.NewName == "":
			tc.NewName = c.NewName
		}
		if rewriting[c.Kind] && by != change.CarrierCollector {
			personInWindow[tc] = true
		}
	}
	for _, m := range []map[string]*Touch{t.Attributes, t.Metrics} {
		for _, tc := range m {
			tc.Copyable = tc.Breaks() && !personInWindow[tc]
		}
	}
	return t
}

// addManual lists c, which a person must carry over (why), under its item,
// name and signal: one entry per item, name and signal, with every kind
// and reason (the set is sorted by item, name, context).
func (t *Touches) addManual(c *change.Change, why string) {
	if n := len(t.Manual); n > 0 {
		m := &t.Manual[n-1]
		if m.Item == c.Item.String() && m.Name == c.Name && m.Context == c.Context {
			if k := c.Kind.String(); !slices.Contains(m.Kinds, k) {
				m.Kinds = append(m.Kinds, k)
			}
			if !slices.Contains(m.Why, why) {
				m.Why = append(m.Why, why)
			}
			return
		}
	}
	t.Manual = append(t.Manual, Manual{Item: c.Item.String(), Name: c.Name, Context: c.Context, Kinds: []string{c.Kind.String()}, Why: []string{why}})
}

// Breaks reports whether consumers reading the name saw data before the
// upgrade and stop seeing it: the collector will rewrite a name that was
// current in the old registry.
func (tc *Touch) Breaks() bool { return tc.Rewritten && tc.OldTarget == "" }

// Lookup returns the touch of an old attribute key or metric name.
func (t *Touches) Lookup(name string) *Touch {
	if tc := t.Attributes[name]; tc != nil {
		return tc
	}
	return t.Metrics[name]
}

// Empty reports whether the change set touches no name data carries.
func (t *Touches) Empty() bool { return len(t.Attributes) == 0 && len(t.Metrics) == 0 }

// KindNames are a touch's kinds as names.
func (tc *Touch) KindNames() []string {
	out := make([]string, len(tc.Kinds))
	for i, k := range tc.Kinds {
		out[i] = k.String()
	}
	return out
}
