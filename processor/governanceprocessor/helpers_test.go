package governanceprocessor

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// newTestGovernor builds a processor instance the way the factory does.
func newTestGovernor(tb testing.TB, cfg *config, sig signal, set component.TelemetrySettings) *governor {
	tb.Helper()
	ix, err := cfg.Registry.load()
	require.NoError(tb, err)
	g, err := newGovernor(set, component.MustNewID("governance"), cfg, ix, sig)
	require.NoError(tb, err)
	return g
}

func defaultTestConfig() *config {
	return createDefaultConfig().(*config)
}

func nopTelemetry() component.TelemetrySettings {
	return componenttest.NewNopTelemetrySettings()
}

// attrMix says how many of the 13 attributes of a span, data point or log
// record are deprecated or unknown; the rest conform.
type attrMix struct {
	deprecated int
	unknown    int
}

const attrsPerItem = 13

var (
	mixConformant = attrMix{}
	mixDeprecated = attrMix{deprecated: 4} // ~30%
	mixUnknown    = attrMix{unknown: 4}    // ~30%
)

// A server span's attributes in current semantic conventions; the first four
// have deprecated equivalents in deprecatedSpanAttrs.
func putConformantSpanAttrs(m pcommon.Map, from int) {
	all := []func(){
		func() { m.PutStr("http.request.method", "GET") },
		func() { m.PutInt("http.response.status_code", 200) },
		func() { m.PutStr("server.address", "shop.example.com") },
		func() { m.PutInt("server.port", 443) },
		func() { m.PutStr("url.path", "/api/cart") },
		func() { m.PutStr("url.scheme", "https") },
		func() { m.PutStr("http.route", "/api/cart") },
		func() { m.PutStr("network.protocol.version", "1.1") },
		func() { m.PutStr("client.address", "10.1.2.3") },
		func() { m.PutStr("user_agent.original", "Mozilla/5.0") },
		func() { m.PutStr("network.peer.address", "10.1.2.3") },
		func() { m.PutInt("network.peer.port", 52044) },
		func() { m.PutEmptySlice("http.request.header.content-type").AppendEmpty().SetStr("application/json") },
	}
	for _, f := range all[from:] {
		f()
	}
}

func putDeprecatedSpanAttrs(m pcommon.Map, n int) {
	all := []func(){
		func() { m.PutStr("http.method", "GET") },
		func() { m.PutInt("http.status_code", 200) },
		func() { m.PutStr("net.host.name", "shop.example.com") },
		func() { m.PutInt("net.host.port", 443) },
	}
	for _, f := range all[:n] {
		f()
	}
}

func putItemAttrs(m pcommon.Map, mix attrMix) {
	m.EnsureCapacity(attrsPerItem)
	putDeprecatedSpanAttrs(m, mix.deprecated)
	for i := range mix.unknown {
		m.PutStr(fmt.Sprintf("acme.custom_%d", i), "value")
	}
	putConformantSpanAttrs(m, mix.deprecated+mix.unknown)
}

func putResourceAttrs(m pcommon.Map, service string) {
	m.PutStr("service.name", service)
	m.PutStr("service.version", "1.4.2")
	m.PutStr("telemetry.sdk.name", "opentelemetry")
	m.PutStr("telemetry.sdk.language", "go")
	m.PutStr("telemetry.sdk.version", "1.38.0")
	m.PutStr("host.name", "node-7")
}

// genTraces builds one resource with n server spans of 13 attributes each.
func genTraces(n int, mix attrMix) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	putResourceAttrs(rs.Resource().Attributes(), "checkout")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp")
	for i := range n {
		s := ss.Spans().AppendEmpty()
		s.SetName("GET /api/cart")
		s.SetKind(ptrace.SpanKindServer)
		s.SetTraceID(pcommon.TraceID{1, byte(i)})
		s.SetSpanID(pcommon.SpanID{2, byte(i)})
		putItemAttrs(s.Attributes(), mix)
	}
	return td
}

// genMetrics builds one resource with n data points of 13 attributes each,
// spread over a histogram and a sum.
func genMetrics(n int, mix attrMix) pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	putResourceAttrs(rm.Resource().Attributes(), "checkout")
	sm := rm.ScopeMetrics().AppendEmpty()
	h := sm.Metrics().AppendEmpty()
	h.SetName("http.server.request.duration")
	h.SetUnit("s")
	hist := h.SetEmptyHistogram()
	s := sm.Metrics().AppendEmpty()
	s.SetName("acme.cart.items")
	s.SetUnit("{item}")
	sum := s.SetEmptySum()
	sum.SetIsMonotonic(true)
	for i := range n {
		if i%2 == 0 {
			dp := hist.DataPoints().AppendEmpty()
			dp.SetCount(3)
			dp.SetSum(0.5)
			dp.BucketCounts().FromRaw([]uint64{1, 2})
			dp.ExplicitBounds().FromRaw([]float64{0.25})
			putItemAttrs(dp.Attributes(), mix)
		} else {
			dp := sum.DataPoints().AppendEmpty()
			dp.SetIntValue(int64(i))
			putItemAttrs(dp.Attributes(), mix)
		}
	}
	return md
}

// genLogs builds one resource with n log records of 13 attributes each.
func genLogs(n int, mix attrMix) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	putResourceAttrs(rl.Resource().Attributes(), "checkout")
	sl := rl.ScopeLogs().AppendEmpty()
	for i := range n {
		lr := sl.LogRecords().AppendEmpty()
		lr.Body().SetStr(fmt.Sprintf("request %d served", i))
		putItemAttrs(lr.Attributes(), mix)
	}
	return ld
}
