package k8sregistry

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/registry"
)

const next = "../../../shared/semconv/next-384d661"

// TestBuildRoundTrip: next-384d661 (over 1 MiB, files in nested
// directories) ships in several ConfigMaps, each within the budget, and
// the tree the projected volume puts in the pod loads as the same registry
// (same digest, same schema URL) as the checkout.
func TestBuildRoundTrip(t *testing.T) {
	s, err := Build(next, Options{Name: "semconv-next", Namespace: "observability", MountPath: "/conf/semconv-next"})
	require.NoError(t, err)
	require.Greater(t, s.Bytes, MaxConfigMapBytes, "the release is over one ConfigMap")
	require.GreaterOrEqual(t, len(s.ConfigMaps), 2)
	for _, cm := range s.ConfigMaps {
		size := 0
		for k, v := range cm["data"].(map[string]any) {
			size += len(k) + len(v.(string))
		}
		assert.LessOrEqual(t, size, DefaultBudget)
	}
	root := t.TempDir()
	n, err := Materialize(s.ConfigMaps, s.Volume, root)
	require.NoError(t, err)
	assert.Equal(t, s.Files, n)
	want, err := registry.Load(registry.Sources{SemconvDir: next})
	require.NoError(t, err)
	got, err := registry.Load(registry.Sources{SemconvDir: root})
	require.NoError(t, err)
	assert.Equal(t, want.Digest(), got.Digest())
	assert.Equal(t, "https://opentelemetry.io/schemas/1.45.0-unreleased", got.SchemaURL())
	assert.Equal(t, "/conf/semconv-next", s.Mount["mountPath"])
}

// TestBuildErrors: what Kubernetes would refuse, or a directory that is
// not a registry, is an error naming it.
func TestBuildErrors(t *testing.T) {
	ok := Options{Name: "semconv-next", Namespace: "observability", MountPath: "/conf/semconv-next"}
	for _, tt := range []struct {
		name string
		dir  string
		edit func(*Options)
		want string
	}{
		{"bad name", next, func(o *Options) { o.Name = "Semconv_Next" }, `name "Semconv_Next"`},
		{"no namespace", next, func(o *Options) { o.Namespace = "" }, "namespace: required"},
		{"relative mount", next, func(o *Options) { o.MountPath = "conf" }, `mount path "conf"`},
		{"file over the budget", next, func(o *Options) { o.Budget = 1000 }, "more than one ConfigMap holds (budget 1000)"},
		{"not a registry", t.TempDir(), nil, "has no model directory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := ok
			if tt.edit != nil {
				tt.edit(&o)
			}
			_, err := Build(tt.dir, o)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
