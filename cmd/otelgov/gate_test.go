package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckFailsClosed: inputs that hold no span, metric or log record
// are exit 2 naming the file, unless --allow-empty.
func TestCheckFailsClosed(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o600))
		return p
	}
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(b)
		require.NoError(t, zw.Close())
		return buf.Bytes()
	}
	empty := file("empty.jsonl", nil)
	blank := file("blank.jsonl", []byte("\n  \n"))
	foo := file("foo.json", []byte(`{"foo":1}`))
	braces := file("braces.jsonl", []byte("{}\n{}\n"))
	nuls := file("nul.pb", make([]byte, 10_000_000))
	nulsGz := file("nul.pb.gz", gz(make([]byte, 10_000_000)))
	fewNuls := file("few.pb", make([]byte, 40))
	noItems := file("resources.jsonl", []byte(`{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"a"}}]}}]}`+"\n"))

	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stderr string
	}{
		{"empty file", []string{"check", empty}, "", exitBad, "otelgov: nothing checked: no span, metric or log record in " + empty + " (no request): an empty, non-OTLP or zero-filled recording fails the gate (--allow-empty passes it)"},
		{"whitespace", []string{"check", blank}, "", exitBad, blank + " (no request)"},
		{"stdin", []string{"check", "-"}, "", exitBad, "in - (no request)"},
		{"non-OTLP JSON", []string{"check", foo}, "", exitBad, foo + `:1 (byte 0): not an OTLP request: a JSON object with none of resourceSpans, resourceMetrics and resourceLogs (1 key(s), the first "foo")`},
		{"empty requests", []string{"check", braces}, "", exitBad, braces + " (2 request(s) without a resource)"},
		{"NUL bytes", []string{"check", nuls}, "", exitBad, nuls + ": byte 0: corrupt input: more than 64 requests without a resource in a row"},
		{"NUL bytes gzip", []string{"check", nulsGz}, "", exitBad, nulsGz + ": byte 0: corrupt input"},
		{"a few NUL bytes", []string{"check", fewNuls}, "", exitBad, fewNuls + " (10 request(s) without a resource)"},
		{"resources without items", []string{"check", noItems}, "", exitBad, noItems + " (1 request(s), resources without items)"},
		{"all inputs named", []string{"check", empty, braces}, "", exitBad, empty + " (no request), " + braces + " (2 request(s) without a resource)"},
		{"allow-empty", []string{"check", "--allow-empty", empty, braces, noItems}, "", exitClean, ""},
		{"one empty input among others", []string{"check", fixtureClean, empty}, "", exitClean, "otelgov: warning: no span, metric or log record in " + empty + " (no request)"},
		{"bad ratio", []string{"check", "--max-decompression-ratio", "0", fixtureClean}, "", exitBad, "--max-decompression-ratio must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			code, out, errOut := otelgov(t, tt.stdin, tt.args...)
			assert.Less(t, time.Since(start), 5*time.Second)
			assert.Equal(t, tt.code, code, "%s%s", out, errOut)
			assert.Contains(t, errOut, tt.stderr)
			if code == exitBad {
				assert.Empty(t, out, "no report when nothing was checked")
			} else {
				assert.Contains(t, out, "pass (--fail-on violation)")
			}
		})
	}
}

