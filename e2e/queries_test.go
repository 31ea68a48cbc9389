//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// TestQueriesValueMigration is issue 18's reproduction run through the
// built binary: the status code's values migrate with its key, and promtool
// accepts the rewritten rules.
func TestQueriesValueMigration(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	require.NoError(t, err, "promtool (Debian: apt-get install prometheus)")
	dir := t.TempDir()
	rules := filepath.Join(dir, "v.yaml")
	require.NoError(t, os.WriteFile(rules, []byte(`groups:
- name: g
  rules:
  - alert: A
    expr: sum(rate(rpc_server_duration_count{rpc_grpc_status_code!="0"}[5m]))>0
  - alert: B
    expr: |
      sum by (db_system) (rate(db_client_operation_duration_seconds_count{db_system=~"mssql|postgresql"}[5m])) > 0
    annotations:
      summary: "{{ $labels.db_system }} is slow"
  - alert: C
    expr: sum(rate(x{rpc_grpc_status_code=~"1[0-6]"}[5m])) > 0
`), 0o600))
	code, out, _ := otelgov(t, nil, "queries", "--write", rules)
	assert.Equal(t, 1, code, "alert C's regex is refused: %s", out)
	assert.Contains(t, out, "regex over values that migrate")
	b, err := os.ReadFile(rules)
	require.NoError(t, err)
	got := string(b)
	assert.Contains(t, got, `rpc_server_duration_count{rpc_response_status_code!="OK"}`)
	assert.Contains(t, got, `sum by (db_system_name) (rate(db_client_operation_duration_seconds_count{db_system_name=~"microsoft\\.sql_server|postgresql"}[5m]))`)
	assert.Contains(t, got, `{{ $labels.db_system_name }} is slow`)
	assert.Contains(t, got, `x{rpc_grpc_status_code=~"1[0-6]"}`, "refused: left as it was")
	check, err := exec.Command(promtool, "check", "rules", rules).CombinedOutput()
	require.NoError(t, err, "promtool check rules: %s", check)
}

// TestQueriesUnreadable: bad input exits 2 with a note unless
// --skip-unreadable, which counts it in the summary.
func TestQueriesUnreadable(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"panels": [}`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ok.yaml"), []byte("groups: []\n"), 0o600))
	code, out, errOut := otelgov(t, nil, "queries", dir)
	assert.Equal(t, 2, code, "%s%s", out, errOut)
	assert.Contains(t, errOut, "bad.json:1: invalid JSON")
	code, out, _ = otelgov(t, nil, "queries", "--skip-unreadable", dir)
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "2 file(s) scanned: 0 deprecated name(s) left, 0 rewritten; 1 unreadable input(s) not checked")
}

// TestQueriesRealWorld runs the binary over the real-world suite: it finds
// old names (exit 1), and with --write every rewritten rule or dashboard
// still reads.
func TestQueriesRealWorld(t *testing.T) {
	src := filepath.Join(e2e.RepoRoot(t), "queries/testdata/realworld")
	code, _, errOut := otelgov(t, nil, "queries", src)
	assert.Equal(t, 2, code, "Beyla's unparseable expressions are bad input: %s", errOut)
	code, out, _ := otelgov(t, nil, "queries", "--skip-unreadable", src)
	assert.Equal(t, 1, code)
	// 27 files and EXPECTED.yaml; the 65 old names EXPECTED.yaml lists (the
	// unit test TestRealWorld checks them one by one).
	assert.Contains(t, out, "28 file(s) scanned: 65 deprecated name(s) left, 0 rewritten; 22 unreadable input(s) not checked")
	assert.Contains(t, out, `demo-main-apm-dashboard.json:407: promql: deprecated attribute "rpc_grpc_status_code"`)
}

// TestQueriesBoth: --write --both through the binary; promtool accepts the
// transition rules, and --both without --write is a usage error.
func TestQueriesBoth(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	require.NoError(t, err, "promtool (Debian: apt-get install prometheus)")
	rules := filepath.Join(t.TempDir(), "r.yaml")
	require.NoError(t, os.WriteFile(rules, []byte(`groups:
- name: g
  rules:
  - alert: A
    expr: sum by (rpc_grpc_status_code) (rate(rpc_server_calls_total{rpc_grpc_status_code!="0"}[5m])) > 0
`), 0o600))
	code, _, errOut := otelgov(t, nil, "queries", "--both", rules)
	assert.Equal(t, 2, code, errOut)
	code, out, _ := otelgov(t, nil, "queries", "--write", "--both", rules)
	assert.Equal(t, 0, code, out)
	b, err := os.ReadFile(rules)
	require.NoError(t, err)
	assert.Contains(t, string(b), `(label_replace(rate(rpc_server_calls_total{rpc_grpc_status_code!="0", rpc_grpc_status_code!=""}[5m]), "rpc_response_status_code", "", "rpc_response_status_code", ".*") or `+
		`label_replace(label_replace(rate(rpc_server_calls_total{rpc_response_status_code!="OK", rpc_grpc_status_code=""}[5m])`)
	check, err := exec.Command(promtool, "check", "rules", rules).CombinedOutput()
	require.NoError(t, err, "promtool check rules: %s\n%s", check, b)
}
