package governanceprocessor

import (
	"context"
	"testing"

	"go.opentelemetry.io/collector/component/componenttest"

	"github.com/otelgov/otelcol-governance/vocab"
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

func reportPerItem(b *testing.B, unit string) {
	b.Helper()
	perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(perOp/benchItems, "ns/"+unit)
	b.ReportMetric(perOp/(benchItems*attrsPerItem), "ns/attribute")
}

func BenchmarkTraces(b *testing.B) {
	for _, bm := range benchMixes {
		b.Run(bm.name, func(b *testing.B) {
			tel := componenttest.NewTelemetry()
			defer func() { _ = tel.Shutdown(context.Background()) }()
			g := newTestGovernor(b, defaultTestConfig(), vocab.KindTraces, tel.NewTelemetrySettings())
			ctx := context.Background()
			src := wireTraces(genTraces(benchItems, bm.mix))
			td := wireTraces(genTraces(benchItems, bm.mix))
			mutates := bm.mix.Deprecated > 0
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
				clock.Report(b, benchItems*attrsPerItem)
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
			g := newTestGovernor(b, defaultTestConfig(), vocab.KindMetrics, tel.NewTelemetrySettings())
			ctx := context.Background()
			src := wireMetrics(genMetrics(benchItems, bm.mix))
			md := wireMetrics(genMetrics(benchItems, bm.mix))
			mutates := bm.mix.Deprecated > 0
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
				clock.Report(b, benchItems*attrsPerItem)
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
			g := newTestGovernor(b, defaultTestConfig(), vocab.KindLogs, tel.NewTelemetrySettings())
			ctx := context.Background()
			src := wireLogs(genLogs(benchItems, bm.mix))
			ld := wireLogs(genLogs(benchItems, bm.mix))
			mutates := bm.mix.Deprecated > 0
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
				clock.Report(b, benchItems*attrsPerItem)
			}
			reportPerItem(b, "log")
		})
	}
}
