package checker

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/engine/enginetest"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// weaverKeys are the JSON keys Weaver writes for each part of its report,
// read from open-telemetry/weaver afa9700c: the serde structs of
// crates/weaver_live_check/src/{lib,stats,sample_*}.rs,
// crates/weaver_checker/src/finding.rs and the attribute example of
// crates/weaver_live_check/README.md ("live_check_result", "name",
// "type", "value"; a finding's "level", "id", "message", "context",
// "signal_name", "signal_type").
var weaverKeys = map[string][]string{
	"report":                {"samples", "statistics"},
	"statistics":            {"advice_level_counts", "advice_message_counts", "advice_type_counts", "highest_advice_level_counts", "no_advice_count", "registry_coverage", "seen_non_registry_attributes", "seen_non_registry_events", "seen_non_registry_metrics", "seen_registry_attributes", "seen_registry_events", "seen_registry_metrics", "total_advisories", "total_entities", "total_entities_by_type"},
	"live_check_result":     {"all_advice", "highest_advice_level"},
	"finding":               {"context", "id", "level", "message", "signal_name", "signal_type"},
	"attribute":             {"live_check_result", "name", "type", "value"},
	"resource":              {"attributes", "live_check_result"},
	"instrumentation_scope": {"attributes", "dropped_attributes_count", "live_check_result", "name", "schema_url", "version"},
	"span":                  {"attributes", "kind", "live_check_result", "name", "span_events", "span_links", "status"},
	"status":                {"code", "message"},
	"span_event":            {"attributes", "live_check_result", "name"},
	"span_link":             {"attributes", "live_check_result"},
	"metric":                {"data_points", "instrument", "live_check_result", "name", "unit"},
	"number_data_point":     {"attributes", "exemplars", "flags", "live_check_result", "value"},
	"histogram_data_point":  {"attributes", "bucket_counts", "count", "exemplars", "explicit_bounds", "flags", "live_check_result", "max", "min", "sum"},
	"log":                   {"attributes", "body", "event_name", "live_check_result", "severity_number", "severity_text", "span_id", "trace_id"},
}

func keysOf(t *testing.T, v any) []string {
	t.Helper()
	m, ok := v.(map[string]any)
	require.True(t, ok, "want an object, got %T", v)
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func weaverInput() (ptrace.Traces, pmetric.Metrics, plog.Logs) {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "cart")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("io.opentelemetry.http")
	sp := ss.Spans().AppendEmpty()
	sp.SetName("GET /cart")
	sp.SetKind(ptrace.SpanKindServer)
	sp.Attributes().PutStr("http.method", "GET") // deprecated
	sp.Attributes().PutStr("huge", strings.Repeat("x", 10000)+"\xff")
	sp.Attributes().PutEmptySlice("list").AppendEmpty().SetInt(3)
	sp.Events().AppendEmpty().SetName("exception")
	sp.Links().AppendEmpty().Attributes().PutStr("foo", "bar")

	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	m := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("http.server.request.duration")
	m.SetUnit("s")
	dp := m.SetEmptyHistogram().DataPoints().AppendEmpty()
	dp.Attributes().PutStr("http.request.method", "GET")
	dp.SetCount(2)
	m2 := rm.ScopeMetrics().At(0).Metrics().AppendEmpty()
	m2.SetName("queue.size")
	m2.SetEmptyGauge().DataPoints().AppendEmpty().SetIntValue(4)

	ld := plog.NewLogs()
	lr := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	lr.SetEventName("session.start")
	lr.Body().SetStr("hello")
	lr.Attributes().PutStr("session.id", "s1")
	return td, md, ld
}

func newWeaverWriter(t *testing.T, w io.Writer, opts WeaverOptions) *WeaverWriter {
	t.Helper()
	ix, err := registry.Default()
	require.NoError(t, err)
	opts.Engine = engine.Options{Findings: true}
	return NewWeaverWriter(w, ix, opts)
}

