package registry

import "strings"

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

// Group is one resolved semconv group: a metric, event, span or entity
// with the attributes that belong to it. Treat it as read-only.
type Group struct {
	Kind GroupKind
	// ID is the group id (span.http.server, metric.http.server.request.duration).
	ID string
	// Name is the metric, event or entity name; the ID for spans.
	Name      string
	Stability Stability
	// Deprecated reports that the definition itself is deprecated (for a
	// metric, see also Metric.Deprecation); Deprecation is how it is
	// declared.
	Deprecated  bool
	Deprecation Deprecation
	// Entities are the definition's entity_associations (metrics and
	// events): the resource must satisfy at least one of them.
	Entities []EntityAssociation
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

// ServiceEntityName names the entity every resource is checked against.
const ServiceEntityName = "service"

// ServiceEntity is EntityGroup(ServiceEntityName), without the lookup.
func (ix *Index) ServiceEntity() *Group { return ix.groups.service }

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
