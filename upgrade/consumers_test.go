package upgrade

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScanConsumers: a rule and a dashboard reading rpc_response_status_code
// break on v1.44.0 -> next (the collector will rename it to rpc.status_code);
// http_method, deprecated already in v1.44.0, is reported but is not this
// upgrade's breakage; a current name is no read at all. The --both form
// reads old or new; the scanned files are not written.
func TestScanConsumers(t *testing.T) {
	_, newIx, set := loadPair(t)
	dir := t.TempDir()
	for _, f := range []string{"rules.yaml", "dashboard.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o600)) //nolint:gosec // fixed test file names
	}
	before, err := os.ReadFile(filepath.Join(dir, "rules.yaml"))
	require.NoError(t, err)

	c, err := ScanConsumers(NewTouches(set), newIx, []string{dir})
	require.NoError(t, err)
	assert.Equal(t, 2, c.Files)
	type read struct {
		file, name string
		line       int
		breaks     bool
	}
	var got []read
	for _, r := range c.Reads {
		got = append(got, read{filepath.Base(r.File), r.Deprecated, r.Line, r.Breaks})
	}
	assert.ElementsMatch(t, []read{
		{"dashboard.json", "rpc.response.status_code", 8, true},
		{"rules.yaml", "rpc.response.status_code", 5, true},
		{"rules.yaml", "rpc.response.status_code", 7, true},
		{"rules.yaml", "http.method", 9, false},
	}, got)
	assert.Equal(t, 3, c.Breaking)
	for _, r := range c.Reads {
		if !r.Breaks {
			assert.Empty(t, r.Kinds)
			continue
		}
		assert.Equal(t, []string{"attribute_renamed"}, r.Kinds)
		assert.Equal(t, []string{"rpc.status_code"}, r.CurrentOTel)
		if r.Line == 5 {
			assert.Contains(t, r.Both, `or label_replace(`, "the transition form reads old or new")
			assert.Contains(t, r.Both, `rpc_status_code`)
		}
	}
	after, err := os.ReadFile(filepath.Join(dir, "rules.yaml"))
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "the impact scan writes nothing")
}
