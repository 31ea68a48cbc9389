package governanceprocessor

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/findingrules"
	"github.com/otelgov/otelcol-governance/processor/governanceprocessor/internal/metadatatest"
	"github.com/otelgov/otelcol-governance/vocab"
)

// TestValueTelemetry: value migrations, open-enum values and schema_url
// rewrites are counted on :8888, per location and per service.
func TestValueTelemetry(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	f := NewFactory()
	sink := &consumertest.TracesSink{}
	tp, err := f.CreateTraces(context.Background(), metadatatest.NewSettings(tel), createDefaultConfig(), sink)
	require.NoError(t, err)
	require.NoError(t, tp.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, tp.Shutdown(context.Background())) })

	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.SetSchemaUrl("https://opentelemetry.io/schemas/1.20.0")
	rs.Resource().Attributes().PutStr("service.name", "checkout")
	s := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	require.NoError(t, s.Attributes().FromRaw(map[string]any{
		"db.system": "mssql", "cloud.platform": "azure_vm", "http.target": "/a?b=1",
		"code.namespace": "N", "code.function": "f", "rpc.jsonrpc.error_code": int64(-32602),
	}))
	// A second resource with only an open-enum value: nothing rewritten.
	rs2 := td.ResourceSpans().AppendEmpty()
	rs2.Resource().Attributes().PutStr("service.name", "checkout")
	rs2.ScopeSpans().AppendEmpty().Spans().AppendEmpty().Attributes().PutStr("db.system.name", "acme_db")
	require.NoError(t, tp.ConsumeTraces(context.Background(), td))

	set := func(kvs ...attribute.KeyValue) attribute.Set { return attribute.NewSet(kvs...) }
	proc := attribute.String("processor", "governance")
	sig := attribute.String("otel.signal", "traces")
	loc := func(l string) attribute.KeyValue { return attribute.String("location", l) }
	out := func(o string) attribute.KeyValue { return attribute.String("outcome", o) }
	svc := attribute.String("service.name", "checkout")
	opts := []metricdatatest.Option{metricdatatest.IgnoreTimestamp()}

	metadatatest.AssertEqualProcessorGovernanceAttributes(t, tel, []metricdata.DataPoint[int64]{
		{Attributes: set(proc, sig, loc("resource"), out("conformant")), Value: 2},
		{Attributes: set(proc, sig, loc("span"), out("value_renamed")), Value: 2},
		{Attributes: set(proc, sig, loc("span"), out("split")), Value: 1},
		{Attributes: set(proc, sig, loc("span"), out("merged")), Value: 2},
		{Attributes: set(proc, sig, loc("span"), out("converted")), Value: 1},
		{Attributes: set(proc, sig, loc("span"), out("undefined_enum_variant")), Value: 1},
	}, opts...)
	metadatatest.AssertEqualProcessorGovernanceServiceAttributes(t, tel, []metricdata.DataPoint[int64]{
		{Attributes: set(proc, sig, svc, out("conformant")), Value: 2},
		{Attributes: set(proc, sig, svc, out("value_renamed")), Value: 2},
		{Attributes: set(proc, sig, svc, out("split")), Value: 1},
		{Attributes: set(proc, sig, svc, out("merged")), Value: 2},
		{Attributes: set(proc, sig, svc, out("converted")), Value: 1},
		{Attributes: set(proc, sig, svc, out("undefined_enum_variant")), Value: 1},
	}, opts...)
	metadatatest.AssertEqualProcessorGovernanceSchemaURLRewrites(t, tel, []metricdata.DataPoint[int64]{
		{Attributes: set(proc, sig, attribute.String("target", "resource")), Value: 1},
		{Attributes: set(proc, sig, attribute.String("target", "scope")), Value: 1},
	}, opts...)

	got := sink.AllTraces()[0]
	assert.Equal(t, testSchemaURL, got.ResourceSpans().At(0).SchemaUrl())
	assert.Empty(t, got.ResourceSpans().At(1).SchemaUrl(), "nothing rewritten, schema_url untouched")
}

