//go:build e2e

package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/internal/e2e"
	"github.com/otelgov/otelcol-governance/internal/manifestlint"
)

// The checks of distribution/k8s that need the built binary or real tools
// (promtool); internal/manifestlint's unit tests cover the lint and the CRD
// schemas. Each check also runs on a deliberately broken input from
// e2e/testdata/k8s and must fail there.

func k8sDir(t *testing.T) string { return filepath.Join(e2e.RepoRoot(t), "distribution/k8s") }

func kustomized(t *testing.T, dir string) []manifestlint.Object {
	t.Helper()
	out, err := manifestlint.Kustomize(dir)
	require.NoError(t, err)
	objs, err := manifestlint.DecodeBytes(out, "kustomize build "+dir)
	require.NoError(t, err)
	return objs
}

func TestK8sKustomizeBuild(t *testing.T) {
	objs := kustomized(t, k8sDir(t))
	kinds := map[string]int{}
	for _, o := range objs {
		kinds[o.APIVersion()+" "+o.Kind()]++
	}
	assert.Equal(t, map[string]int{
		"v1 Namespace": 2,
		"opentelemetry.io/v1beta1 OpenTelemetryCollector": 2,
		"opentelemetry.io/v1alpha1 Instrumentation":       1,
		"apps/v1 Deployment":                              1,
		"v1 Service":                                      1,
		"monitoring.coreos.com/v1 ServiceMonitor":         1,
		"monitoring.coreos.com/v1 PrometheusRule":         1,
		"v1 ConfigMap":                                    1,
	}, kinds)

	// The dashboard ConfigMap is generated from the JSON file: same bytes,
	// and the label Grafana's dashboard sidecar selects.
	dashboard := mustRead(t, filepath.Join(k8sDir(t), "monitoring/governance-dashboard.json"))
	require.True(t, json.Valid([]byte(dashboard)))
	for _, o := range objs {
		if o.Kind() != "ConfigMap" {
			continue
		}
		assert.Equal(t, "grafana-dashboard-otelcol-governance", o.Name())
		md := o.Doc["metadata"].(map[string]any)
		assert.Equal(t, map[string]any{"grafana_dashboard": "1"}, md["labels"])
		data := o.Doc["data"].(map[string]any)
		assert.Equal(t, dashboard, data["otelcol-governance.json"])
	}
}

func TestK8sKustomizeBuildFailsOnBrokenInput(t *testing.T) {
	_, err := manifestlint.Kustomize(filepath.Join(e2e.RepoRoot(t), "e2e/testdata/k8s/kustomize-missing-resource"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "alerts.yaml")
}

// collectorConfigs writes each collector CR's spec.config to a file.
func collectorConfigs(t *testing.T, objs []manifestlint.Object) map[string]string {
	t.Helper()
	dir := t.TempDir()
	out := map[string]string{}
	for _, o := range objs {
		if o.Kind() != "OpenTelemetryCollector" {
			continue
		}
		cfg, err := manifestlint.CollectorConfig(o)
		require.NoError(t, err)
		data, err := yaml.Marshal(cfg)
		require.NoError(t, err)
		// The kubelet mounts the CR's volumes (the gateway's queue
		// emptyDir) before the collector starts: here, a directory each.
		text := string(data)
		spec, _ := o.Doc["spec"].(map[string]any)
		mounts, _ := spec["volumeMounts"].([]any)
		for _, m := range mounts {
			mount, _ := m.(map[string]any)["mountPath"].(string)
			require.NotEmpty(t, mount, "%s: a volumeMount without mountPath", o.Ref())
			text = strings.ReplaceAll(text, mount, t.TempDir())
		}
		path := filepath.Join(dir, o.Namespace()+"."+o.Name()+".yaml")
		writeFile(t, path, text)
		out[o.Namespace()+"/"+o.Name()] = path
	}
	return out
}

// TestK8sCollectorConfigsValidate passes every CR's spec.config, as the
// Operator would write it to /conf/collector.yaml, to the built binary.
func TestK8sCollectorConfigsValidate(t *testing.T) {
	configs := collectorConfigs(t, kustomized(t, k8sDir(t)))
	require.Len(t, configs, 2)
	for name, path := range configs {
		t.Run(name, func(t *testing.T) {
			out, err := e2e.Run(t, "validate", "--config", path)
			assert.NoError(t, err, out)
		})
	}
}

func TestK8sCollectorConfigValidateFailsOnBrokenInput(t *testing.T) {
	objs, err := manifestlint.LoadPaths(nil, filepath.Join(e2e.RepoRoot(t), "e2e/testdata/k8s/collector-invalid-config.yaml"))
	require.NoError(t, err)
	configs := collectorConfigs(t, objs)
	require.Len(t, configs, 1)
	for _, path := range configs {
		out, err := e2e.Run(t, "validate", "--config", path)
		require.Error(t, err, out)
		assert.Contains(t, out, "deprecated")
	}
}

func promtool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatalf("promtool not found: the alert rules cannot be checked (Debian: apt-get install -y prometheus): %v", err)
	}
	return p
}

