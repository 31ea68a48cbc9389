package checker

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// replacementInput holds deprecated names of each kind: a plain rename
// (http.method), a rename that depends on the span kind (net.peer.name:
// "Replaced by `server.address` on client spans and `client.address` on
// server spans", semantic conventions' model/network/deprecated), a
// deprecation without a current name (db.connection_string) and a renamed
// metric (db.client.connections.usage).
func replacementInput() (ptrace.Traces, pmetric.Metrics) {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "cart")
	spans := rs.ScopeSpans().AppendEmpty().Spans()
	server := spans.AppendEmpty()
	server.SetName("GET /cart")
	server.SetKind(ptrace.SpanKindServer)
	server.Attributes().PutStr("http.method", "GET")
	server.Attributes().PutStr("net.peer.name", "client.example")
	server.Attributes().PutStr("db.connection_string", "postgres://db")
	client := spans.AppendEmpty()
	client.SetName("GET")
	client.SetKind(ptrace.SpanKindClient)
	client.Attributes().PutStr("net.peer.name", "api.example")

	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "cart")
	m := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("db.client.connections.usage")
	m.SetUnit("{connection}")
	m.SetEmptySum().DataPoints().AppendEmpty().SetIntValue(3)
	return td, md
}

// TestDeprecatedReplacements: every output names what to use instead of
// each deprecated name (the registry's renames, as otelgov explain lists
// them), each context-dependent one with its contexts.
func TestDeprecatedReplacements(t *testing.T) {
	c := newChecker(t, engineOptions(), defaultLimits)
	td, md := replacementInput()
	c.Traces(td, "in.jsonl:1")
	c.Metrics(md, "in.jsonl:2")
	r := c.Result()
	f := find(&r, "cart", "deprecated")
	require.NotNil(t, f)
	got := map[string]string{}
	for _, nr := range f.Replacements {
		got[nr.Subject+" "+nr.Name] = nr.Replacement.String()
	}
	assert.Equal(t, map[string]string{
		"key http.method": "http.request.method",
		"key net.peer.name": "client.address on span, span_event, span_link (server, consumer) or " +
			"server.address on span, span_event, span_link (client, producer)",
		"key db.connection_string":           "no current name: Replaced by `server.address` and `server.port`.",
		"metric db.client.connections.usage": "db.client.connection.count",
	}, got)

	var text, md2, junit, js bytes.Buffer
	require.NoError(t, Render(&text, FormatText, &r, FailOn{}))
	assert.Contains(t, text.String(), "\n      http.method -> http.request.method\n")
	assert.Contains(t, text.String(), "\n      net.peer.name -> client.address on span, span_event, span_link (server, consumer) or server.address on span, span_event, span_link (client, producer)\n")
	require.NoError(t, Render(&md2, FormatMarkdown, &r, FailOn{}))
	assert.Contains(t, md2.String(), "Use instead:\n\n")
	assert.Contains(t, md2.String(), "- `db.client.connections.usage` -> db.client.connection.count\n")
	require.NoError(t, Render(&junit, FormatJUnit, &r, FailOn{}))
	assert.Contains(t, junit.String(), "use instead: db.connection_string -&gt; no current name: Replaced by `server.address` and `server.port`.")
	assert.Contains(t, junit.String(), "; http.method -&gt; http.request.method; +1 more\" type=\"violation\"")
	require.NoError(t, Render(&js, FormatJSON, &r, FailOn{}))
	var doc struct {
		Replacements map[string]map[string]Replacement `json:"replacements"`
	}
	require.NoError(t, json.Unmarshal(js.Bytes(), &doc))
	assert.Equal(t, Replacement{
		Reason: "uncategorized",
		Note:   "Replaced by `server.address` on client spans and `client.address` on server spans.",
		Current: []CurrentName{
			{Name: "client.address", Contexts: []string{"span, span_event, span_link (server, consumer)"}},
			{Name: "server.address", Contexts: []string{"span, span_event, span_link (client, producer)"}},
		},
	}, doc.Replacements["key"]["net.peer.name"])
	assert.Equal(t, Replacement{Reason: "renamed", Note: "Replaced by `http.request.method`.", Current: []CurrentName{{Name: "http.request.method"}}},
		doc.Replacements["key"]["http.method"])
	assert.Equal(t, Replacement{Reason: "renamed", Note: "Replaced by `db.client.connection.count`.", Current: []CurrentName{{Name: "db.client.connection.count"}}},
		doc.Replacements["metric"]["db.client.connections.usage"])

	// No other finding gets replacements.
	for _, s := range r.Services {
		for _, f := range s.Findings {
			if f.ID != "deprecated" {
				assert.Empty(t, f.Replacements, f.ID)
			}
		}
	}
}

