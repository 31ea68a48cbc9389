package queries

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/queryfile"
)

func TestTransition(t *testing.T) {
	n := names(t)
	tests := []struct {
		name, expr, want, why string
	}{
		{
			name: "label and value under a range",
			expr: `sum by (rpc_grpc_status_code) (rate(rpc_server_calls_total{rpc_grpc_status_code!="0"}[5m]))`,
			want: `sum by (rpc_grpc_status_code) ((label_replace(rate(rpc_server_calls_total{rpc_grpc_status_code!="0", rpc_grpc_status_code!=""}[5m]), "rpc_response_status_code", "", "rpc_response_status_code", ".*") or ` +
				`label_replace(label_replace(rate(rpc_server_calls_total{rpc_response_status_code!="OK", rpc_grpc_status_code=""}[5m]), "rpc_grpc_status_code", "$1", "rpc_response_status_code", "(.*)"), "rpc_response_status_code", "", "rpc_response_status_code", ".*")))`,
		},
		{
			name: "metric rename, instant selector",
			expr: `max(db_client_connections_usage) > 10`,
			want: `max((db_client_connections_usage or db_client_connection_count)) > 10`,
		},
		{
			name: "a name that cannot be rewritten",
			expr: `sum(rate(http_server_duration_milliseconds_count[5m]))`,
			why:  "not every old name",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, edits, why, err := transition(tt.expr, n)
			require.NoError(t, err)
			require.NotEmpty(t, hits)
			if tt.why != "" {
				assert.Contains(t, why, tt.why)
				assert.Empty(t, edits)
				return
			}
			require.Empty(t, why)
			out, ok := applyEdits(tt.expr, edits)
			require.True(t, ok)
			assert.Equal(t, tt.want, out)
			_, err = queryfile.ParsePromQL(out)
			require.NoError(t, err)
		})
	}
}

// TestTransitionRules: --write --both on a rule file, accepted by promtool;
// a later --write moves to the new names only.
func TestTransitionRules(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed (Debian: apt-get install prometheus); e2e/queries_test.go requires it")
	}
	rules := `groups:
- name: g
  rules:
  - alert: Errors
    expr: sum by (http_method) (rate(http_server_request_duration_seconds_count{http_status_code=~"5.."}[5m])) > 0
    annotations:
      summary: "{{ $labels.http_method }} fails"
  - record: pool:max
    expr: max(db_client_connections_usage{state="used"})
`
	dir := t.TempDir()
	p := filepath.Join(dir, "r.yaml")
	require.NoError(t, os.WriteFile(p, []byte(rules), 0o600))
	s := NewScanner(names(t))
	s.Write, s.Both = true, true
	res, err := s.ScanPaths([]string{p})
	require.NoError(t, err)
	rewritten := 0
	for _, f := range res.Findings {
		if f.Rewritten {
			rewritten++
		}
	}
	assert.Equal(t, 4, rewritten, "%+v", res.Findings)
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Contains(t, string(b), `sum by (http_method) ((label_replace(label_replace(rate(http_server_request_duration_seconds_count{http_status_code=~"5..", http_status_code!=""}[5m]), `+
		`"http_request_method", "", "http_request_method", ".*"), "http_response_status_code", "", "http_response_status_code", ".*") or `+
		`label_replace(label_replace(label_replace(label_replace(rate(http_server_request_duration_seconds_count{http_response_status_code=~"5..", http_method="", http_status_code=""}[5m]), `+
		`"http_method", "$1", "http_request_method", "(.*)"), "http_request_method", "", "http_request_method", ".*"), `+
		`"http_status_code", "$1", "http_response_status_code", "(.*)"), "http_response_status_code", "", "http_response_status_code", ".*"))) > 0`)
	assert.Contains(t, string(b), `max((label_replace(db_client_connections_usage{state="used", state!=""}, "db_client_connection_state", "", "db_client_connection_state", ".*") or label_replace(label_replace(db_client_connection_count{db_client_connection_state="used", state=""}, "state", "$1", "db_client_connection_state", "(.*)"), "db_client_connection_state", "", "db_client_connection_state", ".*")))`)
	assert.Contains(t, string(b), `{{ $labels.http_method }} fails`, "the output keeps the old label")
	out, err := exec.Command(promtool, "check", "rules", p).CombinedOutput()
	require.NoError(t, err, "promtool: %s\n%s", out, b)

	// A later --write moves to the new names only: the file is what --write
	// alone makes of the original.
	s.Both = false
	_, err = s.ScanPaths([]string{p})
	require.NoError(t, err)
	after, err := os.ReadFile(p)
	require.NoError(t, err)
	direct := filepath.Join(t.TempDir(), "r.yaml")
	require.NoError(t, os.WriteFile(direct, []byte(rules), 0o600))
	_, err = NewScanner(names(t)).ScanPaths([]string{direct})
	require.NoError(t, err)
	w := NewScanner(names(t))
	w.Write = true
	_, err = w.ScanPaths([]string{direct})
	require.NoError(t, err)
	want, err := os.ReadFile(direct)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(after))
	assert.Contains(t, string(after), `sum by (http_request_method) (rate(http_server_request_duration_seconds_count{http_response_status_code=~"5.."}[5m])) > 0`)
	assert.Contains(t, string(after), `{{ $labels.http_request_method }} fails`)
}

