package floorprocessor

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.uber.org/goleak"
	"go.uber.org/zap"

	"github.com/otelgov/otelcol-governance/engine/enginetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestFloorPassesThrough: through the factory, the floor forwards every
// batch unchanged and shuts down without a start.
func TestFloorPassesThrough(t *testing.T) {
	f := NewFactory()
	assert.Equal(t, "floor", f.Type().String())
	sink := new(consumertest.TracesSink)
	p, err := f.CreateTraces(context.Background(), processortest.NewNopSettings(f.Type()), f.CreateDefaultConfig(), sink)
	require.NoError(t, err)
	assert.False(t, p.Capabilities().MutatesData)
	require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))
	td := enginetest.GenTracesWith(10, enginetest.PutMix(enginetest.MixConformant))
	want := ptrace.NewTraces()
	td.CopyTo(want)
	require.NoError(t, p.ConsumeTraces(context.Background(), td))
	require.Len(t, sink.AllTraces(), 1)
	assert.Equal(t, want, sink.AllTraces()[0])
	require.NoError(t, p.Shutdown(context.Background()))

	q, err := f.CreateTraces(context.Background(), processortest.NewNopSettings(f.Type()), f.CreateDefaultConfig(), sink)
	require.NoError(t, err)
	assert.NoError(t, q.Shutdown(context.Background()))
}

// TestFloorWalks: the floor learns its keys from the first batch, walks
// every later one, and counts the keys it did not expect: none in batches
// of the first one's shape, one in a batch with one key changed.
func TestFloorWalks(t *testing.T) {
	wire := enginetest.TracesBytes(enginetest.GenTracesWith(10, enginetest.PutMix(enginetest.MixConformant)))
	p := &floor{logger: zap.NewNop()}
	for range 3 {
		_, err := p.processTraces(context.Background(), enginetest.UnmarshalTraces(wire))
		require.NoError(t, err)
	}
	assert.Equal(t, int64(3), p.batches.Load())
	assert.Zero(t, p.misses.Load())
	assert.Positive(t, p.types.Load())

	td := enginetest.UnmarshalTraces(wire)
	td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(9).Attributes().PutStr("acme.extra", "1") // the last map, the one a batch's keys are learnt from
	_, err := p.processTraces(context.Background(), td)
	require.NoError(t, err)
	assert.Equal(t, int64(1), p.misses.Load())
	assert.NoError(t, p.shutdown(context.Background()))
}