// TestWeaverReportShape checks every part of the report shape against
// Weaver's field names: a missing or renamed field fails it.
func TestWeaverReportShape(t *testing.T) {
	var out bytes.Buffer
	ww := newWeaverWriter(t, &out, WeaverOptions{Report: true})
	td, md, ld := weaverInput()
	ww.Traces(td)
	ww.Metrics(md)
	ww.Logs(ld)
	require.NoError(t, ww.Close())

	var rep map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	assert.Equal(t, weaverKeys["report"], keysOf(t, rep))
	assert.Equal(t, weaverKeys["statistics"], keysOf(t, rep["statistics"]))

	seen := map[string]int{}
	var check func(kind string, v any)
	check = func(kind string, v any) {
		seen[kind]++
		assert.Equal(t, weaverKeys[kind], keysOf(t, v), kind)
		obj := v.(map[string]any)
		if r, ok := obj["live_check_result"].(map[string]any); ok {
			seen["live_check_result"]++
			assert.Equal(t, weaverKeys["live_check_result"], keysOf(t, r))
			for _, f := range r["all_advice"].([]any) {
				seen["finding"]++
				assert.Equal(t, weaverKeys["finding"], keysOf(t, f))
			}
		}
		if as, ok := obj["attributes"].([]any); ok {
			for _, a := range as {
				check("attribute", a)
			}
		}
		for field, sub := range map[string]string{"span_events": "span_event", "span_links": "span_link"} {
			if l, ok := obj[field].([]any); ok {
				for _, x := range l {
					check(sub, x)
				}
			}
		}
		if s, ok := obj["status"].(map[string]any); ok {
			check("status", s)
		}
		if dps, ok := obj["data_points"].([]any); ok {
			for _, p := range dps {
				if _, ok := p.(map[string]any)["bucket_counts"]; ok {
					check("histogram_data_point", p)
				} else {
					check("number_data_point", p)
				}
			}
		}
	}
	for _, s := range rep["samples"].([]any) {
		obj := s.(map[string]any)
		require.Len(t, obj, 1, "a sample is one {kind: ...}")
		for kind, v := range obj {
			check(kind, v)
		}
	}
	for _, kind := range []string{"resource", "instrumentation_scope", "span", "status", "span_event", "span_link", "metric", "histogram_data_point", "number_data_point", "log", "attribute", "finding", "live_check_result"} {
		assert.Positive(t, seen[kind], "no %s in the report", kind)
	}
	st := rep["statistics"].(map[string]any)
	assert.InDelta(t, float64(seen["finding"]), st["total_advisories"], 0, "every finding in the samples is counted once")
	assert.Positive(t, st["advice_type_counts"].(map[string]any)["deprecated"], "http.method is deprecated")
	var body any
	for _, s := range rep["samples"].([]any) {
		if l, ok := s.(map[string]any)["log"]; ok {
			body = l.(map[string]any)["body"]
		}
	}
	assert.Equal(t, `StringValue("hello")`, body, "Weaver writes a log body in its Rust Debug form")
}

// TestWeaverStreaming: one document per sample, then the statistics; the
// line variant puts each on one line.
func TestWeaverStreaming(t *testing.T) {
	for _, opts := range []WeaverOptions{{}, {Lines: true}, {Lines: true, Report: true}} {
		lines := opts.Lines
		var out bytes.Buffer
		ww := newWeaverWriter(t, &out, opts)
		td, _, ld := weaverInput()
		ww.Traces(td)
		ww.Logs(ld)
		require.NoError(t, ww.Close())
		text := out.String()
		dec := json.NewDecoder(&out)
		var docs []map[string]any
		for dec.More() {
			var d map[string]any
			require.NoError(t, dec.Decode(&d))
			docs = append(docs, d)
		}
		// resource, scope, span; resource, scope, log; statistics
		require.Len(t, docs, 7)
		kinds := []string{}
		for _, d := range docs[:6] {
			for k := range d {
				kinds = append(kinds, k)
			}
		}
		assert.Equal(t, []string{"resource", "instrumentation_scope", "span", "resource", "instrumentation_scope", "log"}, kinds)
		assert.Equal(t, weaverKeys["statistics"], keysOf(t, docs[6]))
		if lines {
			assert.Equal(t, 7, strings.Count(text, "\n"), "jsonl: one line per document")
		} else {
			assert.Greater(t, strings.Count(text, "\n"), 20, "json: indented")
		}
	}
}

