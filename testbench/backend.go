package testbench

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	_ "google.golang.org/grpc/encoding/gzip" // the otlp exporter may compress with gzip
	"google.golang.org/grpc/status"
)

// maxReported bounds the validation failures a Backend keeps verbatim.
const maxReported = 20

// Backend is a mock OTLP/gRPC backend. It counts every span, data point and
// log record it receives, and checks each against what the workload says it
// must look like after the pipeline: every expected key present with a
// byte-identical value, nothing else, and each item exactly once. It keeps
// no data, so it can take long runs.
type Backend struct {
	Endpoint string

	w    *Workload
	want Expectation
	srv  *grpc.Server

	mu       sync.Mutex
	seen     map[Signal]*bitset
	received map[Signal]uint64
	dups     uint64
	invalid  uint64
	failures []string

	// refuse makes Export answer Unavailable, to hold data in the collector.
	refuse atomic.Bool
	// Refused counts the requests answered Unavailable.
	refused atomic.Uint64
	// delay is how long every export takes before it is answered: a slow
	// backend.
	delay atomic.Int64
}

// StartBackend listens on a free loopback port; it is stopped in tb.Cleanup.
func StartBackend(tb testing.TB, w *Workload, want Expectation) *Backend {
	tb.Helper()
	return StartBackendAt(tb, w, want, "127.0.0.1:0")
}

// StartBackendAt is StartBackend on addr: a backend that comes up where a
// collector has been exporting to nothing.
func StartBackendAt(tb testing.TB, w *Workload, want Expectation, addr string) *Backend {
	tb.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		tb.Fatalf("backend listen: %v", err)
	}
	b := &Backend{
		Endpoint: l.Addr().String(),
		w:        w,
		want:     want,
		srv:      grpc.NewServer(grpc.MaxRecvMsgSize(256 << 20)),
		seen:     map[Signal]*bitset{Traces: {}, Metrics: {}, Logs: {}},
		received: map[Signal]uint64{},
	}
	ptraceotlp.RegisterGRPCServer(b.srv, &traceService{b: b})
	pmetricotlp.RegisterGRPCServer(b.srv, &metricService{b: b})
	plogotlp.RegisterGRPCServer(b.srv, &logService{b: b})
	go func() { _ = b.srv.Serve(l) }()
	tb.Cleanup(b.srv.Stop)
	return b
}

// SetRefusing makes the backend refuse (true) or accept (false) every export.
func (b *Backend) SetRefusing(on bool) { b.refuse.Store(on) }

// SetDelay makes every export take d before it is answered (0: none).
func (b *Backend) SetDelay(d time.Duration) { b.delay.Store(int64(d)) }

// Refused is the number of requests refused so far.
func (b *Backend) Refused() uint64 { return b.refused.Load() }

// Received is the number of items of sig received so far, duplicates included.
func (b *Backend) Received(sig Signal) uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.received[sig]
}

// distinct is how many different items of sig arrived.
func (b *Backend) distinct(sig Signal) uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.seen[sig].count()
}

// Report is the backend's verdict on one signal against what the generator
// had accepted.
type Report struct {
	Signal     Signal
	Sent       uint64
	Received   uint64
	Lost       uint64 // accepted by the collector, never received
	Duplicates uint64 // received more than once (all signals)
	Unexpected uint64 // received but never accepted by the collector
	Invalid    uint64 // received with a wrong or missing value (all signals)
	Failures   []string
}

// OK reports whether everything accepted arrived exactly once and intact.
func (r Report) OK() bool {
	return r.Lost == 0 && r.Duplicates == 0 && r.Unexpected == 0 && r.Invalid == 0 && r.Received == r.Sent
}

func (r Report) String() string {
	var s strings.Builder
	fmt.Fprintf(&s, "%s: sent %d, received %d, lost %d, duplicated %d, unexpected %d, invalid %d",
		r.Signal, r.Sent, r.Received, r.Lost, r.Duplicates, r.Unexpected, r.Invalid)
	for _, f := range r.Failures {
		s.WriteString("\n  ")
		s.WriteString(f)
	}
	return s.String()
}

