package governanceprocessor

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/conformance"
	"github.com/otelgov/otelcol-governance/engine/enginetest"

	"github.com/otelgov/otelcol-governance/extension/registryextension/registryapi"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// BenchmarkTracesExtension is BenchmarkTraces with the registry taken from a
// registry extension: the difference is the cost of feeding its report.
func BenchmarkTracesExtension(b *testing.B) {
	for _, bm := range benchMixes {
		b.Run(bm.name, func(b *testing.B) {
			tel := componenttest.NewTelemetry()
			defer func() { _ = tel.Shutdown(context.Background()) }()
			def, err := registry.Default()
			require.NoError(b, err)
			ext := &countingRegistry{snap: &registryapi.Snapshot{Index: def, Generation: 1}}
			host := fakeHost{exts: map[component.ID]component.Component{registryExtID: ext}}
			g, err := newGovernor(tel.NewTelemetrySettings(), component.MustNewID("governance"), extensionConfig(), nil, nil, vocab.KindTraces, nil)
			require.NoError(b, err)
			ctx := context.Background()
			require.NoError(b, g.start(ctx, host))
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
		})
	}
}

// reportRegistry is a registryapi.Registry that feeds a real conformance
// report, as the governance_registry extension does.
type reportRegistry struct {
	component.StartFunc
	component.ShutdownFunc
	snap   *registryapi.Snapshot
	report *conformance.Report
}

func (r *reportRegistry) Current() *registryapi.Snapshot { return r.snap }

func (r *reportRegistry) Report(b *registryapi.Batch) { r.report.Add(b, time.Now()) }

// BenchmarkBatchSweep is the processor's whole per-batch path as a
// production gateway runs it: registry from the extension, the report fed
// into a real conformance.Report, counters recorded into a real SDK meter.
// Every batch is fresh, unmarshalled from OTLP bytes outside the timer;
// cold batches evict L1 and L2 first. The sweep over 1 to 512 spans per
// batch separates the fixed cost per batch from the cost per span; the
// fixed cost alone is BenchmarkBatchFixedCost.
//
// Run: go test ./processor/governanceprocessor -run '^$' -bench BatchSweep -benchtime 2000x
func BenchmarkBatchSweep(b *testing.B) {
	for _, bm := range []struct {
		name string
		mix  attrMix
	}{
		{name: "conformant", mix: mixConformant},
		{name: "realistic", mix: enginetest.MixRealistic},
	} {
		for _, n := range []int{1, 10, 100, 512} {
			for _, cold := range []bool{false, true} {
				name := fmt.Sprintf("mix=%s/spans=%d/cache=%s", bm.name, n, map[bool]string{false: "warm", true: "cold"}[cold])
				b.Run(name, func(b *testing.B) {
					benchBatches(b, enginetest.TracesBytes(genTraces(n, bm.mix)), float64(n), cold)
				})
			}
		}
	}
}

// BenchmarkBatchFixedCost is the cost of a batch that carries almost
// nothing: one resource with service.name and one span without attributes.
// What remains is the fixed cost per batch: the registry snapshot, the
// walker from the pool and back, recording the counters, flushing the
// report tally and merging it into the extension's report.
func BenchmarkBatchFixedCost(b *testing.B) {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "checkout")
	rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty().SetName("GET /")
	for _, cold := range []bool{false, true} {
		b.Run("cache="+map[bool]string{false: "warm", true: "cold"}[cold], func(b *testing.B) {
			benchBatches(b, enginetest.TracesBytes(td), 1, cold)
		})
	}
}

func benchBatches(b *testing.B, wire []byte, spans float64, cold bool) {
	tel := componenttest.NewTelemetry()
	defer func() { _ = tel.Shutdown(context.Background()) }()
	def, err := registry.Default()
	require.NoError(b, err)
	ext := &reportRegistry{
		snap:   &registryapi.Snapshot{Index: def, Generation: 1},
		report: conformance.New(conformance.Limits{MaxServices: 100, TopKeys: 10}, time.Now()),
	}
	host := fakeHost{exts: map[component.ID]component.Component{registryExtID: ext}}
	g, err := newGovernor(tel.NewTelemetrySettings(), component.MustNewID("governance"), extensionConfig(), nil, nil, vocab.KindTraces, nil)
	require.NoError(b, err)
	require.NoError(b, g.start(context.Background(), host))
	// Grow the walker's tallies and the report before measuring.
	timeFreshBatches(b, g, wire, spans, cold, 1)
}

// timeFreshBatches times g.processTraces on one fresh batch per iteration,
// unmarshalled from wire outside the timer (cold: L1 and L2 evicted
// first; warm: small batches made and processed a chunk at a time,
// enginetest.TimeFresh), in thread CPU time per span, after warm batches
// that are not timed (they grow the walker's tallies and admit the shapes
// to the memo).
func timeFreshBatches(b *testing.B, g *governor, wire []byte, spans float64, cold bool, warm int) {
	ctx := context.Background()
	for range warm {
		_, _ = g.processTraces(ctx, enginetest.UnmarshalTraces(wire))
	}
	next := func() ptrace.Traces { return enginetest.UnmarshalTraces(wire) }
	clock := enginetest.TimeFresh(b, cold, enginetest.WarmChunk(len(wire)), next, func(td ptrace.Traces) {
		_, _ = g.processTraces(ctx, td)
	})
	clock.Report(b, map[string]float64{"span": spans})
}
