package testbench

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/internal/e2e"
	"github.com/otelgov/otelcol-governance/registry"
)

func testWorkload(t *testing.T, mix Mix) *Workload {
	t.Helper()
	ix, err := registry.Default()
	require.NoError(t, err)
	w, err := NewWorkload(ix, mix)
	require.NoError(t, err)
	return w
}

// acceptedGenerator is a Generator that "sent" items 0..n-1.
func acceptedGenerator(w *Workload, n uint64) *Generator {
	g := NewGenerator(w, nil, LoadOptions{Signal: Traces})
	g.accepted.setRange(0, n)
	return g
}

// renamed applies what the registry says to td, by the workload's own
// expectation, the way a correct processor would.
func renamed(w *Workload, td ptrace.Traces, e Expectation) {
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				seq, _ := seqOfSpanID(s.SpanID())
				attrs := s.Attributes()
				url, _ := attrs.Get(seqKey)
				u := url.Str()
				attrs.Clear()
				for _, a := range w.profiles[Traces][w.ProfileOf(seq)].want[expectationIndex(e)] {
					a.val.CopyTo(attrs.PutEmpty(a.key))
				}
				attrs.PutStr(seqKey, u)
			}
		}
	}
}

func TestBackendVerdicts(t *testing.T) {
	w := testWorkload(t, Mix{})
	const n = 500
	start := time.Unix(1_700_000_000, 0)
	for _, tt := range []struct {
		name   string
		expect Expectation
		mutate func(ptrace.Traces)
		check  func(t *testing.T, r Report)
	}{
		{
			name: "exact", expect: Expectation{Rename: true, DropUnknown: true},
			mutate: func(td ptrace.Traces) { renamed(w, td, Expectation{Rename: true, DropUnknown: true}) },
			check:  func(t *testing.T, r Report) { assert.True(t, r.OK(), r.String()) },
		},
		{
			name: "one item lost", expect: Expectation{},
			mutate: func(td ptrace.Traces) {
				for _, rs := range td.ResourceSpans().All() {
					rs.ScopeSpans().At(0).Spans().RemoveIf(func(s ptrace.Span) bool {
						seq, _ := seqOfSpanID(s.SpanID())
						return seq == 137
					})
				}
			},
			check: func(t *testing.T, r Report) {
				assert.False(t, r.OK())
				assert.Equal(t, uint64(1), r.Lost)
			},
		},
		{
			name: "one value changed", expect: Expectation{},
			mutate: func(td ptrace.Traces) {
				s := td.ResourceSpans().At(1).ScopeSpans().At(0).Spans().At(3)
				for k, v := range s.Attributes().All() {
					if k != seqKey {
						v.SetStr(v.AsString() + "!")
						break
					}
				}
			},
			check: func(t *testing.T, r Report) {
				assert.False(t, r.OK())
				assert.Equal(t, uint64(1), r.Invalid)
			},
		},
		{
			name: "per-item value changed", expect: Expectation{},
			mutate: func(td ptrace.Traces) {
				td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes().PutStr(seqKey, "/items/x")
			},
			check: func(t *testing.T, r Report) { assert.Equal(t, uint64(1), r.Invalid) },
		},
		{
			name: "deprecated keys not renamed", expect: Expectation{Rename: true},
			mutate: func(ptrace.Traces) {},
			check: func(t *testing.T, r Report) {
				assert.False(t, r.OK())
				assert.Positive(t, r.Invalid)
			},
		},
		{
			name: "unknown keys not dropped", expect: Expectation{DropUnknown: true},
			mutate: func(ptrace.Traces) {},
			check:  func(t *testing.T, r Report) { assert.Positive(t, r.Invalid) },
		},
		{
			name: "allowed key dropped", expect: Expectation{DropUnknown: true},
			mutate: func(td ptrace.Traces) {
				renamed(w, td, Expectation{DropUnknown: true})
				td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes().Remove(AllowedKey)
			},
			check: func(t *testing.T, r Report) {
				assert.Equal(t, uint64(1), r.Invalid, r.String())
			},
		},
		{
			name: "span kind changed", expect: Expectation{},
			mutate: func(td ptrace.Traces) {
				s := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
				s.SetKind(s.Kind()%5 + 1)
			},
			check: func(t *testing.T, r Report) { assert.Equal(t, uint64(1), r.Invalid) },
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := StartBackend(t, w, tt.expect)
			td := w.Traces(0, n, start)
			tt.mutate(td)
			b.traces(td)
			tt.check(t, b.Verify(Traces, acceptedGenerator(w, n)))
		})
	}
}

func TestBackendCatchesDuplicate(t *testing.T) {
	w := testWorkload(t, Mix{})
	b := StartBackend(t, w, Expectation{})
	start := time.Unix(1_700_000_000, 0)
	b.traces(w.Traces(0, 100, start))
	b.traces(w.Traces(99, 1, start))
	r := b.Verify(Traces, acceptedGenerator(w, 100))
	assert.False(t, r.OK())
	assert.Equal(t, uint64(1), r.Duplicates)
	assert.Equal(t, uint64(101), r.Received)
}