// WaitDrained waits until the backend has received at least sent distinct
// items of sig, then settle longer so that duplicates would show. It
// returns false on timeout. Distinct, not received: an exporter's retry of a
// request that had arrived (at-least-once) would otherwise count as the
// items still on their way, and Verify would report them lost.
func (b *Backend) WaitDrained(sig Signal, sent uint64, timeout, settle time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for b.distinct(sig) < sent {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(settle)
	return true
}

// Verify compares what arrived for sig with what gen had accepted.
func (b *Backend) Verify(sig Signal, gen *Generator) Report {
	accepted := gen.AcceptedSet()
	b.mu.Lock()
	defer b.mu.Unlock()
	seen := b.seen[sig]
	r := Report{
		Signal:     sig,
		Sent:       accepted.count(),
		Received:   b.received[sig],
		Duplicates: b.dups,
		Invalid:    b.invalid,
		Failures:   append([]string(nil), b.failures...),
	}
	lost, nLost := seen.missing(&accepted, 5)
	r.Lost = nLost
	if nLost > 0 {
		r.Failures = append(r.Failures, fmt.Sprintf("lost %d items, first: %v", nLost, lost))
	}
	extra, nExtra := accepted.missing(seen, 5)
	r.Unexpected = nExtra
	if nExtra > 0 {
		r.Failures = append(r.Failures, fmt.Sprintf("%d items received that the collector never accepted, first: %v", nExtra, extra))
	}
	return r
}

// fail records one validation failure.
func (b *Backend) fail(format string, args ...any) {
	b.invalid++
	if len(b.failures) < maxReported {
		b.failures = append(b.failures, fmt.Sprintf(format, args...))
	}
}

// mark records item seq of sig; the caller holds mu.
func (b *Backend) mark(sig Signal, seq uint64) {
	b.received[sig]++
	if b.seen[sig].set(seq) {
		b.dups++
		if len(b.failures) < maxReported {
			b.failures = append(b.failures, fmt.Sprintf("%s item %d received twice", sig, seq))
		}
	}
}

// checker holds the scratch of one request's validation.
type checker struct {
	b   *Backend
	sig Signal
	buf []byte
}

// attrs checks m against profile p's expected attributes (plus url.path of
// seq when withSeq). The caller holds mu.
func (c *checker) attrs(what string, seq uint64, m pcommon.Map, p *profile, withSeq bool) {
	want := p.want[expectationIndex(c.b.want)]
	n := len(want)
	shape := withSeq && c.b.w.Mix.NewShapes
	if withSeq {
		n++
	}
	if shape {
		n++
	}
	ok := m.Len() == n
	for i := 0; ok && i < len(want); i++ {
		v, found := m.Get(want[i].key)
		ok = found && v.Equal(want[i].val)
	}
	if ok && withSeq {
		v, found := m.Get(seqKey)
		c.buf = appendSeqValue(c.buf[:0], seq)
		ok = found && v.Type() == pcommon.ValueTypeStr && v.Str() == string(c.buf)
	}
	if ok && shape {
		c.buf = appendShapeKey(c.buf[:0], seq)
		v, found := m.Get(string(c.buf))
		ok = found && v.Type() == pcommon.ValueTypeStr && v.Str() == "x"
	}
	if !ok {
		c.b.fail("%s %d: attributes %v, want %s", what, seq, m.AsRaw(), describe(want, withSeq, seq))
	}
}

func describe(want []kv, withSeq bool, seq uint64) string {
	m := pcommon.NewMap()
	for _, a := range want {
		a.val.CopyTo(m.PutEmpty(a.key))
	}
	if withSeq {
		m.PutStr(seqKey, string(appendSeqValue(nil, seq)))
	}
	return fmt.Sprint(m.AsRaw())
}

// resource checks a resource: exactly service.name with a workload service.
// It returns the service index, or -1.
func (c *checker) resource(res pcommon.Resource) int {
	attrs := res.Attributes()
	v, ok := attrs.Get(serviceNameKey)
	if ok && attrs.Len() == 1 && v.Type() == pcommon.ValueTypeStr {
		for i, s := range c.b.w.services {
			if s == v.Str() {
				return i
			}
		}
	}
	c.b.fail("%s resource attributes %v: want exactly one workload service.name", c.sig, attrs.AsRaw())
	return -1
}

func (c *checker) service(seq uint64, si int) {
	if want := c.b.w.ServiceOf(seq); si != want {
		c.b.fail("%s item %d: service index %d, want %d", c.sig, seq, si, want)
	}
}

func (b *Backend) traces(td ptrace.Traces) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := checker{b: b, sig: Traces}
	profiles := b.w.profiles[Traces]
	for _, rs := range td.ResourceSpans().All() {
		si := c.resource(rs.Resource())
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				seq, ok := seqOfSpanID(s.SpanID())
				if !ok {
					b.fail("span without a testbench span ID: %v", s.SpanID())
					continue
				}
				b.mark(Traces, seq)
				c.service(seq, si)
				p := &profiles[b.w.ProfileOf(seq)]
				if s.TraceID() != traceID(seq) || s.Kind() != p.kind || s.Name() != spanName(p.kind) {
					b.fail("span %d: trace ID %v kind %v name %q changed", seq, s.TraceID(), s.Kind(), s.Name())
				}
				c.attrs("span", seq, s.Attributes(), p, true)
			}
		}
	}
}

