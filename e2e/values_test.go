//go:build e2e

package e2e_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

const (
	registrySchemaURL  = "https://opentelemetry.io/schemas/1.44.0"
	schemaRewritesName = "otelcol_processor_governance_schema_url_rewrites"
)

// TestValueMigrations sends a span whose values, not only keys, belong to
// older conventions through the real binary with the default config, and
// checks that it arrives as v1.44.0 telemetry with nothing else changed; a
// log's event.name moves to EventName; a custom db.system.name survives and
// is counted as an undefined enum variant.
func TestValueMigrations(t *testing.T) {
	sink := e2e.StartSink(t)
	p := e2e.NewPipeline(t, sink)
	p.Processors = "  governance: {}\n"
	p.ProcessorNames = []string{"governance"}
	col := e2e.StartCollector(t, p.YAML(), p.HealthPort, p.MetricsPort, e2e.Options{})
	client, err := e2e.NewClient(p.GRPCEndpoint(), p.HTTPEndpoint())
	require.NoError(t, err)
	defer client.Close()

	td := e2e.Traces("checkout", 0, 1, map[string]any{
		"db.system":      "mssql",
		"cloud.platform": "azure_vm",
		"http.target":    "/a?b=1",
		"http.flavor":    "1.1",
		"code.namespace": "N",
		"code.function":  "f",
	})
	td.ResourceSpans().At(0).SetSchemaUrl("https://opentelemetry.io/schemas/1.20.0")
	span := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	span.SetStartTimestamp(1_700_000_000_000_000_000)
	span.SetEndTimestamp(1_700_000_000_500_000_000)
	span.Status().SetMessage("kept as sent")
	span.Events().AppendEmpty().SetName("ev")

	want := ptrace.NewTraces()
	td.CopyTo(want)
	require.NoError(t, client.SendTraces(context.Background(), e2e.GRPC, td))
	sink.WaitFor(t, e2e.Counts{Spans: 1}, 10*time.Second)
	got := sink.Traces()[0]

	gotSpan := got.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	assert.Equal(t, map[string]any{
		"db.system.name":           "microsoft.sql_server",
		"cloud.platform":           "azure.vm",
		"url.path":                 "/a",
		"url.query":                "b=1",
		"network.protocol.name":    "http",
		"network.protocol.version": "1.1",
		"code.function.name":       "N.f",
	}, gotSpan.Attributes().AsRaw())
	assert.Equal(t, registrySchemaURL, got.ResourceSpans().At(0).SchemaUrl())
	assert.Equal(t, registrySchemaURL, got.ResourceSpans().At(0).ScopeSpans().At(0).SchemaUrl())

	// Nothing else changed: with the span attributes and the schema URLs
	// set to what was expected, the batch is byte-for-byte the one sent.
	wantRS := want.ResourceSpans().At(0)
	wantRS.SetSchemaUrl(registrySchemaURL)
	wantRS.ScopeSpans().At(0).SetSchemaUrl(registrySchemaURL)
	gotSpan.Attributes().Clear()
	wantRS.ScopeSpans().At(0).Spans().At(0).Attributes().Clear()
	var m ptrace.JSONMarshaler
	wantJSON, err := m.MarshalTraces(want)
	require.NoError(t, err)
	gotJSON, err := m.MarshalTraces(got)
	require.NoError(t, err)
	assert.JSONEq(t, string(wantJSON), string(gotJSON))

	// A log's event.name moves to the record's EventName.
	ld := e2e.Logs("checkout", 0, 1, map[string]any{"event.name": "x"})
	require.NoError(t, client.SendLogs(context.Background(), e2e.GRPC, ld))
	sink.WaitFor(t, e2e.Counts{Spans: 1, LogRecords: 1}, 10*time.Second)
	rec := sink.Logs()[0].ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0)
	assert.Equal(t, "x", rec.EventName())
	assert.Empty(t, rec.Attributes().AsRaw())

	// An open enum keeps a custom value.
	td2 := e2e.Traces("checkout", 1, 1, map[string]any{"db.system.name": "acme_db"})
	require.NoError(t, client.SendTraces(context.Background(), e2e.GRPC, td2))
	sink.WaitFor(t, e2e.Counts{Spans: 2, LogRecords: 1}, 10*time.Second)
	got2 := sink.Traces()[1].ResourceSpans().At(0)
	assert.Equal(t, map[string]any{"db.system.name": "acme_db"}, got2.ScopeSpans().At(0).Spans().At(0).Attributes().AsRaw())
	assert.Empty(t, got2.SchemaUrl(), "nothing rewritten: schema_url untouched")

	fams := waitForMetric(t, col.MetricsPort, schemaRewritesName)
	spanLoc := map[string]string{"otel_signal": "traces", "location": "span"}
	assertCount(t, fams, attributesMetric, with(spanLoc, "outcome", "value_renamed"), 2)
	assertCount(t, fams, attributesMetric, with(spanLoc, "outcome", "split"), 2)
	assertCount(t, fams, attributesMetric, with(spanLoc, "outcome", "merged"), 2)
	assertCount(t, fams, attributesMetric, with(spanLoc, "outcome", "undefined_enum_variant"), 1)
	assertCount(t, fams, attributesMetric, map[string]string{"otel_signal": "logs", "location": "log", "outcome": "moved"}, 1)
	assertCount(t, fams, serviceAttributesMetric, map[string]string{"otel_signal": "traces", "service_name": "checkout", "outcome": "undefined_enum_variant"}, 1)
	assertCount(t, fams, schemaRewritesName, map[string]string{"otel_signal": "traces", "target": "resource"}, 1)
	assertCount(t, fams, schemaRewritesName, map[string]string{"otel_signal": "traces", "target": "scope"}, 1)
	assertCount(t, fams, schemaRewritesName, map[string]string{"otel_signal": "logs", "target": "resource"}, 1)
}

// TestValidateRejectsBadValueRules: `otelcol validate` names the rules file,
// the line and the reason of a bad value migration.
func TestValidateRejectsBadValueRules(t *testing.T) {
	for _, tt := range []struct {
		name, rules, want string
	}{
		{
			name:  "map value outside the target enum",
			rules: "file_format: otelgov.rules/2\nrules:\n  - key: db.system\n    values:\n      mssql: sqlserver\n",
			want:  `rules.yaml:5: rule for "db.system": values: "mssql" -> "sqlserver": "sqlserver" is not a member of the target enum "db.system.name"`,
		},
		{
			name:  "lossy conversion",
			rules: "file_format: otelgov.rules/2\nrules:\n  - key: http.scheme\n    replace_registry: true\n    renames: [{to: server.port}]\n    convert: int\n",
			want:  `rules.yaml:6: rule for "http.scheme": convert: from string to int can lose data`,
		},
		{
			name:  "unknown target",
			rules: "file_format: otelgov.rules/2\nrules:\n  - key: http.target\n    split: {separator: \"?\", into: [url.pth, url.query]}\n",
			want:  `rules.yaml:4: rule for "http.target": split: target "url.pth" is not a known attribute`,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			rules := filepath.Join(dir, "rules.yaml")
			writeFile(t, rules, tt.rules)
			sink := e2e.StartSink(t)
			p := e2e.NewPipeline(t, sink)
			p.Processors = "  governance:\n    registry:\n      rules_files: [" + rules + "]\n"
			p.ProcessorNames = []string{"governance"}
			cfg := filepath.Join(dir, "config.yaml")
			writeFile(t, cfg, p.YAML())
			out, err := e2e.Run(t, "validate", "--config", cfg)
			require.Error(t, err, out)
			assert.Contains(t, out, tt.want)
		})
	}
}
