package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/registry"

	"github.com/otelgov/otelcol-governance/engine/enginetest"
)

// BenchmarkRename measures the renames of one map: with 4 renames, four
// deprecated keys of a 13-attribute map are renamed and renamed back, eight
// renames per op; with 13, every key is. No allocation, no timer juggling.
// path=scan is apply's renameAll (a scan per rename), path=plan a memo
// hit's renamePlan of the same renames.
func BenchmarkRename(b *testing.B) {
	for _, bm := range []struct {
		name string
		mix  enginetest.Mix
	}{
		{name: "renames=4", mix: enginetest.MixDeprecated},
		{name: "renames=13", mix: enginetest.MixDeprecatedAll},
	} {
		for _, path := range []string{"scan", "plan"} {
			b.Run(bm.name+"/path="+path, func(b *testing.B) { benchRename(b, bm.mix, path == "plan") })
		}
	}
}

func benchRename(b *testing.B, mix enginetest.Mix, plan bool) {
	e, ix := newTestEngine(b, defaultOptions())
	w := e.Walker(ix, false)
	defer e.Release(w)
	td := enginetest.WireTraces(enginetest.GenTraces(1, mix))
	m := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes()
	// The renames in map order, as the walk queues them.
	var forward, back []op
	for k := range m.All() {
		if a := ix.Lookup(k); a != nil {
			if t := a.Target(registry.Context{Location: registry.LocationSpan, SpanKind: registry.SpanKindServer}); t != nil {
				forward = append(forward, op{kind: opRename, key: k, target: t.Key})
				back = append(back, op{kind: opRename, key: t.Key, target: k})
			}
		}
	}
	if len(forward) != mix.Deprecated {
		b.Fatalf("%d renames, want %d", len(forward), mix.Deprecated)
	}
	renames := float64(2 * len(forward))
	run := func(ops []op) {
		w.apply(m, ops, &opCounts{move: len(ops), rename: len(ops)}, nil)
	}
	var keys []string
	if plan {
		// A plan holds for one layout: the one that renaming forward and
		// back leaves (renameAll puts the targets after the kept keys, in
		// the ops' order), and after the forward renames the kept keys,
		// then the targets.
		run(forward)
		run(back)
		var renamed []string
		for k := range m.All() {
			keys = append(keys, k)
			if !slices.ContainsFunc(forward, func(o op) bool { return o.key == k }) {
				renamed = append(renamed, k)
			}
		}
		for _, o := range forward {
			renamed = append(renamed, o.target)
		}
		fwd, bck := renamePlanOf(b, keys, forward), renamePlanOf(b, renamed, back)
		run = func(ops []op) {
			// The handles memoWalk keeps, on the stack as there.
			var vals [handlesSmall]pcommon.Value
			i := 0
			for _, v := range m.All() {
				vals[i] = v
				i++
			}
			if &ops[0] == &forward[0] {
				w.layOut(m, fwd, vals[:i], 0)
			} else {
				w.layOut(m, bck, vals[:i], 0)
			}
		}
	}
	first, _ := m.Get(forward[0].key)
	want := first.AsString()
	b.ReportAllocs()
	clock := enginetest.StartCPU()
	for b.Loop() {
		run(forward)
		run(back)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/renames, "ns/rename")
	b.ReportMetric(float64(clock.Since().Nanoseconds())/float64(b.N)/renames, "cpu-ns/rename")
	if m.Len() != enginetest.AttrsPerItem {
		b.Fatalf("map has %d entries", m.Len())
	}
	if v, ok := m.Get(forward[0].key); !ok || v.AsString() != want {
		b.Fatalf("%s not renamed back to %q", forward[0].key, want)
	}
	if plan {
		i := 0
		for k := range m.All() {
			if k != keys[i] {
				b.Fatalf("position %d is %s, want %s", i, k, keys[i])
			}
			i++
		}
	}
}

// renamePlanOf is the renamePlan of ops (renames, in map order) on a map
// of keys.
func renamePlanOf(tb testing.TB, keys []string, ops []op) *renamePlan {
	tb.Helper()
	var renames []planRename
	for _, o := range ops {
		i := slices.Index(keys, o.key)
		if i < 0 {
			tb.Fatalf("%s not in %v", o.key, keys)
		}
		renames = append(renames, planRename{at: uint16(i), to: o.target}) //nolint:gosec // a 13-key map
	}
	p := newRenamePlan(keys, renames)
	if p == nil {
		tb.Fatalf("no plan for %d renames of %d keys", len(ops), len(keys))
	}
	return p
}