// TestListenNothingReceived: --listen stopped before any item arrived is
// exit 2, and /stop says so; requests without items do not count.
func TestListenNothingReceived(t *testing.T) {
	for _, allow := range []bool{false, true} {
		t.Run(map[bool]string{false: "fails", true: "allow-empty"}[allow], func(t *testing.T) {
			h := freeAddr(t)
			var out, errOut syncBuf
			args := []string{"check", "--listen", "--grpc-endpoint", "", "--http-endpoint", h}
			if allow {
				args = append(args, "--allow-empty", "--fail-on", "none")
			}
			done := make(chan int)
			go func() { done <- run(args, nil, &out, &errOut) }()
			waitListening(t, h)

			// A request with a resource and no span is not something checked.
			resp, err := http.Post("http://"+h+"/v1/traces", "application/json", strings.NewReader(`{"resourceSpans":[{"resource":{}}]}`))
			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
			require.Equal(t, http.StatusOK, resp.StatusCode)

			resp, err = http.Post("http://"+h+"/stop", "", nil)
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
			var code int
			select {
			case code = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("otelgov did not stop")
			}
			if allow {
				assert.Equal(t, "0", resp.Header.Get("X-Otelgov-Exit"))
				assert.Equal(t, exitClean, code, errOut.String())
				assert.Contains(t, out.String(), "checked 1 request(s): 0 span(s)")
				assert.Contains(t, out.String(), "pass (--fail-on none)")
				return
			}
			assert.Equal(t, "2", resp.Header.Get("X-Otelgov-Exit"))
			assert.Equal(t, "otelgov: nothing received: no span, metric or log record arrived (1 request(s)): a service that sent nothing, or to another endpoint, fails the gate (--allow-empty passes it)\n", string(body))
			assert.Equal(t, exitBad, code)
			assert.Contains(t, errOut.String(), "otelgov: nothing received by POST /stop: no span, metric or log record arrived (1 request(s))")
			assert.Empty(t, out.String())
		})
	}
}

// waitListening waits until check --listen serves HTTP on h.
func waitListening(t *testing.T, h string) {
	t.Helper()
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + h + "/report")
		if err == nil {
			_ = resp.Body.Close()
		}
		return err == nil
	}, 10*time.Second, 20*time.Millisecond)
}

// TestCheckMetricsWithoutData: a request whose only items are metrics
// without data points (a misconfigured SDK's) is checked, not "nothing
// checked": Weaver makes each metric a sample, instrument Unspecified when
// it has no data (src/registry/otlp/conversion.rs at afa9700c), and reports
// unexpected_instrument for a metric the registry defines
// (crates/weaver_live_check/src/advice/type_advisor.rs). Over --listen too.
func TestCheckMetricsWithoutData(t *testing.T) {
	const req = `{"resourceMetrics":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"cart"}}]},"scopeMetrics":[{"metrics":[{"name":"http.server.request.duration","unit":"s"}]}]}]}`
	p := filepath.Join(t.TempDir(), "nopoints.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(req+"\n"), 0o600))
	code, out, errOut := otelgov(t, "", "check", p)
	assert.Equal(t, exitFindings, code, "%s%s", out, errOut)
	assert.Contains(t, out, "checked 1 request(s): 0 span(s), 0 data point(s), 0 log record(s), 1 metric(s) without data points")
	assert.Contains(t, out, "unexpected_instrument  1  http.server.request.duration (1)")
	assert.NotContains(t, errOut, "warning")

	code, out, _ = otelgov(t, "", "check", "--format", "weaver", "--no-stream", p)
	assert.Equal(t, exitFindings, code)
	assert.Contains(t, out, `"instrument": "Unspecified"`)
	assert.Contains(t, out, `"id": "unexpected_instrument"`)

	h := freeAddr(t)
	var lout, lerr syncBuf
	done := make(chan int)
	go func() {
		done <- run([]string{"check", "--listen", "--grpc-endpoint", "", "--http-endpoint", h}, nil, &lout, &lerr)
	}()
	waitListening(t, h)
	resp, err := http.Post("http://"+h+"/v1/metrics", "application/json", strings.NewReader(req))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	resp, err = http.Post("http://"+h+"/stop", "", nil)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	select {
	case code = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("otelgov did not stop")
	}
	assert.Equal(t, "1", resp.Header.Get("X-Otelgov-Exit"), lerr.String())
	assert.Equal(t, exitFindings, code)
	assert.Contains(t, lout.String(), "1 metric(s) without data points")
}
