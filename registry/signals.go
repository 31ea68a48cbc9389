package registry

import (
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"
)

// SignalKind says what a signal definition describes.
type SignalKind uint8

const (
	SignalMetric SignalKind = iota
	SignalEvent
	SignalSpan
	SignalEntity
)

// String returns "metric", "event", "span" or "entity".
func (k SignalKind) String() string {
	switch k {
	case SignalMetric:
		return "metric"
	case SignalEvent:
		return "event"
	case SignalSpan:
		return "span"
	case SignalEntity:
		return "entity"
	}
	return "unknown"
}

// MaxSignalAttributes bounds the attributes of one signal definition whose
// presence is tracked (semantic conventions v1.44.0 need at most 62).
// Attributes beyond it still belong to the definition but are not checked
// for presence.
const MaxSignalAttributes = 128

// AttrBits is a set of positions in a Signal's Attrs.
type AttrBits [MaxSignalAttributes / 64]uint64

// Set adds position i.
func (b *AttrBits) Set(i int) {
	if i >= 0 && i < MaxSignalAttributes {
		b[i>>6] |= 1 << (uint(i) & 63)
	}
}

// Has reports whether position i is in the set.
func (b *AttrBits) Has(i int) bool {
	return i >= 0 && i < MaxSignalAttributes && b[i>>6]&(1<<(uint(i)&63)) != 0
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
	for i >= 0 && i < MaxSignalAttributes {
		w := b[i>>6] >> (uint(i) & 63)
		if w != 0 {
			return i + bits.TrailingZeros64(w)
		}
		i = (i | 63) + 1
	}
	return -1
}

// Signal is one resolved signal definition: a metric, event, span or entity
// with the attributes that belong to it. Treat it as read-only.
type Signal struct {
	Kind SignalKind
	// ID is the group id (span.http.server, metric.http.server.request.duration).
	ID string
	// Name is the metric, event or entity name; the ID for spans.
	Name      string
	Stability Stability
	// Deprecated reports that the definition itself is deprecated (for a
	// metric, see also Metric.Deprecation).
	Deprecated bool
	// Entities are the definition's entity_associations (metrics and
	// events): the resource must satisfy at least one of them.
	Entities []EntityAssociation
	// SpanKind is the declared kind of a span definition when HasKind.
	SpanKind SpanKind
	HasKind  bool
	// Metric is the metric's definition (instrument, unit, deprecation) for
	// SignalMetric; nil otherwise.
	Metric *Metric
	// Attrs are the definition's attributes sorted by key; an attribute's
	// position is its bit in AttrBits.
	Attrs []SignalAttr
	// Levels holds the positions of Attrs by requirement level.
	Levels [4]AttrBits
	pos    posTable
}

// EntityAssociation is one item of entity_associations: an entity named by
// Entity, or a group of associations of which one (OneOf) or all (AllOf)
// must be satisfied. Exactly one of the three is set.
type EntityAssociation struct {
	Entity string
	OneOf  []EntityAssociation
	AllOf  []EntityAssociation
}

// SignalAttr is one attribute of a signal definition.
type SignalAttr struct {
	Key   string
	Level RequirementLevel
	attr  *Attribute
}

// Position returns the position of a (as returned by Lookup) in s.Attrs,
// or -1 when a does not belong to the definition. It does not allocate.
func (s *Signal) Position(a *Attribute) int {
	if a == nil {
		return -1
	}
	return s.pos.get(a.sigID)
}

// posTable maps an attribute's sigID to its position in one definition:
// open addressing with a multiplicative hash; definitions are small.
type posTable struct {
	ids   []int32 // sigID+1; 0 is empty
	pos   []uint16
	shift uint
}

