//go:build e2e

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/internal/e2e"
	"github.com/otelgov/otelcol-governance/internal/k8sregistry"
	"github.com/otelgov/otelcol-governance/internal/manifestlint"
	"github.com/otelgov/otelcol-governance/upgrade/upgradetest"
)

// planAndShip writes the plan's forms for the embedded v1.44.0 ->
// next-384d661 with the registry at semconvMount, ships the release with
// otelgov registry configmaps and materializes the volume as the pods
// would see it, returning the forms with semconvMount, the volume file,
// the ConfigMaps and the local directory standing for semconvMount.
func planAndShip(t *testing.T) (forms map[string]map[string]any, volume map[string]any, cms []map[string]any, mounted string) {
	t.Helper()
	root := e2e.RepoRoot(t)
	newDir, err := filepath.Abs(filepath.Join(root, "..", "shared", "semconv", "next-384d661"))
	require.NoError(t, err)
	dir := t.TempDir()

	// The plan, with the registry where the pods mount it.
	plan := filepath.Join(dir, "transition")
	code, out, errOut := otelgov(t, nil, "upgrade", "plan", "--new", newDir, "--output", plan, "--collector-path", newDir+"="+semconvMount)
	require.Equal(t, 1, code, "1: the five error.type changes need a person; %s%s", out, errOut)
	forms = map[string]map[string]any{}
	for _, hop := range []string{"gateway", "sidecar", "collector"} {
		forms[hop] = readYAMLFile(t, filepath.Join(plan, hop+".yaml"))
	}

	// The registry as the pods see it: the ConfigMaps through the
	// projected volume.
	ship := filepath.Join(dir, "ship")
	code, out, errOut = otelgov(t, nil, "registry", "configmaps", newDir, "--name", "semconv-next", "--namespace", "observability", "--mount", semconvMount, "--output", ship)
	require.Equal(t, 0, code, "%s%s", out, errOut)
	cms = readYAMLDocs(t, filepath.Join(ship, "configmaps.yaml"))
	require.GreaterOrEqual(t, len(cms), 2, "next-384d661 is over one ConfigMap")
	volume = readYAMLFile(t, filepath.Join(ship, "volume.yaml"))
	mounted = filepath.Join(dir, "pod", "conf", "semconv-next")
	vols, ok := volume["volumes"].([]any)
	require.True(t, ok)
	require.Len(t, vols, 1)
	n, err := k8sregistry.Materialize(cms, vols[0].(map[string]any), mounted)
	require.NoError(t, err)
	require.Greater(t, n, 200)
	return forms, volume, cms, mounted
}

// semconvMount is where the hops test mounts the new registry in the pods.
const semconvMount = "/conf/semconv-next"

