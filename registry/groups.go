package registry

import (
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"
)

// GroupKind says what kind of semconv group a Group is.
type GroupKind uint8

const (
	GroupMetric GroupKind = iota
	GroupEvent
	GroupSpan
	GroupEntity
)

// MaxGroupAttributes bounds the attributes of one group definition whose
// presence is tracked (semantic conventions v1.44.0 need at most 62).
// Attributes beyond it still belong to the definition but are not checked
// for presence.
const MaxGroupAttributes = 128

// AttrBits is a set of positions in a Group's Attrs.
type AttrBits [MaxGroupAttributes / 64]uint64

// Set adds position i.
func (b *AttrBits) Set(i int) {
	if i >= 0 && i < MaxGroupAttributes {
		b[i>>6] |= 1 << (uint(i) & 63)
	}
}

// Has reports whether position i is in the set.
func (b *AttrBits) Has(i int) bool {
	return i >= 0 && i < MaxGroupAttributes && b[i>>6]&(1<<(uint(i)&63)) != 0
}

// AndNot returns b without the positions of c.
func (b AttrBits) AndNot(c AttrBits) AttrBits {
	for i := range b {
		b[i] &^= c[i]
	}
	return b
}

// Or returns the union of b and c.
func (b AttrBits) Or(c AttrBits) AttrBits {
	for i := range b {
		b[i] |= c[i]
	}
	return b
}

// Empty reports whether the set is empty.
func (b *AttrBits) Empty() bool {
	for _, w := range b {
		if w != 0 {
			return false
		}
	}
	return true
}

// Count is the number of positions in the set.
func (b *AttrBits) Count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// Next returns the first position at or after i, or -1.
func (b *AttrBits) Next(i int) int {
	for i >= 0 && i < MaxGroupAttributes {
		w := b[i>>6] >> (uint(i) & 63)
		if w != 0 {
			return i + bits.TrailingZeros64(w)
		}
		i = (i | 63) + 1
	}
	return -1
}

// Group is one resolved semconv group: a metric, event, span or entity
// with the attributes that belong to it. Treat it as read-only.
type Group struct {
	Kind GroupKind
	// ID is the group id (span.http.server, metric.http.server.request.duration).
	ID string
	// Name is the metric, event or entity name; the ID for spans.
	Name      string
	Stability Stability
	// SpanKind is the declared kind of a span definition when HasKind.
	SpanKind SpanKind
	HasKind  bool
	// Metric is the metric's definition (instrument, unit, deprecation) for
	// GroupMetric; nil otherwise.
	Metric *Metric
	// Attrs are the definition's attributes sorted by key; an attribute's
	// position is its bit in AttrBits.
	Attrs []GroupAttr
	// Levels holds the positions of Attrs by requirement level.
	Levels [4]AttrBits
	pos    posTable
}

// GroupAttr is one attribute of a group definition.
type GroupAttr struct {
	Key   string
	Level RequirementLevel
	attr  *Attribute
}

// Position returns the position of a (as returned by Lookup) in s.Attrs,
// or -1 when a does not belong to the definition. It does not allocate.
func (s *Group) Position(a *Attribute) int {
	if a == nil {
		return -1
	}
	return s.pos.get(a.ordinal)
}

// posTable maps an attribute's ordinal to its position in one definition:
// open addressing with a multiplicative hash; definitions are small.
type posTable struct {
	ids   []int32 // sigID+1; 0 is empty
	pos   []uint16
	shift uint
}

func newPosTable(attrs []GroupAttr) posTable {
	size := 8
	for size < 2*len(attrs) {
		size <<= 1
	}
	t := posTable{ids: make([]int32, size), pos: make([]uint16, size), shift: uint(64 - bits.TrailingZeros(uint(size)))}
	for i, sa := range attrs {
		if i > math.MaxUint16 {
			break
		}
		j := t.slot(sa.attr.ordinal)
		for t.ids[j] != 0 {
			j = (j + 1) & (len(t.ids) - 1)
		}
		t.ids[j], t.pos[j] = sa.attr.ordinal+1, uint16(i) //nolint:gosec // bounded above
	}
	return t
}

func (t *posTable) slot(id int32) int {
	return int((uint64(uint32(id)) * 0x9e3779b97f4a7c15) >> t.shift) //nolint:gosec // shift keeps it below len
}

