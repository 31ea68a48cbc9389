package replay

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// server is a real OTLP/gRPC trace service that counts what it receives and
// can reject spans (partial success) or refuse requests.
type server struct {
	ptraceotlp.UnimplementedGRPCServer
	rejectEvery int // every n-th request rejects 3 spans; 0: never
	refuse      bool

	mu       sync.Mutex
	requests uint64
	spans    uint64
	rejected uint64
	last     ptrace.Traces
}

func (s *server) Export(_ context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refuse {
		return ptraceotlp.NewExportResponse(), status.Error(codes.Unavailable, "refused")
	}
	s.requests++
	s.spans += uint64(req.Traces().SpanCount()) //nolint:gosec // a count
	s.last = req.Traces()
	resp := ptraceotlp.NewExportResponse()
	if s.rejectEvery > 0 && s.requests%uint64(s.rejectEvery) == 0 {
		resp.PartialSuccess().SetRejectedSpans(3)
		resp.PartialSuccess().SetErrorMessage("three bad spans")
		s.rejected += 3
	}
	return resp, nil
}

func startServer(t *testing.T, s *server) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := grpc.NewServer()
	ptraceotlp.RegisterGRPCServer(srv, s)
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(srv.Stop)
	return l.Addr().String()
}

func testRequest(t *testing.T, spans int) (Request, ptrace.Traces) {
	t.Helper()
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	for i := range spans {
		sp := ss.Spans().AppendEmpty()
		sp.SetName("GET /cart")
		sp.Attributes().PutStr("http.method", "GET")
		sp.Attributes().PutInt("seq", int64(i))
	}
	req, err := NewTraceRequest(td)
	require.NoError(t, err)
	return req, td
}

func TestReplayCountsWhatTheServerAccepted(t *testing.T) {
	s := &server{rejectEvery: 5}
	req, td := testRequest(t, 100)
	c, err := NewClient(req, Options{Endpoint: startServer(t, s), Workers: 3})
	require.NoError(t, err)
	defer c.Close()

	st := c.Run(context.Background(), 200*time.Millisecond)
	s.mu.Lock()
	require.Positive(t, s.requests)
	assert.Equal(t, s.requests, st.Requests)
	assert.Equal(t, s.spans-s.rejected, st.Accepted)
	assert.Equal(t, s.rejected, st.Rejected)
	assert.Positive(t, st.Rejected, "every 5th request rejects spans")
	assert.Contains(t, st.LastError, "three bad spans")
	assert.Zero(t, st.Failed)
	// The bytes sent are the request as marshalled, span for span.
	assert.Equal(t, td.SpanCount(), s.last.SpanCount())
	last := s.last.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(99)
	seq, ok := last.Attributes().Get("seq")
	require.True(t, ok)
	assert.Equal(t, int64(99), seq.Int())
	s.mu.Unlock()
	// Totals add up over runs.
	st2 := c.Run(context.Background(), 50*time.Millisecond)
	assert.Equal(t, st.Accepted+st2.Accepted, c.Stats().Accepted)
}

func TestReplayFixedRate(t *testing.T) {
	s := &server{}
	req, _ := testRequest(t, 100)
	c, err := NewClient(req, Options{Endpoint: startServer(t, s), Workers: 2, Rate: 4000})
	require.NoError(t, err)
	defer c.Close()
	// 4000 spans/s of 100-span requests: one request every 25ms, the first
	// at once; 500ms holds 20.
	st := c.Run(context.Background(), 500*time.Millisecond)
	assert.Equal(t, uint64(20), st.Requests)
	assert.Equal(t, uint64(2000), st.Accepted)
	assert.InDelta(t, 4000, st.Rate(), 600)
}

func TestReplayCountsRefusals(t *testing.T) {
	s := &server{refuse: true}
	req, _ := testRequest(t, 10)
	c, err := NewClient(req, Options{Endpoint: startServer(t, s), Workers: 1, Rate: 1000})
	require.NoError(t, err)
	defer c.Close()
	st := c.Run(context.Background(), 55*time.Millisecond)
	assert.Zero(t, st.Accepted)
	assert.Positive(t, st.Failed)
	assert.Equal(t, 10*st.Failed, st.FailedSpans)
	assert.Contains(t, st.LastError, "refused")
}

func TestReplayOptions(t *testing.T) {
	req, _ := testRequest(t, 1)
	_, err := NewClient(req, Options{})
	require.ErrorContains(t, err, "endpoint")
	_, err = NewClient(req, Options{Endpoint: "127.0.0.1:1", Rate: -1})
	require.ErrorContains(t, err, "rate (-1)")
	_, err = NewClient(Request{}, Options{Endpoint: "127.0.0.1:1"})
	require.ErrorContains(t, err, "empty request")
	_, err = NewTraceRequest(ptrace.NewTraces())
	assert.True(t, err != nil && !errors.Is(err, context.Canceled), "a request without spans is refused")
}
