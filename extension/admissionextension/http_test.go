package admissionextension

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
)

// TestHTTPBytesBound: with one request's body held, a second whose
// Content-Length would pass max_bytes_in_flight is refused with 503 and
// Retry-After (rounded up to whole seconds) before its body is read, and
// one larger than the whole bound gets 413, which is not retryable. Both
// answers carry a google.rpc.Status, as OTLP/HTTP asks.
func TestHTTPBytesBound(t *testing.T) {
	// held is one OTLP request; the bound admits one, not two. Three
	// copies back to back (still one valid OTLP request) exceed it alone.
	held, err := modeRequest("ok").MarshalProto()
	require.NoError(t, err)
	tooLarge := bytes.Repeat(held, 3)

	sink := newGatedSink()
	next, err := consumer.NewTraces(sink.consume)
	require.NoError(t, err)
	f := startFixture(t, &Config{MaxRequestsInFlight: 10, MaxBytesInFlight: int64(2*len(held) - 1), RetryAfter: 1500 * time.Millisecond}, next)
	// The timeout turns a wrongly admitted (and so held) request into a
	// failure rather than a hang.
	client := &http.Client{Transport: &http.Transport{}, Timeout: 5 * time.Second}
	defer client.CloseIdleConnections()

	post := func(b []byte) *http.Response {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, "http://"+f.httpAddr+"/v1/traces", bytes.NewReader(b))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-protobuf")
		resp, err := client.Do(req)
		require.NoError(t, err)
		return resp
	}
	done := make(chan int, 1)
	go func() {
		resp := post(held)
		_ = resp.Body.Close()
		done <- resp.StatusCode
	}()
	waitFor(t, "the first body in flight", func() bool { _, b := f.ext.inFlight(); return b == int64(len(held)) })

	resp := post(held)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, "2", resp.Header.Get("Retry-After"), "1.5 s rounded up")
	assertStatusBody(t, resp, codes.Unavailable, "max_bytes_in_flight")

	resp = post(tooLarge)
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	assert.Empty(t, resp.Header.Get("Retry-After"), "not retryable")
	assertStatusBody(t, resp, codes.InvalidArgument, "larger than max_bytes_in_flight")

	close(sink.gate)
	assert.Equal(t, http.StatusOK, <-done)
	assert.Equal(t, int64(1), f.sum(t, "otelcol_extension_admission_requests_refused", "http", "bytes_in_flight"))
	assert.Equal(t, int64(1), f.sum(t, "otelcol_extension_admission_requests_refused", "http", "too_large"))
	assert.Equal(t, int64(1), f.sum(t, "otelcol_extension_admission_requests_admitted", "http"))
	assert.Equal(t, int64(10), sink.n.Load(), "only the admitted request's spans reach the pipeline")
	waitFor(t, "nothing in flight", func() bool { r, b := f.ext.inFlight(); return r == 0 && b == 0 })
}

func assertStatusBody(t *testing.T, resp *http.Response, code codes.Code, msg string) {
	t.Helper()
	defer resp.Body.Close()
	assert.Equal(t, "application/x-protobuf", resp.Header.Get("Content-Type"))
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var st spb.Status
	require.NoError(t, proto.Unmarshal(b, &st))
	assert.Equal(t, code, codes.Code(st.Code)) //nolint:gosec // a gRPC code from the extension, 0-16
	assert.Contains(t, st.Message, msg)
}

// TestRefusalsLoggedRateLimited: a burst of refusals writes one log line at
// the first refusal, none for the rest of the interval, and one with the
// remaining count at shutdown; the counter has every refusal.
func TestRefusalsLoggedRateLimited(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	ext, err := newAdmission(settingsWithLogger(zap.New(core)), &Config{MaxRequestsInFlight: 1, MaxBytesInFlight: 1, RetryAfter: time.Second})
	require.NoError(t, err)
	_, ok := ext.acquire(0)
	require.True(t, ok)
	for range 1000 {
		_, ok := ext.acquire(0)
		require.False(t, ok)
		ext.refused(context.Background(), protoGRPC, reasonRequests)
	}
	warns := logs.FilterLevelExact(zap.WarnLevel)
	require.Equal(t, 1, warns.Len(), "one line for a thousand refusals")
	assert.Equal(t, int64(1), warns.All()[0].ContextMap()["grpc.requests_in_flight"])

	require.NoError(t, ext.Shutdown(context.Background()))
	warns = logs.FilterLevelExact(zap.WarnLevel)
	require.Equal(t, 2, warns.Len())
	assert.Equal(t, int64(999), warns.All()[1].ContextMap()["grpc.requests_in_flight"], "the rest, at shutdown")
}
