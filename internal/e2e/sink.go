package e2e

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	_ "google.golang.org/grpc/encoding/gzip" // the otlp exporter compresses with gzip by default
)

// Sink is a real OTLP/gRPC server, built from pdata's generated services, that
// keeps everything it receives. Point a collector's otlp exporter at Endpoint.
type Sink struct {
	Endpoint string

	srv *grpc.Server

	mu      sync.Mutex
	traces  []ptrace.Traces
	metrics []pmetric.Metrics
	logs    []plog.Logs
	spans   int
	points  int
	records int
}

// Counts is what a Sink has received so far.
type Counts struct {
	Spans, DataPoints, LogRecords int
}

// StartSink listens on a free loopback port; it is stopped in t.Cleanup.
func StartSink(tb testing.TB) *Sink {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("sink listen: %v", err)
	}
	s := &Sink{Endpoint: l.Addr().String(), srv: grpc.NewServer()}
	ptraceotlp.RegisterGRPCServer(s.srv, &traceService{s: s})
	pmetricotlp.RegisterGRPCServer(s.srv, &metricService{s: s})
	plogotlp.RegisterGRPCServer(s.srv, &logService{s: s})
	go func() { _ = s.srv.Serve(l) }()
	tb.Cleanup(s.srv.Stop)
	return s
}

// Counts returns the items received so far.
func (s *Sink) Counts() Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Counts{Spans: s.spans, DataPoints: s.points, LogRecords: s.records}
}

// Traces returns every traces batch received so far.
func (s *Sink) Traces() []ptrace.Traces {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ptrace.Traces(nil), s.traces...)
}

// Metrics returns every metrics batch received so far.
func (s *Sink) Metrics() []pmetric.Metrics {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]pmetric.Metrics(nil), s.metrics...)
}

// Logs returns every logs batch received so far.
func (s *Sink) Logs() []plog.Logs {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]plog.Logs(nil), s.logs...)
}

// WaitFor waits until at least want has arrived, then a further settle period
// so that duplicates would show, and fails unless exactly want arrived.
func (s *Sink) WaitFor(tb testing.TB, want Counts, timeout time.Duration) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		got := s.Counts()
		if got.Spans >= want.Spans && got.DataPoints >= want.DataPoints && got.LogRecords >= want.LogRecords {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	if got := s.Counts(); got != want {
		tb.Fatalf("sink received %+v, want exactly %+v", got, want)
	}
}

type traceService struct {
	ptraceotlp.UnimplementedGRPCServer
	s *Sink
}

func (t *traceService) Export(_ context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	td := ptrace.NewTraces()
	req.Traces().CopyTo(td)
	t.s.mu.Lock()
	t.s.traces = append(t.s.traces, td)
	t.s.spans += td.SpanCount()
	t.s.mu.Unlock()
	return ptraceotlp.NewExportResponse(), nil
}

type metricService struct {
	pmetricotlp.UnimplementedGRPCServer
	s *Sink
}

func (m *metricService) Export(_ context.Context, req pmetricotlp.ExportRequest) (pmetricotlp.ExportResponse, error) {
	md := pmetric.NewMetrics()
	req.Metrics().CopyTo(md)
	m.s.mu.Lock()
	m.s.metrics = append(m.s.metrics, md)
	m.s.points += md.DataPointCount()
	m.s.mu.Unlock()
	return pmetricotlp.NewExportResponse(), nil
}

type logService struct {
	plogotlp.UnimplementedGRPCServer
	s *Sink
}

func (l *logService) Export(_ context.Context, req plogotlp.ExportRequest) (plogotlp.ExportResponse, error) {
	ld := plog.NewLogs()
	req.Logs().CopyTo(ld)
	l.s.mu.Lock()
	l.s.logs = append(l.s.logs, ld)
	l.s.records += ld.LogRecordCount()
	l.s.mu.Unlock()
	return plogotlp.NewExportResponse(), nil
}
