package upgrade

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/registry/change"
	"github.com/otelgov/otelcol-governance/vocab"
)

var t0 = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// spans returns one resource of svc with n spans one second apart, each
// carrying attrs.
func spans(t *testing.T, td ptrace.Traces, svc string, n int, attrs map[string]any) {
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", svc)
	ss := rs.ScopeSpans().AppendEmpty()
	for i := range n {
		sp := ss.Spans().AppendEmpty()
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(t0.Add(time.Duration(i) * time.Second)))
		require.NoError(t, sp.Attributes().FromRaw(attrs))
	}
}

// TestRecorderAttributes: on v1.44.0 -> next, the service sending
// rpc.response.status_code is impacted, at 11 spans over 10 s; the one
// already on rpc.status_code... is not, and is listed among the services
// all the same.
func TestRecorderAttributes(t *testing.T) {
	_, _, set := loadPair(t)
	r := NewRecorder(NewTouches(set))
	td := ptrace.NewTraces()
	spans(t, td, "old", 11, map[string]any{"rpc.response.status_code": "OK", "rpc.method": "Get"})
	spans(t, td, "new", 5, map[string]any{"rpc.status_code": "OK"})
	r.Traces(td)
	tr := r.Traffic("rec.jsonl")
	assert.Equal(t, []string{"new", "old"}, tr.Services)
	require.Len(t, tr.Sent, 1)
	s := tr.Sent[0]
	assert.Equal(t, "old", s.Service)
	assert.Equal(t, "rpc.response.status_code", s.Name)
	assert.Equal(t, "rpc.status_code", s.NewName)
	assert.Equal(t, []string{"attribute_renamed"}, s.Kinds)
	assert.Equal(t, int64(11), s.Count)
	assert.InDelta(t, 1.1, s.Rate, 1e-9)
	assert.Equal(t, "rec.jsonl", s.Source)
}

// TestRecorderMetricsAndValues: a touched metric's data points and distinct
// series per service, and the old values a value change rewrites.
func TestRecorderMetricsAndValues(t *testing.T) {
	touches := &Touches{
		Attributes: map[string]*Touch{"db.system": {
			Item: change.ItemAttribute, Name: "db.system", NewName: "db.system.name", Rewritten: true,
			Kinds: []change.Kind{change.AttributeRenamed}, Values: map[string]string{"mssql": "microsoft.sql_server"},
		}},
		Metrics: map[string]*Touch{"db.client.connections.usage": {
			Item: change.ItemMetric, Name: "db.client.connections.usage", NewName: "db.client.connection.count", Rewritten: true,
			Kinds: []change.Kind{change.MetricRenamed},
		}},
	}
	r := NewRecorder(touches)
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "cart")
	m := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("db.client.connections.usage")
	m.SetEmptySum()
	for i, st := range []string{"idle", "used", "idle", "used"} {
		p := m.Sum().DataPoints().AppendEmpty()
		p.SetTimestamp(pcommon.NewTimestampFromTime(t0.Add(time.Duration(i) * 2 * time.Second)))
		p.Attributes().PutStr("state", st)
		p.Attributes().PutStr("db.system", []string{"mssql", "postgresql"}[i%2])
	}
	r.Metrics(md)
	tr := r.Traffic("m.jsonl")
	require.Len(t, tr.Sent, 2)
	byName := map[string]Sent{}
	for _, s := range tr.Sent {
		byName[s.Name] = s
	}
	met := byName["db.client.connections.usage"]
	assert.Equal(t, "metric", met.Item)
	assert.Equal(t, int64(4), met.Count)
	assert.Equal(t, 2, met.Series, "(idle, mssql) and (used, postgresql), twice each")
	assert.InDelta(t, 4.0/6.0, met.Rate, 1e-9)
	key := byName["db.system"]
	assert.Equal(t, int64(4), key.Count)
	assert.Equal(t, map[string]int64{"mssql": 2}, key.Values)
}

// TestRecorderServiceLimit: a recording's per-service table is bounded
// like the processor's (service_limit): the first DefaultServiceLimit
// services get their own row, the resources of later ones are counted
// under _other, and how many were folded is said.
func TestRecorderServiceLimit(t *testing.T) {
	_, _, set := loadPair(t)
	r := NewRecorder(NewTouches(set))
	td := ptrace.NewTraces()
	for i := range DefaultServiceLimit + 3 {
		spans(t, td, fmt.Sprintf("svc-%03d", i), 1, map[string]any{"rpc.response.status_code": "OK"})
	}
	spans(t, td, "svc-000", 1, map[string]any{"rpc.response.status_code": "OK"})
	r.Traces(td)
	tr := r.Traffic("rec.jsonl")
	require.Len(t, tr.Services, DefaultServiceLimit+1)
	assert.Contains(t, tr.Services, vocab.ServiceOther)
	assert.NotContains(t, tr.Services, fmt.Sprintf("svc-%03d", DefaultServiceLimit))
	assert.Equal(t, int64(3), tr.Folded)
	var other, first int64
	for _, s := range tr.Sent {
		switch s.Service {
		case vocab.ServiceOther:
			other = s.Count
		case "svc-000":
			first = s.Count
		}
	}
	assert.Equal(t, int64(3), other, "the folded services' names are counted under _other")
	assert.Equal(t, int64(2), first, "a service with a row keeps it")
}

// TestProducersToMove: a figure over all services (a registry metric's
// count in /conformance) is impact, not a producer: the plan's step
// names only the services that send an old name.
func TestProducersToMove(t *testing.T) {
	_, _, set := loadPair(t)
	tr := &Traffic{Sent: []Sent{
		{Service: AllServices, Name: "rpc.server.duration"},
		{Service: "checkout", Name: "rpc.response.status_code"},
	}}
	p, err := NewPlan(NewTouches(set), PlanInput{Registry: registry.Sources{SemconvDir: newDir}, Traffic: tr})
	require.NoError(t, err)
	var step string
	for _, s := range p.Steps {
		if strings.HasPrefix(s, "Move the producers") {
			step = s
		}
	}
	assert.Equal(t, "Move the producers that send old names to the new ones (instrumentation or SDK upgrade): checkout.", step)
	assert.Equal(t, p.Copy, NewTouches(set).Copied(), "status checks the names the plan copies")
}
