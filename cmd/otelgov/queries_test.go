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
