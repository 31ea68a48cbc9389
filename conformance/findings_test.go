package conformance

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/findingrules"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

func walkBatch(t *testing.T, ix *registry.Index, walk func(w *engine.Walker)) *engine.Batch {
	t.Helper()
	e := engine.New(engine.Options{
		Deprecated: engine.DeprecatedRename, Unknown: engine.UnknownKeep,
		TypeMismatch: engine.TypeMismatchKeep, EnumViolation: engine.EnumViolationKeep,
		Detail: true, Findings: true,
		Rules:   unexpectedViolation(t),
		Profile: vocab.ProfileExtended, // unexpected_attribute on a v1 metric
	})
	w := e.Walker(ix, true)
	t.Cleanup(func() { e.Release(w) })
	walk(w)
	return w.Batch()
}

func unexpectedViolation(t *testing.T) *findingrules.Rules {
	t.Helper()
	r, err := findingrules.Compile(nil, []findingrules.LevelOverride{{IDs: []string{"unexpected_attribute"}, Level: "violation"}})
	require.NoError(t, err)
	return r
}

func TestReportFindings(t *testing.T) {
	ix, err := registry.Default()
	require.NoError(t, err)
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "checkout")
	ms := rm.ScopeMetrics().AppendEmpty().Metrics()
	m := ms.AppendEmpty()
	m.SetName("http.server.request.duration")
	m.SetUnit("ms")
	dp := m.SetEmptyHistogram().DataPoints().AppendEmpty().Attributes()
	dp.PutStr("url.scheme", "https")
	dp.PutStr("user.id", "u1")
	long := strings.Repeat("x", 2*vocab.MaxKeyLength)
	ms.AppendEmpty().SetName(long)

	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "checkout")
	lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	lr.SetEventName("acme.login")

	r := New(Limits{MaxServices: 10, TopKeys: 5}, time.Unix(0, 0))
	r.Add(walkBatch(t, ix, func(w *engine.Walker) { w.Metrics(md) }), time.Unix(1, 0))
	r.Add(walkBatch(t, ix, func(w *engine.Walker) { w.Logs(ld) }), time.Unix(2, 0))
	doc := r.Document(ix, 1, "", time.Unix(3, 0))

	require.Len(t, doc.Services, 1)
	f := doc.Services[0].Findings
	require.Contains(t, f, "unit_mismatch")
	assert.Equal(t, "violation", f["unit_mismatch"].Level)
	assert.Equal(t, []FindingName{{Subject: "metric", Name: "http.server.request.duration", Count: 1}}, f["unit_mismatch"].Top)
	assert.Equal(t, []FindingName{{Subject: "key", Name: "http.request.method", Count: 1}}, f["required_attribute_not_present"].Top)
	assert.Equal(t, "violation", f["unexpected_attribute"].Level, "overridden")
	assert.Equal(t, []FindingName{{Subject: "key", Name: "user.id", Count: 1}}, f["unexpected_attribute"].Top)
	assert.Equal(t, []FindingName{{Subject: "event", Name: "acme.login", Count: 1}}, f["missing_event"].Top)
	require.Len(t, f["missing_metric"].Top, 1)
	assert.Len(t, f["missing_metric"].Top[0].Name, vocab.MaxKeyLength, "client names are cut")

	tot := doc.Totals
	assert.Equal(t, int64(1), tot.AdviceTypeCounts["unit_mismatch"])
	assert.Equal(t, int64(1), tot.SeenNonRegistryMetrics)
	assert.Equal(t, int64(1), tot.SeenNonRegistryEvents)
	assert.Equal(t, 1, tot.SeenRegistryMetrics)
	var sum int64
	for _, n := range tot.AdviceLevelCounts {
		sum += n
	}
	assert.Equal(t, tot.TotalAdvisories, sum)

	require.Len(t, doc.Metrics, 1)
	cov := doc.Metrics[0]
	assert.Equal(t, "http.server.request.duration", cov.Name)
	assert.Equal(t, int64(1), cov.Count)
	assert.Equal(t, []string{"url.scheme"}, cov.SeenAttributes)
	assert.InDelta(t, 1/float64(cov.Attributes), cov.Coverage, 1e-9)
	assert.Empty(t, doc.Events)
}

func TestReportFindingsBounded(t *testing.T) {
	ix, err := registry.Default()
	require.NoError(t, err)
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "checkout")
	ms := rm.ScopeMetrics().AppendEmpty().Metrics()
	for i := range 100 {
		ms.AppendEmpty().SetName("acme.m" + strings.Repeat("x", i))
	}
	r := New(Limits{MaxServices: 10, TopKeys: 3}, time.Unix(0, 0))
	r.Add(walkBatch(t, ix, func(w *engine.Walker) { w.Metrics(md) }), time.Unix(1, 0))
	doc := r.Document(ix, 1, "", time.Unix(3, 0))
	f := doc.Services[0].Findings["missing_metric"]
	assert.Equal(t, int64(100), f.Count)
	assert.Len(t, f.Top, 3)
	assert.LessOrEqual(t, len(r.services["checkout"].findings.names[vocab.FindingMissingMetric][vocab.SubjectMetric].entries), sketchFactor*3)
}
