package registry

import (
	"fmt"
	"sort"
	"strings"

	"github.com/otelgov/otelcol-governance/internal/registry/def"
)

// groupResolver resolves groups' inherited attribute lists.
type groupResolver struct {
	groups   map[string]*def.Group
	where    map[string]string
	resolved map[string][]def.GroupAttr
	visiting map[string]bool
}

func (g *groupResolver) attrs(id string, path []string) ([]def.GroupAttr, error) {
	if r, ok := g.resolved[id]; ok {
		return r, nil
	}
	gd, ok := g.groups[id]
	if !ok {
		return nil, fmt.Errorf("%w: group %q is not a known group (inherited by %s)", ErrInvalid, id, strings.Join(path, " <- "))
	}
	if g.visiting[id] {
		return nil, fmt.Errorf("%w: %s: group inheritance cycle: %s", ErrInvalid, g.where[id], strings.Join(append(path, id), " -> "))
	}
	g.visiting[id] = true
	var out []def.GroupAttr
	put := func(a def.GroupAttr) {
		for i := range out {
			if out[i].Key == a.Key {
				if !a.HasLevel {
					a.Level, a.HasLevel = out[i].Level, out[i].HasLevel
				}
				out[i] = a
				return
			}
		}
		out = append(out, a)
	}
	for _, p := range gd.Parents {
		pa, err := g.attrs(p, append(path, id))
		if err != nil {
			return nil, err
		}
		for _, a := range pa {
			put(a)
		}
	}
	for _, a := range gd.Attrs {
		put(a)
	}
	g.visiting[id] = false
	g.resolved[id] = out
	return out, nil
}

