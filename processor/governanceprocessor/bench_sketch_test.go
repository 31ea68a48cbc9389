package governanceprocessor

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/extension/extensiontest"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelgov/otelcol-governance/engine/enginetest"
	"github.com/otelgov/otelcol-governance/extension/registryextension"
	"github.com/otelgov/otelcol-governance/vocab"
)

// BenchmarkInferSketch is the processor's per-batch path with the real
// governance_registry extension (its conformance report and, with
// sketch=on, its inference sketch: infer::enabled), on fresh batches of
// 100 spans: the line rate's mixed workload (4 unknown keys of 18) and
// the realistic mix (3 unknown of 13). sketch=off is the default; the
// difference is the sketch's cost.
//
// Run: taskset -c 1 go test ./processor/governanceprocessor -run '^$' -bench InferSketch -benchtime 3000x -count 5 -cpu 1
func BenchmarkInferSketch(b *testing.B) {
	for _, mix := range []struct {
		name string
		put  func(pcommon.Map)
	}{
		{"mixed", enginetest.PutLineMixedAttrs},
		{"realistic", enginetest.PutMix(enginetest.MixRealistic)},
	} {
		for _, sketch := range []bool{false, true} {
			name := fmt.Sprintf("mix=%s/sketch=%s", mix.name, map[bool]string{false: "off", true: "on"}[sketch])
			b.Run(name, func(b *testing.B) {
				g := sketchGovernor(b, sketch)
				wire := enginetest.TracesBytes(enginetest.GenTracesWith(100, mix.put))
				b.ReportAllocs()
				timeFreshBatches(b, g, wire, 100, false, 3)
			})
		}
	}
}

// sketchGovernor is a traces governor fed by a real, started
// governance_registry extension without an HTTP endpoint (with infer on,
// the endpoint is required by Validate, not by the extension itself).
func sketchGovernor(b *testing.B, sketch bool) *governor {
	b.Helper()
	ctx := context.Background()
	f := registryextension.NewFactory()
	cfg := f.CreateDefaultConfig()
	require.NoError(b, confmap.NewFromStringMap(map[string]any{
		"poll_interval": "0s",
		"http":          map[string]any{"endpoint": "127.0.0.1:0"},
		"infer":         map[string]any{"enabled": sketch},
	}).Unmarshal(cfg))
	ext, err := f.Create(ctx, extensiontest.NewNopSettings(f.Type()), cfg)
	require.NoError(b, err)
	host := fakeHost{exts: map[component.ID]component.Component{registryExtID: ext}}
	require.NoError(b, ext.Start(ctx, host))
	b.Cleanup(func() { _ = ext.Shutdown(ctx) })
	tel := componenttest.NewTelemetry()
	b.Cleanup(func() { _ = tel.Shutdown(ctx) })
	g, err := newGovernor(tel.NewTelemetrySettings(), component.MustNewID("governance"), extensionConfig(), nil, nil, vocab.KindTraces, nil)
	require.NoError(b, err)
	require.NoError(b, g.start(ctx, host))
	require.Equal(b, sketch, g.unknowns, "the processor asks the extension")
	return g
}
