package admissionextension

import (
	"context"
	"encoding/binary"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.opentelemetry.io/collector/exporter/otlpexporter"
	"go.opentelemetry.io/collector/exporter/otlphttpexporter"
	"go.opentelemetry.io/collector/pdata/pcommon"
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

// sender sends the spans first..first+n-1 through a real OTLP exporter
// with its retry on, as an instrumented service or a collector would.
type sender func(ctx context.Context, first, n int) error

// The exporters under test: the OpenTelemetry Go SDK's, as instrumented
// services send, and the collector's otlp_grpc and otlp_http, as the
// sidecars send to the gateway (no sending queue: the call returns only
// once the data is delivered or given up).
var senders = map[string]struct {
	protocol string
	new      func(t *testing.T, addr string) sender
}{
	"sdk_grpc":       {"grpc", newSDKSender},
	"sdk_http":       {"http", newSDKSender},
	"collector_grpc": {"grpc", newCollectorSender},
	"collector_http": {"http", newCollectorSender},
}

func newSDKSender(t *testing.T, addr string) sender {
	t.Helper()
	var (
		e interface {
			ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error
			Shutdown(context.Context) error
		}
		err error
	)
	if strings.HasSuffix(t.Name(), "http") {
		e, err = otlptracehttp.New(context.Background(), otlptracehttp.WithEndpoint(addr), otlptracehttp.WithInsecure(),
			otlptracehttp.WithTimeout(30*time.Second),
			otlptracehttp.WithRetry(otlptracehttp.RetryConfig{
				Enabled: true, InitialInterval: 20 * time.Millisecond, MaxInterval: 200 * time.Millisecond, MaxElapsedTime: 30 * time.Second,
			}))
	} else {
		e, err = otlptracegrpc.New(context.Background(), otlptracegrpc.WithEndpoint(addr), otlptracegrpc.WithInsecure(),
			otlptracegrpc.WithTimeout(30*time.Second),
			otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{
				Enabled: true, InitialInterval: 20 * time.Millisecond, MaxInterval: 200 * time.Millisecond, MaxElapsedTime: 30 * time.Second,
			}))
	}
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, e.Shutdown(context.Background())) })
	return func(ctx context.Context, first, n int) error { return e.ExportSpans(ctx, spanBatch(first, n)) }
}

func newCollectorSender(t *testing.T, addr string) sender {
	t.Helper()
	f := otlpexporter.NewFactory()
	if strings.HasSuffix(t.Name(), "http") {
		f = otlphttpexporter.NewFactory()
		addr = "http://" + addr
	}
	cfg := f.CreateDefaultConfig()
	require.NoError(t, confmap.NewFromStringMap(map[string]any{
		"endpoint":         addr,
		"tls":              map[string]any{"insecure": true},
		"timeout":          "30s",
		"sending_queue":    map[string]any{"enabled": false},
		"retry_on_failure": map[string]any{"initial_interval": "20ms", "max_interval": "200ms", "max_elapsed_time": "30s"},
	}).Unmarshal(cfg))
	exp, err := f.CreateTraces(context.Background(), exportertest.NewNopSettings(f.Type()), cfg)
	require.NoError(t, err)
	require.NoError(t, exp.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { assert.NoError(t, exp.Shutdown(context.Background())) })
	return func(ctx context.Context, first, n int) error { return exp.ConsumeTraces(ctx, tracesBatch(first, n)) }
}

// tracesBatch is spanBatch as pdata, for the collector's exporters.
func tracesBatch(first, n int) ptrace.Traces {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	for i := range n {
		sp := ss.Spans().AppendEmpty()
		sp.SetName("admission-test")
		sp.SetTraceID(pcommon.TraceID{1})
		var sid pcommon.SpanID
		binary.BigEndian.PutUint64(sid[:], uint64(first+i)) //nolint:gosec // small positive
		sp.SetSpanID(sid)
	}
	return td
}

// TestRefusedRequestIsRetriedAndDelivered proves that a refusal is one the
// OTLP exporters retry: with one request in flight allowed, a second
// exporter's request is refused (and refused again on its retries) while
// the first is held; once the first is answered, the second's retry is
// admitted, and every span of both arrives exactly once.
func TestRefusedRequestIsRetriedAndDelivered(t *testing.T) {
	for name, snd := range senders {
		t.Run(name, func(t *testing.T) {
			sink := newGatedSink()
			next, err := consumer.NewTraces(sink.consume)
			require.NoError(t, err)
			f := startFixture(t, &Config{MaxRequestsInFlight: 1, MaxBytesInFlight: 1 << 20, RetryAfter: 50 * time.Millisecond}, next)
			addr := f.grpcAddr
			if snd.protocol == "http" {
				addr = f.httpAddr
			}
			first, second := snd.new(t, addr), snd.new(t, addr)

			errs := make(chan error, 2)
			go func() { errs <- first(context.Background(), 0, 100) }()
			waitFor(t, "the first request in flight", func() bool { r, _ := f.ext.inFlight(); return r == 1 })

			go func() { errs <- second(context.Background(), 100, 50) }()
			// Two refusals: the second one is the exporter's retry.
			waitFor(t, "the second request refused, then refused again on retry", func() bool {
				return f.sum(t, "otelcol_extension_admission_requests_refused", snd.protocol, "requests_in_flight") >= 2
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
			assert.Equal(t, int64(2), f.sum(t, "otelcol_extension_admission_requests_admitted", snd.protocol))
			waitFor(t, "no request in flight", func() bool { r, b := f.ext.inFlight(); return r == 0 && b == 0 })
		})
	}
}
