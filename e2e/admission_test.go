//go:build e2e

package e2e_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// slowSink is an OTLP/gRPC trace backend that takes 50 ms per export and
// counts every span ID it receives.
type slowSink struct {
	ptraceotlp.UnimplementedGRPCServer
	mu   sync.Mutex
	seen map[uint64]int
}

func (s *slowSink) Export(_ context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	time.Sleep(50 * time.Millisecond)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rs := range req.Traces().ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, sp := range ss.Spans().All() {
				id := sp.SpanID()
				s.seen[binary.BigEndian.Uint64(id[:])]++
			}
		}
	}
	return ptraceotlp.NewExportResponse(), nil
}

// TestAdmissionRefusalsRetried runs the built collector with the admission
// middleware on both OTLP protocols, a bound of 2 requests in flight and a
// synchronous pipeline to a slow backend (no sending queue: a request holds
// its slot until the backend answers), and 16 OpenTelemetry SDK exporters
// (8 gRPC, 8 HTTP) sending at once. The bound refuses most attempts; the
// exporters retry them, and every span arrives exactly once (a refused
// request never entered the pipeline, so its retry duplicates nothing).
func TestAdmissionRefusalsRetried(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	sink := &slowSink{seen: map[uint64]int{}}
	srv := grpc.NewServer()
	ptraceotlp.RegisterGRPCServer(srv, sink)
	go func() { _ = srv.Serve(l) }()
	defer srv.Stop()

	grpcPort, httpPort, health, metrics := e2e.FreePort(t), e2e.FreePort(t), e2e.FreePort(t), e2e.FreePort(t)
	col := e2e.StartCollector(t, fmt.Sprintf(`extensions:
  health_check:
    endpoint: 127.0.0.1:%d
  admission:
    max_requests_in_flight: 2
    retry_after: 100ms
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:%d
        middlewares: [{id: admission}]
      http:
        endpoint: 127.0.0.1:%d
        middlewares: [{id: admission}]
exporters:
  otlp_grpc:
    endpoint: %s
    tls: {insecure: true}
    sending_queue: {enabled: false}
service:
  extensions: [health_check, admission]
  telemetry:
    metrics:
      readers:
        - pull: {exporter: {prometheus: {host: 127.0.0.1, port: %d}}}
  pipelines:
    traces: {receivers: [otlp], exporters: [otlp_grpc]}
`, health, grpcPort, httpPort, l.Addr().String(), metrics), health, metrics, e2e.Options{})

	const senders, batches, spans = 16, 5, 20
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, senders*batches)
	for s := range senders {
		var exp sdktrace.SpanExporter
		if s%2 == 0 {
			exp, err = otlptracegrpc.New(ctx, otlptracegrpc.WithEndpoint(fmt.Sprintf("127.0.0.1:%d", grpcPort)), otlptracegrpc.WithInsecure(),
				otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: true, InitialInterval: 50 * time.Millisecond, MaxInterval: time.Second, MaxElapsedTime: time.Minute}))
		} else {
			exp, err = otlptracehttp.New(ctx, otlptracehttp.WithEndpoint(fmt.Sprintf("127.0.0.1:%d", httpPort)), otlptracehttp.WithInsecure(),
				otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: true, InitialInterval: 50 * time.Millisecond, MaxInterval: time.Second, MaxElapsedTime: time.Minute}))
		}
		require.NoError(t, err)
		defer func() { _ = exp.Shutdown(context.Background()) }()
		wg.Go(func() {
			for b := range batches {
				errs <- exp.ExportSpans(ctx, admissionSpans((s*batches+b)*spans, spans))
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err, "every export succeeds once retried")
	}

	sink.mu.Lock()
	assert.Len(t, sink.seen, senders*batches*spans, "every span arrived")
	for id, n := range sink.seen {
		assert.Equal(t, 1, n, "span %d arrived once", id)
	}
	sink.mu.Unlock()
	fams := e2e.MustScrape(t, col.MetricsPort)
	for _, proto := range []string{"grpc", "http"} {
		refused, _ := fams.Sum("otelcol_extension_admission_requests_refused", map[string]string{"protocol": proto, "reason": "requests_in_flight"})
		admitted, _ := fams.Sum("otelcol_extension_admission_requests_admitted", map[string]string{"protocol": proto})
		assert.Positive(t, refused, "%s: the bound refused requests", proto)
		assert.InDelta(t, float64(senders/2*batches), admitted, 0, "%s: each batch admitted once", proto)
		t.Logf("%s: %v admitted, %v refused and retried", proto, admitted, refused)
	}
	inFlight, found := fams.Sum("otelcol_extension_admission_requests_in_flight", nil)
	assert.True(t, found)
	assert.Zero(t, inFlight)
}

// admissionSpans returns n spans whose span IDs are first..first+n-1.
func admissionSpans(first, n int) []sdktrace.ReadOnlySpan {
	stubs := make(tracetest.SpanStubs, n)
	for i := range stubs {
		var sid trace.SpanID
		binary.BigEndian.PutUint64(sid[:], uint64(first+i)) //nolint:gosec // small positive
		stubs[i] = tracetest.SpanStub{
			Name: "admission-e2e",
			SpanContext: trace.NewSpanContext(trace.SpanContextConfig{
				TraceID: trace.TraceID{1}, SpanID: sid, TraceFlags: trace.FlagsSampled,
			}),
			StartTime: time.Unix(1_700_000_000, 0),
			EndTime:   time.Unix(1_700_000_001, 0),
		}
	}
	return stubs.Snapshots()
}