// TestUpgradePlanFitsShippedConfigs: the transition for v1.44.0 (embedded,
// as the shipped collectors run it) -> next-384d661 fits every hop of the
// deployment we ship, read as it is when the test runs: otelgov upgrade
// plan writes the gateway form (the governance_registry extension's
// registry source with the processor's deprecated_names) and the sidecar
// form (the processor's own registry, the new one, with the same
// deprecated_names: the first hop copies and counts); otelgov registry
// configmaps ships the release as ConfigMaps, materialized here as the
// kubelet would mount them, and the plan's collector path is remapped to
// them. Merged into distribution/config.yaml and the gateway CR's
// spec.config (gateway form) and the sidecar CR's spec.config (sidecar
// form), each passes the built binary's validate; each CR with the
// generated volume and the ConfigMaps in its own namespace passes
// manifestlint (the sidecar's in the application's namespace: ConfigMaps
// in the gateway's do not reach it). The processor's own-registry form
// beside the extension is refused.
func TestUpgradePlanFitsShippedConfigs(t *testing.T) {
	root := e2e.RepoRoot(t)
	forms, volume, cms, mounted := planAndShip(t)
	assert.Equal(t, semconvMount, hopDig(forms["gateway"], "extensions", "governance_registry", "semconv_dir"))
	assert.Equal(t, "copy", hopDig(forms["gateway"], "processors", "governance", "deprecated_names", "rpc.response.status_code"))
	assert.Equal(t, "copy", hopDig(forms["sidecar"], "processors", "governance", "deprecated_names", "rpc.response.status_code"), "the sidecar copies and counts: it renames no old name before a hop that counts it")
	assert.Equal(t, semconvMount, hopDig(forms["sidecar"], "processors", "governance", "registry", "semconv_dir"))
	assert.Equal(t, false, hopDig(forms["sidecar"], "processors", "governance", "registry", "embedded"))

	// The shipped configurations, as they are.
	crs := map[string]map[string]any{}
	objs, err := manifestlint.LoadPaths(nil, filepath.Join(root, "distribution/k8s/collector/gateway.yaml"), filepath.Join(root, "distribution/k8s/collector/sidecar.yaml"))
	require.NoError(t, err)
	crObjs := map[string]manifestlint.Object{}
	for _, o := range objs {
		cfg, err := manifestlint.CollectorConfig(o)
		require.NoError(t, err)
		mode := hopStr(o.Doc["spec"].(map[string]any)["mode"])
		crs[mode] = cfg
		crObjs[mode] = o
	}
	require.Contains(t, crs, "deployment")
	require.Contains(t, crs, "sidecar")
	for _, tt := range []struct {
		name string
		base map[string]any
		hop  string
		cr   string
	}{
		{"distribution/config.yaml", readYAMLFile(t, filepath.Join(root, "distribution/config.yaml")), "gateway", ""},
		{"gateway CR", crs["deployment"], "gateway", "deployment"},
		{"sidecar CR", crs["sidecar"], "sidecar", "sidecar"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			merged := remapPaths(mergeConfig(tt.base, forms[tt.hop]), semconvMount, mounted).(map[string]any)
			// The CR's own volumes (the gateway's queue emptyDir), as
			// the kubelet mounts them: an empty directory each.
			if tt.cr != "" {
				for _, vm := range asSlice(hopDig(crObjs[tt.cr].Doc, "spec", "volumeMounts")) {
					if mp := hopStr(hopDig(vm.(map[string]any), "mountPath")); mp != "" {
						merged = remapPaths(merged, mp, t.TempDir()).(map[string]any)
					}
				}
			}
			out, err := e2e.Run(t, "validate", "--config", writeConfig(t, merged))
			assert.NoError(t, err, out)
		})
	}

	// The processor's own registry beside the extension: what the plan
	// wrote before, which the gateway refuses.
	own := remapPaths(mergeConfig(crs["deployment"], forms["collector"]), semconvMount, mounted).(map[string]any)
	out, err := e2e.Run(t, "validate", "--config", writeConfig(t, own))
	require.Error(t, err, out)
	assert.Contains(t, out, "cannot be combined with semconv_dir")

	// Each CR with the volume and the merged configuration passes
	// manifestlint's registry-volume rule with the ConfigMaps in its
	// namespace, and fails it without the volume, or with the ConfigMaps
	// in another namespace.
	lint := func(mode, hop string, withVolume bool, namespace string) []string {
		cr := crObjs[mode]
		spec := mergeConfig(cr.Doc["spec"].(map[string]any), map[string]any{"config": mergeConfig(crs[mode], forms[hop])})
		if withVolume {
			spec["volumes"] = volume["volumes"]
			spec["volumeMounts"] = volume["volumeMounts"]
		}
		doc := mergeConfig(cr.Doc, map[string]any{"spec": spec})
		in := append([]manifestlint.Object{{Source: hop, Doc: doc}}, lintObjects(inNamespace(cms, namespace))...)
		var msgs []string
		for _, f := range manifestlint.Lint(in, manifestlint.Options{}) {
			if f.Rule == manifestlint.RuleRegistryVolume {
				msgs = append(msgs, f.String())
			}
		}
		return msgs
	}
	gatewayNS, sidecarNS := crObjs["deployment"].Namespace(), crObjs["sidecar"].Namespace()
	require.NotEqual(t, gatewayNS, sidecarNS, "the sidecar runs in the application's namespace")
	assert.Empty(t, lint("deployment", "gateway", true, gatewayNS))
	assert.Contains(t, strings.Join(lint("deployment", "gateway", false, gatewayNS), "\n"), "extensions::governance_registry::semconv_dir: "+semconvMount+" is under no spec.volumeMounts mountPath")
	assert.Empty(t, lint("sidecar", "sidecar", true, sidecarNS))
	assert.Contains(t, strings.Join(lint("sidecar", "sidecar", false, sidecarNS), "\n"), "processors::governance::registry::semconv_dir: "+semconvMount+" is under no spec.volumeMounts mountPath")
	assert.NotEmpty(t, lint("sidecar", "sidecar", true, gatewayNS), "ConfigMaps in the gateway's namespace do not reach a sidecar")
}

