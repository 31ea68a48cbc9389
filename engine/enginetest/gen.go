// Package enginetest builds the telemetry that the engine's, the processor's
// and the CLI's tests and benchmarks walk: items of 13 attributes with a
// chosen share of deprecated and unknown keys, passed through an OTLP
// protobuf round trip so that keys sit in memory as a receiver leaves them.
package enginetest // import "github.com/otelgov/otelcol-governance/engine/enginetest"

import (
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Mix says how many of the 13 attributes of a span, data point or log
// record are deprecated or unknown; the rest conform.
type Mix struct {
	Deprecated int
	Unknown    int
}

const AttrsPerItem = 13

var (
	MixConformant    = Mix{}
	MixDeprecated    = Mix{Deprecated: 4}  // ~30%
	MixDeprecatedAll = Mix{Deprecated: 13} // 100%: 13 renames per item
	// MixLineDeprecated is the line rate's deprecated workload
	// (testbench.LineWorkloads): 10 of 13 keys deprecated, each renamed
	// without a value check.
	MixLineDeprecated = Mix{Deprecated: 10}
	MixUnknown        = Mix{Unknown: 4} // ~30%
	// MixRealistic is the testbench's workload as near as 13 attributes
	// allow: 3 deprecated (23%), 3 unknown app keys on no allow list (23%),
	// 1 template instance, http.request.header.content-type (8%), and 6
	// current keys.
	MixRealistic = Mix{Deprecated: 3, Unknown: 3}
)

// A server span's attributes in current semantic conventions; the first four
// have deprecated equivalents in deprecatedSpanAttrs.
func PutConformantSpanAttrs(m pcommon.Map, from int) {
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

// PutDeprecatedSpanAttrs puts the first n of 13 deprecated keys, each renamed
// to a distinct current key in every context; the first four are the
// deprecated forms of the first four current keys.
func PutDeprecatedSpanAttrs(m pcommon.Map, n int) {
	all := []func(){
		func() { m.PutStr("http.method", "GET") },
		func() { m.PutInt("http.status_code", 200) },
		func() { m.PutStr("net.host.name", "shop.example.com") },
		func() { m.PutInt("net.host.port", 443) },
		func() { m.PutStr("http.url", "https://shop.example.com/api/cart") },
		func() { m.PutStr("http.scheme", "https") },
		func() { m.PutStr("net.protocol.name", "http") },
		func() { m.PutStr("net.protocol.version", "1.1") },
		func() { m.PutStr("http.client_ip", "10.1.2.3") },
		func() { m.PutStr("http.user_agent", "Mozilla/5.0") },
		func() { m.PutStr("net.sock.peer.addr", "10.1.2.3") },
		func() { m.PutInt("net.sock.peer.port", 52044) },
		func() { m.PutStr("net.transport", "ip_tcp") },
	}
	for _, f := range all[:n] {
		f()
	}
}

func PutItemAttrs(m pcommon.Map, mix Mix) {
	m.EnsureCapacity(AttrsPerItem)
	PutDeprecatedSpanAttrs(m, mix.Deprecated)
	for i := range mix.Unknown {
		m.PutStr(fmt.Sprintf("acme.custom_%d", i), "value")
	}
	PutConformantSpanAttrs(m, mix.Deprecated+mix.Unknown)
}

func PutResourceAttrs(m pcommon.Map, service string) {
	m.PutStr("service.name", service)
	m.PutStr("service.version", "1.4.2")
	m.PutStr("telemetry.sdk.name", "opentelemetry")
	m.PutStr("telemetry.sdk.language", "go")
	m.PutStr("telemetry.sdk.version", "1.38.0")
	m.PutStr("host.name", "node-7")
}

// PutLineDeprecatedAttrs puts the line rate's deprecated workload
// (testbench.LineWorkloads): 10 deprecated keys, each renamed without a
// value check, and the last 3 current keys.
func PutLineDeprecatedAttrs(m pcommon.Map) { PutItemAttrs(m, MixLineDeprecated) }

// OldValue is one attribute an old SDK sends whose value migrates with its
// key (the line rate's old-values workload): Key=Value, which the registry
// renames to To=ToValue. An int Value is put as an int, ToValue is a
// string.
type OldValue struct {
	Key   string
	Value any
	To    string
	// ToValue is the value after the rename; equal to Value's string when
	// the registry renames the key only.
	ToValue string
}

// OldValues are the old-values workload's attributes whose values migrate
// in the registry at semconv v1.44.0 (or, net.transport, would be
// expected to and do not: the registry keeps ip_tcp).
var OldValues = []OldValue{
	{Key: "messaging.operation", Value: "publish", To: "messaging.operation.type", ToValue: "send"},
	{Key: "db.system", Value: "mssql", To: "db.system.name", ToValue: "microsoft.sql_server"},
	{Key: "rpc.grpc.status_code", Value: 5, To: "rpc.response.status_code", ToValue: "NOT_FOUND"},
	{Key: "net.transport", Value: "ip_tcp", To: "network.transport", ToValue: "ip_tcp"},
}

// PutLineOldValuesAttrs puts the line rate's old-values workload: the
// deprecated one with the last four of its ten deprecated keys replaced by
// OldValues, keys of real old-SDK traffic whose values migrate with them
// (an enum member renamed with its key, an int code that becomes a
// string): 10 deprecated keys of 13, 3 of them with a value migration.
func PutLineOldValuesAttrs(m pcommon.Map) {
	m.EnsureCapacity(AttrsPerItem)
	PutDeprecatedSpanAttrs(m, MixLineDeprecated.Deprecated-len(OldValues))
	for _, o := range OldValues {
		switch v := o.Value.(type) {
		case int:
			m.PutInt(o.Key, int64(v))
		case string:
			m.PutStr(o.Key, v)
		}
	}
	PutConformantSpanAttrs(m, MixLineDeprecated.Deprecated)
}

// PutLineMixedAttrs puts the line rate's mixed workload: the deprecated
// one, 4 unknown keys and a template instance (18 keys).
func PutLineMixedAttrs(m pcommon.Map) {
	PutLineDeprecatedAttrs(m)
	for i := range 4 {
		m.PutStr(fmt.Sprintf("acme.custom_%d", i), "value")
	}
	m.PutEmptySlice("http.response.header.content-length").AppendEmpty().SetStr("512")
}

// PutMix returns the function that puts an item's attributes of mix.
func PutMix(mix Mix) func(pcommon.Map) {
	return func(m pcommon.Map) { PutItemAttrs(m, mix) }
}

// GenTraces builds one resource with n server spans of 13 attributes each.
func GenTraces(n int, mix Mix) ptrace.Traces { return GenTracesWith(n, PutMix(mix)) }

// GenTracesWith builds GenTraces' batch with the attributes put puts on
// each span.
func GenTracesWith(n int, put func(pcommon.Map)) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	PutResourceAttrs(rs.Resource().Attributes(), "checkout")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp")
	for i := range n {
		s := ss.Spans().AppendEmpty()
		s.SetName("GET /api/cart")
		s.SetKind(ptrace.SpanKindServer)
		s.SetTraceID(pcommon.TraceID{1, byte(i)})
		s.SetSpanID(pcommon.SpanID{2, byte(i)})
		put(s.Attributes())
	}
	return td
}

// GenMetrics builds one resource with n data points of 13 attributes each,
// spread over a histogram and a sum.
func GenMetrics(n int, mix Mix) pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	PutResourceAttrs(rm.Resource().Attributes(), "checkout")
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
			PutItemAttrs(dp.Attributes(), mix)
		} else {
			dp := sum.DataPoints().AppendEmpty()
			dp.SetIntValue(int64(i))
			PutItemAttrs(dp.Attributes(), mix)
		}
	}
	return md
}

