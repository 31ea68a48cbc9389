package change

import (
	"slices"
	"strings"

	"github.com/otelgov/otelcol-governance/registry"
)

func metricMap(ix *registry.Index) map[string]*registry.Metric {
	m := map[string]*registry.Metric{}
	for _, x := range ix.Metrics() {
		m[x.Name] = x
	}
	return m
}

func definedMetric(m *registry.Metric) bool { return m != nil && !m.Placeholder }

// metrics adds the metrics' lifecycle changes (by name, with collapsed
// renames: Metric.RenamedTo), then compares each (old current name, new
// current name) pair's definitions: unit, instrument, stability and the
// attribute set.
func (d *differ) metrics() {
	olds, news := metricMap(d.old), metricMap(d.new)
	pairs := map[[2]string]bool{}
	for _, name := range unionKeys(olds, news) {
		om, nm := olds[name], news[name]
		switch {
		case !definedMetric(om) && definedMetric(nm):
			d.add(Change{Kind: MetricAdded, Item: ItemMetric, Name: name, NewValue: nm.Instrument, Deprecation: nm.Deprecation, Migratable: true, Source: nm.Source})
		case definedMetric(om) && !definedMetric(nm):
			c := Change{Kind: MetricRemoved, Item: ItemMetric, Name: name, OldValue: om.Instrument, OldDeprecation: om.Deprecation, Source: om.Source, Why: "the new registry does not define the metric"}
			if nm != nil && nm.RenamedTo != "" {
				c.Why = "the new registry does not define the metric; a schema file renames it"
			}
			d.add(c)
		}
		oc, nc := "", ""
		if om != nil {
			oc = om.RenamedTo
		}
		if nm != nil {
			nc = nm.RenamedTo
		}
		on, nn := or(oc, name), or(nc, name)
		pairs[[2]string{on, nn}] = true
		bothDefined := definedMetric(om) && definedMetric(nm)
		depChanged := bothDefined && om.Deprecation != nm.Deprecation
		if oc != nc {
			c := Change{Kind: MetricRenamed, Item: ItemMetric, Name: name, NewName: nn, OldValue: oc, Migratable: true}
			if nm != nil {
				c.Source = nm.Source
			}
			if depChanged {
				c.OldDeprecation, c.Deprecation = om.Deprecation, nm.Deprecation
			}
			d.add(c)
		} else if depChanged {
			d.add(deprecation(ItemMetric, name, om.Deprecation, nm.Deprecation, nc != "", nm.Source))
		}
	}
	for _, p := range sortedPairs(pairs) {
		om, nm := olds[p[0]], news[p[1]]
		if !definedMetric(om) || !definedMetric(nm) {
			continue
		}
		nn := ""
		if p[1] != p[0] {
			nn = p[1]
		}
		if om.Unit != nm.Unit {
			c := Change{Kind: UnitChanged, Item: ItemMetric, Name: p[0], NewName: nn, OldValue: om.Unit, NewValue: nm.Unit, Source: nm.Source}
			if f, ok := UnitFactor(om.Unit, nm.Unit); ok {
				c.Factor, c.Migratable = f, true
			} else {
				c.Why = "no conversion factor from " + quoteUnit(om.Unit) + " to " + quoteUnit(nm.Unit) + " is known"
			}
			d.add(c)
		}
		if om.Instrument != nm.Instrument {
			d.add(Change{
				Kind: InstrumentChanged, Item: ItemMetric, Name: p[0], NewName: nn, OldValue: om.Instrument, NewValue: nm.Instrument, Source: nm.Source,
				Why: "the data points change type (" + om.Instrument + " to " + nm.Instrument + "); queries over them must be rewritten",
			})
		}
		if p[0] == p[1] && om.Stability != nm.Stability {
			d.add(Change{Kind: StabilityChanged, Item: ItemMetric, Name: p[0], OldValue: om.Stability.String(), NewValue: nm.Stability.String(), Migratable: true, Source: nm.Source})
		}
		d.attributeSet(ItemMetric, p[1], d.old.MetricGroup(p[0]), d.new.MetricGroup(p[1]))
	}
}

