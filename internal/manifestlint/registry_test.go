package manifestlint

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/internal/k8sregistry"
)

// registryObjects is a gateway CR whose extension loads semconv_dir (and
// an org registry) from the projected volume otelgov registry configmaps
// writes for next-384d661 at /conf/semconv-next, with its ConfigMaps;
// edit changes the objects (as YAML-decoded maps) before they are linted.
func registryObjects(t *testing.T, semconvDir string, edit func(cr map[string]any, cms []map[string]any) []map[string]any) []Finding {
	t.Helper()
	s, err := k8sregistry.Build(filepath.Join("..", "..", "..", "shared", "semconv", "next-384d661"),
		k8sregistry.Options{Name: "semconv-next", Namespace: "observability", MountPath: "/conf/semconv-next"})
	require.NoError(t, err)
	cr := map[string]any{
		"apiVersion": "opentelemetry.io/v1beta1", "kind": "OpenTelemetryCollector",
		"metadata": map[string]any{"name": "gateway", "namespace": "observability"},
		"spec": map[string]any{
			"image":        "otelcol-governance",
			"volumes":      []any{s.Volume},
			"volumeMounts": []any{s.Mount},
			"config": map[string]any{
				"extensions": map[string]any{"governance_registry": map[string]any{"semconv_dir": semconvDir}},
				"processors": map[string]any{"governance": map[string]any{"registry": map[string]any{"extension": "governance_registry"}}},
			},
		},
	}
	docs := append([]map[string]any{cr}, s.ConfigMaps...)
	if edit != nil {
		docs = edit(cr, s.ConfigMaps)
	}
	var b strings.Builder
	for _, d := range docs {
		y, err := yaml.Marshal(d)
		require.NoError(t, err)
		b.WriteString("---\n" + string(y))
	}
	objs, err := DecodeBytes([]byte(b.String()), "test")
	require.NoError(t, err)
	var out []Finding
	for _, f := range Lint(objs, Options{}) {
		if f.Rule == RuleRegistryVolume {
			out = append(out, f)
		}
	}
	return out
}

// TestRegistryVolume: a release shipped as otelgov registry configmaps
// writes it (next-384d661: over 1 MiB, in 2 ConfigMaps) passes; each way
// the registry would not reach the pod is a finding naming the key or the
// ConfigMap.
func TestRegistryVolume(t *testing.T) {
	assert.Empty(t, registryObjects(t, "/conf/semconv-next", nil))

	for _, tt := range []struct {
		name string
		dir  string
		edit func(cr map[string]any, cms []map[string]any) []map[string]any
		want string
	}{
		{"path under no mount", "/conf/elsewhere", nil, "extensions::governance_registry::semconv_dir: /conf/elsewhere is under no spec.volumeMounts mountPath"},
		{"no model under the path", "/conf/semconv-next/model", nil, "mounts no file under /conf/semconv-next/model/model"},
		{"a ConfigMap missing", "/conf/semconv-next", func(cr map[string]any, cms []map[string]any) []map[string]any {
			return []map[string]any{cr, cms[0]}
		}, "ConfigMap semconv-next-1 is not among the manifests"},
		{"one ConfigMap over 1 MiB", "/conf/semconv-next", func(cr map[string]any, cms []map[string]any) []map[string]any {
			d0 := cms[0]["data"].(map[string]any)
			for k, v := range cms[1]["data"].(map[string]any) {
				d0[k] = v
			}
			cms[1]["data"] = map[string]any{"x": "y"}
			return []map[string]any{cr, cms[0], cms[1]}
		}, "ConfigMap semconv-next-0 holds"},
		{"a key missing", "/conf/semconv-next", func(cr map[string]any, cms []map[string]any) []map[string]any {
			for _, cm := range cms {
				delete(cm["data"].(map[string]any), k8sregistry.Key("model/manifest.yaml"))
			}
			return []map[string]any{cr, cms[0], cms[1]}
		}, "has no key model__manifest.yaml"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := registryObjects(t, tt.dir, tt.edit)
			require.NotEmpty(t, got)
			var msgs []string
			for _, f := range got {
				msgs = append(msgs, f.String())
			}
			assert.Contains(t, strings.Join(msgs, "\n"), tt.want)
		})
	}
}