// inNamespace returns copies of the ConfigMaps docs in namespace ns, as
// otelgov registry configmaps --namespace ns writes them.
func inNamespace(docs []map[string]any, ns string) []map[string]any {
	out := make([]map[string]any, len(docs))
	for i, d := range docs {
		out[i] = mergeConfig(d, map[string]any{"metadata": map[string]any{"namespace": ns}})
	}
	return out
}

func hopStr(v any) string { s, _ := v.(string); return s }

func asSlice(v any) []any { s, _ := v.([]any); return s }

// hopDig walks nested maps.
func hopDig(m map[string]any, keys ...string) any {
	var cur any = m
	for _, k := range keys {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[k]
	}
	return cur
}

// mergeConfig returns base with over merged in, as the collector merges several
// --config files: maps key by key, anything else replaced.
func mergeConfig(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		if bm, ok := out[k].(map[string]any); ok {
			if om, ok := v.(map[string]any); ok {
				out[k] = mergeConfig(bm, om)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// remapPaths replaces the path prefix from with to in every string of v.
func remapPaths(v any, from, to string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = remapPaths(e, from, to)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = remapPaths(e, from, to)
		}
		return out
	case string:
		if x == from || strings.HasPrefix(x, from+"/") {
			return to + strings.TrimPrefix(x, from)
		}
	}
	return v
}

func lintObjects(docs []map[string]any) []manifestlint.Object {
	out := make([]manifestlint.Object, len(docs))
	for i, d := range docs {
		out[i] = manifestlint.Object{Source: "configmaps", Doc: d}
	}
	return out
}

func readYAMLFile(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path) //nolint:gosec // the test's own files
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, yaml.Unmarshal(b, &m), path)
	return m
}

func readYAMLDocs(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path) //nolint:gosec // the test's own files
	require.NoError(t, err)
	var out []map[string]any
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			break
		}
		out = append(out, m)
	}
	return out
}

func writeConfig(t *testing.T, m map[string]any) string {
	t.Helper()
	b, err := yaml.Marshal(m)
	require.NoError(t, err)
	f, err := os.CreateTemp(t.TempDir(), "config-*.yaml")
	require.NoError(t, err)
	_, err = f.Write(b)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	return f.Name()
}

