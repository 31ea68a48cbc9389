package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/conformance"
	"github.com/otelgov/otelcol-governance/upgrade/upgradetest"
)

const (
	semconvOld  = "../../../shared/semconv/v1.44.0"
	semconvNext = "../../../shared/semconv/next-384d661"
)

// consumerCopies copies the upgrade package's rule file and dashboard,
// which read rpc_response_status_code, into a temporary directory.
func consumerCopies(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"rules.yaml", "dashboard.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "upgrade", "testdata", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o600)) //nolint:gosec // fixed test file names
	}
	return dir
}

// recording writes a JSON-lines recording of two services: "old" sends
// rpc.response.status_code, "new" rpc.status_code.
func recording(t *testing.T) string {
	t.Helper()
	td := ptrace.NewTraces()
	for _, svc := range []struct{ name, key string }{{"old", "rpc.response.status_code"}, {"new", "rpc.status_code"}} {
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", svc.name)
		ss := rs.ScopeSpans().AppendEmpty()
		for i := range 5 {
			sp := ss.Spans().AppendEmpty()
			sp.SetName("Get")
			sp.SetStartTimestamp(pcommon.NewTimestampFromTime(time.Unix(1_700_000_000+int64(i), 0)))
			sp.Attributes().PutStr(svc.key, "OK")
		}
	}
	b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	require.NoError(t, err)
	f := filepath.Join(t.TempDir(), "rec.jsonl")
	require.NoError(t, os.WriteFile(f, append(b, '\n'), 0o600))
	return f
}

// TestUpgradePlanCLI: the plan names the breaking reads with their --both
// form, the service sending the old key with its rate, and writes a
// configuration that copies exactly rpc.response.status_code; consumer
// files are not changed.
func TestUpgradePlanCLI(t *testing.T) {
	dir := consumerCopies(t)
	before, err := os.ReadFile(filepath.Join(dir, "rules.yaml"))
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "transition.yaml")
	code, stdout, stderr := otelgov(t, "", "upgrade", "plan", "--old", semconvOld, "--new", semconvNext,
		"--recording", recording(t), "--output", out, dir)
	require.Equal(t, exitClean, code, stderr)
	assert.Contains(t, stdout, "6 read(s) that break, 6 of them rewritten by otelgov queries --write")
	assert.Contains(t, stdout, "rules.yaml:5: promql reads rpc_response_status_code (attribute_renamed; now rpc.status_code)")
	assert.Contains(t, stdout, "window (--write --both): sum by (rpc_response_status_code) ((label_replace(rate(")
	assert.Contains(t, stdout, "dashboard.json:8: legend reads rpc_response_status_code (attribute_renamed; now rpc.status_code) [--write rewrites it]\n"+
		"    window: kept as it is: the expression's window form keeps the old label in its output")
	assert.Contains(t, stdout, "old: attribute rpc.response.status_code -> rpc.status_code (attribute_renamed): 5, 1.25/s")
	assert.Contains(t, stdout, "new: sends no name the change touches")
	assert.Contains(t, stdout, "1. Before the collector changes: rewrite the consumers to read old or new names, `otelgov queries --write --both --semconv-dir "+semconvNext)
	cfg, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(cfg), "deprecated_names:\n            rpc.response.status_code: copy\n")
	after, err := os.ReadFile(filepath.Join(dir, "rules.yaml"))
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))
}

// TestUpgradeBadInput: a registry that does not load, a missing consumer
// path, and Prometheus unreachable are exit 2 with a message naming them.
func TestUpgradeBadInput(t *testing.T) {
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"new registry missing", []string{"upgrade", "plan", "--new", "/nonexistent/semconv"}, "--new /nonexistent/semconv: registry does not load"},
		{"no new registry", []string{"upgrade", "plan"}, `--new: needs a semantic-conventions directory or "embedded"`},
		{"consumer path missing", []string{"upgrade", "plan", "--new", semconvNext, "/nonexistent/rules.yaml"}, "/nonexistent/rules.yaml"},
		{"status without prometheus", []string{"upgrade", "status", "--new", semconvNext}, "--prometheus: required"},
		{"prometheus unreachable", []string{"upgrade", "status", "--new", semconvNext, "--prometheus", fmt.Sprintf("http://127.0.0.1:%d", upgradetest.FreePort(t))}, "prometheus unreachable"},
		{"bad window", []string{"upgrade", "status", "--new", semconvNext, "--prometheus", "http://127.0.0.1:1", "--window", "10ms"}, "--window: 10ms is shorter than a second"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := otelgov(t, "", tt.args...)
			assert.Equal(t, exitBad, code)
			assert.Contains(t, stderr, tt.msg)
		})
	}
}