// TestWindowSemantics runs --both's window forms in Prometheus (promtool
// test rules) on the three kinds of series a transition window holds, for
// v1.44.0 -> next-384d661 (rpc_response_status_code becomes
// rpc_status_code): a service not yet moved, whose names the collector
// copies (old and new labels on one series), a moved service (new label
// only) and series without the label. Read as "the old label, else the new
// one", each recording rule must give what its query gave before the
// upgrade: no series read twice (the copy), none lost (the moved service).
func TestWindowSemantics(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed (Debian: apt-get install prometheus)")
	}
	next, err := nextNames()
	require.NoError(t, err)
	rules := `groups:
- name: g
  rules:
  - record: errors:by_code
    expr: sum by (rpc_response_status_code) (rate(rpc_server_call_duration_seconds_count{rpc_response_status_code!="OK"}[5m]))
  - record: calls:by_code
    expr: sum by (rpc_response_status_code) (rate(rpc_server_call_duration_seconds_count[5m]))
  - record: calls:by_code_and_job
    expr: sum by (job, rpc_response_status_code) (rate(rpc_server_call_duration_seconds_count{rpc_response_status_code=~"OK|ERROR"}[5m]))
  - record: calls:by_job
    expr: sum without (rpc_response_status_code) (rate(rpc_server_call_duration_seconds_count{rpc_response_status_code=~"OK|ERROR"}[5m]))
`
	s := NewScanner(next)
	s.Write, s.Both = true, true
	res, window, err := s.ScanContent("rules.yaml", []byte(rules))
	require.NoError(t, err)
	for _, f := range res.Findings {
		require.True(t, f.Rewritten, "%+v", f)
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "rules.yaml"), window, 0o600))
	// Each series grows by 60 a minute: a rate of 1/s.
	test := `rule_files: [rules.yaml]
evaluation_interval: 1m
tests:
- interval: 1m
  input_series:
  - series: 'rpc_server_call_duration_seconds_count{job="a", rpc_response_status_code="ERROR", rpc_status_code="ERROR"}'
    values: '0+60x10'
  - series: 'rpc_server_call_duration_seconds_count{job="a", rpc_response_status_code="OK", rpc_status_code="OK"}'
    values: '0+60x10'
  - series: 'rpc_server_call_duration_seconds_count{job="b", rpc_status_code="ERROR"}'
    values: '0+60x10'
  - series: 'rpc_server_call_duration_seconds_count{job="b", rpc_status_code="OK"}'
    values: '0+60x10'
  - series: 'rpc_server_call_duration_seconds_count{job="c"}'
    values: '0+60x10'
  promql_expr_test:
  - expr: errors:by_code
    eval_time: 10m
    exp_samples:
    - labels: 'errors:by_code{rpc_response_status_code="ERROR"}'
      value: 2
    - labels: 'errors:by_code'
      value: 1
  - expr: calls:by_code
    eval_time: 10m
    exp_samples:
    - labels: 'calls:by_code{rpc_response_status_code="ERROR"}'
      value: 2
    - labels: 'calls:by_code{rpc_response_status_code="OK"}'
      value: 2
    - labels: 'calls:by_code'
      value: 1
  - expr: calls:by_code_and_job
    eval_time: 10m
    exp_samples:
    - labels: 'calls:by_code_and_job{job="a", rpc_response_status_code="ERROR"}'
      value: 1
    - labels: 'calls:by_code_and_job{job="a", rpc_response_status_code="OK"}'
      value: 1
    - labels: 'calls:by_code_and_job{job="b", rpc_response_status_code="ERROR"}'
      value: 1
    - labels: 'calls:by_code_and_job{job="b", rpc_response_status_code="OK"}'
      value: 1
  - expr: calls:by_job
    eval_time: 10m
    exp_samples:
    - labels: 'calls:by_job{job="a"}'
      value: 2
    - labels: 'calls:by_job{job="b"}'
      value: 2
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "test.yaml"), []byte(test), 0o600))
	cmd := exec.Command(promtool, "test", "rules", "test.yaml")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "promtool: %s\nrules as --both wrote them:\n%s", out, window)
}

// TestWindowOTTL: --both gives an OTTL condition (a filter's, a statement's
// where clause) that reads the old key where the data carries it and the
// new one elsewhere; a later --write gives what --write alone gives; a
// statement whose editor reads the key in its arguments has no window form
// and says why.
func TestWindowOTTL(t *testing.T) {
	cfg := `processors:
  filter/errors:
    traces:
      span:
        - 'attributes["http.method"] != "GET"'
  transform/tag:
    trace_statements:
      - context: span
        statements:
          - set(attributes["slow"], true) where attributes["http.method"] == "POST" and end_time_unix_nano - start_time_unix_nano > 1000000
          - set(attributes["verb"], attributes["http.method"])
