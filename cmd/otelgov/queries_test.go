package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/queries"
)

// TestQueriesListsRewrites: --write names every rewrite it made, the
// migrated value with its label, in text and in JSON.
func TestQueriesListsRewrites(t *testing.T) {
	const rule = `groups:
- name: rpc
  rules:
  - alert: GrpcErrors
    expr: sum by (http_method) (rate(x{rpc_grpc_status_code!="0"}[5m])) > 0
`
	dir := t.TempDir()
	path := filepath.Join(dir, "rules.yaml")
	require.NoError(t, os.WriteFile(path, []byte(rule), 0o600))

	code, out, _ := otelgov(t, "", "queries", "--format", "json", path)
	assert.Equal(t, 1, code, "names left")
	var dry queries.Result
	require.NoError(t, json.Unmarshal([]byte(out), &dry))
	assert.False(t, dry.Written)
	require.Len(t, dry.Rewrites, 3, "planned: two labels and a value")

	code, out, _ = otelgov(t, "", "queries", "--write", path)
	assert.Equal(t, 0, code, out)
	assert.Equal(t, []string{
		path + `:5:19: rewrote label "http_method" -> "http_request_method"`,
		path + `:5:40: rewrote label "rpc_grpc_status_code" -> "rpc_response_status_code"`,
		path + `:5:63: rewrote label value "0" -> "OK" (of rpc_grpc_status_code)`,
	}, lines(out, ": rewrote "))
	assert.Contains(t, out, "2 rewritten in 3 rewrite(s)")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, strings.Replace(strings.Replace(strings.Replace(rule, "http_method", "http_request_method", 1),
		"rpc_grpc_status_code", "rpc_response_status_code", 1), `!="0"`, `!="OK"`, 1), string(b))
}

// lines are the lines of out that contain sub.
func lines(out, sub string) []string {
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, sub) {
			got = append(got, l)
		}
	}
	return got
}

// TestQueriesWindow is issue 43's consumers on v1.44.0 -> next-384d661: a
// panel grouping by rpc_response_status_code with a legend naming it, and an
// alert whose expression drops the label its annotation names. The plain
// scan shows each read's window form or why it has none; --both marks
// [rewritten] only what it wrote, exits 0 as every read then works in the
// window, and a later --write gives what one --write gives.
func TestQueriesWindow(t *testing.T) {
	const dashboard = `{"panels": [{"title": "calls", "datasource": {"type": "prometheus"}, "targets": [
  {"refId": "A", "expr": "sum by (rpc_response_status_code) (rate(rpc_server_call_duration_seconds_count[5m]))",
   "legendFormat": "{{rpc_response_status_code}}"}]}]}
`
	const rule = `groups:
- name: rpc
  rules:
  - alert: Errors
    expr: sum(rate(rpc_server_call_duration_seconds_count{rpc_response_status_code!="OK"}[5m])) > 0
    annotations:
      summary: "{{ $labels.rpc_response_status_code }} errors"
`
	dir, direct := t.TempDir(), t.TempDir()
	for _, d := range []string{dir, direct} {
		require.NoError(t, os.WriteFile(filepath.Join(d, "d.json"), []byte(dashboard), 0o600))
		require.NoError(t, os.WriteFile(filepath.Join(d, "r.yaml"), []byte(rule), 0o600))
	}
	reg := []string{"queries", "--semconv-dir", semconvNext}
	code, out, _ := otelgov(t, "", append(reg, dir)...)
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, `d.json:3: legend: deprecated attribute "rpc_response_status_code" (OTel rpc.response.status_code); current: rpc_status_code [--write rewrites it]`)
	assert.Contains(t, out, "    window (--write --both): sum by (rpc_response_status_code) (label_replace(")
	assert.Contains(t, out, "    window: kept as it is: the expression's window form keeps the old label in its output")

	code, out, _ = otelgov(t, "", append(reg, "--write", "--both", dir)...)
	assert.Equal(t, 0, code, "every read rewritten or working in the window: %s", out)
	assert.Len(t, lines(out, "[rewritten]"), 2, out)
	assert.Len(t, lines(out, "[works in the window: "), 2, out)
	assert.Contains(t, out, "2 file(s) scanned: 0 deprecated name(s) left, 2 rewritten to their window form in 2 rewrite(s); 2 working in the window as they are")

	code, out, _ = otelgov(t, "", append(reg, "--write", dir)...)
	assert.Equal(t, 0, code, out)
	code, out, _ = otelgov(t, "", append(reg, "--write", direct)...)
	assert.Equal(t, 0, code, out)
	for _, f := range []string{"d.json", "r.yaml"} {
		a, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(direct, f))
		require.NoError(t, err)
		assert.Equal(t, string(b), string(a), "%s: --both then --write is --write", f)
		assert.NotContains(t, string(a), "rpc_response_status_code", f)
	}
}
