//go:build e2e

package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/conformance"
	"github.com/otelgov/otelcol-governance/extension/registryextension/registryapi"
	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// policyAttrs break both rules of testdata/policies/good, and
// acme.tmp_dir the rule of names_v2.rego.txt.
var policyAttrs = map[string]any{ //nolint:gosec // test data: a URL with credentials is what the policy reports
	"url.full":      "https://bob:secret@shop.example/cart",
	"acme.test_run": "42",
	"acme.tmp_dir":  "/tmp",
}

// writePolicies copies testdata/policies/good into a directory the test
// edits; names is its names.rego.
func writePolicies(t *testing.T) (dir, names string) {
	t.Helper()
	dir = t.TempDir()
	names = filepath.Join(dir, "names.rego")
	writeAtomic(t, names, readPolicy(t, "good/names.rego"))
	writeAtomic(t, filepath.Join(dir, "values.rego"), readPolicy(t, "good/values.rego"))
	return dir, names
}

func readPolicy(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e2e.RepoRoot(t), "e2e/testdata/policies", name))
	require.NoError(t, err)
	return string(b)
}

// policyCount is a policy finding's count on :8888 (0 when absent).
func policyCount(t *testing.T, rc *regCollector, id string) float64 {
	t.Helper()
	v, _ := e2e.MustScrape(t, rc.metrics).Sum("otelcol_processor_governance_policy_findings", map[string]string{"policy_finding": id})
	return v
}

// The collector with the same directory counts both rules on :8888 and in
// /conformance; editing the policy on disk changes the findings after the
// next poll; a broken policy keeps the last good one.
func TestPoliciesCollector(t *testing.T) {
	const poll = 300 * time.Millisecond
	dir, names := writePolicies(t)
	rc := startExtensionCollector(t, "policies: ["+dir+"]", poll, "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sent := 0
	send := func(n int) {
		t.Helper()
		require.NoError(t, rc.client.SendTraces(ctx, e2e.GRPC, e2e.Traces("shop", sent, n, policyAttrs)))
		sent += n
		rc.sink.WaitFor(t, e2e.Counts{Spans: sent}, 30*time.Second)
	}
	send(5)
	assert.InDelta(t, 5, policyCount(t, rc, "acme_no_test_keys"), 0)
	assert.InDelta(t, 5, policyCount(t, rc, "acme_url_credentials"), 0)
	fam := e2e.MustScrape(t, rc.metrics)
	for _, n := range []string{"otelcol_processor_governance_policy_evaluations", "otelcol_processor_governance_policy_memo_hits"} {
		v, ok := fam.Sum(n, nil)
		assert.True(t, ok && v > 0, "%s: %v", n, v)
	}
	svc := rc.service(t, "shop")
	require.Contains(t, svc.Findings, "acme_no_test_keys")
	assert.Equal(t, int64(5), svc.Findings["acme_no_test_keys"].Count)
	assert.Equal(t, "violation", svc.Findings["acme_no_test_keys"].Level)
	assert.Equal(t, []conformance.FindingName{{Subject: "key", Name: "acme.test_run", Count: 5}}, svc.Findings["acme_no_test_keys"].Top)
	require.Contains(t, svc.Findings, "acme_url_credentials")
	assert.Equal(t, int64(5), svc.Findings["acme_url_credentials"].Count)
	info := rc.info(t)
	assert.Equal(t, []string{dir}, info.Sources.Policies)
	gen := info.Generation

	// The edited policy is in force after the next poll.
	writeAtomic(t, names, readPolicy(t, "names_v2.rego.txt"))
	rc.waitInfo(t, "the edited policy", func(i registryapi.RegistryInfo) bool { return i.Generation == gen+1 })
	send(4)
	assert.InDelta(t, 5, policyCount(t, rc, "acme_no_test_keys"), 0, "the old rule no longer runs")
	assert.InDelta(t, 4, policyCount(t, rc, "acme_no_tmp_keys"), 0)
	assert.InDelta(t, 9, policyCount(t, rc, "acme_url_credentials"), 0)
	svc = rc.service(t, "shop")
	assert.Equal(t, int64(4), svc.Findings["acme_no_tmp_keys"].Count)
	assert.Equal(t, "improvement", svc.Findings["acme_no_tmp_keys"].Level)

	// A broken policy: the reload fails naming file:line, the last good
	// policies stay in force.
	writeAtomic(t, names, readPolicy(t, "broken/broken.rego"))
	rc.waitInfo(t, "a reload error", func(i registryapi.RegistryInfo) bool { return i.LastReloadError != nil })
	bad := rc.info(t)
	assert.Equal(t, gen+1, bad.Generation)
	assert.Contains(t, bad.LastReloadError.Error, names+":6:")
	assert.Contains(t, rc.col.Log(), names+":6:")
	send(3)
	assert.InDelta(t, 7, policyCount(t, rc, "acme_no_tmp_keys"), 0, "the last good policy still runs")
	assert.InDelta(t, 12, policyCount(t, rc, "acme_url_credentials"), 0)
	v, _ := e2e.MustScrape(t, rc.metrics).Sum("otelcol_extension_governance_registry_reload_failing", nil)
	assert.InDelta(t, 1.0, v, 0)
}

// otelcol validate rejects findings::policies that do not compile, naming
// the file and line.
func TestPoliciesValidate(t *testing.T) {
	bad := filepath.Join(e2e.RepoRoot(t), "e2e/testdata/policies/broken")
	file := filepath.Join(bad, "broken.rego")
	p := e2e.NewPipeline(t, e2e.StartSink(t))
	p.Processors = fmt.Sprintf("  governance:\n    findings:\n      policies: [%s]\n", bad)
	p.ProcessorNames = []string{"governance"}
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(p.YAML()), 0o600))
	out, err := e2e.Run(t, "validate", "--config", cfg)
	require.Error(t, err, out)
	assert.Contains(t, out, file+":6:")
}
