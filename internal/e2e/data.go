package e2e

import (
	"encoding/binary"
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Items are numbered so that a receiver can tell which arrived: span i has
// span ID i+1, data point i has value i, log record i has body "log-i".

// SpanID returns the span ID that Traces gives item seq.
func SpanID(seq int) pcommon.SpanID {
	var id pcommon.SpanID
	binary.BigEndian.PutUint64(id[:], uint64(seq)+1) //nolint:gosec // seq >= 0
	return id
}

// Traces returns n spans numbered from first, in one resource for service,
// each carrying attrs.
func Traces(service string, first, n int, attrs map[string]any) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", service)
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("e2e")
	for i := first; i < first+n; i++ {
		s := ss.Spans().AppendEmpty()
		var tid pcommon.TraceID
		binary.BigEndian.PutUint64(tid[8:], uint64(i)+1) //nolint:gosec // i >= 0
		s.SetTraceID(tid)
		s.SetSpanID(SpanID(i))
		s.SetName("op")
		s.SetKind(ptrace.SpanKindServer)
		_ = s.Attributes().FromRaw(attrs)
	}
	return td
}

// Metrics returns n gauge data points numbered from first, each carrying attrs.
func Metrics(service string, first, n int, attrs map[string]any) pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", service)
	m := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("e2e.gauge")
	g := m.SetEmptyGauge()
	for i := first; i < first+n; i++ {
		dp := g.DataPoints().AppendEmpty()
		dp.SetIntValue(int64(i))
		_ = dp.Attributes().FromRaw(attrs)
	}
	return md
}

// Logs returns n log records numbered from first, each carrying attrs.
func Logs(service string, first, n int, attrs map[string]any) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", service)
	sl := rl.ScopeLogs().AppendEmpty()
	for i := first; i < first+n; i++ {
		lr := sl.LogRecords().AppendEmpty()
		lr.Body().SetStr("log-" + strconv.Itoa(i))
		_ = lr.Attributes().FromRaw(attrs)
	}
	return ld
}
