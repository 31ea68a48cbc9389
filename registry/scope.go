package registry

import (
	"slices"
	"strings"
)

const (
	allLocations uint8 = 1<<numLocations - 1
	allSpanKinds uint8 = 1<<(SpanKindConsumer+1) - 1
	spanLocs     uint8 = 1<<LocationSpan | 1<<LocationSpanEvent | 1<<LocationSpanLink
)

// scope is the set of contexts a rename applies in: a product of a location
// set, a span-kind set, a metric-name set and a span-name set. nil name
// sets mean "any".
type scope struct {
	locs    uint8
	kinds   uint8
	metrics []string // sorted, deduplicated; nil: any
	spans   []string // sorted, deduplicated; nil: any
}

var anyScope = scope{locs: allLocations, kinds: allSpanKinds}

func (s scope) empty() bool {
	return s.locs == 0 || s.kinds == 0 || (s.metrics != nil && len(s.metrics) == 0) || (s.spans != nil && len(s.spans) == 0)
}

// intersect returns the contexts in both s and o.
func (s scope) intersect(o scope) scope {
	return scope{
		locs:    s.locs & o.locs,
		kinds:   s.kinds & o.kinds,
		metrics: intersectNames(s.metrics, o.metrics),
		spans:   intersectNames(s.spans, o.spans),
	}
}

func intersectNames(a, b []string) []string {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	out := []string{}
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); ok {
			out = append(out, x)
		}
	}
	return out
}

// covers reports whether every context in o is also in s.
func (s scope) covers(o scope) bool {
	return s.locs&o.locs == o.locs && s.kinds&o.kinds == o.kinds &&
		namesCover(s.metrics, o.metrics) && namesCover(s.spans, o.spans)
}

func namesCover(a, b []string) bool {
	if a == nil {
		return true
	}
	if b == nil {
		return false
	}
	for _, x := range b {
		if !containsName(a, x) {
			return false
		}
	}
	return true
}

// matches reports whether ctx lies in s. It does not allocate.
func (s *scope) matches(ctx *Context) bool {
	if ctx.Location >= numLocations || s.locs&(1<<ctx.Location) == 0 {
		return false
	}
	if ctx.SpanKind > SpanKindConsumer || s.kinds&(1<<ctx.SpanKind) == 0 {
		return false
	}
	if s.metrics != nil && !containsName(s.metrics, ctx.MetricName) {
		return false
	}
	if s.spans != nil && !containsName(s.spans, ctx.SpanName) {
		return false
	}
	return true
}

// containsName reports whether name is in list. Lists are short (a few
// metric or span names), so a linear scan comparing lengths first beats a
// binary search. It does not allocate.
func containsName(list []string, name string) bool {
	for _, x := range list {
		if len(x) == len(name) && x == name {
			return true
		}
	}
	return false
}

func sortedNames(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	out := slices.Clone(in)
	slices.Sort(out)
	return slices.Compact(out)
}

func locMask(locs []Location) uint8 {
	if len(locs) == 0 {
		return allLocations
	}
	var m uint8
	for _, l := range locs {
		m |= 1 << l
	}
	return m
}

func kindMask(kinds []SpanKind) uint8 {
	if len(kinds) == 0 {
		return allSpanKinds
	}
	var m uint8
	for _, k := range kinds {
		m |= 1 << k
	}
	return m
}

// String renders the scope canonically, for digests, disagreements and tests.
func (s scope) String() string {
	var b strings.Builder
	b.WriteString("locations=")
	if s.locs == allLocations {
		b.WriteString("*")
	} else {
		first := true
		for l := range numLocations {
			if s.locs&(1<<l) != 0 {
				if !first {
					b.WriteByte(',')
				}
				first = false
				b.WriteString(l.String())
			}
		}
	}
	if s.kinds != allSpanKinds {
		b.WriteString(" span_kinds=")
		first := true
		for k := SpanKindUnspecified; k <= SpanKindConsumer; k++ {
			if s.kinds&(1<<k) != 0 {
				if !first {
					b.WriteByte(',')
				}
				first = false
				b.WriteString(k.String())
			}
		}
	}
	if s.metrics != nil {
		b.WriteString(" metrics=" + strings.Join(s.metrics, ","))
	}
	if s.spans != nil {
		b.WriteString(" spans=" + strings.Join(s.spans, ","))
	}
	return b.String()
}

// renameRule is one resolved, scoped rename: in contexts matching scope the
// attribute's final name is target (nil: it keeps its name there).
type renameRule struct {
	scope  scope
	target *Attribute
}

// renameSet is an attribute's ordered rename rules; the first match wins.
type renameSet struct {
	rules []renameRule
	// blooms[i] is a two-bit-per-name Bloom filter of rules[i].scope.metrics
	// (0 when the rule has no metric list); byMetric is set when any rule
	// has one. Target hashes ctx.MetricName once and skips rules whose
	// filter rules the name out, before comparing strings.
	blooms   []uint64
	byMetric bool
}

// metricBloom returns the filter bits of one metric name.
func metricBloom(name string) uint64 {
	h := HashKey(name, 0)
	return 1<<(h&63) | 1<<((h>>6)&63)
}

func newRenameSet(rules []renameRule) renameSet {
	rs := renameSet{rules: rules}
	for _, r := range rules {
		if r.scope.metrics != nil {
			rs.byMetric = true
		}
	}
	if !rs.byMetric {
		return rs
	}
	rs.blooms = make([]uint64, len(rules))
	for i, r := range rules {
		for _, m := range r.scope.metrics {
			rs.blooms[i] |= metricBloom(m)
		}
	}
	return rs
}

// public returns s as a Scope.
func (s scope) public() Scope {
	var out Scope
	if s.locs != allLocations {
		out.Locations = []Location{}
		for l := range numLocations {
			if s.locs&(1<<l) != 0 {
				out.Locations = append(out.Locations, l)
			}
		}
	}
	if s.kinds != allSpanKinds {
		out.SpanKinds = []SpanKind{}
		for k := SpanKindUnspecified; k <= SpanKindConsumer; k++ {
			if s.kinds&(1<<k) != 0 {
				out.SpanKinds = append(out.SpanKinds, k)
			}
		}
	}
	out.Metrics = slices.Clone(s.metrics)
	out.Spans = slices.Clone(s.spans)
	return out
}