// BenchmarkLookupOnly is the registry's share of the conforming walk: the
// same keys, only Index.Lookup. The difference to BenchmarkTraces/conformant
// is the engine's own cost per attribute.
func BenchmarkLookupOnly(b *testing.B) {
	_, ix := newTestEngine(b, defaultOptions())
	td := enginetest.WireTraces(enginetest.GenTraces(100, enginetest.MixConformant))
	var keys []string
	for _, s := range td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().All() {
		for k := range s.Attributes().All() {
			keys = append(keys, k)
		}
	}
	found := 0
	clock := enginetest.StartCPU()
	b.ReportAllocs()
	for b.Loop() {
		for _, k := range keys {
			if ix.Lookup(k) != nil {
				found++
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(keys)), "ns/attribute")
	clock.Report(b, float64(len(keys)))
	if found == 0 {
		b.Fatal("no key found")
	}
}

// BenchmarkSignalChecks is the cost of the signal conformance checks per
// item: the same conforming batch (100 spans, data points or log records of
// 13 attributes) walked with Findings off, on, and on with the report.
func BenchmarkSignalChecks(b *testing.B) {
	type signal struct {
		name string
		walk func(w *Walker)
	}
	td := enginetest.WireTraces(enginetest.GenTraces(100, enginetest.MixConformant))
	md := enginetest.WireMetrics(enginetest.GenMetrics(100, enginetest.MixConformant))
	ld := enginetest.WireLogs(enginetest.GenLogs(100, enginetest.MixConformant))
	signals := []signal{
		{"traces", func(w *Walker) { w.Traces(td) }},
		{"metrics", func(w *Walker) { w.Metrics(md) }},
		{"logs", func(w *Walker) { w.Logs(ld) }},
	}
	for _, s := range signals {
		for _, mode := range []string{"off", "on", "on_report"} {
			b.Run(s.name+"/"+mode, func(b *testing.B) {
				opts := defaultOptions()
				opts.Findings = mode != "off"
				opts.Detail = mode == "on_report"
				e, ix := newTestEngine(b, opts)
				b.ReportAllocs()
				clock := enginetest.StartCPU()
				for b.Loop() {
					w := e.Walker(ix, true)
					s.walk(w)
					_ = w.Batch()
					e.Release(w)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100, "ns/item")
				b.ReportMetric(float64(clock.Since().Nanoseconds())/float64(b.N)/100, "cpu-ns/item")
			})
		}
	}
}

// Mixes and batch sizes of the honest walk benchmarks.
var (
	walkMixes = []struct {
		name string
		mix  enginetest.Mix
	}{
		{name: "conformant", mix: enginetest.MixConformant},
		{name: "deprecated_30pct", mix: enginetest.MixDeprecated},
		{name: "deprecated_100pct", mix: enginetest.MixDeprecatedAll},
		{name: "realistic", mix: enginetest.MixRealistic},
	}
	walkSizes = []int{1, 10, 100, 512}
)

// BenchmarkWalk is the engine's walk as production sees it. Every iteration
// walks a fresh batch unmarshalled from OTLP protobuf bytes (outside the
// timer), so keys are new strings and no batch is walked twice; cold
// iterations also evict L1 and L2 (enginetest.Evict) between the unmarshal
// and the walk, so that the batch, the registry table and the walker come
// from L3 or memory. The timer covers the walker from the pool, the walk,
// the renames and the release. Batch sizes 1 to 512 spans expose the fixed
// cost per batch. Besides wall time, the CPU time of the benchmark's own
// thread is reported (cpu-ns/...): on a loaded machine it excludes the time
// other processes held the core, and the garbage collector's work on other
// threads for the unmarshalled batches.
//
// Run: go test ./engine -run '^$' -bench Walk -benchtime 2000x
func BenchmarkWalk(b *testing.B) {
	for _, checks := range []string{"off", "on"} {
		opts := defaultOptions()
		// checks=on is the processor's default: the signal conformance
		// checks (findings) run in the same walk.
		opts.Findings = checks == "on"
		benchmarkWalk(b, "checks="+checks, opts)
	}
}

func benchmarkWalk(b *testing.B, prefix string, opts Options) {
	e, ix := newTestEngine(b, opts)
	for _, m := range walkMixes {
		for _, n := range walkSizes {
			for _, cold := range []bool{false, true} {
				name := fmt.Sprintf("%s/mix=%s/spans=%d/cache=%s", prefix, m.name, n, map[bool]string{false: "warm", true: "cold"}[cold])
				b.Run(name, func(b *testing.B) {
					wire := enginetest.TracesBytes(enginetest.GenTraces(n, m.mix))
					walkFresh(b, e, ix, cold, func() ptrace.Traces { return enginetest.UnmarshalTraces(wire) },
						map[string]float64{"span": float64(n), "attribute": float64(td(wire).attrs())})
				})
			}
		}
	}
}

// td wraps a batch for counting.
type tdBytes struct{ t ptrace.Traces }

func td(wire []byte) tdBytes { return tdBytes{enginetest.UnmarshalTraces(wire)} }

// attrs counts every attribute the walk visits.
func (t tdBytes) attrs() int {
	n := 0
	for _, rs := range t.t.ResourceSpans().All() {
		n += rs.Resource().Attributes().Len()
		for _, ss := range rs.ScopeSpans().All() {
			n += ss.Scope().Attributes().Len()
			for _, s := range ss.Spans().All() {
				n += s.Attributes().Len()
			}
		}
	}
	return n
}

// BenchmarkMemo is the shape memo's figures on the walk as production sees
// it (fresh batches unmarshalled from OTLP bytes outside the timer, as
// BenchmarkWalk), checks on, with and without the report feed
// (Options.Detail, the conformance report's input, on wherever the
// registry extension is used): the cost per conforming attribute of a
// 100-span batch, per renamed attribute (every key deprecated), and the
// cost of a 1-span and a 10-span batch, whose difference gives the fixed
// cost per batch; the line rate's deprecated workload (10 static renames
// of 13 keys), its old-values one (the same with 3 of the renamed keys'
// values migrating with them) and its mixed one (the deprecated one, 4
// unknown keys and a template instance: 18 keys); and the realistic mix (3 deprecated, 3 unknown, 1
// template of 13) per span. memo=off is the full walk of every map.
//
// Run: go test ./engine -run '^$' -bench Memo -benchtime 1000x
func BenchmarkMemo(b *testing.B) {
	for _, memo := range []string{"on", "off", "floor"} {
		for _, report := range []string{"off", "on"} {
			if memo == "floor" && report == "on" {
				continue // the floor decides nothing: no report
			}
			opts := defaultOptions()
			opts.Findings, opts.Detail = true, report == "on"
			e, ix := newTestEngine(b, opts)
			if memo == "off" {
				e.memo = nil
			}
			for _, c := range []struct {
				name  string
				put   func(pcommon.Map)
				spans int
			}{
				{"conformant", enginetest.PutMix(enginetest.MixConformant), 100},
				{"renames", enginetest.PutMix(enginetest.MixDeprecatedAll), 100},
				{"deprecated", enginetest.PutLineDeprecatedAttrs, 100},
				{"old-values", enginetest.PutLineOldValuesAttrs, 100},
				{"mixed", enginetest.PutLineMixedAttrs, 100},
				{"realistic", enginetest.PutMix(enginetest.MixRealistic), 100},
				{"batch", enginetest.PutMix(enginetest.MixConformant), 1},
				{"batch", enginetest.PutMix(enginetest.MixConformant), 10},
			} {
				for _, cold := range []bool{false, true} {
					name := fmt.Sprintf("memo=%s/report=%s/%s/spans=%d/cache=%s", memo, report, c.name, c.spans, map[bool]string{false: "warm", true: "cold"}[cold])
					wire := enginetest.TracesBytes(enginetest.GenTracesWith(c.spans, c.put))
					b.Run(name, func(b *testing.B) {
						next := func() ptrace.Traces { return enginetest.UnmarshalTraces(wire) }
						units := map[string]float64{"attribute": float64(td(wire).attrs()), "span": float64(c.spans)}
						if memo == "floor" {
							floorFresh(b, cold, next, units)
							return
						}
						walkFresh(b, e, ix, cold, next, units)
					})
				}
			}
		}
	}
}

// floorFresh times enginetest.FloorKeys (the least a memo hit must do
// through pdata's public API, deciding nothing) over fresh batches as
// walkFresh times the engine, and checks that every key was the expected
// one: governance ÷ floor is memo=on's cpu-ns/span over memo=floor's.
func floorFresh(b *testing.B, cold bool, next func() ptrace.Traces, units map[string]float64) {
	f := &enginetest.FloorWalk{Keys: enginetest.LearnFloor(next())}
	chunk := enginetest.WarmChunk(len(enginetest.TracesBytes(next())))
	clock := enginetest.TimeFresh(b, cold, chunk, next, f.Walk)
	clock.Report(b, units)
	if f.Miss != 0 || f.Types == 0 {
		b.Fatalf("floor: %d keys missed, type sum %d", f.Miss, f.Types)
	}
}

// BenchmarkMemoAdversarial is the walk of batches in which every span's
// attribute map has a shape never seen before: 13 attributes, two of them
// keys made of random bytes (an http.request.header.<random> template
// instance and an unknown app.<random> key) at random positions. The
// memo can only miss; memo=off is the full walk, as without a memo.
//
// Run: go test ./engine -run '^$' -bench MemoAdversarial -benchtime 1000x
func BenchmarkMemoAdversarial(b *testing.B) {
	for _, memo := range []string{"on", "off"} {
		b.Run("memo="+memo, func(b *testing.B) {
			opts := defaultOptions()
			opts.Findings = true
			e, ix := newTestEngine(b, opts)
			if memo == "off" {
				e.memo = nil
			}
			r := rand.New(rand.NewPCG(1, 2)) //nolint:gosec // reproducible benchmark input
			gen := func() ptrace.Traces {
				td := enginetest.GenTraces(100, enginetest.MixConformant)
				spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
				for i := range spans.Len() {
					m := spans.At(i).Attributes()
					// Two of the 13 keys replaced by random ones, at
					// random positions (the map keeps 13 entries).
					m.RemoveIf(func(k string, _ pcommon.Value) bool {
						return k == "url.scheme" || k == "client.address"
					})
					m.PutStr(fmt.Sprintf("http.request.header.x-%016x", r.Uint64()), "v")
					m.PutStr(fmt.Sprintf("app.k%016x", r.Uint64()), "v")
				}
				return enginetest.UnmarshalTraces(enginetest.TracesBytes(td))
			}
			walkFresh(b, e, ix, false, gen, map[string]float64{"attribute": float64(100*enginetest.AttrsPerItem + 6), "span": 100})
			b.Logf("%+v", e.MemoStats())
			if memo == "on" && e.MemoStats().Hits > int64(b.N) {
				b.Fatalf("adversarial batches hit the memo: %+v", e.MemoStats())
			}
		})
	}
}

// walkFresh times the walk of one fresh batch per iteration (next, outside
// the timer; cold: L1 and L2 evicted after it; warm: small batches made and
// walked a chunk at a time, enginetest.TimeFresh), from the walker taken
// from the pool to its release, tally read, in thread CPU time per unit.
func walkFresh(b *testing.B, e *Engine, ix *registry.Index, cold bool, next func() ptrace.Traces, units map[string]float64) {
	chunk := enginetest.WarmChunk(len(enginetest.TracesBytes(next())))
	clock := enginetest.TimeFresh(b, cold, chunk, next, func(td ptrace.Traces) {
		w := e.Walker(ix, false)
		w.Traces(td)
		_ = w.Batch()
		e.Release(w)
	})
	clock.Report(b, units)
}

// BenchmarkMemoSameBatch walks one conforming 100-span batch, unmarshalled
// once, again and again: governance (memo=on, a hit per map) and the floor
// (enginetest.FloorWalk). A conforming hit changes nothing, so every walk is the same;
// with no allocation and no unmarshal in the process's steady state, it is
// the instrument for counting instructions, which a busy machine does not
// disturb as it does time (#38):
//
//	go test -c -o /tmp/engine.test ./engine
//	GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind /tmp/engine.test \
//	    -test.run '^$' -test.bench 'MemoSameBatch' -test.benchtime 3000x -test.cpu 1
//	callgrind_annotate --inclusive=yes callgrind.out.* | grep -E 'Walker\)\.Traces|FloorWalk\)\.Walk'
//
// (asynchronous preemption off: callgrind does not follow its signals).
func BenchmarkMemoSameBatch(b *testing.B) {
	opts := defaultOptions()
	opts.Findings = true
	e, ix := newTestEngine(b, opts)
	td := enginetest.UnmarshalTraces(enginetest.TracesBytes(enginetest.GenTraces(100, enginetest.MixConformant)))
	b.Run("memo=on", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			w := e.Walker(ix, false)
			w.Traces(td)
			_ = w.Batch()
			e.Release(w)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100, "ns/span")
	})
	b.Run("memo=floor", func(b *testing.B) {
		f := &enginetest.FloorWalk{Keys: enginetest.LearnFloor(td)}
		b.ReportAllocs()
		for b.Loop() {
			f.Walk(td)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100, "ns/span")
		if f.Miss != 0 {
			b.Fatalf("floor: %d keys missed", f.Miss)
		}
	})
}
