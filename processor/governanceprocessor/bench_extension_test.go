package governanceprocessor

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"

	"github.com/otelgov/otelcol-governance/extension/registryextension/registryapi"
	"github.com/otelgov/otelcol-governance/registry"
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
			g, err := newGovernor(tel.NewTelemetrySettings(), component.MustNewID("governance"), extensionConfig(), nil, signalTraces)
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
