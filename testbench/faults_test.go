package testbench

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// TestFaultGatewayConfig: the fault scenarios run the gateway CR as
// shipped, with only the machine's places changed: every file_storage
// directory on the queue directory, the listeners on loopback ports, the
// traces exporter on the backend with its queue, batching and retries
// kept.
func TestFaultGatewayConfig(t *testing.T) {
	root := e2e.RepoRoot(t)
	p := Ports{GRPC: 1, HTTP: 2, Health: 3, Metrics: 4}
	y, err := FaultGatewayConfig(filepath.Join(root, GatewayCR), FaultOptions{Ports: p, Backend: "127.0.0.1:9", QueueDir: "/q", OrgDir: "/org", QueueBytes: 8 << 20})
	require.NoError(t, err)
	var cfg map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(y), &cfg))
	exps := cfg["exporters"].(map[string]any)
	require.Len(t, exps, 1, "the traces pipeline's exporter only")
	for _, v := range exps {
		e := v.(map[string]any)
		assert.Equal(t, "127.0.0.1:9", e["endpoint"])
		q := e["sending_queue"].(map[string]any)
		assert.Equal(t, "bytes", q["sizer"])
		assert.Equal(t, 8<<20, q["queue_size"])
		assert.NotEmpty(t, q["storage"], "the CR's persistent queue is kept")
		assert.NotNil(t, q["batch"])
		assert.Equal(t, 0, at(e, "retry_on_failure", "max_elapsed_time"))
	}
	fs := 0
	for id, v := range cfg["extensions"].(map[string]any) {
		if componentTypeOf(id) == "file_storage" {
			fs++
			assert.Equal(t, "/q", at(v, "directory"))
			assert.Equal(t, "/q", at(v, "compaction", "directory"))
			assert.Nil(t, at(v, "max_size"), "a full bbolt file drops acknowledged requests")
		}
	}
	assert.Equal(t, 1, fs)
	assert.Equal(t, []any{"/org"}, at(cfg, "extensions", "governance_registry", "org_registries"))
	assert.Equal(t, "127.0.0.1:1", at(cfg, "receivers", "otlp", "protocols", "grpc", "endpoint"))
	assert.Len(t, at(cfg, "service", "pipelines"), 1)
	assert.Contains(t, y, "port: 4")

	s, err := SenderConfig(root, p, "127.0.0.1:7", nil)
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal([]byte(s), &cfg))
	for _, v := range cfg["exporters"].(map[string]any) {
		assert.Equal(t, "127.0.0.1:7", at(v, "endpoint"))
		assert.Equal(t, false, at(v, "sending_queue", "enabled"), "the exporter retries inside the call")
		assert.Equal(t, 0, at(v, "retry_on_failure", "max_elapsed_time"), "the sidecar CR's retries")
	}
}

// TestConfigMapDirSwap: the registry reload of the fault scenarios swaps
// content as the kubelet does, through ..data.
func TestConfigMapDirSwap(t *testing.T) {
	c, err := NewConfigMapDir(t.TempDir(), "a")
	require.NoError(t, err)
	read := func() string {
		b, err := os.ReadFile(filepath.Join(c.Dir, "org.yaml"))
		require.NoError(t, err)
		return string(b)
	}
	assert.Equal(t, "a", read())
	require.NoError(t, c.Swap("b"))
	assert.Equal(t, "b", read())
	entries, err := os.ReadDir(c.Dir)
	require.NoError(t, err)
	assert.Len(t, entries, 3, "org.yaml, ..data and one generation")
}