// TestWeaverValuesBounded: attribute values echoed are bounded like every
// client string (vocab.Bound), arrays by MaxWeaverArray.
func TestWeaverValuesBounded(t *testing.T) {
	var out bytes.Buffer
	ww := newWeaverWriter(t, &out, WeaverOptions{Report: true})
	td := ptrace.NewTraces()
	sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	long := strings.Repeat("é", 5000)
	sp.SetName(long)
	sp.Attributes().PutStr(long, long+"\xff")
	sl := sp.Attributes().PutEmptySlice("many")
	for range 1000 {
		sl.AppendEmpty().SetStr(long)
	}
	ww.Traces(td)
	require.NoError(t, ww.Close())
	var rep WeaverReport
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	var span *WeaverSpan
	for _, s := range rep.Samples {
		if s.Span != nil {
			span = s.Span
		}
	}
	require.NotNil(t, span)
	assert.LessOrEqual(t, len(span.Name), vocab.MaxKeyLength)
	for _, a := range span.Attributes {
		assert.LessOrEqual(t, len(a.Name), vocab.MaxKeyLength)
		switch v := a.Value.(type) {
		case string:
			assert.LessOrEqual(t, len(v), vocab.MaxKeyLength)
		case []any:
			assert.Len(t, v, MaxWeaverArray)
			for _, e := range v {
				assert.LessOrEqual(t, len(e.(string)), vocab.MaxKeyLength)
			}
		}
	}
	assert.Less(t, out.Len(), 200_000, "the report of one 8 MB span stays small")
}

func TestInferType(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{"a", "string"},
		{int64(1), "int"},
		{1.5, "double"},
		{true, "boolean"},
		{[]any{"a", "b"}, "string[]"},
		{[]any{int64(1)}, "int[]"},
		{[]any{1.5, int64(2)}, "double[]"},
		{[]any{int64(1), 1.5}, "double[]"},
		{[]any{"a", int64(1)}, ""},
		{[]any{}, ""},
		{nil, ""},
	} {
		got := inferType(c.v)
		if c.want == "" {
			assert.Nil(t, got, "%v", c.v)
		} else if assert.NotNil(t, got, "%v", c.v) {
			assert.Equal(t, c.want, *got, "%v", c.v)
		}
	}
}

// BenchmarkWeaverWriter: one traces, metrics and logs request (a span with
// an event and a link, two metrics, a log record) through the Weaver
// report, streaming to io.Discard.
func BenchmarkWeaverWriter(b *testing.B) {
	ix, err := registry.Default()
	require.NoError(b, err)
	ww := NewWeaverWriter(io.Discard, ix, WeaverOptions{Engine: engine.Options{Findings: true}})
	td, md, ld := weaverInput()
	b.ReportAllocs()
	for b.Loop() {
		ww.Traces(td)
		ww.Metrics(md)
		ww.Logs(ld)
	}
}

// TestWeaverStatisticsRegistryItems: as Weaver's extract_registry_items,
// the coverage counts the registry's definitions that are not deprecated;
// a deprecated attribute or metric seen is non-registry.
func TestWeaverStatisticsRegistryItems(t *testing.T) {
	ix, err := registry.Default()
	require.NoError(t, err)
	st := newWeaverStatistics(ix)
	assert.Contains(t, st.SeenRegistryAttributes, "http.request.method")
	assert.NotContains(t, st.SeenRegistryAttributes, "http.method", "deprecated")
	assert.Contains(t, st.SeenRegistryMetrics, "http.server.request.duration")
	for _, m := range ix.Metrics() {
		if m.Placeholder || m.Deprecation.Reason != registry.NotDeprecated {
			assert.NotContains(t, st.SeenRegistryMetrics, m.Name)
		}
	}
	for _, a := range ix.Attributes() {
		if a.Placeholder {
			assert.NotContains(t, st.SeenRegistryAttributes, a.Key)
		}
	}
}

