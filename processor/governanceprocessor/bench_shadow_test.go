package governanceprocessor

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/extension/registryextension"
	"github.com/otelgov/otelcol-governance/extension/registryextension/registryapi"
	"github.com/otelgov/otelcol-governance/vocab"
)

// BenchmarkShadow is the processor's ConsumeTraces path (processTraces)
// with the real registry extension, without a candidate (off, the default)
// and with next-384d661 as the candidate: sampled as by default (one batch
// in 100, at most 10 per second), and on every batch (the shadow walk's
// whole cost, an upper bound). The batch is 100 conformant spans that
// also carry rpc.response.status_code, which the candidate renames, so the
// processor does not rewrite it and no copy is needed between iterations.
//
// Run: taskset -c 1 go test ./processor/governanceprocessor -run '^$' -bench Shadow -cpu 1 -benchtime 20000x -count 5
func BenchmarkShadow(b *testing.B) {
	next := nextSemconv(b)
	for _, bm := range []struct {
		name      string
		candidate bool
		every     int
		perSecond int
	}{
		{name: "off"},
		{name: "on_default", candidate: true, every: defaultShadowEvery, perSecond: defaultShadowRate},
		{name: "on_every_batch", candidate: true, every: 1, perSecond: maxShadowPerSecond},
	} {
		b.Run(bm.name, func(b *testing.B) {
			tel := componenttest.NewTelemetry()
			defer func() { _ = tel.Shutdown(context.Background()) }()
			var cc *registryextension.CandidateConfig
			if bm.candidate {
				cc = &registryextension.CandidateConfig{SemconvDir: next}
			}
			ext := startRegistryExtension(b, cc)
			host := fakeHost{exts: map[component.ID]component.Component{registryExtID: ext}}
			cfg := extensionConfig()
			if bm.candidate {
				cfg.Shadow = shadowConfig{SampleEvery: bm.every, MaxBatchesPerSecond: bm.perSecond}
			}
			g, err := newGovernor(tel.NewTelemetrySettings(), component.MustNewID("governance"), cfg, nil, nil, vocab.KindTraces, nil)
			require.NoError(b, err)
			ctx := context.Background()
			require.NoError(b, g.start(ctx, host))
			require.Equal(b, bm.candidate, g.shadow != nil)
			td := wireTraces(genTraces(benchItems, mixConformant))
			putOnSpans(td, "rpc.response.status_code", "OK")
			b.ReportAllocs()
			for b.Loop() {
				_, _ = g.processTraces(ctx, td)
			}
			if g.shadow != nil {
				b.ReportMetric(float64(g.shadow.batches.n.Load())/float64(b.N), "sampled/op")
			}
		})
	}
}

func putOnSpans(td ptrace.Traces, key, value string) {
	for i := range td.ResourceSpans().Len() {
		sss := td.ResourceSpans().At(i).ScopeSpans()
		for j := range sss.Len() {
			spans := sss.At(j).Spans()
			for k := range spans.Len() {
				spans.At(k).Attributes().PutStr(key, value)
			}
		}
	}
}

// BenchmarkShadowWalk is the shadow's own walk of one sampled batch (the
// same 100 spans), without the engine: what a sampled batch adds.
func BenchmarkShadowWalk(b *testing.B) {
	ext := startRegistryExtension(b, &registryextension.CandidateConfig{SemconvDir: nextSemconv(b)})
	g := newTestGovernor(b, extensionConfig(), vocab.KindTraces, nopTelemetry())
	s := newShadow(ext.(registryapi.Shadower), &shadowConfig{SampleEvery: 1, MaxBatchesPerSecond: maxShadowPerSecond}, g.tel.services, g.tel.base, func() time.Time { return time.Time{} })
	s.bucket.rate = 1e18 // the fixed clock never refills: no cap here
	s.bucket.tokens = 1e18
	td := wireTraces(genTraces(benchItems, mixConformant))
	putOnSpans(td, "rpc.response.status_code", "OK")
	attrs := 0
	for i := range td.ResourceSpans().Len() {
		rs := td.ResourceSpans().At(i)
		attrs += rs.Resource().Attributes().Len()
		for j := range rs.ScopeSpans().Len() {
			spans := rs.ScopeSpans().At(j).Spans()
			for k := range spans.Len() {
				attrs += spans.At(k).Attributes().Len()
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		s.traces(td)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(attrs), "ns/attribute")
	require.Equal(b, int64(b.N), s.batches.n.Load())
}