// TestWeaverDeprecation: --format weaver's deprecated finding carries
// Weaver's context and message (crates/weaver_live_check/src/advice/
// deprecated_advisor.rs at afa9700c; the note as Deprecated::note infers it,
// crates/weaver_semconv/src/deprecated.rs).
func TestWeaverDeprecation(t *testing.T) {
	td, md := replacementInput()
	ww := newWeaverWriter(t, &bytes.Buffer{}, WeaverOptions{Report: true})
	ww.Traces(td)
	ww.Metrics(md)
	got := map[string]WeaverFinding{}
	for _, s := range ww.Samples() {
		var rs []*WeaverResult
		switch {
		case s.Span != nil:
			for _, a := range s.Span.Attributes {
				rs = append(rs, a.LiveCheckResult)
			}
		case s.Metric != nil:
			rs = append(rs, s.Metric.LiveCheckResult)
		}
		for _, r := range rs {
			if r == nil {
				continue
			}
			for _, f := range r.AllAdvice {
				if f.ID == "deprecated" {
					got[f.about] = f
				}
			}
		}
	}
	require.Len(t, got, 4)
	assert.Equal(t, map[string]any{
		"attribute_key": "http.method", "deprecation_reason": "renamed", "deprecation_note": "Replaced by `http.request.method`.",
	}, got["http.method"].Context)
	assert.Equal(t, "Attribute 'http.method' is deprecated; reason = 'renamed', note = 'Replaced by `http.request.method`.'.", got["http.method"].Message)
	assert.Equal(t, "uncategorized", got["net.peer.name"].Context["deprecation_reason"])
	assert.True(t, strings.HasPrefix(got["net.peer.name"].Message, "Attribute 'net.peer.name' is deprecated; reason = 'uncategorized', note = 'Replaced by `server.address` on client spans"))
	assert.Equal(t, "Metric 'db.client.connections.usage' is deprecated; reason = 'renamed', note = 'Replaced by `db.client.connection.count`.'.", got["db.client.connections.usage"].Message)
	assert.Equal(t, "db.client.connections.usage", got["db.client.connections.usage"].Context["metric_name"])
}

// TestEntityTypesNamed: the text report names the entity types of an
// unsatisfied association (Weaver's sample registry, crates/
// weaver_live_check/data/model/entity_associations, and its first resource,
// which has none of them), and --format json's example carries them.
func TestEntityTypesNamed(t *testing.T) {
	ix, err := registry.Load(registry.Sources{OrgRegistries: []string{"weaversuite/testdata/registries/entity_associations"}})
	require.NoError(t, err)
	c := New(ix, Options{Engine: engineOptions(), Limits: defaultLimits})
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "my-service")
	rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().SetEventName("thing.happened")
	c.Logs(ld, "in.jsonl:1")
	r := c.Result()
	f := find(&r, "my-service", "entity_association_not_satisfied")
	require.NotNil(t, f)
	require.Len(t, f.Examples, 1)
	assert.Equal(t, []string{"host", "container"}, f.Examples[0].EntityTypes)
	var text bytes.Buffer
	require.NoError(t, Render(&text, FormatText, &r, FailOn{}))
	assert.Contains(t, text.String(), `e.g. logs log "thing.happened" (none of the entities [host, container]) at in.jsonl:1`)
	tenant := find(&r, "my-service", "entity_required_attribute_not_present")
	require.NotNil(t, tenant)
	assert.Nil(t, tenant.Examples[0].EntityTypes, "only the association finding lists entity types")
}

// TestReplacementScopedToMetric: a key the schema file renames on one
// metric only (state on db.client.connections.usage, semantic conventions'
// schemas/1.26.0) is named with that metric, read from where it was found.
func TestReplacementScopedToMetric(t *testing.T) {
	eo := engineOptions()
	eo.Profile = vocab.ProfileExtended // a schema-only name is deprecated there, unknown in weaver
	c := newChecker(t, eo, defaultLimits)
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "db")
	m := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("db.client.connections.usage")
	m.SetUnit("{connection}")
	m.SetEmptySum().DataPoints().AppendEmpty().Attributes().PutStr("state", "idle")
	c.Metrics(md, "in.jsonl:1")
	r := c.Result()
	f := find(&r, "db", "deprecated")
	require.NotNil(t, f)
	got := map[string]string{}
	for _, nr := range f.Replacements {
		got[nr.Name] = nr.Replacement.String()
	}
	assert.Equal(t, "db.client.connection.state on data_point (metric db.client.connections.usage)", got["state"])
}
