package governanceprocessor

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/processor/governanceprocessor/internal/metadatatest"
)

// TestDeprecatedNamesValidate: deprecated_names takes rename, copy or off
// for names the registry deprecates, and names the key and the name in
// its errors.
func TestDeprecatedNamesValidate(t *testing.T) {
	tests := []struct {
		name    string
		names   map[string]engine.DeprecatedMode
		wantErr error
		msg     string
	}{
		{name: "attribute and metric", names: map[string]engine.DeprecatedMode{"http.method": engine.DeprecatedCopy, "db.client.connections.usage": engine.DeprecatedOff}},
		{name: "bad mode", names: map[string]engine.DeprecatedMode{"http.method": "both"}, wantErr: errInvalidMode, msg: `deprecated_names: "http.method": invalid mode "both"`},
		{name: "current name", names: map[string]engine.DeprecatedMode{"http.request.method": engine.DeprecatedCopy}, wantErr: errNotDeprecated, msg: `deprecated_names: "http.request.method": not a deprecated`},
		{name: "unknown name", names: map[string]engine.DeprecatedMode{"acme.team": engine.DeprecatedCopy}, wantErr: errNotDeprecated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := withConfig(func(c *config) { c.DeprecatedNames = tt.names })
			err := cfg.Validate()
			if tt.wantErr == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tt.wantErr)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}

// TestDeprecatedNamesCopyAndCount: with deprecated: rename and http.method
// listed as copy, a batch keeps http.method beside http.request.method,
// renames http.url, and :8888 counts the listed names per service (and
// only them: http.url is not listed).
func TestDeprecatedNamesCopyAndCount(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	cfg := withConfig(func(c *config) {
		c.DeprecatedNames = map[string]engine.DeprecatedMode{"http.method": engine.DeprecatedCopy, "db.client.connections.usage": engine.DeprecatedCopy}
	})
	require.NoError(t, cfg.Validate())
	sink := &consumertest.MetricsSink{}
	mp, err := NewFactory().CreateMetrics(context.Background(), metadatatest.NewSettings(tel), cfg, sink)
	require.NoError(t, err)
	require.NoError(t, mp.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, mp.Shutdown(context.Background())) })

	md := pmetric.NewMetrics()
	for i, svc := range []string{"checkout", "cart", "checkout"} {
		rm := md.ResourceMetrics().AppendEmpty()
		rm.Resource().Attributes().PutStr("service.name", svc)
		m := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
		m.SetName("http.server.request.duration")
		m.SetUnit("s")
		dp := m.SetEmptyHistogram().DataPoints().AppendEmpty()
		dp.Attributes().PutStr("http.method", "GET")
		dp.Attributes().PutStr("http.url", "https://x/y")
		if i == 1 {
			u := rm.ScopeMetrics().At(0).Metrics().AppendEmpty()
			u.SetName("db.client.connections.usage")
			u.SetUnit("{connection}")
			u.SetEmptySum().DataPoints().AppendEmpty().SetIntValue(3)
		}
	}
	require.NoError(t, mp.ConsumeMetrics(context.Background(), md))

	got := sink.AllMetrics()
	require.Len(t, got, 1)
	attrs := got[0].ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(0).Histogram().DataPoints().At(0).Attributes().AsRaw()
	assert.Equal(t, map[string]any{"http.method": "GET", "http.request.method": "GET", "url.full": "https://x/y"}, attrs)
	cart := got[0].ResourceMetrics().At(1).ScopeMetrics().At(0).Metrics()
	require.Equal(t, 3, cart.Len(), "the listed metric is copied")
	assert.Equal(t, "db.client.connection.count", cart.At(2).Name())

	set := func(svc, name string) attribute.Set {
		return attribute.NewSet(attribute.String("processor", "governance"), attribute.String("otel.signal", "metrics"),
			attribute.String("service.name", svc), attribute.String("deprecated_name", name))
	}
	metadatatest.AssertEqualProcessorGovernanceServiceDeprecatedNames(t, tel, []metricdata.DataPoint[int64]{
		{Attributes: set("checkout", "http.method"), Value: 2},
		{Attributes: set("cart", "http.method"), Value: 1},
		{Attributes: set("cart", "db.client.connections.usage"), Value: 1},
	}, metricdatatest.IgnoreTimestamp())
}
