package governanceprocessor

import (
	"context"
	"testing"

	"github.com/otelgov/otelcol-governance/engine"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/vocab"
)

const allocRuns = 50

// TestZeroAllocsDrop covers unknown: drop, where RemoveIf takes the keys out.
func TestZeroAllocsDrop(t *testing.T) {
	skipUnderRace(t)
	g := newTestGovernor(t, withConfig(func(c *config) { c.Unknown = engine.UnknownDrop }), vocab.KindTraces, nopTelemetry())
	batches := make([]ptrace.Traces, allocRuns+1)
	for i := range batches {
		batches[i] = genTraces(100, mixUnknown)
	}
	i := 0
	allocs := testing.AllocsPerRun(allocRuns, func() {
		_, _ = g.processTraces(context.Background(), batches[i])
		i++
	})
	assert.Zero(t, allocs)
	assert.Equal(t, attrsPerItem-mixUnknown.Unknown, batches[0].ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes().Len())
}

// TestZeroAllocs proves that a whole batch, walk plus telemetry recording
// through a real SDK meter provider, allocates nothing: for conforming data,
// for 30% unknown keys in keep mode, and for 30% deprecated keys that are
// renamed. Batches that are changed by the walk are prepared up front, one per
// run, so that every run renames.
func TestZeroAllocs(t *testing.T) {
	skipUnderRace(t)
	for _, tt := range []struct {
		name string
		mix  attrMix
	}{
		{name: "conformant", mix: mixConformant},
		{name: "unknown_keep", mix: mixUnknown},
		{name: "renames", mix: mixDeprecated},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tel := componenttest.NewTelemetry()
			t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
			ctx := context.Background()

			t.Run("traces", func(t *testing.T) {
				g := newTestGovernor(t, defaultTestConfig(), vocab.KindTraces, tel.NewTelemetrySettings())
				batches := make([]ptrace.Traces, allocRuns+1)
				for i := range batches {
					batches[i] = genTraces(100, tt.mix)
				}
				i := 0
				allocs := testing.AllocsPerRun(allocRuns, func() {
					_, _ = g.processTraces(ctx, batches[i])
					i++
				})
				assert.Zero(t, allocs)
				if tt.mix.Deprecated > 0 {
					attrs := batches[allocRuns].ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(99).Attributes()
					_, renamed := attrs.Get("http.request.method")
					_, old := attrs.Get("http.method")
					assert.True(t, renamed && !old, "the measured runs renamed")
				}
			})
			t.Run("metrics", func(t *testing.T) {
				g := newTestGovernor(t, defaultTestConfig(), vocab.KindMetrics, tel.NewTelemetrySettings())
				batches := make([]pmetric.Metrics, allocRuns+1)
				for i := range batches {
					batches[i] = genMetrics(100, tt.mix)
				}
				i := 0
				allocs := testing.AllocsPerRun(allocRuns, func() {
					_, _ = g.processMetrics(ctx, batches[i])
					i++
				})
				assert.Zero(t, allocs)
			})
			t.Run("logs", func(t *testing.T) {
				g := newTestGovernor(t, defaultTestConfig(), vocab.KindLogs, tel.NewTelemetrySettings())
				batches := make([]plog.Logs, allocRuns+1)
				for i := range batches {
					batches[i] = genLogs(100, tt.mix)
				}
				i := 0
				allocs := testing.AllocsPerRun(allocRuns, func() {
					_, _ = g.processLogs(ctx, batches[i])
					i++
				})
				assert.Zero(t, allocs)
			})
		})
	}
}

func skipUnderRace(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under -race")
	}
}
