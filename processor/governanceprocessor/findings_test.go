package governanceprocessor

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/otelgov/otelcol-governance/processor/governanceprocessor/internal/metadatatest"
)

// durationMetric is http.server.request.duration in unit with the required
// attributes (unless missingMethod) and user.id when extra.
func durationMetric(unit string, missingMethod, extra bool) pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "checkout")
	m := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("http.server.request.duration")
	m.SetUnit(unit)
	attrs := m.SetEmptyHistogram().DataPoints().AppendEmpty().Attributes()
	if !missingMethod {
		attrs.PutStr("http.request.method", "GET")
	}
	attrs.PutStr("url.scheme", "https")
	attrs.PutStr("http.route", "/cart")
	attrs.PutInt("http.response.status_code", 200)
	attrs.PutStr("network.protocol.name", "http")
	attrs.PutStr("network.protocol.version", "1.1")
	attrs.PutStr("error.type", "_OTHER")
	attrs.PutStr("server.address", "shop")
	attrs.PutInt("server.port", 443)
	if extra {
		attrs.PutStr("user.id", "u-1")
	}
	return md
}

func TestFindingsTelemetry(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	cfg := withConfig(func(c *config) {
		c.Findings.LevelOverrides = map[string]string{"unexpected_attribute": "violation"}
		c.Findings.DropUnexpectedAttributes = true
	})
	sink := &consumertest.MetricsSink{}
	mp, err := NewFactory().CreateMetrics(context.Background(), metadatatest.NewSettings(tel), cfg, sink)
	require.NoError(t, err)
	require.NoError(t, mp.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, mp.Shutdown(context.Background())) })

	require.NoError(t, mp.ConsumeMetrics(context.Background(), durationMetric("ms", true, true)))
	require.NoError(t, mp.ConsumeMetrics(context.Background(), durationMetric("s", false, false)))

	set := func(kvs ...attribute.KeyValue) attribute.Set { return attribute.NewSet(kvs...) }
	proc := attribute.String("processor", "governance")
	sig := attribute.String("otel.signal", "metrics")
	fnd := func(f, l string) []attribute.KeyValue {
		return []attribute.KeyValue{attribute.String("finding", f), attribute.String("level", l)}
	}
	svc := attribute.String("service.name", "checkout")
	opts := []metricdatatest.Option{metricdatatest.IgnoreTimestamp()}
	metadatatest.AssertEqualProcessorGovernanceFindings(t, tel, []metricdata.DataPoint[int64]{
		{Attributes: set(append([]attribute.KeyValue{proc, sig}, fnd("unit_mismatch", "violation")...)...), Value: 1},
		{Attributes: set(append([]attribute.KeyValue{proc, sig}, fnd("required_attribute_not_present", "violation")...)...), Value: 1},
		{Attributes: set(append([]attribute.KeyValue{proc, sig}, fnd("unexpected_attribute", "violation")...)...), Value: 1},
		// user.id is a development attribute.
		{Attributes: set(append([]attribute.KeyValue{proc, sig}, fnd("not_stable", "improvement")...)...), Value: 1},
		// user_agent.synthetic.type is opt-in and absent from both.
		{Attributes: set(append([]attribute.KeyValue{proc, sig}, fnd("opt_in_attribute_not_present", "information")...)...), Value: 2},
	}, opts...)
	metadatatest.AssertEqualProcessorGovernanceServiceFindings(t, tel, []metricdata.DataPoint[int64]{
		{Attributes: set(append([]attribute.KeyValue{proc, sig, svc}, fnd("unit_mismatch", "violation")...)...), Value: 1},
		{Attributes: set(append([]attribute.KeyValue{proc, sig, svc}, fnd("required_attribute_not_present", "violation")...)...), Value: 1},
		{Attributes: set(append([]attribute.KeyValue{proc, sig, svc}, fnd("unexpected_attribute", "violation")...)...), Value: 1},
		{Attributes: set(append([]attribute.KeyValue{proc, sig, svc}, fnd("not_stable", "improvement")...)...), Value: 1},
		{Attributes: set(append([]attribute.KeyValue{proc, sig, svc}, fnd("opt_in_attribute_not_present", "information")...)...), Value: 2},
	}, opts...)
	metadatatest.AssertEqualProcessorGovernanceAttributesDropped(t, tel, []metricdata.DataPoint[int64]{
		{Attributes: set(proc, sig, attribute.String("reason", "unexpected")), Value: 1},
	}, opts...)
	got := sink.AllMetrics()
	require.Len(t, got, 2)
	_, ok := got[0].ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(0).Histogram().DataPoints().At(0).Attributes().Get("user.id")
	require.False(t, ok, "the cardinality guard dropped user.id")
}
