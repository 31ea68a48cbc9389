//go:build e2e

package testbench

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// TestGatewayStarts starts the gateway's pipeline as the line rate's
// gateway variants and the burst run it (GatewayConfig), with the CR's
// spec.env: a GC setting the Go runtime refuses (Kubernetes' "256Mi")
// stops the collector at start, and so this test.
func TestGatewayStarts(t *testing.T) {
	path := filepath.Join(e2e.RepoRoot(t), GatewayCR)
	s, err := ReadCRSettings(path)
	require.NoError(t, err)
	cfg, err := GatewayConfig("gateway", path)
	require.NoError(t, err)
	ports := FreePorts(t)
	col := Governance(t).Start(t, cfg.YAML(ports, NopExporter(), Traces), ports, e2e.Options{Env: s.Env})
	client, err := e2e.NewClient(ports.GRPCEndpoint(), "")
	require.NoError(t, err)
	defer client.Close()
	w := testWorkload(t, Mix{})
	st := NewGenerator(w, client, LoadOptions{Signal: Traces}).Run(t.Context(), 500*time.Millisecond)
	require.Zero(t, st.Failed, st.LastError)
	require.Positive(t, st.Sent)
	require.False(t, col.Exited())
}
