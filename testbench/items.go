package testbench

import (
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Items are numbered: item seq of a run carries seq in its span ID (spans and
// log records) or in its value (data points), so the backend knows which
// arrived and recomputes what it must look like.

// logBody is the body of every generated log record.
const logBody = "testbench log record"

// groups lazily creates one resource per service in a request.
type groups struct {
	idx []int32
}

func newGroups(n int) groups {
	g := groups{idx: make([]int32, n)}
	for i := range g.idx {
		g.idx[i] = -1
	}
	return g
}

// putAttrs puts a profile's attributes on an item; withSeq adds url.path,
// and newShape first puts the item's own shape key (Mix.NewShapes).
func putAttrs(dst pcommon.Map, attrs []kv, seq uint64, withSeq, newShape bool, buf []byte) []byte {
	n := len(attrs)
	if withSeq {
		n++
	}
	if newShape {
		n++
	}
	dst.EnsureCapacity(n)
	if newShape {
		buf = appendShapeKey(buf[:0], seq)
		dst.PutStr(string(buf), "x")
	}
	for i := range attrs {
		attrs[i].val.CopyTo(dst.PutEmpty(attrs[i].key))
	}
	if withSeq {
		buf = appendSeqValue(buf[:0], seq)
		dst.PutStr(seqKey, string(buf))
	}
	return buf
}

// Traces builds spans first..first+n-1.
func (w *Workload) Traces(first uint64, n int, start time.Time) ptrace.Traces {
	td := ptrace.NewTraces()
	g := newGroups(len(w.services))
	var buf []byte
	profiles := w.profiles[Traces]
	for seq := first; seq < first+uint64(n); seq++ { //nolint:gosec // n > 0
		si := w.ServiceOf(seq)
		if g.idx[si] < 0 {
			rs := td.ResourceSpans().AppendEmpty()
			rs.Resource().Attributes().PutStr(serviceNameKey, w.services[si])
			rs.ScopeSpans().AppendEmpty().Scope().SetName(scopeName)
			g.idx[si] = int32(td.ResourceSpans().Len() - 1) //nolint:gosec // at most one per service
		}
		spans := td.ResourceSpans().At(int(g.idx[si])).ScopeSpans().At(0).Spans()
		pr := &profiles[w.ProfileOf(seq)]
		s := spans.AppendEmpty()
		s.SetTraceID(traceID(seq))
		s.SetSpanID(spanID(seq))
		s.SetName(spanName(pr.kind))
		s.SetKind(pr.kind)
		ts := pcommon.NewTimestampFromTime(start.Add(time.Duration(seq) * time.Microsecond)) //nolint:gosec // seq < 2^63
		s.SetStartTimestamp(ts)
		s.SetEndTimestamp(ts + 1000)
		buf = putAttrs(s.Attributes(), pr.attrs, seq, true, w.Mix.NewShapes, buf)
	}
	return td
}

// Metrics builds data points first..first+n-1 of gauge MetricName. Point seq
// has value seq and timestamp start + seq ms, so that every series of a
// Prometheus backend gets distinct sample timestamps.
func (w *Workload) Metrics(first uint64, n int, start time.Time) pmetric.Metrics {
	md := pmetric.NewMetrics()
	g := newGroups(len(w.services))
	profiles := w.profiles[Metrics]
	for seq := first; seq < first+uint64(n); seq++ { //nolint:gosec // n > 0
		si := w.ServiceOf(seq)
		if g.idx[si] < 0 {
			rm := md.ResourceMetrics().AppendEmpty()
			rm.Resource().Attributes().PutStr(serviceNameKey, w.services[si])
			sm := rm.ScopeMetrics().AppendEmpty()
			sm.Scope().SetName(scopeName)
			m := sm.Metrics().AppendEmpty()
			m.SetName(MetricName)
			m.SetEmptyGauge()
			g.idx[si] = int32(md.ResourceMetrics().Len() - 1) //nolint:gosec // at most one per service
		}
		dps := md.ResourceMetrics().At(int(g.idx[si])).ScopeMetrics().At(0).Metrics().At(0).Gauge().DataPoints()
		dp := dps.AppendEmpty()
		dp.SetIntValue(int64(seq))                                                                      //nolint:gosec // seq < 2^63
		dp.SetTimestamp(pcommon.NewTimestampFromTime(start.Add(time.Duration(seq) * time.Millisecond))) //nolint:gosec // seq < 2^63
		putAttrs(dp.Attributes(), profiles[w.ProfileOf(seq)].attrs, seq, false, false, nil)
	}
	return md
}

// Logs builds log records first..first+n-1.
func (w *Workload) Logs(first uint64, n int, start time.Time) plog.Logs {
	ld := plog.NewLogs()
	g := newGroups(len(w.services))
	var buf []byte
	profiles := w.profiles[Logs]
	for seq := first; seq < first+uint64(n); seq++ { //nolint:gosec // n > 0
		si := w.ServiceOf(seq)
		if g.idx[si] < 0 {
			rl := ld.ResourceLogs().AppendEmpty()
			rl.Resource().Attributes().PutStr(serviceNameKey, w.services[si])
			rl.ScopeLogs().AppendEmpty().Scope().SetName(scopeName)
			g.idx[si] = int32(ld.ResourceLogs().Len() - 1) //nolint:gosec // at most one per service
		}
		lr := ld.ResourceLogs().At(int(g.idx[si])).ScopeLogs().At(0).LogRecords().AppendEmpty()
		lr.SetTraceID(traceID(seq))
		lr.SetSpanID(spanID(seq))
		lr.SetTimestamp(pcommon.NewTimestampFromTime(start.Add(time.Duration(seq) * time.Microsecond))) //nolint:gosec // seq < 2^63
		lr.SetSeverityNumber(plog.SeverityNumberInfo)
		lr.Body().SetStr(logBody)
		buf = putAttrs(lr.Attributes(), profiles[w.ProfileOf(seq)].attrs, seq, true, w.Mix.NewShapes, buf)
	}
	return ld
}
