package main

import (
	"bytes"
	stdgzip "compress/gzip"
	"context"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding/gzip"

	"github.com/otelgov/otelcol-governance/engine/enginetest"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return "127.0.0.1:" + strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// TestListenConcurrent sends from several goroutines over gRPC (gzip) and
// HTTP (gzip protobuf) at once, then stops; run with -race.
func TestListenConcurrent(t *testing.T) {
	g, h := freeAddr(t), freeAddr(t)
	var out, errOut syncBuf
	done := make(chan int)
	go func() {
		done <- run([]string{"check", "--listen", "--grpc-endpoint", g, "--http-endpoint", h}, nil, &out, &errOut)
	}()
	waitListening(t, h)

	conn, err := grpc.NewClient(g, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	client := ptraceotlp.NewGRPCClient(conn)
	body, err := ptraceotlp.NewExportRequestFromTraces(enginetest.GenTraces(10, enginetest.MixDeprecated)).MarshalProto()
	require.NoError(t, err)
	var gz bytes.Buffer
	zw := stdgzip.NewWriter(&gz)
	_, _ = zw.Write(body)
	require.NoError(t, zw.Close())

	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 5 {
				_, err := client.Export(context.Background(), ptraceotlp.NewExportRequestFromTraces(enginetest.GenTraces(10, enginetest.MixDeprecated)), grpc.UseCompressor(gzip.Name))
				if err != nil {
					t.Errorf("grpc export: %v", err)
				}
				req, _ := http.NewRequest(http.MethodPost, "http://"+h+"/v1/traces", bytes.NewReader(gz.Bytes()))
				req.Header.Set("Content-Type", "application/x-protobuf")
				req.Header.Set("Content-Encoding", "gzip")
				resp, err := http.DefaultClient.Do(req)
				if assert.NoError(t, err) {
					assert.Equal(t, http.StatusOK, resp.StatusCode)
					_ = resp.Body.Close()
				}
			}
		})
	}
	wg.Wait()
	// Bad input is refused with 400, not a crash.
	resp, err := http.Post("http://"+h+"/v1/traces", "application/x-protobuf", bytes.NewReader([]byte{0xff, 0xff}))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)

	resp, err = http.Post("http://"+h+"/stop", "", nil)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, "1", resp.Header.Get("X-Otelgov-Exit"))
	select {
	case code := <-done:
		assert.Equal(t, exitFindings, code)
	case <-time.After(10 * time.Second):
		t.Fatal("otelgov did not stop")
	}
	assert.Contains(t, out.String(), "checked 40 request(s): 400 span(s)")
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
