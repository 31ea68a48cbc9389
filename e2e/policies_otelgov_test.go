//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// otelgov check --advice-policies reports both rules of
// testdata/policies/good with file locations and exits by --fail-on; a
// policy that does not compile is exit 2 naming its file and line.
func TestPoliciesOtelgovCheck(t *testing.T) {
	root := e2e.RepoRoot(t)
	good := filepath.Join(root, "e2e/testdata/policies/good")
	broken := filepath.Join(root, "e2e/testdata/policies/broken")
	rec := filepath.Join(t.TempDir(), "recorded.jsonl")
	var m ptrace.JSONMarshaler
	b, err := m.MarshalTraces(e2e.Traces("shop", 0, 3, map[string]any{ //nolint:gosec // test data: a URL with credentials is what the policy reports
		"url.full": "https://bob:secret@shop.example/cart", "acme.test_run": "42",
	}))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(rec, append(b, '\n'), 0o600))

	code, out, errOut := otelgov(t, nil, "check", "--advice-policies", good, "--allow-prefixes", "acme.", rec)
	require.Equal(t, 1, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
	assert.Regexp(t, `violation +acme_no_test_keys +3 +acme.test_run \(3\)`, out)
	assert.Regexp(t, `improvement +acme_url_credentials +3 +url.full \(3\)`, out)
	assert.Contains(t, out, "key acme.test_run at "+rec+":1")
	assert.Contains(t, out, "key url.full at "+rec+":1")

	override := []string{"check", "--advice-policies", good, "--allow-prefixes", "acme.", "--level-override", "acme_no_test_keys=information"}
	code, out, errOut = otelgov(t, nil, append(override, rec)...)
	assert.Equal(t, 0, code, "only an improvement left: --fail-on violation passes\n%s\n%s", out, errOut)
	code, _, _ = otelgov(t, nil, append(override, "--fail-on", "improvement", rec)...)
	assert.Equal(t, 1, code)

	code, _, errOut = otelgov(t, nil, "check", "--advice-policies", broken, rec)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, filepath.Join(broken, "broken.rego")+":6:")
}
