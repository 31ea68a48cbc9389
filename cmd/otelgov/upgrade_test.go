package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/conformance"
	"github.com/otelgov/otelcol-governance/registry"
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
// files are not changed. The five otel.sdk.* metrics on which error.type
// becomes conditionally required are listed under manual, and the plan
// exits 1 (a person must act), as docs/upgrade.md promises.
func TestUpgradePlanCLI(t *testing.T) {
	dir := consumerCopies(t)
	before, err := os.ReadFile(filepath.Join(dir, "rules.yaml"))
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "transition")
	code, stdout, stderr := otelgov(t, "", "upgrade", "plan", "--old", semconvOld, "--new", semconvNext,
		"--recording", recording(t), "--output", out, "--collector-path", semconvNext+"=/conf/semconv-next", "--collector-path", semconvOld+"=/conf/semconv-old", dir)
	require.Equal(t, exitFindings, code, stderr)
	assert.Regexp(t, `^Upgrade `+regexp.QuoteMeta(semconvOld)+` \(1\.44\.0, digest [0-9a-f]{12}\) -> `+regexp.QuoteMeta(semconvNext)+` \(1\.45\.0-unreleased, digest [0-9a-f]{12}\)\n`, stdout, "each side by its own schema URL and digest")
	assert.Contains(t, stderr, "otelgov: 5 change(s) the collector cannot migrate: a person must carry them over")
	assert.Contains(t, stdout, "  manual: attribute error.type on metric otel.sdk.exporter.span.exported (requirement_level_changed): producers must now send it (conditionally_required)\n")
	assert.Equal(t, 5, strings.Count(stdout, "  manual: attribute error.type on metric otel.sdk."))
	assert.Contains(t, stdout, "6 read(s) that break, 6 of them rewritten by otelgov queries --write")
	assert.Contains(t, stdout, "rules.yaml:5: promql reads rpc_response_status_code (attribute_renamed; now rpc.status_code)")
	assert.Contains(t, stdout, "window (--write --both): sum by (rpc_response_status_code) ((label_replace(rate(")
	assert.Contains(t, stdout, "dashboard.json:8: legend reads rpc_response_status_code (attribute_renamed; now rpc.status_code) [--write rewrites it]\n"+
		"    window: kept as it is: the expression's window form keeps the old label in its output")
	assert.Contains(t, stdout, "old: attribute rpc.response.status_code -> rpc.status_code (attribute_renamed): 5, 1.25/s")
	assert.Contains(t, stdout, "new: sends no name the change touches")
	assert.Contains(t, stdout, "1. Before the collector changes: rewrite the consumers to read old or new names, `otelgov queries --write --both --semconv-dir "+semconvNext)
	cfg, err := os.ReadFile(filepath.Join(out, "collector.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(cfg), "semconv_dir: /conf/semconv-next\n")
	assert.Contains(t, string(cfg), "deprecated_names:\n            rpc.response.status_code: copy\n")
	gw, err := os.ReadFile(filepath.Join(out, "gateway.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(gw), "extensions:\n    governance_registry:\n        semconv_dir: /conf/semconv-next\n")
	assert.Contains(t, string(gw), "registry:\n            extension: governance_registry\n")
	assert.Contains(t, string(gw), "deprecated_names:\n            rpc.response.status_code: copy\n")
	sc, err := os.ReadFile(filepath.Join(out, "sidecar.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(sc), "semconv_dir: /conf/semconv-next\n", "the sidecar, the first hop, runs the new registry as the processor's own")
	assert.Contains(t, string(sc), "deprecated_names:\n            rpc.response.status_code: copy\n", "and copies and counts the old name")
	assert.NotContains(t, string(sc), "/conf/semconv-old")
	assert.Contains(t, stdout, "Transition configuration, gateway (distribution/config.yaml, distribution/k8s/collector/gateway.yaml): written to "+filepath.Join(out, "gateway.yaml"))
	assert.Contains(t, stdout, "`otelgov queries --write --both --semconv-dir "+semconvNext, "the commands a person runs keep the local paths")
	after, err := os.ReadFile(filepath.Join(dir, "rules.yaml"))
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))
}

// TestUpgradeBadInput: a registry that does not load or is not a
// registry (registry.ErrNotRegistry: missing, empty model/, YAML of another
// shape), a missing consumer path, and Prometheus unreachable are exit 2
// with a message naming the side and the file.
func TestUpgradeBadInput(t *testing.T) {
	emptyModel := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(emptyModel, "model"), 0o750))
	foo := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(foo, "model"), 0o750))
	require.NoError(t, os.WriteFile(filepath.Join(foo, "model", "foo.yaml"), []byte("foo: bar\n"), 0o600))
	notFound := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notFound.Close)
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"new registry missing", []string{"upgrade", "plan", "--new", "/nonexistent/semconv"}, "--new /nonexistent/semconv: not a registry: semconv_dir /nonexistent/semconv does not exist"},
		{"old registry missing", []string{"upgrade", "status", "--old", "/nonexistent/old", "--new", semconvNext, "--prometheus", "http://127.0.0.1:1"}, "--old /nonexistent/old: not a registry: semconv_dir /nonexistent/old does not exist"},
		{"empty model", []string{"upgrade", "plan", "--new", emptyModel}, "--new " + emptyModel + ": not a registry: semconv_dir " + emptyModel + ": " + filepath.Join(emptyModel, "model") + " holds no model file"},
		{"foo: bar", []string{"upgrade", "plan", "--new", foo}, "--new " + foo + ": " + filepath.Join(foo, "model", "foo.yaml") + ":1: not a registry: no groups: key"},
		{"status on foo: bar", []string{"upgrade", "status", "--new", foo, "--prometheus", "http://127.0.0.1:1"}, "--new " + foo + ": " + filepath.Join(foo, "model", "foo.yaml") + ":1: not a registry"},
		{"no new registry", []string{"upgrade", "plan"}, `--new: needs a semantic-conventions directory or "embedded"`},
		{"bad collector path", []string{"upgrade", "plan", "--new", semconvNext, "--collector-path", "/conf"}, `--collector-path: want LOCAL=COLLECTOR, got "/conf"`},
		{"consumer path missing", []string{"upgrade", "plan", "--new", semconvNext, "/nonexistent/rules.yaml"}, "/nonexistent/rules.yaml"},
		{"status without prometheus", []string{"upgrade", "status", "--new", semconvNext}, "--prometheus: required"},
		{"plan, not a prometheus api", []string{"upgrade", "plan", "--new", semconvNext, "--prometheus", notFound.URL}, "not a Prometheus HTTP API"},
		{"prometheus unreachable", []string{"upgrade", "status", "--new", semconvNext, "--prometheus", fmt.Sprintf("http://127.0.0.1:%d", upgradetest.FreePort(t))}, "prometheus unreachable"},
		{"not a prometheus api", []string{"upgrade", "status", "--new", semconvNext, "--prometheus", notFound.URL}, "not a Prometheus HTTP API"},
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
// :8888 text, status is "not yet" (1) while the collector is not on the
// transition (and plan does not say "sends no name the change touches"),
// while the old service sends rpc.response.status_code and while a rule
// reads it; once the sender stopped for a window and the consumers are
// rewritten with otelgov queries --write, it exits 0. A Prometheus without
// the collectors' series is 2.
func TestUpgradeStatusCLI(t *testing.T) {
	oldIx, err := registry.Load(registry.Sources{SemconvDir: semconvOld})
	require.NoError(t, err)
	newIx, err := registry.Load(registry.Sources{SemconvDir: semconvNext})
	require.NoError(t, err)
	// Not on the transition: the old registry, no deprecated_names. The
	// old service sends, but nothing counts it.
	fc := &upgradetest.Collector{Transition: &upgradetest.Transition{Digest: oldIx.Digest()}}
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
		return code == exitFindings && bytes.Contains([]byte(stdout), []byte("the transition configuration is not in force on 1 of 1 instance(s)"))
	}, 40*time.Second, time.Second, "last: %d %s %s", code, stdout, stderr)
	assert.Contains(t, stdout, "does not count rpc.response.status_code")
	code, stdout, stderr = otelgov(t, "", "upgrade", "plan", "--old", semconvOld, "--new", semconvNext, "--prometheus", prom, "--window", "4s")
	assert.NotContains(t, stdout, "sends no name the change touches", stderr)
	assert.Contains(t, stdout, "new: not known whether it sends a name the change touches")
	assert.Contains(t, stdout, "not known: the transition configuration is not in force on 1 of 1 instance(s)")

	// On the transition: the new registry counts the old name.
	fc.SetTransition(&upgradetest.Transition{Digest: newIx.Digest(), Names: map[string]bool{"rpc.response.status_code": true}})
	fc.SetNames(true)
	require.Eventually(t, func() bool {
		code, stdout, stderr = status()
		return code == exitFindings && bytes.Contains([]byte(stdout), []byte(`service "old" sent the old name rpc.response.status_code`)) &&
			!bytes.Contains([]byte(stdout), []byte("not in force"))
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
	assert.Contains(t, stdout, "done: over the last 4s, with the transition in force on 1 instance(s), no service of 2 sent an old name")

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
	require.Equal(t, exitFindings, code, stderr)
	var rep struct {
		Old, New struct {
			Version, Digest string
			SchemaURL       string `json:"schema_url"`
		}
		Traffic struct {
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
	assert.Equal(t, "1.44.0", rep.Old.Version)
	assert.Equal(t, "1.45.0-unreleased", rep.New.Version, "the new side by its own manifest")
	assert.Equal(t, "https://opentelemetry.io/schemas/1.45.0-unreleased", rep.New.SchemaURL)
	assert.NotEmpty(t, rep.New.Digest)
	assert.NotEqual(t, rep.Old.Digest, rep.New.Digest)

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