func (b *Backend) metrics(md pmetric.Metrics) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := checker{b: b, sig: Metrics}
	profiles := b.w.profiles[Metrics]
	for _, rm := range md.ResourceMetrics().All() {
		si := c.resource(rm.Resource())
		for _, sm := range rm.ScopeMetrics().All() {
			for _, m := range sm.Metrics().All() {
				if m.Name() != MetricName || m.Type() != pmetric.MetricTypeGauge {
					b.fail("metric %q of type %v: want gauge %q", m.Name(), m.Type(), MetricName)
					continue
				}
				for _, dp := range m.Gauge().DataPoints().All() {
					if dp.ValueType() != pmetric.NumberDataPointValueTypeInt || dp.IntValue() < 0 {
						b.fail("data point value %v: want a non-negative int sequence number", dp.DoubleValue())
						continue
					}
					seq := uint64(dp.IntValue()) //nolint:gosec // checked non-negative above
					b.mark(Metrics, seq)
					c.service(seq, si)
					c.attrs("data point", seq, dp.Attributes(), &profiles[b.w.ProfileOf(seq)], false)
				}
			}
		}
	}
}

func (b *Backend) logs(ld plog.Logs) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := checker{b: b, sig: Logs}
	profiles := b.w.profiles[Logs]
	for _, rl := range ld.ResourceLogs().All() {
		si := c.resource(rl.Resource())
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				seq, ok := seqOfSpanID(lr.SpanID())
				if !ok {
					b.fail("log record without a testbench span ID")
					continue
				}
				b.mark(Logs, seq)
				c.service(seq, si)
				if lr.TraceID() != traceID(seq) || lr.Body().Str() != logBody {
					b.fail("log record %d: trace ID or body changed", seq)
				}
				c.attrs("log record", seq, lr.Attributes(), &profiles[b.w.ProfileOf(seq)], true)
			}
		}
	}
}

func (b *Backend) refusing() error {
	if d := time.Duration(b.delay.Load()); d > 0 {
		time.Sleep(d)
	}
	if b.refuse.Load() {
		b.refused.Add(1)
		return status.Error(codes.Unavailable, "testbench backend refusing")
	}
	return nil
}

type traceService struct {
	ptraceotlp.UnimplementedGRPCServer
	b *Backend
}

func (s *traceService) Export(_ context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	if err := s.b.refusing(); err != nil {
		return ptraceotlp.NewExportResponse(), err
	}
	s.b.traces(req.Traces())
	return ptraceotlp.NewExportResponse(), nil
}

type metricService struct {
	pmetricotlp.UnimplementedGRPCServer
	b *Backend
}

func (s *metricService) Export(_ context.Context, req pmetricotlp.ExportRequest) (pmetricotlp.ExportResponse, error) {
	if err := s.b.refusing(); err != nil {
		return pmetricotlp.NewExportResponse(), err
	}
	s.b.metrics(req.Metrics())
	return pmetricotlp.NewExportResponse(), nil
}

type logService struct {
	plogotlp.UnimplementedGRPCServer
	b *Backend
}

func (s *logService) Export(_ context.Context, req plogotlp.ExportRequest) (plogotlp.ExportResponse, error) {
	if err := s.b.refusing(); err != nil {
		return plogotlp.NewExportResponse(), err
	}
	s.b.logs(req.Logs())
	return plogotlp.NewExportResponse(), nil
}