func (t *posTable) get(id int32) int {
	if len(t.ids) == 0 {
		return -1
	}
	mask := len(t.ids) - 1
	for j := t.slot(id); ; j = (j + 1) & mask {
		switch t.ids[j] {
		case 0:
			return -1
		case id + 1:
			return int(t.pos[j])
		}
	}
}

// groupTable maps names to groups (metrics, events): open addressing on
// the registry's key hash, built once.
type groupTable struct {
	slots    []*Group
	mask     uint64
	maxProbe int
}

func newGroupTable(sigs []*Group) groupTable {
	size := 16
	for size < 4*len(sigs) {
		size <<= 1
	}
	t := groupTable{slots: make([]*Group, size), mask: uint64(size - 1)} //nolint:gosec // positive power of two
	for _, s := range sigs {
		i := hashKey(s.Name, 0) & t.mask
		p := 1
		for t.slots[i] != nil {
			i = (i + 1) & t.mask
			p++
		}
		t.slots[i] = s
		t.maxProbe = max(t.maxProbe, p)
	}
	return t
}

func (t *groupTable) get(name string) *Group {
	if len(t.slots) == 0 {
		return nil
	}
	i := hashKey(name, 0) & t.mask
	for range t.maxProbe {
		s := t.slots[i]
		if s == nil {
			return nil
		}
		if s.Name == name {
			return s
		}
		i = (i + 1) & t.mask
	}
	return nil
}

// SpanMatcher selects a span definition for spans of the given kinds that
// carry every Present attribute and none of the Absent ones.
type SpanMatcher struct {
	Group *Group
	// Kinds has bit k set for each selecting SpanKind k; 0 matches any kind.
	Kinds   uint8
	Present uint64 // matcher-key bits
	Absent  uint64
	Where   string // file:line of the matcher
}

// MaxMatcherKeys bounds the distinct attribute keys all span matchers
// together may name.
const MaxMatcherKeys = 64

type groupIndex struct {
	metrics  groupTable // by metric name, placeholders included
	events   groupTable // by event name
	spans    map[string]*Group
	entities map[string]*Group
	list     []*Group // every definition, sorted by kind then ID
	matchers []SpanMatcher
	// namespaces holds every '.'-bounded proper prefix of a registry key.
	namespaces nameSet
}

// nameSet is an immutable set of non-empty strings: open addressing on the
// registry's key hash, so that a membership test allocates nothing and
// costs one hash of at most 16 bytes.
type nameSet struct {
	slots    []string // "" is empty
	mask     uint64
	maxProbe int
}

func newNameSet(names map[string]struct{}) nameSet {
	size := 16
	for size < 4*len(names) {
		size <<= 1
	}
	t := nameSet{slots: make([]string, size), mask: uint64(size - 1)} //nolint:gosec // positive power of two
	for n := range names {
		i := hashKey(n, 0) & t.mask
		p := 1
		for t.slots[i] != "" {
			i = (i + 1) & t.mask
			p++
		}
		t.slots[i] = n
		t.maxProbe = max(t.maxProbe, p)
	}
	return t
}

func (t *nameSet) has(name string) bool {
	if len(t.slots) == 0 || name == "" {
		return false
	}
	i := hashKey(name, 0) & t.mask
	for range t.maxProbe {
		switch t.slots[i] {
		case "":
			return false
		case name:
			return true
		}
		i = (i + 1) & t.mask
	}
	return false
}

// MetricGroup returns the definition of a metric name (placeholders
// included: their Group has no attributes), or nil. It does not allocate.
func (ix *Index) MetricGroup(name string) *Group { return ix.groups.metrics.get(name) }

// EventGroup returns the definition of an event name, or nil. It does not
// allocate.
func (ix *Index) EventGroup(name string) *Group { return ix.groups.events.get(name) }

// SpanGroup returns the span definition with the given group id, or nil.
func (ix *Index) SpanGroup(id string) *Group { return ix.groups.spans[id] }

// EntityGroup returns the entity definition with the given name, or nil.
func (ix *Index) EntityGroup(name string) *Group { return ix.groups.entities[name] }

// Groups lists every group definition, sorted by kind, then ID.
func (ix *Index) Groups() []*Group { return append([]*Group(nil), ix.groups.list...) }

// SpanMatchers lists the span matchers in the order they are tried.
func (ix *Index) SpanMatchers() []SpanMatcher {
	return append([]SpanMatcher(nil), ix.groups.matchers...)
}

