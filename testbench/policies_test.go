//go:build e2e

package testbench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// TestStartupAndIdlePolicies is TestStartupAndIdle with Weaver's otel.rego
// and docs/policies.md's example rules (one by name, one by value) loaded on the
// governance_registry extension: the start-up time and idle footprint that
// advice policies add.
func TestStartupAndIdlePolicies(t *testing.T) {
	Governance(t) // fails with `make build` when the binary is missing
	root := e2e.RepoRoot(t)
	dirs := filepath.Join(root, "policy/testdata/weaver/default") + ", " + filepath.Join(root, "policy/testdata/example")
	start := func(tb testing.TB, p Ports) *e2e.Collector {
		path := DistributionConfig(tb, p, e2e.FreePort(tb))
		b, err := os.ReadFile(path) //nolint:gosec // the test's own temp file
		if err != nil {
			tb.Fatal(err)
		}
		const ext = "  governance_registry:\n    http:"
		if strings.Count(string(b), ext) != 1 {
			tb.Fatalf("%s: want one %q (update this test)", path, ext)
		}
		cfg := strings.Replace(string(b), ext, "  governance_registry:\n    policies: ["+dirs+"]\n    http:", 1)
		if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil { //nolint:gosec // the test's own temp file
			tb.Fatal(err)
		}
		return e2e.StartCollectorFile(tb, path, p.Health, p.Metrics, e2e.Options{})
	}
	res := MeasureStartup(t, "distribution/config.yaml + otel.rego + example policies", rateInt(testing.Short(), 3, 7), size(2*time.Second, 10*time.Second), 2*time.Second, start)
	t.Log(res)
	SaveResult(t, "startup-policies", res)
	assert.Less(t, res.StartupMedian, 5*time.Second)
	assert.Less(t, res.IdleRSSMiB, 200.0)
}
