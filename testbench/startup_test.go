package testbench

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// TestSidecarConfig: the footprint runs the sidecar CR's spec.config with
// only its addresses moved: every listener on the given loopback ports,
// the gateway exporter on the sink, and the processors and pipelines as
// the CR has them.
func TestSidecarConfig(t *testing.T) {
	p := Ports{GRPC: 1001, HTTP: 1002, Health: 1003, Metrics: 1004}
	b, err := os.ReadFile(SidecarConfig(t, p, "127.0.0.1:1005")) //nolint:gosec // the test's own temp file
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, yaml.Unmarshal(b, &got))

	src, err := os.ReadFile(filepath.Join(e2e.RepoRoot(t), "distribution", "k8s", "collector", "sidecar.yaml"))
	require.NoError(t, err)
	var cr struct {
		Spec struct {
			Config map[string]any `yaml:"config"`
		} `yaml:"spec"`
	}
	require.NoError(t, yaml.Unmarshal(src, &cr))
	want := cr.Spec.Config
	at := func(m map[string]any, keys ...string) map[string]any {
		for _, k := range keys {
			next, ok := m[k].(map[string]any)
			require.True(t, ok, "%v", keys)
			m = next
		}
		return m
	}
	for _, m := range []map[string]any{want, got} {
		delete(at(m, "extensions", "health_check"), "endpoint")
		delete(at(m, "receivers", "otlp", "protocols", "grpc"), "endpoint")
		delete(at(m, "receivers", "otlp", "protocols", "http"), "endpoint")
		delete(at(m, "exporters", "otlp_grpc/gateway"), "endpoint")
		delete(at(m, "service"), "telemetry")
	}

	var moved map[string]any
	require.NoError(t, yaml.Unmarshal(b, &moved))
	assert.Equal(t, "127.0.0.1:"+strconv.Itoa(p.Health), at(moved, "extensions", "health_check")["endpoint"])
	assert.Equal(t, "127.0.0.1:"+strconv.Itoa(p.GRPC), at(moved, "receivers", "otlp", "protocols", "grpc")["endpoint"])
	assert.Equal(t, "127.0.0.1:"+strconv.Itoa(p.HTTP), at(moved, "receivers", "otlp", "protocols", "http")["endpoint"])
	assert.Equal(t, "127.0.0.1:1005", at(moved, "exporters", "otlp_grpc/gateway")["endpoint"])
	assert.Contains(t, string(b), "host: 127.0.0.1\n")
	assert.Contains(t, string(b), "port: "+strconv.Itoa(p.Metrics)+"\n")
	assert.NotContains(t, string(b), "0.0.0.0")
	assert.Equal(t, want, got, "everything else as the CR has it")
}
