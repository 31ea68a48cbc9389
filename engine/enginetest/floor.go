package enginetest

import (
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/engine/internal/keyeq"
)

// FloorLocation is where a map of attributes sits in a trace, as the
// engine's walk tells them apart (registry.Location's resource, scope,
// span, span event and span link).
type FloorLocation int

// The locations the floor walks, in the engine's order.
const (
	FloorResource FloorLocation = iota
	FloorScope
	FloorSpan
	FloorSpanEvent
	FloorSpanLink
	numFloorLocations
)

// FloorKeys is the least a memo hit must do through pdata's public API,
// deciding nothing (#38): it walks exactly the maps the engine walks
// (Walker.Traces: resource, scope, span, span event and link attributes;
// empty maps skipped) and, for each attribute, reads its key, compares it
// (keyeq.Equal, the hit's comparison) with the key expected at that
// position of a map of that location, and reads the value's type. The
// expected keys are copies of a batch's, as a memo entry's are.
//
// The engine's BenchmarkMemo (memo=floor) times it on the same batches as
// the engine; the testbench's floor processor runs it in a collector.
// FloorKeys is read-only once learnt: FloorWalks over it may run
// concurrently.
type FloorKeys struct {
	want [numFloorLocations][]string
}

// LearnFloor takes the expected keys from a batch: for each location, the
// keys of the last non-empty map of it, in order.
func LearnFloor(td ptrace.Traces) *FloorKeys {
	f := &FloorKeys{}
	EachFloorMap(td, func(l FloorLocation, m pcommon.Map) {
		f.want[l] = f.want[l][:0]
		for k := range m.All() {
			f.want[l] = append(f.want[l], strings.Clone(k))
		}
	})
	return f
}

// FloorWalk is one walk's state: the keys it expects and its tallies.
type FloorWalk struct {
	Keys *FloorKeys
	// Miss counts the keys that differed from the expected ones (or had
	// no expected key at their position) and Types sums the values'
	// types, so that neither read can be optimized away.
	Miss, Types int
}

// Walk does the floor's work on every map of td.
func (w *FloorWalk) Walk(td ptrace.Traces) { EachFloorMap(td, w.attrs) }

// attrs is the floor's work on one map of location l.
func (w *FloorWalk) attrs(l FloorLocation, m pcommon.Map) {
	want := w.Keys.want[l]
	i := 0
	for k, v := range m.All() {
		if i >= len(want) || !keyeq.Equal(want[i], k) {
			w.Miss++
		}
		w.Types += int(v.Type())
		i++
	}
}

// EachFloorMap calls visit with every non-empty attribute map the engine
// walks, in its order, and the location it walks it in.
func EachFloorMap(td ptrace.Traces, visit func(FloorLocation, pcommon.Map)) {
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		rs := rss.At(i)
		if m := rs.Resource().Attributes(); m.Len() > 0 {
			visit(FloorResource, m)
		}
		sss := rs.ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			ss := sss.At(j)
			if m := ss.Scope().Attributes(); m.Len() > 0 {
				visit(FloorScope, m)
			}
			spans := ss.Spans()
			for k := 0; k < spans.Len(); k++ {
				s := spans.At(k)
				if m := s.Attributes(); m.Len() > 0 {
					visit(FloorSpan, m)
				}
				for _, ev := range s.Events().All() {
					if m := ev.Attributes(); m.Len() > 0 {
						visit(FloorSpanEvent, m)
					}
				}
				for _, l := range s.Links().All() {
					if m := l.Attributes(); m.Len() > 0 {
						visit(FloorSpanLink, m)
					}
				}
			}
		}
	}
}