// buildGroups resolves the groups of every layer into group definitions,
// compiles the span matchers and recomputes the digest to cover both.
func (r *resolver) buildGroups(ix *Index) error {
	for i, a := range ix.attrs {
		a.ordinal = int32(i) //nolint:gosec // registries hold far fewer than 2^31 entries
	}
	gr := &groupResolver{
		groups:   map[string]*def.Group{},
		where:    map[string]string{},
		resolved: map[string][]def.GroupAttr{},
		visiting: map[string]bool{},
	}
	var order []*def.Group
	for _, l := range r.in.layers {
		for i := range l.defs.Groups {
			g := &l.defs.Groups[i]
			if _, dup := gr.groups[g.ID]; dup {
				continue // the first layer to define an id wins
			}
			gr.groups[g.ID] = g
			gr.where[g.ID] = defWhere(l, g.File, g.Line)
			order = append(order, g)
		}
	}
	si := groupIndex{spans: map[string]*Group{}, entities: map[string]*Group{}}
	namespaces := map[string]struct{}{}
	newGroup := func(kind GroupKind, g *def.Group, name string) (*Group, error) {
		s := &Group{
			Kind: kind, ID: g.ID, Name: name, Stability: g.Stability, Deprecated: g.Deprecation.Reason != NotDeprecated, Deprecation: g.Deprecation,
			Entities: g.Entities, SpanKind: g.SpanKind, HasKind: g.HasKind,
		}
		ga, err := gr.attrs(g.ID, nil)
		if err != nil {
			return nil, err
		}
		s.Attrs = make([]GroupAttr, 0, len(ga))
		for _, a := range ga {
			attr := ix.Attr(ix.table.get(a.Key))
			if attr == nil || attr.Placeholder {
				return nil, fmt.Errorf("%w: %s: group %q: attribute %q is not a known attribute", ErrInvalid, gr.where[g.ID], g.ID, a.Key)
			}
			s.Attrs = append(s.Attrs, GroupAttr{Key: a.Key, Level: a.Level, attr: attr})
		}
		sort.Slice(s.Attrs, func(i, j int) bool { return s.Attrs[i].Key < s.Attrs[j].Key })
		for i, a := range s.Attrs {
			s.Levels[a.Level].Set(i)
		}
		s.pos = newPosTable(s.Attrs)
		return s, nil
	}
	metricGroups := map[string]*def.Group{}
	var events []*Group
	for _, g := range order {
		var err error
		var s *Group
		switch g.Type {
		case def.GroupMetric:
			if _, ok := metricGroups[g.Name]; !ok && g.Name != "" {
				metricGroups[g.Name] = g
			}
			continue
		case def.GroupEvent:
			if g.Name == "" {
				continue
			}
			s, err = newGroup(GroupEvent, g, g.Name)
			if err == nil {
				events = append(events, s)
			}
		case def.GroupSpan:
			s, err = newGroup(GroupSpan, g, g.ID)
			if err == nil {
				si.spans[g.ID] = s
			}
		case def.GroupEntity:
			if g.Name == "" {
				continue
			}
			s, err = newGroup(GroupEntity, g, g.Name)
			if err == nil {
				if _, ok := si.entities[g.Name]; !ok {
					si.entities[g.Name] = s
				}
			}
		default:
			// Attribute groups only feed inheritance, but a broken one is
			// still an error.
			_, err = gr.attrs(g.ID, nil)
		}
		if err != nil {
			return err
		}
		if s != nil {
			si.list = append(si.list, s)
		}
	}
	seenEvents := map[string]bool{}
	uniq := events[:0]
	for _, e := range events {
		if !seenEvents[e.Name] {
			seenEvents[e.Name] = true
			uniq = append(uniq, e)
		}
	}
	si.events = newGroupTable(uniq)
	var metrics []*Group
	for _, m := range ix.metricList {
		var s *Group
		if g := metricGroups[m.Name]; g != nil {
			var err error
			if s, err = newGroup(GroupMetric, g, m.Name); err != nil {
				return err
			}
		} else {
			s = &Group{Kind: GroupMetric, ID: "metric." + m.Name, Name: m.Name}
		}
		s.Metric, s.Stability = m, m.Stability
		metrics = append(metrics, s)
		si.list = append(si.list, s)
	}
	si.metrics = newGroupTable(metrics)
	si.service = si.entities[ServiceEntityName]
	sort.SliceStable(si.list, func(i, j int) bool {
		if si.list[i].Kind != si.list[j].Kind {
			return si.list[i].Kind < si.list[j].Kind
		}
		return si.list[i].ID < si.list[j].ID
	})
	for _, a := range ix.attrs {
		// Weaver's namespaces_to_check_set: the namespaces of the
		// registry's attributes, templates left out.
		if a.Placeholder || a.Template {
			continue
		}
		for i := strings.IndexByte(a.Key, '.'); i > 0; {
			namespaces[a.Key[:i]] = struct{}{}
			j := strings.IndexByte(a.Key[i+1:], '.')
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	si.namespaces = newNameSet(namespaces)
	ix.groups = si
	if err := r.buildMatchers(ix); err != nil {
		return err
	}
	ix.digest = ix.computeDigest()
	return nil
}

// buildMatchers compiles the rules files' span matchers, in rules-file order.
func (r *resolver) buildMatchers(ix *Index) error {
	next := uint8(0)
	for _, md := range r.in.matchers {
		w := where(md.File, md.Line)
		s := ix.groups.spans[md.Span]
		if s == nil {
			return fmt.Errorf("%w: %s: matcher: span %q is not a known span definition", ErrInvalid, w, md.Span)
		}
		m := SpanMatcher{Group: s, Where: w}
		for _, k := range md.SpanKinds {
			m.Kinds |= 1 << k
		}
		bit := func(key string) (uint64, error) {
			a := ix.Attr(ix.table.get(key))
			if a == nil || a.Placeholder {
				return 0, fmt.Errorf("%w: %s: matcher for %q: attribute %q is not a known attribute", ErrInvalid, w, md.Span, key)
			}
			if a.matchBit == 0 {
				if next == MaxMatcherKeys {
					return 0, fmt.Errorf("%w: %s: matchers name more than %d distinct attributes", ErrInvalid, w, MaxMatcherKeys)
				}
				next++
				a.matchBit = next
			}
			return a.MatchBit(), nil
		}
		for _, k := range md.Present {
			b, err := bit(k)
			if err != nil {
				return err
			}
			m.Present |= b
		}
		for _, k := range md.Absent {
			b, err := bit(k)
			if err != nil {
				return err
			}
			m.Absent |= b
		}
		if m.Present&m.Absent != 0 {
			return fmt.Errorf("%w: %s: matcher for %q: an attribute is both present and absent", ErrInvalid, w, md.Span)
		}
		ix.groups.matchers = append(ix.groups.matchers, m)
	}
	return nil
}
