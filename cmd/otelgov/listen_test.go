package main

import (
	"bytes"
	stdgzip "compress/gzip"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// listenRun starts check --listen with args, sends the traces over
// OTLP/HTTP, reads GET /report, then stops with POST /stop.
type listenRun struct {
	code          int
	stdout        string
	report, stop  string
	reportExit    string
	stopExit      string
	contentType   string
	stderrOnError string
}

func listenAndSend(t *testing.T, dir string, args []string, send ...[]byte) listenRun {
	t.Helper()
	h := freeAddr(t)
	if dir != "" {
		t.Chdir(dir)
	}
	var out, errOut syncBuf
	done := make(chan int)
	go func() {
		done <- run(append([]string{"check", "--listen", "--grpc-endpoint", "", "--http-endpoint", h}, args...), nil, &out, &errOut)
	}()
	waitListening(t, h)
	for _, body := range send {
		resp, err := http.Post("http://"+h+"/v1/traces", "application/x-protobuf", bytes.NewReader(body))
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	var r listenRun
	get := func(method, path string) (string, string, string) {
		req, err := http.NewRequest(method, "http://"+h+path, nil)
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var b bytes.Buffer
		_, err = b.ReadFrom(resp.Body)
		require.NoError(t, err)
		return b.String(), resp.Header.Get("X-Otelgov-Exit"), resp.Header.Get("Content-Type")
	}
	r.report, r.reportExit, r.contentType = get(http.MethodGet, "/report")
	r.stop, r.stopExit, _ = get(http.MethodPost, "/stop")
	select {
	case r.code = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("otelgov did not stop")
	}
	r.stdout, r.stderrOnError = out.String(), errOut.String()
	return r
}

func tracesBody(t *testing.T, n int, mix enginetest.Mix) []byte {
	t.Helper()
	b, err := ptraceotlp.NewExportRequestFromTraces(enginetest.GenTraces(n, mix)).MarshalProto()
	require.NoError(t, err)
	return b
}

// TestListenWeaverFormat: check --listen --format weaver streams one
// Weaver document per sample to stdout as requests arrive, and the
// statistics at /stop; GET /report and POST /stop answer with the
// statistics so far. With --no-stream, the one {statistics, samples}
// report at the end.
func TestListenWeaverFormat(t *testing.T) {
	body := tracesBody(t, 3, enginetest.MixDeprecated)
	r := listenAndSend(t, "", []string{"--format", "weaver"}, body)
	require.Equal(t, exitFindings, r.code, r.stderrOnError)
	assert.Equal(t, "1", r.stopExit)
	assert.Equal(t, "1", r.reportExit)
	assert.Equal(t, "application/json", r.contentType)
	var stats map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.report), &stats), r.report)
	assert.Contains(t, stats, "total_advisories")
	assert.Contains(t, stats, "advice_type_counts")
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	var docs []map[string]any
	for dec.More() {
		var d map[string]any
		require.NoError(t, dec.Decode(&d))
		docs = append(docs, d)
	}
	require.Greater(t, len(docs), 3, "resource, scope and span samples, then the statistics")
	spans := 0
	for _, d := range docs[:len(docs)-1] {
		if _, ok := d["span"]; ok {
			spans++
		}
	}
	assert.Equal(t, 3, spans)
	assert.Contains(t, docs[len(docs)-1], "total_advisories", "the statistics last")
	assert.Contains(t, r.stdout, `"id": "deprecated"`)

	r = listenAndSend(t, "", []string{"--format", "weaver", "--no-stream", "--fail-on", "none"}, body)
	require.Equal(t, exitClean, r.code, r.stderrOnError)
	var rep struct {
		Statistics map[string]any   `json:"statistics"`
		Samples    []map[string]any `json:"samples"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
	assert.NotEmpty(t, rep.Samples)
	assert.Contains(t, rep.Statistics, "total_advisories")
	require.NoError(t, json.Unmarshal([]byte(r.report), &rep), "GET /report: the report so far")
}

// TestListenScopedRules: a .weaver.toml's scoped finding_filters apply to
// check --listen, in the text report and in Weaver's.
func TestListenScopedRules(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".weaver.toml"),
		[]byte("[[\"live-check\".finding_filters]]\nsignal_type = \"span\"\nexclude_samples = [\"http.*\", \"net.*\"]\n"), 0o600))
	body := tracesBody(t, 3, enginetest.MixDeprecated)

	base := listenAndSend(t, "", nil, body)
	require.Equal(t, exitFindings, base.code, base.stderrOnError)
	require.Contains(t, base.stdout, "deprecated")

	r := listenAndSend(t, dir, nil, body)
	require.Equal(t, exitClean, r.code, r.stderrOnError)
	assert.NotContains(t, r.stdout, "  deprecated ")
	assert.Equal(t, "0", r.stopExit)

	r = listenAndSend(t, dir, []string{"--format", "weaver"}, body)
	require.Equal(t, exitClean, r.code, r.stderrOnError)
	assert.NotContains(t, r.stdout, `"id": "deprecated"`)
}
