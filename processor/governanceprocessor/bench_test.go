package governanceprocessor

import (
	"context"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Benchmarks walk 100 items x 13 attributes per op, recording telemetry into a
// real SDK meter provider. Batches the walk changes are re-created outside
// the timer. Run: go test -run '^$' -bench . -benchtime 2s ./processor/governanceprocessor/
const benchItems = 100

var benchMixes = []struct {
	name string
	mix  attrMix
}{
	{name: "conformant", mix: mixConformant},
	{name: "deprecated_30pct", mix: mixDeprecated},
	{name: "unknown_30pct", mix: mixUnknown},
}

// Benchmark data goes through an OTLP protobuf round trip, so that keys and
// values sit in memory as a receiver leaves them (one allocation each), not
// as shared string constants.
func wireTraces(td ptrace.Traces) ptrace.Traces {
	b, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	if err != nil {
		panic(err)
	}
	out, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(b)
	if err != nil {
		panic(err)
	}
	return out
}

func wireMetrics(md pmetric.Metrics) pmetric.Metrics {
	b, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
	if err != nil {
		panic(err)
	}
	out, err := (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics(b)
	if err != nil {
		panic(err)
	}
	return out
}

func wireLogs(ld plog.Logs) plog.Logs {
	b, err := (&plog.ProtoMarshaler{}).MarshalLogs(ld)
	if err != nil {
		panic(err)
	}
	out, err := (&plog.ProtoUnmarshaler{}).UnmarshalLogs(b)
	if err != nil {
		panic(err)
	}
	return out
}

func reportPerItem(b *testing.B, unit string) {
	b.Helper()
	perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(perOp/benchItems, "ns/"+unit)
	b.ReportMetric(perOp/(benchItems*attrsPerItem), "ns/attribute")
}

// cpuClock measures process CPU time. On a shared machine wall time includes
// time stolen by other processes; CPU time does not (it does include GC and
// telemetry work, which are part of the cost).
type cpuClock struct{ start time.Duration }

func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startCPU() cpuClock { return cpuClock{start: cpuNow()} }

// report adds CPU ns per attribute; only for benchmarks without untimed
// set-up inside the loop, whose CPU time would be counted too.
func (c cpuClock) report(b *testing.B, perOp float64) {
	b.Helper()
	b.ReportMetric(float64((cpuNow()-c.start).Nanoseconds())/float64(b.N)/perOp, "cpu-ns/attribute")
}

func BenchmarkTraces(b *testing.B) {
	for _, bm := range benchMixes {
		b.Run(bm.name, func(b *testing.B) {
			tel := componenttest.NewTelemetry()
			defer func() { _ = tel.Shutdown(context.Background()) }()
			g := newTestGovernor(b, defaultTestConfig(), signalTraces, tel.NewTelemetrySettings())
			ctx := context.Background()
			src := wireTraces(genTraces(benchItems, bm.mix))
			td := wireTraces(genTraces(benchItems, bm.mix))
			mutates := bm.mix.deprecated > 0
			b.ReportAllocs()
			clock := startCPU()
			for b.Loop() {
				if mutates {
					b.StopTimer()
					src.CopyTo(td)
					b.StartTimer()
				}
				_, _ = g.processTraces(ctx, td)
			}
			if !mutates {
				clock.report(b, benchItems*attrsPerItem)
			}
			reportPerItem(b, "span")
		})
	}
}

func BenchmarkMetrics(b *testing.B) {
	for _, bm := range benchMixes {
		b.Run(bm.name, func(b *testing.B) {
			tel := componenttest.NewTelemetry()
			defer func() { _ = tel.Shutdown(context.Background()) }()
			g := newTestGovernor(b, defaultTestConfig(), signalMetrics, tel.NewTelemetrySettings())
			ctx := context.Background()
			src := wireMetrics(genMetrics(benchItems, bm.mix))
			md := wireMetrics(genMetrics(benchItems, bm.mix))
			mutates := bm.mix.deprecated > 0
			b.ReportAllocs()
			clock := startCPU()
			for b.Loop() {
				if mutates {
					b.StopTimer()
					src.CopyTo(md)
					b.StartTimer()
				}
				_, _ = g.processMetrics(ctx, md)
			}
			if !mutates {
				clock.report(b, benchItems*attrsPerItem)
			}
			reportPerItem(b, "datapoint")
		})
	}
}

func BenchmarkLogs(b *testing.B) {
	for _, bm := range benchMixes {
		b.Run(bm.name, func(b *testing.B) {
			tel := componenttest.NewTelemetry()
			defer func() { _ = tel.Shutdown(context.Background()) }()
			g := newTestGovernor(b, defaultTestConfig(), signalLogs, tel.NewTelemetrySettings())
			ctx := context.Background()
			src := wireLogs(genLogs(benchItems, bm.mix))
			ld := wireLogs(genLogs(benchItems, bm.mix))
			mutates := bm.mix.deprecated > 0
			b.ReportAllocs()
			clock := startCPU()
			for b.Loop() {
				if mutates {
					b.StopTimer()
					src.CopyTo(ld)
					b.StartTimer()
				}
				_, _ = g.processLogs(ctx, ld)
			}
			if !mutates {
				clock.report(b, benchItems*attrsPerItem)
			}
			reportPerItem(b, "log")
		})
	}
}

// BenchmarkRename measures the rename itself: four deprecated keys of a
// 13-attribute map are renamed and renamed back, eight renames per op, with
// no allocation and no timer juggling.
func BenchmarkRename(b *testing.B) {
	g := newTestGovernor(b, defaultTestConfig(), signalTraces, nopTelemetry())
	w := g.walker(false, g.snap.Load())
	defer g.release(w)
	td := wireTraces(genTraces(1, mixDeprecated))
	m := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes()
	pairs := [][2]string{
		{"http.method", "http.request.method"},
		{"http.status_code", "http.response.status_code"},
		{"net.host.name", "server.address"},
		{"net.host.port", "server.port"},
	}
	b.ReportAllocs()
	clock := startCPU()
	for b.Loop() {
		for _, p := range pairs {
			w.rename(m, p[0], p[1])
		}
		for _, p := range pairs {
			w.rename(m, p[1], p[0])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/8, "ns/rename")
	b.ReportMetric(float64((cpuNow()-clock.start).Nanoseconds())/float64(b.N)/8, "cpu-ns/rename")
	if m.Len() != attrsPerItem {
		b.Fatalf("map has %d entries", m.Len())
	}
}

// BenchmarkLookupOnly is the registry's share of the conforming walk: the
// same keys, only Index.Lookup. The difference to BenchmarkTraces/conformant
// is the processor's own cost per attribute.
func BenchmarkLookupOnly(b *testing.B) {
	g := newTestGovernor(b, defaultTestConfig(), signalTraces, nopTelemetry())
	td := wireTraces(genTraces(benchItems, mixConformant))
	var keys []string
	for _, s := range td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().All() {
		for k := range s.Attributes().All() {
			keys = append(keys, k)
		}
	}
	found := 0
	clock := startCPU()
	b.ReportAllocs()
	for b.Loop() {
		for _, k := range keys {
			if g.snap.Load().ix.Lookup(k) != nil {
				found++
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(keys)), "ns/attribute")
	clock.report(b, float64(len(keys)))
	if found == 0 {
		b.Fatal("no key found")
	}
}