// GenLogs builds one resource with n log records of 13 attributes each.
func GenLogs(n int, mix Mix) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	PutResourceAttrs(rl.Resource().Attributes(), "checkout")
	sl := rl.ScopeLogs().AppendEmpty()
	for i := range n {
		lr := sl.LogRecords().AppendEmpty()
		lr.Body().SetStr(fmt.Sprintf("request %d served", i))
		PutItemAttrs(lr.Attributes(), mix)
	}
	return ld
}

// Benchmark data goes through an OTLP protobuf round trip, so that keys and
// values sit in memory as a receiver leaves them (one allocation each), not
// as shared string constants.
func WireTraces(td ptrace.Traces) ptrace.Traces {
	b, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	if err != nil {
		panic(err)
	}
	out, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(b)
	if err != nil {
		panic(err)
	}
	return out
}

func WireMetrics(md pmetric.Metrics) pmetric.Metrics {
	b, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
	if err != nil {
		panic(err)
	}
	out, err := (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics(b)
	if err != nil {
		panic(err)
	}
	return out
}

func WireLogs(ld plog.Logs) plog.Logs {
	b, err := (&plog.ProtoMarshaler{}).MarshalLogs(ld)
	if err != nil {
		panic(err)
	}
	out, err := (&plog.ProtoUnmarshaler{}).UnmarshalLogs(b)
	if err != nil {
		panic(err)
	}
	return out
}

// EvictBytes is the size of the buffer Evict touches: larger than the L2
// cache of current server cores (2 MiB per core on the machine the results
// were measured on), smaller than most L3 caches, so cold means L2-cold.
const EvictBytes = 8 << 20

var evictBuf = make([]byte, EvictBytes)

// Evict writes one byte per cache line of an EvictBytes buffer, pushing the
// batch, the registry table and the walker out of L1 and L2.
func Evict() {
	for i := 0; i < len(evictBuf); i += 64 {
		evictBuf[i]++
	}
}

// TracesBytes is td as an OTLP protobuf request body.
func TracesBytes(td ptrace.Traces) []byte {
	b, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	if err != nil {
		panic(err)
	}
	return b
}

// UnmarshalTraces decodes an OTLP protobuf body into a fresh batch: every
// key and value is a new string, as a receiver leaves them.
func UnmarshalTraces(b []byte) ptrace.Traces {
	td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(b)
	if err != nil {
		panic(err)
	}
	return td
}

// CPUClock measures process CPU time. On a shared machine wall time includes
// time stolen by other processes; CPU time does not (it does include GC and
// telemetry work, which are part of the cost).
type CPUClock struct{ start time.Duration }

func CPUNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func StartCPU() CPUClock { return CPUClock{start: CPUNow()} }

// Report adds CPU ns per attribute; only for benchmarks without untimed
// set-up inside the loop, whose CPU time would be counted too.
func (c CPUClock) Report(b *testing.B, perOp float64) {
	b.Helper()
	b.ReportMetric(float64(c.Since().Nanoseconds())/float64(b.N)/perOp, "cpu-ns/attribute")
}

// Since is the process CPU time spent since the clock started.
func (c CPUClock) Since() time.Duration { return CPUNow() - c.start }

// threadCPU is the CPU time of the calling OS thread (Linux
// CLOCK_THREAD_CPUTIME_ID).
func threadCPU() time.Duration {
	var ts syscall.Timespec
	const clockThreadCPUTimeID = 3
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); e != 0 { //nolint:gosec // clock_gettime fills ts, which outlives the call
		return 0
	}
	return time.Duration(ts.Nano())
}