func newPosTable(attrs []SignalAttr) posTable {
	size := 8
	for size < 2*len(attrs) {
		size <<= 1
	}
	t := posTable{ids: make([]int32, size), pos: make([]uint16, size), shift: uint(64 - bits.TrailingZeros(uint(size)))}
	for i, sa := range attrs {
		if i > math.MaxUint16 {
			break
		}
		j := t.slot(sa.attr.sigID)
		for t.ids[j] != 0 {
			j = (j + 1) & (len(t.ids) - 1)
		}
		t.ids[j], t.pos[j] = sa.attr.sigID+1, uint16(i) //nolint:gosec // bounded above
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

// signalTable maps names to signals (metrics, events): open addressing on
// the registry's key hash, built once.
type signalTable struct {
	slots    []*Signal
	mask     uint64
	maxProbe int
}

func newSignalTable(sigs []*Signal) signalTable {
	size := 16
	for size < 4*len(sigs) {
		size <<= 1
	}
	t := signalTable{slots: make([]*Signal, size), mask: uint64(size - 1)} //nolint:gosec // positive power of two
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

func (t *signalTable) get(name string) *Signal {
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
	Signal *Signal
	// Kinds has bit k set for each selecting SpanKind k; 0 matches any kind.
	Kinds   uint8
	Present uint64 // matcher-key bits
	Absent  uint64
	Where   string // file:line of the matcher
}

// MaxMatcherKeys bounds the distinct attribute keys all span matchers
// together may name.
const MaxMatcherKeys = 64

type signalIndex struct {
	metrics  signalTable // by metric name, placeholders included
	events   signalTable // by event name
	spans    map[string]*Signal
	entities map[string]*Signal
	list     []*Signal // every definition, sorted by kind then ID
	matchers []SpanMatcher
	// namespaces holds every '.'-bounded proper prefix of a registry key
	// that is not a template (Weaver's namespaces_to_check_set).
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

// MetricSignal returns the definition of a metric name (placeholders
// included: their Signal has no attributes), or nil. It does not allocate.
func (ix *Index) MetricSignal(name string) *Signal { return ix.signals.metrics.get(name) }

// EventSignal returns the definition of an event name, or nil. It does not
// allocate.
func (ix *Index) EventSignal(name string) *Signal { return ix.signals.events.get(name) }

// SpanSignal returns the span definition with the given group id, or nil.
func (ix *Index) SpanSignal(id string) *Signal { return ix.signals.spans[id] }

// EntitySignal returns the entity definition with the given name, or nil.
func (ix *Index) EntitySignal(name string) *Signal { return ix.signals.entities[name] }

// Signals lists every signal definition, sorted by kind, then ID.
func (ix *Index) Signals() []*Signal { return append([]*Signal(nil), ix.signals.list...) }

// SpanMatchers lists the span matchers in the order they are tried.
func (ix *Index) SpanMatchers() []SpanMatcher {
	return append([]SpanMatcher(nil), ix.signals.matchers...)
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
func (ix *Index) MatchSpan(k SpanKind, seen uint64) *Signal {
	for i := range ix.signals.matchers {
		m := &ix.signals.matchers[i]
		if m.Kinds != 0 && m.Kinds&(1<<k) == 0 {
			continue
		}
		if seen&m.Present == m.Present && seen&m.Absent == 0 {
			return m.Signal
		}
	}
	return nil
}

// ExtendsNamespace reports whether some '.'-bounded proper prefix of key is
// a namespace of registry attributes (key "http.foo" extends "http"). It
// does not allocate.
func (ix *Index) ExtendsNamespace(key string) bool {
	ns := &ix.signals.namespaces
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

// buildSignals resolves the groups of every layer into signal definitions,
// compiles the span matchers and recomputes the digest to cover both.
func (r *resolver) buildSignals(ix *Index) error {
	for i, a := range ix.attrs {
		a.sigID = int32(i) //nolint:gosec // registries hold far fewer than 2^31 entries
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
	si := signalIndex{spans: map[string]*Signal{}, entities: map[string]*Signal{}}
	namespaces := map[string]struct{}{}
	newSignal := func(kind SignalKind, g *groupDef, name string) (*Signal, error) {
		s := &Signal{
			Kind: kind, ID: g.ID, Name: name, Stability: g.Stability, Deprecated: g.Deprecated,
			Entities: g.Entities, SpanKind: g.SpanKind, HasKind: g.HasKind,
		}
		ga, err := gr.attrs(g.ID, nil)
		if err != nil {
			return nil, err
		}
		for _, a := range ga {
			attr := ix.Attr(ix.table.get(a.Key))
			if attr == nil || attr.Placeholder {
				return nil, fmt.Errorf("%w: %s: group %q: attribute %q is not a known attribute", ErrInvalid, gr.where[g.ID], g.ID, a.Key)
			}
			s.Attrs = append(s.Attrs, SignalAttr{Key: a.Key, Level: a.Level, attr: attr})
		}
		sort.Slice(s.Attrs, func(i, j int) bool { return s.Attrs[i].Key < s.Attrs[j].Key })
		for i, a := range s.Attrs {
			s.Levels[a.Level].Set(i)
		}
		s.pos = newPosTable(s.Attrs)
		return s, nil
	}
	metricGroups := map[string]*groupDef{}
	var events []*Signal
	for _, g := range order {
		var err error
		var s *Signal
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
			s, err = newSignal(SignalEvent, g, g.Name)
			if err == nil {
				events = append(events, s)
			}
		case groupSpan:
			s, err = newSignal(SignalSpan, g, g.ID)
			if err == nil {
				si.spans[g.ID] = s
			}
		case groupEntity:
			if g.Name == "" {
				continue
			}
			s, err = newSignal(SignalEntity, g, g.Name)
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
	si.events = newSignalTable(uniq)
	var metrics []*Signal
	for _, m := range ix.metricList {
		var s *Signal
		if g := metricGroups[m.Name]; g != nil {
			var err error
			if s, err = newSignal(SignalMetric, g, m.Name); err != nil {
				return err
			}
		} else {
			s = &Signal{Kind: SignalMetric, ID: "metric." + m.Name, Name: m.Name}
		}
		s.Metric, s.Stability = m, m.Stability
		metrics = append(metrics, s)
		si.list = append(si.list, s)
	}
	si.metrics = newSignalTable(metrics)
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
	ix.signals = si
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
		s := ix.signals.spans[md.Span]
		if s == nil {
			return fmt.Errorf("%w: %s: matcher: span %q is not a known span definition", ErrInvalid, w, md.Span)
		}
		m := SpanMatcher{Signal: s, Where: w}
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
		ix.signals.matchers = append(ix.signals.matchers, m)
	}
	return nil
}

// appendSignals writes the signal definitions and matchers to the canonical
// form the digest is computed from.
func (ix *Index) appendSignals(b []byte) []byte {
	for _, s := range ix.signals.list {
		b = append(b, "signal "...)
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
	for _, m := range ix.signals.matchers {
		b = append(b, "matcher "...)
		b = strconv.AppendQuote(b, m.Signal.ID)
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
