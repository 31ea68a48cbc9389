//go:build e2e

package e2e_test

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/conformance"
	"github.com/otelgov/otelcol-governance/internal/e2e"
)

const (
	findingsMetric        = "otelcol_processor_governance_findings"
	serviceFindingsMetric = "otelcol_processor_governance_service_findings"
)

// durationMetrics is one http.server.request.duration histogram point.
func durationMetrics(service, unit string, attrs map[string]any) pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", service)
	m := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("http.server.request.duration")
	m.SetUnit(unit)
	dp := m.SetEmptyHistogram().DataPoints().AppendEmpty()
	dp.SetCount(1)
	dp.SetSum(0.2)
	_ = dp.Attributes().FromRaw(attrs)
	return md
}

// TestSignalFindings sends, through the built binary, a metric that breaks
// its registry definition, the same metric conforming, a span that claims
// HTTP server semantics under the wrong kind, and a log with an unknown
// event name, and checks the findings on :8888 and in /conformance.
func TestSignalFindings(t *testing.T) {
	org := t.TempDir()
	writeFile(t, filepath.Join(org, "cart.yaml"), cartV1)
	rc := startRegistryCollector(t, org, time.Hour)
	ctx := context.Background()

	bad := durationMetrics("bad-metrics", "ms", map[string]any{"url.scheme": "https", "user.id": "u-42"})
	good := durationMetrics("good-metrics", "s", map[string]any{"http.request.method": "GET", "url.scheme": "https"})
	require.NoError(t, rc.client.SendMetrics(ctx, e2e.GRPC, bad))
	require.NoError(t, rc.client.SendMetrics(ctx, e2e.GRPC, good))

	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "spans")
	sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetName("GET /cart")
	sp.SetKind(ptrace.SpanKindInternal)
	sp.SetTraceID(pcommon.TraceID{1, 2, 3})
	sp.SetSpanID(e2e.SpanID(1))
	sp.Attributes().PutStr("http.request.method", "GET")
	sp.Attributes().PutStr("url.scheme", "https")
	require.NoError(t, rc.client.SendTraces(ctx, e2e.GRPC, td))

	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "logs")
	lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	lr.SetEventName("acme.checkout.abandoned")
	lr.Body().SetStr("cart abandoned")
	require.NoError(t, rc.client.SendLogs(ctx, e2e.GRPC, ld))

	rc.sink.WaitFor(t, e2e.Counts{Spans: 1, DataPoints: 2, LogRecords: 1}, 10*time.Second)

	// :8888, per service.
	var fams e2e.Families
	deadline := time.Now().Add(10 * time.Second)
	for {
		fams = e2e.MustScrape(t, rc.metrics)
		n, _ := fams.Sum(serviceFindingsMetric, map[string]string{"service_name": "logs", "finding": "missing_event"})
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	svc := func(s, f, level string) map[string]string {
		return map[string]string{"service_name": s, "finding": f, "level": level}
	}
	assertCount(t, fams, serviceFindingsMetric, svc("bad-metrics", "unit_mismatch", "violation"), 1)
	assertCount(t, fams, serviceFindingsMetric, svc("bad-metrics", "required_attribute_not_present", "violation"), 1)
	assertCount(t, fams, serviceFindingsMetric, svc("bad-metrics", "unexpected_attribute", "improvement"), 1)
	for _, f := range []string{"unit_mismatch", "required_attribute_not_present", "unexpected_attribute", "unexpected_instrument"} {
		assertAbsentOrZero(t, fams, serviceFindingsMetric, map[string]string{"service_name": "good-metrics", "finding": f})
	}
	assertCount(t, fams, serviceFindingsMetric, svc("spans", "kind_mismatch", "violation"), 1)
	assertCount(t, fams, serviceFindingsMetric, svc("spans", "required_attribute_not_present", "violation"), 1)
	assertCount(t, fams, serviceFindingsMetric, svc("logs", "missing_event", "violation"), 1)
	assertCount(t, fams, findingsMetric, map[string]string{"otel_signal": "metrics", "finding": "unit_mismatch", "level": "violation"}, 1)
	assertCount(t, fams, findingsMetric, map[string]string{"otel_signal": "traces", "finding": "kind_mismatch", "level": "violation"}, 1)
	assertCount(t, fams, findingsMetric, map[string]string{"otel_signal": "logs", "finding": "missing_event", "level": "violation"}, 1)

	// /conformance, per service, with the names.
	var doc conformance.Document
	deadline = time.Now().Add(10 * time.Second)
	for {
		code, _ := rc.get(t, "/conformance", &doc)
		require.Equal(t, http.StatusOK, code)
		if len(doc.Services) >= 4 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	by := map[string]conformance.ServiceReport{}
	for _, s := range doc.Services {
		by[s.Service] = s
	}
	badF := by["bad-metrics"].Findings
	assert.Equal(t, []conformance.FindingName{{Subject: "metric", Name: "http.server.request.duration", Count: 1}}, badF["unit_mismatch"].Top)
	assert.Equal(t, []conformance.FindingName{{Subject: "key", Name: "http.request.method", Count: 1}}, badF["required_attribute_not_present"].Top)
	assert.Equal(t, []conformance.FindingName{{Subject: "key", Name: "user.id", Count: 1}}, badF["unexpected_attribute"].Top)
	goodF := by["good-metrics"].Findings
	for _, f := range []string{"unit_mismatch", "required_attribute_not_present", "unexpected_attribute"} {
		assert.NotContains(t, goodF, f)
	}
	spanF := by["spans"].Findings
	assert.Equal(t, []conformance.FindingName{{Subject: "span", Name: "span.http.server", Count: 1}}, spanF["kind_mismatch"].Top)
	assert.Contains(t, spanF["required_attribute_not_present"].Top, conformance.FindingName{Subject: "key", Name: "url.path", Count: 1})
	assert.Equal(t, []conformance.FindingName{{Subject: "event", Name: "acme.checkout.abandoned", Count: 1}}, by["logs"].Findings["missing_event"].Top)

	assert.Positive(t, doc.Totals.AdviceLevelCounts["violation"])
	assert.Equal(t, int64(1), doc.Totals.SeenNonRegistryEvents)
	require.Len(t, doc.Metrics, 1)
	assert.Equal(t, "http.server.request.duration", doc.Metrics[0].Name)
	assert.Equal(t, int64(2), doc.Metrics[0].Count)
	assert.ElementsMatch(t, []string{"http.request.method", "url.scheme"}, doc.Metrics[0].SeenAttributes)
	require.Len(t, doc.Spans, 1)
	assert.Equal(t, "span.http.server", doc.Spans[0].Name)
}

// TestFindingLogRecords: with findings::logs on, a finding of the metrics
// pipeline leaves the logs pipeline as a weaver.live_check.finding record.
func TestFindingLogRecords(t *testing.T) {
	sink := e2e.StartSink(t)
	p := e2e.NewPipeline(t, sink)
	p.Processors = "  governance:\n    findings:\n      logs:\n        enabled: true\n        max_per_second: 50\n"
	p.ProcessorNames = []string{"governance"}
	e2e.StartCollector(t, p.YAML(), p.HealthPort, p.MetricsPort, e2e.Options{})
	client, err := e2e.NewClient(p.GRPCEndpoint(), p.HTTPEndpoint())
	require.NoError(t, err)
	defer client.Close()
	ctx := context.Background()

	require.NoError(t, client.SendMetrics(ctx, e2e.GRPC, durationMetrics("bad-metrics", "ms", map[string]any{"url.scheme": "https"})))
	sink.WaitFor(t, e2e.Counts{DataPoints: 1}, 10*time.Second)
	require.NoError(t, client.SendLogs(ctx, e2e.GRPC, e2e.Logs("app", 0, 1, nil)))
	deadline := time.Now().Add(10 * time.Second)
	for sink.Counts().LogRecords < 2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	found := map[string]map[string]any{}
	for _, ld := range sink.Logs() {
		for _, rl := range ld.ResourceLogs().All() {
			for _, sl := range rl.ScopeLogs().All() {
				for _, lr := range sl.LogRecords().All() {
					if lr.EventName() != "weaver.live_check.finding" {
						continue
					}
					id, _ := lr.Attributes().Get("weaver.finding.id")
					found[id.Str()] = lr.Attributes().AsRaw()
				}
			}
		}
	}
	require.Contains(t, found, "unit_mismatch")
	assert.Equal(t, "violation", found["unit_mismatch"]["weaver.finding.level"])
	assert.Equal(t, "http.server.request.duration", found["unit_mismatch"]["weaver.finding.signal.name"])
	assert.Equal(t, "bad-metrics", found["unit_mismatch"]["weaver.finding.resource.attribute.service.name"])
	require.Contains(t, found, "required_attribute_not_present")
	assert.Equal(t, "http.request.method", found["required_attribute_not_present"]["weaver.finding.context.attribute_key"])
}

// TestUnexpectedAttributeGuard: with drop_unexpected_attributes, user.id
// leaves http.server.request.duration before the exporter, counted on
// :8888; a metric the registry does not define keeps it.
func TestUnexpectedAttributeGuard(t *testing.T) {
	sink := e2e.StartSink(t)
	p := e2e.NewPipeline(t, sink)
	p.Processors = "  governance:\n    findings:\n      profile: extended\n      drop_unexpected_attributes: true\n"
	p.ProcessorNames = []string{"governance"}
	col := e2e.StartCollector(t, p.YAML(), p.HealthPort, p.MetricsPort, e2e.Options{})
	client, err := e2e.NewClient(p.GRPCEndpoint(), p.HTTPEndpoint())
	require.NoError(t, err)
	defer client.Close()

	md := durationMetrics("checkout", "s", map[string]any{"http.request.method": "GET", "url.scheme": "https", "user.id": "u-42"})
	own := md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().AppendEmpty()
	own.SetName("acme.cart.checkouts")
	own.SetEmptyGauge().DataPoints().AppendEmpty().Attributes().PutStr("user.id", "u-42")
	require.NoError(t, client.SendMetrics(context.Background(), e2e.GRPC, md))
	sink.WaitFor(t, e2e.Counts{DataPoints: 2}, 10*time.Second)

	ms := sink.Metrics()[0].ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics()
	for i := range ms.Len() {
		m := ms.At(i)
		switch m.Name() {
		case "http.server.request.duration":
			assert.Equal(t, map[string]any{"http.request.method": "GET", "url.scheme": "https"},
				m.Histogram().DataPoints().At(0).Attributes().AsRaw())
		case "acme.cart.checkouts":
			_, ok := m.Gauge().DataPoints().At(0).Attributes().Get("user.id")
			assert.True(t, ok, "a metric the registry does not define keeps its attributes")
		}
	}
	fams := waitForMetric(t, col.MetricsPort, attributesDroppedMetric)
	assertCount(t, fams, attributesDroppedMetric, map[string]string{"otel_signal": "metrics", "reason": "unexpected"}, 1)
	assertCount(t, fams, findingsMetric, map[string]string{"otel_signal": "metrics", "finding": "unexpected_attribute", "level": "improvement"}, 1)
}