// ThreadClock sums the CPU time of the benchmark's own OS thread over timed
// regions. Wall time on a loaded machine includes every moment another
// process held the core; thread CPU time does not, nor the garbage
// collector's work on other threads. The goroutine must stay on its thread:
// NewThreadClock locks it, and b.Cleanup unlocks it. The cost of reading the
// clock, calibrated at the start, is subtracted.
type ThreadClock struct {
	start, total, overhead time.Duration
	n                      int
}

func NewThreadClock(b *testing.B) *ThreadClock {
	b.Helper()
	runtime.LockOSThread()
	b.Cleanup(runtime.UnlockOSThread)
	c := &ThreadClock{}
	const rounds = 2000
	best := time.Duration(1 << 62)
	for range 5 {
		t0 := threadCPU()
		for range rounds {
			_ = threadCPU()
		}
		best = min(best, (threadCPU()-t0)/rounds)
	}
	c.overhead = best
	return c
}

func (c *ThreadClock) Start() { c.start = threadCPU() }

func (c *ThreadClock) Stop() { c.StopN(1) }

// StopN ends a timed region that ran n operations.
func (c *ThreadClock) StopN(n int) {
	c.total += threadCPU() - c.start - c.overhead
	c.n += n
}

// TimeFresh times run over one fresh input per operation, made by next
// outside the timer and the clock, and returns the clock to report from.
//
// Cold, L1 and L2 are evicted before each input, which is timed alone.
// Warm, inputs are made chunk at a time (WarmChunk) and run back to back
// under one reading of the clock. Timed alone, a small input runs between
// two system calls (the thread's clock) and inside the timer's stop and
// start, which read the runtime's memory statistics and so stop the world;
// its subtracted clock cost aside, it then reads more than twice what it
// costs back to back (BenchmarkBatchFixedCost, warm, pinned, 7 interleaved
// runs: 1.21–1.55 µs a batch timed alone, 0.52–0.55 µs 64 at a time).
func TimeFresh[T any](b *testing.B, cold bool, chunk int, next func() T, run func(T)) *ThreadClock {
	b.Helper()
	clock := NewThreadClock(b)
	if cold {
		chunk = 1
	}
	buf := make([]T, 0, max(chunk, 1))
	pos := 0
	b.ReportAllocs()
	for b.Loop() {
		if pos == len(buf) {
			if pos > 0 {
				clock.StopN(pos)
			}
			b.StopTimer()
			buf = buf[:0]
			for range cap(buf) {
				buf = append(buf, next())
			}
			if cold {
				Evict()
			}
			b.StartTimer()
			pos = 0
			clock.Start()
		}
		run(buf[pos])
		pos++
	}
	if pos > 0 {
		clock.StopN(pos)
	}
	return clock
}

// WarmChunk is the number of fresh inputs of wireBytes each (OTLP
// protobuf) that TimeFresh makes at a time, warm: as many as fit 32 KiB of
// wire, which pdata holds in a few hundred KiB (in L2), at most 64.
// Batches of 100 spans and more are timed one at a time.
func WarmChunk(wireBytes int) int { return min(max(32<<10/max(wireBytes, 1), 1), 64) }

// Report adds the thread CPU time per op, and divided by each per-op count
// given in units ("span": 512 gives cpu-ns/span).
func (c *ThreadClock) Report(b *testing.B, units map[string]float64) {
	b.Helper()
	if c.n == 0 {
		return
	}
	perOp := float64(c.total.Nanoseconds()) / float64(c.n)
	b.ReportMetric(perOp, "cpu-ns/op")
	for u, n := range units {
		b.ReportMetric(perOp/n, "cpu-ns/"+u)
	}
}