// TestEnumWarnings: an enum_violation: drop with nothing closed, a
// closed_enums entry that is no enum, and the deprecated
// findings::level_overrides are logged once at start.
func TestEnumWarnings(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  func(*config)
		want []string
	}{
		{name: "defaults", want: nil},
		{
			name: "deprecated level_overrides",
			cfg:  func(c *config) { c.Findings.LevelOverrides = map[string]string{"deprecated": "information"} },
			want: []string{"findings::level_overrides is deprecated and will be removed in the next release: use findings::finding_level_overrides (one entry per level: {ids: [ID, ...], level: LEVEL}); its entries apply after finding_level_overrides"},
		},
		{
			// Validate refuses this without the extension; with it the
			// processor learns only at start that no policy is loaded.
			name: "policy ID without policies",
			cfg: func(c *config) {
				c.Findings.FindingLevelOverrides = []findingrules.LevelOverride{{IDs: []string{"acme_no_test_keys"}, Level: "information"}}
			},
			want: []string{"finding rules name IDs that are not built in, and no advice policy is loaded that could report them: those rules match nothing"},
		},
		{
			name: "policy ID with policies",
			cfg: func(c *config) {
				c.Findings.Policies = []string{"testdata/policies"}
				c.Findings.FindingLevelOverrides = []findingrules.LevelOverride{{IDs: []string{"acme_no_test_keys"}, Level: "information"}}
			},
			want: nil,
		},
		{
			// The registry's warnings reach the collector's log at start.
			name: "remote dependency on another release",
			cfg:  func(c *config) { c.Registry.OrgRegistries = []string{"testdata/remote-dependency"} },
			want: []string{"Registry loaded with a warning"},
		},
		{
			name: "drop without closed enums",
			cfg:  func(c *config) { c.EnumViolation = engine.EnumViolationDrop },
			want: []string{"enum_violation: drop acts only on the enums listed in closed_enums, and none is listed: enums are open, nothing is dropped"},
		},
		{
			name: "closed key that is no enum",
			cfg:  func(c *config) { c.ClosedEnums = []string{"http.request.method", "url.path", "acme.nope"} },
			want: []string{
				"closed_enums lists a key that is not an enum of the registry; it has no effect",
				"closed_enums lists a key that is not an enum of the registry; it has no effect",
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			core, logs := observer.New(zap.WarnLevel)
			set := nopTelemetry()
			set.Logger = zap.New(core)
			g := newTestGovernor(t, withConfig(tt.cfg), vocab.KindTraces, set)
			require.NoError(t, g.start(context.Background(), componenttest.NewNopHost()))
			require.NoError(t, g.shutdown(context.Background()))
			var got []string
			for _, e := range logs.All() {
				got = append(got, e.Message)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestZeroAllocsValueMigrations: member renames and value maps, with the
// schema_url rewrite and the telemetry they record through a real SDK meter
// provider, allocate nothing per batch.
func TestZeroAllocsValueMigrations(t *testing.T) {
	skipUnderRace(t)
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	g := newTestGovernor(t, defaultTestConfig(), vocab.KindTraces, tel.NewTelemetrySettings())
	mk := func() ptrace.Traces {
		td := ptrace.NewTraces()
		rs := td.ResourceSpans().AppendEmpty()
		rs.SetSchemaUrl("https://opentelemetry.io/schemas/1.20.0")
		rs.Resource().Attributes().PutStr("service.name", "checkout")
		rs.Resource().Attributes().PutStr("cloud.platform", "azure_vm")
		spans := rs.ScopeSpans().AppendEmpty().Spans()
		for range 100 {
			a := spans.AppendEmpty().Attributes()
			a.PutStr("db.system", "mssql")
			a.PutStr("messaging.operation.type", "publish")
			a.PutStr("cloud.provider", "acme_cloud") // open enum: kept
			a.PutStr("url.path", "/a")
		}
		return td
	}
	batches := make([]ptrace.Traces, allocRuns+1)
	for i := range batches {
		batches[i] = mk()
	}
	_, _ = g.processTraces(context.Background(), mk()) // first series and pool
	i := 0
	allocs := testing.AllocsPerRun(allocRuns, func() {
		_, _ = g.processTraces(context.Background(), batches[i])
		i++
	})
	assert.Zero(t, allocs)
	got := batches[allocRuns-1].ResourceSpans().At(0)
	assert.Equal(t, testSchemaURL, got.SchemaUrl())
	assert.Equal(t, "azure.vm", got.Resource().Attributes().AsRaw()["cloud.platform"])
	assert.Equal(t, map[string]any{
		"db.system.name": "microsoft.sql_server", "messaging.operation.type": "send",
		"cloud.provider": "acme_cloud", "url.path": "/a",
	}, got.ScopeSpans().At(0).Spans().At(99).Attributes().AsRaw())
}
