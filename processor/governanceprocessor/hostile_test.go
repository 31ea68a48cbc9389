package governanceprocessor

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/otelgov/otelcol-governance/processor/governanceprocessor/internal/metadatatest"
	"github.com/otelgov/otelcol-governance/vocab"
)

// hostileTraces carries what an untrusted client controls, at its worst: a
// 1 MB service.name (twice, differing only past the label bound), a
// service.name that is not UTF-8, a 1 MB key, a key that is not UTF-8 and an
// empty key. No key is deprecated, so the default configuration changes
// nothing.
func hostileTraces() ptrace.Traces {
	mb := strings.Repeat("s", 1<<20)
	td := ptrace.NewTraces()
	for _, svc := range []string{mb + "a", mb + "b", "bad\xff\xfe-service", "checkout"} {
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", svc)
		attrs := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty().Attributes()
		attrs.PutStr(strings.Repeat("k", 1<<20), "1 MB key")
		attrs.PutStr("key\xff\xfe", "not utf-8")
		attrs.PutStr("", "empty key")
		attrs.PutStr("http.request.method", "GET")
	}
	return td
}

func TestHostileInputBounded(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	sink := &consumertest.TracesSink{}
	tp, err := NewFactory().CreateTraces(context.Background(), metadatatest.NewSettings(tel), defaultTestConfig(), sink)
	require.NoError(t, err)
	require.NoError(t, tp.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, tp.Shutdown(context.Background())) })

	in := hostileTraces()
	want := ptrace.NewTraces()
	in.CopyTo(want)
	require.NoError(t, tp.ConsumeTraces(context.Background(), in))

	// The data passes unchanged.
	require.Len(t, sink.AllTraces(), 1)
	wantBytes, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(want)
	require.NoError(t, err)
	gotBytes, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(sink.AllTraces()[0])
	require.NoError(t, err)
	assert.Equal(t, wantBytes, gotBytes, "the data passes unchanged")

	// Every label value is bounded and valid UTF-8; the two 1 MB names share
	// one series.
	m, err := tel.GetMetric("otelcol_processor_governance_service_attributes")
	require.NoError(t, err)
	names := map[string]bool{}
	labelBytes := 0
	for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
		for _, kv := range dp.Attributes.ToSlice() {
			v := kv.Value.AsString()
			labelBytes += len(v)
			assert.LessOrEqual(t, len(v), vocab.MaxKeyLength, "label %s", kv.Key)
			assert.True(t, utf8.ValidString(v), "label %s", kv.Key)
			if kv.Key == "service.name" {
				names[v] = true
			}
		}
	}
	assert.Equal(t, map[string]bool{
		strings.Repeat("s", vocab.MaxKeyLength): true,
		"bad\uFFFD\uFFFD-service":               true,
		"checkout":                              true,
	}, names)
	assert.Less(t, labelBytes, 16<<10, "the per-service metric stays small")

	// Three resources had their service.name cut or repaired.
	metadatatest.AssertEqualProcessorGovernanceServiceNameBounded(t, tel, []metricdata.DataPoint[int64]{
		{Attributes: attribute.NewSet(attribute.String("processor", "governance"), attribute.String("otel.signal", "traces")), Value: 3},
	}, metricdatatest.IgnoreTimestamp())
}

// TestServiceTableBound checks the table directly: a name is bounded before
// it is looked up or stored, so the table never holds more than the bound.
func TestServiceTableBound(t *testing.T) {
	st := newServiceTable(10)
	st.init(nil, nil)
	mb := strings.Repeat("x", 1<<20)
	a := st.Slot(mb)
	require.False(t, a.Overflow)
	assert.Equal(t, mb[:vocab.MaxKeyLength], a.Name, "the identity carries the bounded name")
	b := st.Slot(mb + "tail")
	assert.Equal(t, a, b, "names equal after the bound share a slot")
	c := st.Slot("")
	assert.NotEqual(t, a.Slot, c.Slot, "an empty name is a service of its own")
	for name := range st.index {
		assert.LessOrEqual(t, len(name), vocab.MaxKeyLength)
	}
	assert.Equal(t, int64(2), st.bounded.n.Load())
}

// TestObservableCountersSum: two instances of one processor ID and signal
// (one processor in two traces pipelines) observe the same series; the SDK
// sums the observations, as it summed the synchronous Adds before.
func TestObservableCountersSum(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	set := metadatatest.NewSettings(tel).TelemetrySettings
	for range 2 {
		g := newTestGovernor(t, defaultTestConfig(), vocab.KindTraces, set)
		_, err := g.processTraces(context.Background(), genTraces(3, mixConformant))
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, g.shutdown(context.Background())) })
	}
	base := []attribute.KeyValue{attribute.String("processor", "governance"), attribute.String("otel.signal", "traces")}
	metadatatest.AssertEqualProcessorGovernanceAttributes(t, tel, []metricdata.DataPoint[int64]{
		{Attributes: attribute.NewSet(append(base, attribute.String("location", "resource"), attribute.String("outcome", "conformant"))...), Value: 2 * 6},
		{Attributes: attribute.NewSet(append(base, attribute.String("location", "span"), attribute.String("outcome", "conformant"))...), Value: 2 * 3 * attrsPerItem},
	}, metricdatatest.IgnoreTimestamp())
}