// scopeAdvisor reports one finding on every instrumentation scope sample.
type scopeAdvisor struct{}

func (scopeAdvisor) Advise(s *engine.Sample, dst []engine.Advice) []engine.Advice {
	if s.Kind == engine.SampleScope {
		dst = append(dst, engine.Advice{Finding: vocab.NumFindings, ID: "scope_rule", Level: vocab.LevelInformation, Subject: vocab.SubjectKey})
	}
	return dst
}

// TestWeaverScopeFindings: the findings on a scope's attributes, and an
// advisor's on the scope itself, are on the scope sample, with no signal
// type (Weaver's parent signal is the scope sample, which has none); the
// spans under it do not repeat them, and each is counted once.
func TestWeaverScopeFindings(t *testing.T) {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "cart")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("library")
	ss.Scope().Attributes().PutStr("http.method", "GET") // deprecated
	for _, n := range []string{"GET /cart", "GET /shop"} {
		ss.Spans().AppendEmpty().SetName(n)
	}
	ix, err := registry.Default()
	require.NoError(t, err)
	var out bytes.Buffer
	ww := NewWeaverWriter(&out, ix, WeaverOptions{Report: true, Engine: engine.Options{Findings: true, Advisor: scopeAdvisor{}}})
	ww.Traces(td)
	require.NoError(t, ww.Close())

	var rep struct {
		Samples    []WeaverSample `json:"samples"`
		Statistics struct {
			TotalAdvisories int            `json:"total_advisories"`
			Types           map[string]int `json:"advice_type_counts"`
		} `json:"statistics"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	require.Len(t, rep.Samples, 4) // resource, scope, two spans
	sc := rep.Samples[1].InstrumentationScope
	require.NotNil(t, sc)
	require.NotNil(t, sc.LiveCheckResult, "the advisor's finding on the scope")
	require.Len(t, sc.LiveCheckResult.AllAdvice, 1)
	assert.Equal(t, "scope_rule", sc.LiveCheckResult.AllAdvice[0].ID)
	require.Len(t, sc.Attributes, 1)
	r := sc.Attributes[0].LiveCheckResult
	require.NotNil(t, r, "the scope attribute's findings")
	var ids []string
	for _, f := range append(r.AllAdvice, sc.LiveCheckResult.AllAdvice...) {
		ids = append(ids, f.ID)
		assert.Nil(t, f.SignalType, "%s: a scope's finding has no signal type", f.ID)
	}
	assert.ElementsMatch(t, []string{"deprecated", "not_stable", "scope_rule"}, ids)
	for _, s := range rep.Samples[2:] {
		require.NotNil(t, s.Span)
		assert.Nil(t, s.Span.LiveCheckResult, "the scope's findings are not repeated on %s", s.Span.Name)
	}
	assert.Equal(t, 3, rep.Statistics.TotalAdvisories)
	assert.Equal(t, 1, rep.Statistics.Types["deprecated"])
}

// TestWeaverInstrument pins the metric sample's instrument as Weaver
// serializes SampleInstrument (src/registry/otlp/conversion.rs at afa9700c:
// a summary is Unsupported("Summary"), a metric without data
// Unsupported("Unspecified")), the spelling a policy reads as
// input.sample.metric.instrument (policy's TestInstrumentAsWeaver).
func TestWeaverInstrument(t *testing.T) {
	md := enginetest.InstrumentMetrics()
	ww := newWeaverWriter(t, io.Discard, WeaverOptions{Report: true})
	ww.Metrics(md)
	got := map[string]string{}
	for _, s := range ww.Samples() {
		if s.Metric != nil {
			got[s.Metric.Name] = s.Metric.Instrument
		}
	}
	assert.Equal(t, enginetest.InstrumentNames, got)
}