// TestUpgradeStatusCLI: against a real Prometheus scraping the collector's
// :8888 text, status is "not yet" (1) while the old service sends
// rpc.response.status_code and while a rule reads it; once the sender
// stopped for a window and the consumers are rewritten with otelgov queries
// --write, it exits 0. A Prometheus without the collectors' series is 2.
func TestUpgradeStatusCLI(t *testing.T) {
	fc := &upgradetest.Collector{Names: true}
	fc.Send(true)
	srv := httptest.NewServer(fc)
	t.Cleanup(srv.Close)
	prom := upgradetest.StartPrometheus(t, srv.Listener.Addr().String())
	dir := consumerCopies(t)
	status := func() (int, string, string) {
		return otelgov(t, "", "upgrade", "status", "--old", semconvOld, "--new", semconvNext,
			"--prometheus", prom, "--window", "4s", dir)
	}
	var code int
	var stdout, stderr string
	require.Eventually(t, func() bool {
		code, stdout, stderr = status()
		return code == exitFindings && bytes.Contains([]byte(stdout), []byte(`service "old" sent the old name rpc.response.status_code`))
	}, 40*time.Second, time.Second, "last: %d %s %s", code, stdout, stderr)
	assert.Contains(t, stdout, "not yet:")
	assert.Contains(t, stdout, "rules.yaml:5: promql reads the old name rpc_response_status_code")

	fc.Send(false)
	require.Eventually(t, func() bool {
		code, stdout, _ = status()
		return !bytes.Contains([]byte(stdout), []byte(`sent the old name`))
	}, 30*time.Second, time.Second, "last: %s", stdout)
	assert.Equal(t, exitFindings, code, "the rule still reads the old name")
	assert.Contains(t, stdout, "reads the old name rpc_response_status_code")

	code, _, stderr = otelgov(t, "", "queries", "--semconv-dir", semconvNext, "--write", dir)
	require.Equal(t, exitClean, code, stderr)
	code, stdout, stderr = status()
	assert.Equal(t, exitClean, code, "%s %s", stdout, stderr)
	assert.Contains(t, stdout, "done: over the last 4s no service of 2 sent an old name")

	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "# TYPE up_other gauge\nup_other 1")
	}))
	t.Cleanup(other.Close)
	emptyProm := upgradetest.StartPrometheus(t, other.Listener.Addr().String())
	code, _, stderr = otelgov(t, "", "upgrade", "status", "--new", semconvNext, "--prometheus", emptyProm, dir)
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, "no governance processor series")
}

// TestUpgradePlanFromJSON: --from reads a running collector's
// /conformance, and --format json is the report as data: the sides, the
// traffic per service with its source, and the plan.
func TestUpgradePlanFromJSON(t *testing.T) {
	doc := conformance.Document{
		Since:       time.Unix(1_700_000_000, 0),
		GeneratedAt: time.Unix(1_700_000_010, 0),
		Services: []conformance.ServiceReport{
			{Service: "checkout", DeprecatedKeys: []conformance.KeyCount{{Key: "rpc.response.status_code", Count: 40}, {Key: "http.method", Count: 3}}},
			{Service: "cart"},
		},
	}
	srv := upgradetest.ServeConformance(t, doc)
	code, stdout, stderr := otelgov(t, "", "upgrade", "plan", "--old", semconvOld, "--new", semconvNext, "--from", srv.URL, "--format", "json")
	require.Equal(t, exitClean, code, stderr)
	var rep struct {
		Old, New struct{ Version string }
		Traffic  struct {
			Services []string
			Sent     []struct {
				Service, Name, Source string
				Count                 int64
				Rate                  float64 `json:"rate_per_second"`
			}
		}
		Plan struct{ Copy []string }
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep), stdout)
	assert.Equal(t, []string{"cart", "checkout"}, rep.Traffic.Services)
	require.Len(t, rep.Traffic.Sent, 1, "http.method is no name this change touches")
	s := rep.Traffic.Sent[0]
	assert.Equal(t, "checkout", s.Service)
	assert.Equal(t, "rpc.response.status_code", s.Name)
	assert.Equal(t, int64(40), s.Count)
	assert.InDelta(t, 4.0, s.Rate, 1e-9)
	assert.Equal(t, "conformance "+srv.URL+"/conformance", s.Source)
	assert.Equal(t, []string{"rpc.response.status_code"}, rep.Plan.Copy)

	// --from is one client for infer and upgrade (getFrom): a path the
	// collector does not serve and a collector that does not answer are
	// bad input, named without credentials, never "no traffic".
	code, _, stderr = otelgov(t, "", "upgrade", "plan", "--old", semconvOld, "--new", semconvNext, "--from", srv.URL+"/nothing")
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, "GET /conformance: 404: the collector serves no conformance report")
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := "http://user:secret@" + dead.Listener.Addr().String()
	dead.Close()
	code, _, stderr = otelgov(t, "", "upgrade", "plan", "--old", semconvOld, "--new", semconvNext, "--from", deadURL)
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, "the collector does not answer")
	assert.NotContains(t, stderr, "secret")

	code, _, stderr = otelgov(t, "", "upgrade", "plan", "--new", semconvNext, "--from", srv.URL+"/nothing")
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, "404")
}