// promtoolRules writes spec.groups of the PrometheusRule at path as a plain
// rule file, governance-rules.promtool.yaml in dir.
func promtoolRules(t *testing.T, path, dir string) string {
	t.Helper()
	objs, err := manifestlint.LoadPaths(nil, path)
	require.NoError(t, err)
	require.Len(t, objs, 1)
	require.Equal(t, "PrometheusRule", objs[0].Kind())
	data, err := yaml.Marshal(map[string]any{"groups": objs[0].Doc["spec"].(map[string]any)["groups"]})
	require.NoError(t, err)
	out := filepath.Join(dir, "governance-rules.promtool.yaml")
	writeFile(t, out, string(data))
	return out
}

func runPromtool(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(promtool(t), args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestK8sPromtoolRules(t *testing.T) {
	dir := t.TempDir()
	rules := promtoolRules(t, filepath.Join(k8sDir(t), "monitoring/governance-rules.yaml"), dir)
	out, err := runPromtool(t, dir, "check", "rules", rules)
	require.NoError(t, err, out)
	assert.Contains(t, out, "SUCCESS: 12 rules found")

	writeFile(t, filepath.Join(dir, "governance-rules_test.yaml"), mustRead(t, filepath.Join(k8sDir(t), "monitoring/governance-rules_test.yaml")))
	out, err = runPromtool(t, dir, "test", "rules", "governance-rules_test.yaml")
	require.NoError(t, err, out)
	assert.Contains(t, out, "SUCCESS")
}

func TestK8sPromtoolFailsOnBrokenInput(t *testing.T) {
	root := e2e.RepoRoot(t)
	t.Run("rule that does not parse", func(t *testing.T) {
		dir := t.TempDir()
		rules := promtoolRules(t, filepath.Join(root, "e2e/testdata/k8s/rules-broken.yaml"), dir)
		out, err := runPromtool(t, dir, "check", "rules", rules)
		require.Error(t, err, out)
		assert.Contains(t, out, "parse error")
	})
	t.Run("unit test expecting an alert before its for: elapsed", func(t *testing.T) {
		dir := t.TempDir()
		promtoolRules(t, filepath.Join(k8sDir(t), "monitoring/governance-rules.yaml"), dir)
		writeFile(t, filepath.Join(dir, "wrong_test.yaml"), mustRead(t, filepath.Join(root, "e2e/testdata/k8s/rules-wrong_test.yaml")))
		out, err := runPromtool(t, dir, "test", "rules", "wrong_test.yaml")
		require.Error(t, err, out)
		assert.Contains(t, out, "FAILED")
		assert.Contains(t, out, "GovernanceUnknownAttributesHigh")
	})
}

// targetLabels are added by Prometheus when it scrapes (ServiceMonitor and
// PodMonitor targets), not served by the collector.
var targetLabels = []string{"job", "instance", "pod", "namespace", "service", "container", "endpoint"}

// scrapeGovernance runs the built binary with a governance pipeline, sends
// telemetry that makes every governance metric appear (a deprecated key, an
// unknown key dropped, a second service beyond service_limit: 1) and returns
// what :8888 serves.
func scrapeGovernance(t *testing.T) manifestlint.Exported {
	t.Helper()
	sink := e2e.StartSink(t)
	p := e2e.NewPipeline(t, sink)
	// A slow policy under a budget of 1 evaluation a second and a memoized
	// one (e2e/testdata/policies/README.md): the policy series exist.
	slow := filepath.Join(e2e.RepoRoot(t), "e2e/testdata/policies/slow")
	p.Processors = "  memory_limiter:\n    check_interval: 1s\n    limit_mib: 256\n" +
		"  governance:\n    deprecated: rename\n    unknown: drop\n    service_limit: 1\n" +
		"    deprecated_names:\n      http.method: copy\n" +
		"    findings:\n      policies: [" + slow + "]\n      policy_budget_per_second: 1\n"
	p.ProcessorNames = []string{"memory_limiter", "governance"}
	p.Extensions = fmt.Sprintf("  governance_registry:\n    poll_interval: 1s\n    http:\n      endpoint: 127.0.0.1:%d\n", e2e.FreePort(t))
	p.ExtensionNames = []string{"governance_registry"}
	col := e2e.StartCollector(t, p.YAML(), p.HealthPort, p.MetricsPort, e2e.Options{})
	client, err := e2e.NewClient(p.GRPCEndpoint(), p.HTTPEndpoint())
	require.NoError(t, err)
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	attrs := map[string]any{"http.method": "GET", "url.path": "/cart", "acme.cart.id": "42"}
	for i, svc := range []string{"checkout", "cart"} {
		require.NoError(t, client.SendTraces(ctx, e2e.GRPC, e2e.Traces(svc, i*10, 10, attrs)))
		require.NoError(t, client.SendMetrics(ctx, e2e.GRPC, e2e.Metrics(svc, i*10, 10, attrs)))
		require.NoError(t, client.SendLogs(ctx, e2e.HTTP, e2e.Logs(svc, i*10, 10, attrs)))
	}
	sink.WaitFor(t, e2e.Counts{Spans: 20, DataPoints: 20, LogRecords: 20}, 30*time.Second)

	want := []string{
		"otelcol_processor_governance_attributes",
		"otelcol_processor_governance_attributes_dropped",
		"otelcol_processor_governance_metric_names",
		"otelcol_processor_governance_registry_info",
		"otelcol_processor_governance_transition_info",
		"otelcol_processor_governance_deprecated_names_in_force",
		"otelcol_processor_governance_service_attributes",
		"otelcol_processor_governance_service_overflow",
		"otelcol_processor_governance_memo_hits",
		"otelcol_processor_governance_memo_misses",
		"otelcol_processor_governance_memo_evictions",
		"otelcol_processor_governance_memo_entries",
		"otelcol_processor_governance_memo_bytes",
		"otelcol_extension_governance_registry_reload_failing",
		"otelcol_processor_governance_policy_evaluations",
		"otelcol_processor_governance_policy_errors",
		"otelcol_processor_governance_policy_timeouts",
		"otelcol_processor_governance_policy_budget_skips",
		"otelcol_processor_governance_policy_memo_hits",
	}
	var fams e2e.Families
	deadline := time.Now().Add(15 * time.Second)
	for {
		fams = e2e.MustScrape(t, col.MetricsPort)
		missing := 0
		for _, n := range want {
			if _, ok := fams[n]; !ok {
				missing++
			}
		}
		if missing == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	exported := manifestlint.Exported{}
	var governance []string
	for name := range fams {
		ls := map[string]bool{}
		for _, s := range fams.Series(name) {
			for l := range s {
				ls[l] = true
			}
		}
		exported[name] = ls
		if slices.Contains(want, name) {
			governance = append(governance, name)
		}
	}
	sort.Strings(governance)
	sort.Strings(want)
	require.Equal(t, want, governance, "the governance metrics on :8888 after known traffic")
	return exported
}

// TestK8sPromQLReferencesExportedNames checks every PromQL expression of the
// rules and the dashboard against what the built binary serves on :8888.
func TestK8sPromQLReferencesExportedNames(t *testing.T) {
	root := e2e.RepoRoot(t)
	exported := scrapeGovernance(t)
	for name, ls := range exported {
		if strings.Contains(name, "governance") {
			t.Logf("exported: %s {%s}", name, strings.Join(sortedLabels(ls), ","))
		}
	}
	// Matchers on enum labels (outcome, reason, result) must use declared values.
	enums := map[string][]string{}
	for _, md := range []string{"processor/governanceprocessor/metadata.yaml", "extension/registryextension/metadata.yaml"} {
		_, en, err := manifestlint.DeclaredTelemetry([]byte(mustRead(t, filepath.Join(root, md))))
		require.NoError(t, err)
		for k, v := range en {
			enums[k] = v
		}
	}

	check := func(t *testing.T, rulesPath, dashboardPath string) map[string][]string {
		t.Helper()
		objs, err := manifestlint.LoadPaths(nil, rulesPath)
		require.NoError(t, err)
		require.Len(t, objs, 1)
		exprs, recorded := manifestlint.RuleExprs(objs[0].Doc)
		dash, err := manifestlint.DashboardExprs([]byte(mustRead(t, dashboardPath)))
		require.NoError(t, err)
		for k, v := range dash {
			exprs[k] = v
		}
		require.NotEmpty(t, exprs)
		c := manifestlint.PromQLCheck{Exported: exported, TargetLabels: targetLabels, Recorded: recorded, Enums: enums}
		bad := map[string][]string{}
		for k, v := range exprs {
			if errs := c.Check(v); len(errs) > 0 {
				bad[k] = errs
			}
		}
		return bad
	}

	t.Run("shipped", func(t *testing.T) {
		bad := check(t, filepath.Join(k8sDir(t), "monitoring/governance-rules.yaml"), filepath.Join(k8sDir(t), "monitoring/governance-dashboard.json"))
		assert.Empty(t, bad)
	})
	t.Run("drifted names fail", func(t *testing.T) {
		td := filepath.Join(root, "internal/manifestlint/testdata/promql")
		bad := check(t, filepath.Join(td, "rules-drifted.yaml"), filepath.Join(td, "dashboard-drifted.json"))
		var keys []string
		for k := range bad {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		assert.Equal(t, []string{
			"drifted/RegistryGenerationLag",
			"drifted/UnknownShare",
			"panel Conformance by service/A",
			"panel Top offenders/A",
			"variable service",
		}, keys)
	})
}

// TestK8sManifestLintCommand runs cmd/manifestlint the way CI and users do.
func TestK8sManifestLintCommand(t *testing.T) {
	root := e2e.RepoRoot(t)
	args := []string{"run", "./cmd/manifestlint"}
	if crds := filepath.Join(root, "..", "shared", "operator", "v0.158.0"); dirExists(crds) {
		args = append(args, "-crds", crds)
	}
	lint := func(paths ...string) (string, int) {
		cmd := exec.Command("go", append(args, paths...)...)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			return string(out), exitErr.ExitCode()
		}
		require.NoError(t, err, string(out))
		return string(out), 0
	}
	out, code := lint("distribution/k8s")
	assert.Equal(t, 0, code, out)
	out, code = lint("distribution/k8s", "e2e/testdata/k8s/app-unannotated.yaml")
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "Deployment shop/inventory (e2e/testdata/k8s/app-unannotated.yaml#0): [app-not-governed]")
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func sortedLabels(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestK8sCollectorConfigsStartWithoutDeprecations runs every CR's
// spec.config (its listen addresses moved to free loopback ports) and
// requires that the collector starts without a deprecation warning: the
// shipped CRs use the current component names and options.
func TestK8sCollectorConfigsStartWithoutDeprecations(t *testing.T) {
	configs := collectorConfigs(t, kustomized(t, k8sDir(t)))
	require.Len(t, configs, 2)
	for name, path := range configs {
		t.Run(name, func(t *testing.T) {
			cfg := mustRead(t, path)
			health, metrics := e2e.FreePort(t), e2e.FreePort(t)
			for old, repl := range map[string]string{
				"0.0.0.0:13133":           fmt.Sprintf("127.0.0.1:%d", health),
				"0.0.0.0:4317":            fmt.Sprintf("127.0.0.1:%d", e2e.FreePort(t)),
				"0.0.0.0:4318":            fmt.Sprintf("127.0.0.1:%d", e2e.FreePort(t)),
				"127.0.0.1:4317":          fmt.Sprintf("127.0.0.1:%d", e2e.FreePort(t)),
				"127.0.0.1:4318":          fmt.Sprintf("127.0.0.1:%d", e2e.FreePort(t)),
				"host: 0.0.0.0":           "host: 127.0.0.1",
				"port: 8888":              fmt.Sprintf("port: %d", metrics),
				"governance_registry: {}": fmt.Sprintf("governance_registry: {http: {endpoint: 127.0.0.1:%d}}", e2e.FreePort(t)),
			} {
				cfg = strings.ReplaceAll(cfg, old, repl)
			}
			local := filepath.Join(t.TempDir(), "collector.yaml")
			writeFile(t, local, cfg)
			col := e2e.StartCollectorFile(t, local, health, metrics, e2e.Options{})
			e2e.MustScrape(t, metrics)
			col.Stop()
			log := col.Log()
			assert.Contains(t, log, "Everything is ready")
			for _, line := range strings.Split(log, "\n") {
				if strings.Contains(line, "\twarn\t") || strings.Contains(line, "\terror\t") {
					assert.NotContains(t, strings.ToLower(line), "deprecat", "deprecation warning")
				}
			}
		})
	}
}