func TestBackendLogsAndMetrics(t *testing.T) {
	w := testWorkload(t, Mix{})
	b := StartBackend(t, w, Expectation{})
	start := time.Unix(1_700_000_000, 0)
	b.logs(w.Logs(0, 300, start))
	b.metrics(w.Metrics(0, 300, start))
	g := acceptedGenerator(w, 300)
	assert.True(t, b.Verify(Logs, g).OK())
	assert.True(t, b.Verify(Metrics, g).OK())

	ld := w.Logs(300, 1, start)
	ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0).Body().SetStr("changed")
	b.logs(ld)
	assert.Equal(t, uint64(1), b.Verify(Logs, acceptedGenerator(w, 301)).Invalid)
}

func TestWorkloadDeterministicAndMixed(t *testing.T) {
	w1 := testWorkload(t, Mix{Seed: 7})
	w2 := testWorkload(t, Mix{Seed: 7})
	start := time.Unix(1_700_000_000, 0)
	a, b := w1.Traces(1000, 200, start), w2.Traces(1000, 200, start)
	assert.Equal(t, a, b)

	// The mix holds context-dependent renames, and span kinds where they
	// apply and where they do not.
	var contextual int
	for _, r := range w1.Renames {
		if _, all := spanGroups(r); !all {
			contextual++
		}
	}
	assert.Positive(t, contextual)
	kinds := map[ptrace.SpanKind]bool{}
	for seq := range uint64(1000) {
		kinds[w1.KindOf(seq)] = true
	}
	assert.Len(t, kinds, 5)

	// Every profile has deprecated, unknown, allowed and template keys.
	ix, err := registry.Default()
	require.NoError(t, err)
	for _, p := range w1.profiles[Traces] {
		var dep, unk, allowed, tpl int
		for _, a := range p.attrs {
			at := ix.Lookup(a.key)
			switch {
			case a.key == AllowedKey:
				allowed++
			case at == nil:
				unk++
			case at.Template:
				tpl++
			case at.Renamed():
				dep++
			}
		}
		assert.Equal(t, 3, dep)
		assert.Equal(t, 2, unk)
		assert.Equal(t, 1, allowed)
		assert.Equal(t, 1, tpl)
	}
	// Services are spread.
	services := map[int]bool{}
	for seq := range uint64(1000) {
		services[w1.ServiceOf(seq)] = true
	}
	assert.Len(t, services, 10)
}

func TestBitsetMissing(t *testing.T) {
	var have, want bitset
	want.setRange(0, 200)
	have.setRange(0, 200)
	_, n := have.missing(&want, 5)
	assert.Zero(t, n)
	have = bitset{}
	have.setRange(0, 70)
	have.setRange(71, 129)
	miss, n := have.missing(&want, 5)
	assert.Equal(t, uint64(1), n)
	assert.Equal(t, []uint64{70}, miss)
	assert.Equal(t, uint64(199), have.count())
}

func TestPromLabel(t *testing.T) {
	assert.Equal(t, "http_request_method", PromLabel("http.request.method"))
	assert.Equal(t, "key_1a", PromLabel("1a"))
}

// TestBackendNewShapes: with Mix.NewShapes every item's map starts with a key
// of its own, and the backend requires it, so that an adversarial soak still
// proves nothing was lost or changed.
func TestBackendNewShapes(t *testing.T) {
	w := testWorkload(t, Mix{NewShapes: true})
	start := time.Unix(1_700_000_000, 0)
	td := w.Traces(0, 50, start)
	seen := map[string]bool{}
	for _, rs := range td.ResourceSpans().All() {
		for _, s := range rs.ScopeSpans().At(0).Spans().All() {
			for k := range s.Attributes().All() {
				require.True(t, len(k) > len(ShapeKeyPrefix) && k[:len(ShapeKeyPrefix)] == ShapeKeyPrefix, "first key %q", k)
				assert.False(t, seen[k], "shape key %q repeated", k)
				seen[k] = true
				break
			}
		}
	}
	assert.Len(t, seen, 50)

	b := StartBackend(t, w, Expectation{})
	b.traces(td)
	assert.True(t, b.Verify(Traces, acceptedGenerator(w, 50)).OK())

	// An item that lost its shape key is caught.
	b2 := StartBackend(t, w, Expectation{})
	td2 := w.Traces(0, 50, start)
	s := td2.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	seq, _ := seqOfSpanID(s.SpanID())
	s.Attributes().Remove(string(appendShapeKey(nil, seq)))
	b2.traces(td2)
	assert.False(t, b2.Verify(Traces, acceptedGenerator(w, 50)).OK())
}

// TestGeneratorStopsAtEndWhenBehind: a worker behind its schedule (every
// export slower than the rate allows) stops when the run's time is up,
// instead of sending every request its schedule still owes.
func TestGeneratorStopsAtEndWhenBehind(t *testing.T) {
	w := testWorkload(t, Mix{})
	b := StartBackend(t, w, Expectation{})
	const delay = 200 * time.Millisecond
	b.SetDelay(delay)
	client, err := e2e.NewClient(b.Endpoint, "")
	require.NoError(t, err)
	defer client.Close()
	// 1,000 items/s in requests of 10: one request due every 10 ms, each
	// taking 200 ms. In 500 ms the schedule owes 50 requests; a worker
	// that sent them all would run for 10 s.
	gen := NewGenerator(w, client, LoadOptions{Signal: Traces, BatchSize: 10, Workers: 1, Rate: 1000})
	const d = 500 * time.Millisecond
	st := gen.Run(t.Context(), d)
	assert.LessOrEqual(t, st.Requests, uint64(d/delay)+1, "requests sent after the run's end")
	assert.Positive(t, st.Behind, "the worker was never behind its schedule: the test does not test")
}