func quoteUnit(u string) string {
	if u == "" {
		return `""`
	}
	return u
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func sortedPairs(m map[[2]string]bool) [][2]string {
	out := make([][2]string, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	return out
}

// groupKinds maps the group kinds diffed here to their Item; metrics are
// diffed through their Metric (metrics).
var groupKinds = []struct {
	kind registry.GroupKind
	item Item
}{
	{registry.GroupEvent, ItemEvent},
	{registry.GroupSpan, ItemSpan},
	{registry.GroupEntity, ItemEntity},
}

func groupMap(ix *registry.Index, kind registry.GroupKind) map[string]*registry.Group {
	m := map[string]*registry.Group{}
	for _, g := range ix.Groups() {
		if g.Kind == kind {
			m[g.Name] = g
		}
	}
	return m
}

// renamedGroup follows the declared renamed_to of a group on one side to
// the end of the chain (bounded by the number of groups: a cycle stops).
func renamedGroup(m map[string]*registry.Group, name string) string {
	cur := ""
	for range len(m) {
		g := m[or(cur, name)]
		if g == nil || g.Deprecation.Reason != registry.DeprecatedRenamed || g.Deprecation.RenamedTo == "" || g.Deprecation.RenamedTo == or(cur, name) {
			return cur
		}
		cur = g.Deprecation.RenamedTo
	}
	return cur
}

// groups adds the lifecycle, stability and attribute-set changes of
// events (by name), spans (by group id) and entities (by name). Their
// renames are the declared renamed_to, collapsed; the processor renames
// none of them.
func (d *differ) groups() {
	for _, gk := range groupKinds {
		olds, news := groupMap(d.old, gk.kind), groupMap(d.new, gk.kind)
		for _, name := range unionKeys(olds, news) {
			og, ng := olds[name], news[name]
			switch {
			case og == nil && ng != nil:
				d.add(Change{Kind: Lifecycle(gk.item, OpAdded), Item: gk.item, Name: name, Deprecation: ng.Deprecation, Migratable: true})
				continue
			case og != nil && ng == nil:
				d.add(Change{Kind: Lifecycle(gk.item, OpRemoved), Item: gk.item, Name: name, OldDeprecation: og.Deprecation, Why: "the new registry does not define it"})
				continue
			}
			oc, nc := renamedGroup(olds, name), renamedGroup(news, name)
			depChanged := og.Deprecation != ng.Deprecation
			switch {
			case oc != nc:
				d.add(Change{
					Kind: Lifecycle(gk.item, OpRenamed), Item: gk.item, Name: name, NewName: or(nc, name), OldValue: oc,
					OldDeprecation: og.Deprecation, Deprecation: ng.Deprecation,
					Why: "the processor does not rename " + gk.item.String() + "s",
				})
			case depChanged:
				d.add(deprecation(gk.item, name, og.Deprecation, ng.Deprecation, false, ""))
			}
			if og.Stability != ng.Stability {
				d.add(Change{Kind: StabilityChanged, Item: gk.item, Name: name, OldValue: og.Stability.String(), NewValue: ng.Stability.String(), Migratable: true})
			}
			d.attributeSet(gk.item, name, og, ng)
		}
	}
}

// signalContext is where the attributes of a signal's definition sit.
func signalContext(item Item, name string, g *registry.Group) registry.Context {
	switch item {
	case ItemMetric:
		return registry.Context{Location: registry.LocationDataPoint, MetricName: name}
	case ItemEvent:
		return registry.Context{Location: registry.LocationLog}
	case ItemSpan:
		return registry.Context{Location: registry.LocationSpan, SpanKind: g.SpanKind}
	case ItemEntity, ItemAttribute, numItems:
	}
	return registry.Context{Location: registry.LocationResource}
}

// attributeSet compares the attributes of a signal's old definition og
// with its new one ng (the definition of its current name, called name).
// An old key the new definition does not list is looked up under its
// current name on the new side, so a renamed attribute is a rename, not a
// set change.
func (d *differ) attributeSet(item Item, name string, og, ng *registry.Group) {
	if og == nil || ng == nil {
		return
	}
	ctx := signalContext(item, name, ng)
	level := func(k string) (registry.RequirementLevel, bool) {
		for _, a := range ng.Attrs {
			if a.Key == k {
				return a.Level, true
			}
		}
		return 0, false
	}
	matched := map[string]bool{}
	for _, a := range og.Attrs {
		k := a.Key
		nl, ok := level(k)
		if !ok {
			if e := d.new.Lookup(k); e != nil {
				k, _ = e.CurrentName(k, ctx)
			}
			nl, ok = level(k)
		}
		if !ok {
			d.add(Change{Kind: AttributeSetChanged, Item: item, Name: a.Key, NewName: diffName(k, a.Key), Context: name, OldValue: a.Level.String(), Migratable: true})
			continue
		}
		matched[k] = true
		if nl == a.Level {
			continue
		}
		c := Change{Kind: RequirementLevelChanged, Item: item, Name: a.Key, NewName: diffName(k, a.Key), Context: name, OldValue: a.Level.String(), NewValue: nl.String(), Migratable: true}
		if mandatory(nl) && !mandatory(a.Level) {
			c.Migratable, c.Why = false, "producers must now send it ("+nl.String()+")"
		}
		d.add(c)
	}
	for _, a := range ng.Attrs {
		if matched[a.Key] {
			continue
		}
		c := Change{Kind: AttributeSetChanged, Item: item, Name: a.Key, Context: name, NewValue: a.Level.String(), Migratable: true}
		if mandatory(a.Level) {
			c.Migratable, c.Why = false, "producers must now send it ("+a.Level.String()+")"
		}
		d.add(c)
	}
}

func diffName(k, orig string) string {
	if k == orig {
		return ""
	}
	return k
}

func mandatory(l registry.RequirementLevel) bool {
	return l == registry.RequirementRequired || l == registry.RequirementConditionallyRequired
}
