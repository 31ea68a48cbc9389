package testbench

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/internal/e2e"
	"github.com/otelgov/otelcol-governance/internal/manifestlint"
)

// TestGatewayCRSettings reads the gateway CR the way the line rate's
// gateway variants and the burst do: its GC settings must be literal, parse
// as the Go runtime parses them, and its pipeline must come out with the
// CR's processors in the CR's order.
func TestGatewayCRSettings(t *testing.T) {
	path := filepath.Join(e2e.RepoRoot(t), GatewayCR)
	s, err := ReadCRSettings(path)
	require.NoError(t, err)
	assert.Equal(t, int64(512<<20), s.MemoryLimit)
	assert.Equal(t, []string{"GOMEMLIMIT=536870912"}, s.OperatorEnv())
	var limit string
	for _, kv := range s.Env {
		if k, v, _ := strings.Cut(kv, "="); k == "GOMEMLIMIT" {
			limit = v
		}
	}
	require.NotEmpty(t, limit, "the gateway CR ships a GOMEMLIMIT: %v", s.Env)
	n, err := manifestlint.ParseGoMemLimit(limit)
	require.NoError(t, err)
	assert.Less(t, n, s.MemoryLimit)

	c, err := GatewayConfig("g", path)
	require.NoError(t, err)
	assert.Equal(t, []string{"memory_limiter", "governance"}, c.Pipeline)
	assert.Equal(t, []string{"governance_registry", "admission"}, c.ExtensionIDs)
	assert.Contains(t, c.Extensions, "  admission:\n")
	// The CR's receiver settings, not the testbench's: admission before
	// decode is what the burst measures.
	assert.Contains(t, c.GRPC, "        max_recv_msg_size_mib: 4\n")
	assert.Contains(t, c.GRPC, "        middlewares:\n          - id: admission\n")
	assert.NotContains(t, c.GRPC, "endpoint")
	assert.Contains(t, c.HTTP, "        max_request_body_size: 4194304\n")
	assert.Contains(t, c.HTTP, "        middlewares:\n          - id: admission\n")
	assert.Contains(t, c.Extensions, "  governance_registry:\n    http:\n      enabled: false\n")
	assert.Contains(t, c.Processors, "  memory_limiter:\n")
	assert.Contains(t, c.Processors, "limit_percentage: 80")

	cands, err := ParseGatewayCandidates("GOGC=off GOMEMLIMIT=256MiB; ;GOGC=400")
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"GOGC=off", "GOMEMLIMIT=256MiB"}, {"GOGC=400"}}, cands)
	_, err = ParseGatewayCandidates("GOGC")
	assert.Error(t, err)
}