// TestUpgradeHopsRun runs the two hops we ship on the plan's forms, both
// scraped by a real Prometheus: an application sends
// rpc.response.status_code (current in v1.44.0, renamed by next-384d661)
// to a sidecar on its form (the processor's own registry on the release as
// the ConfigMaps mount it, with deprecated_names), which forwards to a
// gateway on its form (the governance_registry extension on the same
// release, with deprecated_names). The sidecar copies the old name beside
// rpc.status_code and counts checkout; the gateway receives the old name
// too and counts it as well; upgrade status finds the transition in force
// on every instance and says checkout still sends the old name.
//
// The mutation the forms exist to prevent: the sidecar on the new registry
// in rename mode without deprecated_names renames the old name first, the
// gateway counts nothing, and status says the transition is not in force
// on the sidecar (never "done").
func TestUpgradeHopsRun(t *testing.T) {
	root := e2e.RepoRoot(t)
	newDir, err := filepath.Abs(filepath.Join(root, "..", "shared", "semconv", "next-384d661"))
	require.NoError(t, err)
	forms, _, _, mounted := planAndShip(t)
	section := func(form map[string]any, keys ...string) string {
		m := remapPaths(hopDig(form, keys...), semconvMount, mounted)
		b, err := yaml.Marshal(map[string]any{keys[len(keys)-1]: m})
		require.NoError(t, err)
		return indent(string(b))
	}
	series := map[string]string{"service_name": "checkout", "deprecated_name": "rpc.response.status_code"}

	// run starts the gateway on its form and the sidecar on sidecar,
	// checkout sending the old name to the sidecar every 300 ms, and
	// returns both hops' metrics ports, the sink and the Prometheus
	// scraping them.
	run := func(t *testing.T, sidecar string) (gwPort, scPort int, sink *e2e.Sink, prom string) {
		t.Helper()
		sink = e2e.StartSink(t)
		gw := e2e.NewPipeline(t, sink)
		gw.Processors = section(forms["gateway"], "processors", "governance")
		gw.ProcessorNames = []string{"governance"}
		ext := hopDig(forms["gateway"], "extensions", "governance_registry").(map[string]any)
		ext["http"] = map[string]any{"endpoint": "127.0.0.1:" + strconv.Itoa(e2e.FreePort(t))}
		gw.Extensions = section(forms["gateway"], "extensions", "governance_registry")
		gw.ExtensionNames = []string{"governance_registry"}
		e2e.StartCollector(t, gw.YAML(), gw.HealthPort, gw.MetricsPort, e2e.Options{})

		sc := e2e.NewPipeline(t, sink)
		sc.SinkEndpoint = gw.GRPCEndpoint()
		sc.Processors = sidecar
		sc.ProcessorNames = []string{"governance"}
		e2e.StartCollector(t, sc.YAML(), sc.HealthPort, sc.MetricsPort, e2e.Options{})
		prom = upgradetest.StartPrometheus(t, "127.0.0.1:"+strconv.Itoa(gw.MetricsPort), "127.0.0.1:"+strconv.Itoa(sc.MetricsPort))

		client, err := e2e.NewClient(sc.GRPCEndpoint(), sc.HTTPEndpoint())
		require.NoError(t, err)
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			tick := time.NewTicker(300 * time.Millisecond)
			defer tick.Stop()
			for {
				_ = client.SendTraces(context.Background(), e2e.GRPC, e2e.Traces("checkout", 0, 3, map[string]any{"rpc.response.status_code": "OK"}))
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
			}
		}()
		t.Cleanup(func() { stop(); <-done; _ = client.Close() })
		require.Eventually(t, func() bool { return len(sink.Traces()) > 0 }, 30*time.Second, 200*time.Millisecond)
		return gw.MetricsPort, sc.MetricsPort, sink, prom
	}
	// status waits until the window is observed in full and the answer
	// holds reason.
	status := func(t *testing.T, prom, reason string) (int, string) {
		t.Helper()
		var (
			code        int
			out, errOut string
		)
		require.Eventually(t, func() bool {
			code, out, errOut = otelgov(t, nil, "upgrade", "status", "--new", newDir, "--prometheus", prom, "--window", "5s")
			return !strings.Contains(out, "not observed in full") && strings.Contains(out, reason)
		}, 60*time.Second, time.Second, "last: %d %s %s", code, out, errOut)
		return code, out
	}

	t.Run("plan's forms", func(t *testing.T) {
		gwPort, scPort, sink, prom := run(t, section(forms["sidecar"], "processors", "governance"))
		attrs := sink.Traces()[0].ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes().AsRaw()
		assert.Equal(t, "OK", attrs["rpc.response.status_code"], "the old name reaches the gateway and is kept: %v", attrs)
		assert.Equal(t, "OK", attrs["rpc.status_code"], "the new name beside it: %v", attrs)
		for hop, port := range map[string]int{"sidecar": scPort, "gateway": gwPort} {
			require.Eventually(t, func() bool {
				n, ok := e2e.MustScrape(t, port).Sum("otelcol_processor_governance_service_deprecated_names", series)
				return ok && n >= 3
			}, 30*time.Second, 500*time.Millisecond, "the %s counts checkout's old name", hop)
		}
		code, out := status(t, prom, `service "checkout" sent the old name rpc.response.status_code`)
		assert.Equal(t, 1, code, out)
		assert.NotContains(t, out, "not in force", "every instance of both hops runs the transition")
	})

	t.Run("sidecar renames without counting", func(t *testing.T) {
		renaming := remapPaths(hopDig(forms["sidecar"], "processors", "governance"), semconvMount, mounted).(map[string]any)
		delete(renaming, "deprecated_names")
		b, err := yaml.Marshal(map[string]any{"governance": renaming})
		require.NoError(t, err)
		gwPort, scPort, sink, prom := run(t, indent(string(b)))
		attrs := sink.Traces()[0].ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes().AsRaw()
		assert.NotContains(t, attrs, "rpc.response.status_code", "renamed before the gateway: %v", attrs)
		assert.Equal(t, "OK", attrs["rpc.status_code"], "%v", attrs)
		code, out := status(t, prom, "renames rpc.response.status_code without counting them")
		assert.Equal(t, 1, code, out)
		assert.Contains(t, out, "the transition configuration is not in force on 3 of 6 instance(s)")
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "renames rpc.response.status_code") {
				assert.Contains(t, l, "127.0.0.1:"+strconv.Itoa(scPort), "the sidecar is named")
			}
		}
		for _, port := range []int{gwPort, scPort} {
			_, ok := e2e.MustScrape(t, port).Sum("otelcol_processor_governance_service_deprecated_names", series)
			assert.False(t, ok, "no hop counts checkout's old name")
		}
	})
}

// indent indents YAML by two spaces, as a Pipeline section.
func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if strings.TrimSpace(l) != "" {
			b.WriteString("  ")
		}
		b.WriteString(l)
	}
	return b.String()
}
