package admissionextension

import (
	"context"
	"encoding/binary"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// spanBatch returns n finished spans whose span IDs are first..first+n-1.
func spanBatch(first, n int) []sdktrace.ReadOnlySpan {
	stubs := make(tracetest.SpanStubs, n)
	for i := range stubs {
		var sid trace.SpanID
		binary.BigEndian.PutUint64(sid[:], uint64(first+i)) //nolint:gosec // small positive
		stubs[i] = tracetest.SpanStub{
			Name: "admission-test",
			SpanContext: trace.NewSpanContext(trace.SpanContextConfig{
				TraceID: trace.TraceID{1}, SpanID: sid, TraceFlags: trace.FlagsSampled,
			}),
			StartTime: time.Unix(1_700_000_000, 0),
			EndTime:   time.Unix(1_700_000_001, 0),
		}
	}
	return stubs.Snapshots()
}

// gatedSink is the receiver's next consumer: it holds every request until
// the gate opens, and records each span ID it receives.
type gatedSink struct {
	gate chan struct{}
	mu   sync.Mutex
	seen map[uint64]int
	n    atomic.Int64
}

func newGatedSink() *gatedSink {
	return &gatedSink{gate: make(chan struct{}), seen: map[uint64]int{}}
}

func (s *gatedSink) consume(ctx context.Context, td ptrace.Traces) error {
	select {
	case <-s.gate:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, sp := range ss.Spans().All() {
				id := sp.SpanID()
				s.seen[binary.BigEndian.Uint64(id[:])]++
				s.n.Add(1)
			}
		}
	}
	return nil
}

// exporter is an OpenTelemetry Go SDK OTLP span exporter with its retry on,
// as an instrumented service or a collector would send.
type exporter interface {
	ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error
	Shutdown(context.Context) error
}

func newExporter(t *testing.T, protocol, addr string) exporter {
	t.Helper()
	var (
		e   exporter
		err error
	)
	switch protocol {
	case "grpc":
		e, err = otlptracegrpc.New(context.Background(), otlptracegrpc.WithEndpoint(addr), otlptracegrpc.WithInsecure(),
			otlptracegrpc.WithTimeout(30*time.Second),
			otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{
				Enabled: true, InitialInterval: 20 * time.Millisecond, MaxInterval: 200 * time.Millisecond, MaxElapsedTime: 30 * time.Second,
			}))
	case "http":
		e, err = otlptracehttp.New(context.Background(), otlptracehttp.WithEndpoint(addr), otlptracehttp.WithInsecure(),
			otlptracehttp.WithTimeout(30*time.Second),
			otlptracehttp.WithRetry(otlptracehttp.RetryConfig{
				Enabled: true, InitialInterval: 20 * time.Millisecond, MaxInterval: 200 * time.Millisecond, MaxElapsedTime: 30 * time.Second,
			}))
	}
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, e.Shutdown(context.Background())) })
	return e
}

// TestRefusedRequestIsRetriedAndDelivered proves that a refusal is one the
// OTLP exporters retry: with one request in flight allowed, a second
// exporter's request is refused (and refused again on its retries) while
// the first is held; once the first is answered, the second's retry is
// admitted, and every span of both arrives exactly once.
func TestRefusedRequestIsRetriedAndDelivered(t *testing.T) {
	for _, protocol := range []string{"grpc", "http"} {
		t.Run(protocol, func(t *testing.T) {
			sink := newGatedSink()
			next, err := consumer.NewTraces(sink.consume)
			require.NoError(t, err)
			f := startFixture(t, &Config{MaxRequestsInFlight: 1, MaxBytesInFlight: 1 << 20, RetryAfter: 50 * time.Millisecond}, next)
			addr := f.grpcAddr
			if protocol == "http" {
				addr = f.httpAddr
			}
			first, second := newExporter(t, protocol, addr), newExporter(t, protocol, addr)

			errs := make(chan error, 2)
			go func() { errs <- first.ExportSpans(context.Background(), spanBatch(0, 100)) }()
			waitFor(t, "the first request in flight", func() bool { r, _ := f.ext.inFlight(); return r == 1 })

			go func() { errs <- second.ExportSpans(context.Background(), spanBatch(100, 50)) }()
			// Two refusals: the second one is the exporter's retry.
			waitFor(t, "the second request refused, then refused again on retry", func() bool {
				return f.sum(t, "otelcol_extension_admission_requests_refused", protocol, "requests_in_flight") >= 2
			})
			assert.Equal(t, int64(0), sink.n.Load(), "nothing reaches the pipeline while the gate is shut")

			close(sink.gate)
			for range 2 {
				require.NoError(t, <-errs, "both exports succeed: the refusal was retried")
			}
			assert.Equal(t, int64(150), sink.n.Load())
			for id := range uint64(150) {
				assert.Equal(t, 1, sink.seen[id], "span %d delivered exactly once", id)
			}
			assert.Equal(t, int64(2), f.sum(t, "otelcol_extension_admission_requests_admitted", protocol))
			waitFor(t, "no request in flight", func() bool { r, b := f.ext.inFlight(); return r == 0 && b == 0 })
		})
	}
}