`
	s := NewScanner(names(t))
	s.Write, s.Both = true, true
	res, window, err := s.ScanContent("collector.yaml", []byte(cfg))
	require.NoError(t, err)
	assert.Contains(t, string(window), `- '(attributes["http.method"] != nil and (attributes["http.method"] != "GET")) or (attributes["http.method"] == nil and (attributes["http.request.method"] != "GET"))'`)
	assert.Contains(t, string(window), `set(attributes["slow"], true) where (attributes["http.method"] != nil and (attributes["http.method"] == "POST" and end_time_unix_nano - start_time_unix_nano > 1000000)) or `+
		`(attributes["http.method"] == nil and (attributes["http.request.method"] == "POST" and end_time_unix_nano - start_time_unix_nano > 1000000))`)
	assert.Contains(t, string(window), `set(attributes["verb"], attributes["http.method"])`, "no window form: left as it is")
	byLine := map[int]Finding{}
	for _, f := range res.Findings {
		byLine[f.Line] = f
	}
	require.Len(t, byLine, 3)
	assert.True(t, byLine[5].Rewritten)
	assert.True(t, byLine[10].Rewritten)
	assert.False(t, byLine[11].Rewritten)
	assert.Contains(t, byLine[11].Window.Why, "editor reads or writes the name in its arguments")

	w := NewScanner(names(t))
	w.Write = true
	_, direct, err := w.ScanContent("collector.yaml", []byte(cfg))
	require.NoError(t, err)
	_, later, err := w.ScanContent("collector.yaml", window)
	require.NoError(t, err)
	assert.Equal(t, string(direct), string(later), "--both then --write is --write")
	assert.Contains(t, string(direct), `- 'attributes["http.request.method"] != "GET"'`)
}

// TestCollapseLegacy: a later --write folds back the window form the
// previous release wrote (no guards) as well as the current one.
func TestCollapseLegacy(t *testing.T) {
	n := names(t)
	legacy := `sum by (rpc_grpc_status_code) ((rate(rpc_server_calls_total{rpc_grpc_status_code!="0"}[5m]) or ` +
		`label_replace(label_replace(rate(rpc_server_calls_total{rpc_response_status_code!="OK"}[5m]), "rpc_grpc_status_code", "$1", "rpc_response_status_code", "(.*)"), "rpc_response_status_code", "", "rpc_response_status_code", ".*")))`
	edits, moved := collapse(legacy, n)
	require.Len(t, edits, 1)
	out, ok := applyEdits(legacy, edits)
	require.True(t, ok)
	assert.Equal(t, `sum by (rpc_grpc_status_code) (rate(rpc_server_calls_total{rpc_response_status_code!="OK"}[5m]))`, out)
	assert.Equal(t, map[string]string{"rpc_grpc_status_code": "rpc_response_status_code"}, moved)
}

// TestGuardPlace: where the window form's guard matchers go in a selector.
func TestGuardPlace(t *testing.T) {
	for _, tt := range []struct {
		sel, want string
	}{
		{`x`, `x{g=""}`},
		{`x{}`, `x{g=""}`},
		{`x{a="b"}`, `x{a="b", g=""}`},
		{`x{a="b",}`, `x{a="b",g=""}`},
		{`{__name__="x"} offset 5m`, `{__name__="x", g=""} offset 5m`},
		{`x{a="}"}`, `x{a="}", g=""}`},
	} {
		g, ok := guardPlace(tt.sel, 0, len(tt.sel))
		require.True(t, ok, tt.sel)
		e, _ := g.edit([]string{`g=""`})
		got, ok := applyEdits(tt.sel, []edit{e})
		require.True(t, ok)
		assert.Equal(t, tt.want, got)
		_, err := queryfile.ParsePromQL(got)
		require.NoError(t, err, got)
	}
}
