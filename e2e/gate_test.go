//go:build e2e

package e2e

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/internal/e2e"
	"github.com/otelgov/otelcol-governance/otlpfile/otlpfiletest"
)

// gateDeadline is how long a gate may take to refuse pathological input.
const gateDeadline = 5 * time.Second

// TestGateFailsClosed: a check of inputs that hold nothing to check, or
// that are pathological, is exit 2 within seconds, naming the file; no
// report is printed.
func TestGateFailsClosed(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o600)) //nolint:gosec // a path under t.TempDir()
		return p
	}
	clean, err := os.ReadFile(filepath.Join(e2e.RepoRoot(t), "e2e", recordedClean))
	require.NoError(t, err)
	firstLine, _, _ := bytes.Cut(clean, []byte("\n"))

	empty := file("empty.jsonl", nil)
	foo := file("foo.json", []byte("{\"foo\":1}\n"))
	nul := file("nul.pb", make([]byte, 10_000_000))
	nulGz := file("nul.pb.gz", otlpfiletest.GzipMembers(nil, 0, 1024))                                        // 1 GiB of NUL bytes
	bomb := file("bomb.jsonl.gz", otlpfiletest.GzipMembers(append(bytes.Clone(firstLine), '\n'), '\n', 1024)) // a request, then 1 GiB of newlines
	for _, p := range []string{nulGz, bomb} {
		st, err := os.Stat(p)
		require.NoError(t, err)
		t.Logf("%s: %d bytes for 1 GiB", filepath.Base(p), st.Size())
	}

	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"empty file", []string{"check", empty}, "otelgov: nothing checked: no span, metric or log record in " + empty + " (no request)"},
		{"non-OTLP JSON", []string{"check", foo}, "otelgov: " + foo + ":1 (byte 0): not an OTLP request: a JSON object with none of resourceSpans, resourceMetrics and resourceLogs"},
		{"NUL stream", []string{"check", nul}, "otelgov: " + nul + ": byte 0: corrupt input: more than 64 requests without a resource in a row from byte 0 (4-byte lengths of 0: NUL bytes?)"},
		{"NUL stream gzip", []string{"check", nulGz}, "otelgov: " + nulGz + ": byte 0: corrupt input: more than 64 requests without a resource in a row"},
		{"gzip bomb", []string{"check", bomb}, "otelgov: " + bomb + ":"},
		{"gzip bomb, limit named", []string{"check", bomb}, "decompression limit exceeded: gzip input expands more than 200 times"},
		{"gzip bomb, a lower limit", []string{"check", "--max-decompression-ratio", "50", bomb}, "more than 50 times"},
		{"NUL stream, --allow-empty is no pass for corrupt input", []string{"check", "--allow-empty", nul}, "corrupt input"},
		{"all inputs named", []string{"check", empty, "-"}, "no span, metric or log record in " + empty + " (no request), - (no request)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			code, out, errOut := otelgov(t, nil, tt.args...)
			took := time.Since(start)
			t.Logf("otelgov %v: exit %d in %v", tt.args, code, took.Round(time.Millisecond))
			assert.Equal(t, 2, code, "%s%s", out, errOut)
			assert.Less(t, took, gateDeadline)
			assert.Contains(t, errOut, tt.stderr)
			assert.Empty(t, out, "no report when nothing was checked")
		})
	}

	// --allow-empty passes an empty run; a real recording next to an empty
	// file passes with a warning naming it.
	code, out, errOut := otelgov(t, nil, "check", "--allow-empty", empty)
	assert.Equal(t, 0, code, "%s%s", out, errOut)
	assert.Contains(t, out, "checked 0 request(s)")
	code, out, errOut = otelgov(t, nil, "check", recordedClean, empty)
	assert.Equal(t, 0, code, "%s%s", out, errOut)
	assert.Contains(t, errOut, "otelgov: warning: no span, metric or log record in "+empty+" (no request)")

	// The limit is a limit: raised, the bomb's request is read to the end.
	start := time.Now()
	code, out, errOut = otelgov(t, nil, "check", "--fail-on", "none", "--max-decompression-ratio", "100000", bomb)
	t.Logf("the 1 GiB bomb read to its end in %v", time.Since(start).Round(time.Millisecond))
	assert.Equal(t, 0, code, "%s%s", out, errOut)
	assert.Contains(t, out, "checked 1 request(s)")
}

// TestGateListenNothingReceived: check --listen that received no span,
// metric or log record by POST /stop or SIGTERM is exit 2, and says so.
func TestGateListenNothingReceived(t *testing.T) {
	t.Run("POST /stop", func(t *testing.T) {
		l := startListen(t)
		start := time.Now()
		resp, err := http.Post("http://"+l.http+"/stop", "", nil)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, "2", resp.Header.Get("X-Otelgov-Exit"))
		assert.Contains(t, string(body), "otelgov: nothing received: no span, metric or log record arrived (0 request(s))")
		assert.Equal(t, 2, l.wait(t), l.stderr.String())
		assert.Less(t, time.Since(start), gateDeadline)
		assert.Contains(t, l.stderr.String(), "otelgov: nothing received by POST /stop: no span, metric or log record arrived (0 request(s))")
		assert.Empty(t, l.stdout.String())
	})
	t.Run("SIGTERM", func(t *testing.T) {
		l := startListen(t)
		start := time.Now()
		require.NoError(t, l.cmd.Process.Signal(syscall.SIGTERM))
		assert.Equal(t, 2, l.wait(t), l.stderr.String())
		assert.Less(t, time.Since(start), gateDeadline)
		assert.Contains(t, l.stderr.String(), "otelgov: nothing received by SIGTERM or SIGINT: no span, metric or log record arrived")
		assert.Empty(t, l.stdout.String())
	})
	t.Run("--allow-empty", func(t *testing.T) {
		l := startListen(t, "--allow-empty")
		require.NoError(t, l.cmd.Process.Signal(syscall.SIGTERM))
		assert.Equal(t, 0, l.wait(t), l.stderr.String())
		assert.Contains(t, l.stdout.String(), "checked 0 request(s)")
	})
}