// MatchBit returns a's bit in span matchers, or 0 when no matcher names it.
func (a *Attribute) MatchBit() uint64 {
	if a == nil || a.matchBit == 0 {
		return 0
	}
	return 1 << (a.matchBit - 1)
}

// MatchSpan returns the span definition selected by the first matcher that
// accepts a span of kind k whose attributes set the matcher bits seen, or
// nil. It does not allocate.
func (ix *Index) MatchSpan(k SpanKind, seen uint64) *Group {
	for i := range ix.groups.matchers {
		m := &ix.groups.matchers[i]
		if m.Kinds != 0 && m.Kinds&(1<<k) == 0 {
			continue
		}
		if seen&m.Present == m.Present && seen&m.Absent == 0 {
			return m.Group
		}
	}
	return nil
}

// ExtendsNamespace reports whether some '.'-bounded proper prefix of key is
// a namespace of registry attributes (key "http.foo" extends "http"). It
// does not allocate.
func (ix *Index) ExtendsNamespace(key string) bool {
	ns := &ix.groups.namespaces
	for i := strings.LastIndexByte(key, '.'); i > 0; i = strings.LastIndexByte(key[:i], '.') {
		if ns.has(key[:i]) {
			return true
		}
	}
	return false
}

// groupResolver resolves groups' inherited attribute lists.
type groupResolver struct {
	groups   map[string]*groupDef
	where    map[string]string
	resolved map[string][]groupAttr
	visiting map[string]bool
}

func (g *groupResolver) attrs(id string, path []string) ([]groupAttr, error) {
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
	var out []groupAttr
	put := func(a groupAttr) {
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
		groups:   map[string]*groupDef{},
		where:    map[string]string{},
		resolved: map[string][]groupAttr{},
		visiting: map[string]bool{},
	}
	var order []*groupDef
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
	newGroup := func(kind GroupKind, g *groupDef, name string) (*Group, error) {
		s := &Group{Kind: kind, ID: g.ID, Name: name, Stability: g.Stability, SpanKind: g.SpanKind, HasKind: g.HasKind}
		ga, err := gr.attrs(g.ID, nil)
		if err != nil {
			return nil, err
		}
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
	metricGroups := map[string]*groupDef{}
	var events []*Group
	for _, g := range order {
		var err error
		var s *Group
		switch g.Type {
		case groupMetric:
			if _, ok := metricGroups[g.Name]; !ok && g.Name != "" {
				metricGroups[g.Name] = g
			}
			continue
		case groupEvent:
			if g.Name == "" {
				continue
			}
			s, err = newGroup(GroupEvent, g, g.Name)
			if err == nil {
				events = append(events, s)
			}
		case groupSpan:
			s, err = newGroup(GroupSpan, g, g.ID)
			if err == nil {
				si.spans[g.ID] = s
			}
		case groupEntity:
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
	sort.SliceStable(si.list, func(i, j int) bool {
		if si.list[i].Kind != si.list[j].Kind {
			return si.list[i].Kind < si.list[j].Kind
		}
		return si.list[i].ID < si.list[j].ID
	})
	for _, a := range ix.attrs {
		if a.Placeholder {
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
		if a.Template {
			namespaces[a.Key] = struct{}{}
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

// appendGroups writes the group definitions and matchers to the canonical
// form the digest is computed from.
func (ix *Index) appendGroups(b []byte) []byte {
	for _, s := range ix.groups.list {
		b = append(b, "signal "...) // the pre-rename spelling, kept so digests do not change
		b = append(b, s.Kind.String()...)
		b = append(b, ' ')
		b = strconv.AppendQuote(b, s.ID)
		b = append(b, ' ')
		b = strconv.AppendQuote(b, s.Name)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(s.SpanKind), 10)
		for _, a := range s.Attrs {
			b = append(b, ' ')
			b = append(b, a.Key...)
			b = append(b, '=')
			b = append(b, a.Level.String()...)
		}
		b = append(b, '\n')
	}
	for _, m := range ix.groups.matchers {
		b = append(b, "matcher "...)
		b = strconv.AppendQuote(b, m.Group.ID)
		b = append(b, ' ')
		b = strconv.AppendUint(b, uint64(m.Kinds), 10)
		b = append(b, ' ')
		b = strconv.AppendUint(b, m.Present, 16)
		b = append(b, ' ')
		b = strconv.AppendUint(b, m.Absent, 16)
		b = append(b, '\n')
	}
	return b
}
