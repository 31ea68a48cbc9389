package upgrade

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScanConsumers: a rule and a dashboard reading rpc_response_status_code
// break on v1.44.0 -> next (the collector will rename it to rpc.status_code),
// in the expressions and in what names the label: the alert templates and
// the panel's legendFormat; http_method, deprecated already in v1.44.0, is
// reported but is not this upgrade's breakage; a current name is no read at
// all. Each breaking read has its window form (reads old or new) or says
// why it works as it is; the scanned files are not written.
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
		file, name, where string
		line              int
		breaks            bool
	}
	var got []read
	for _, r := range c.Reads {
		got = append(got, read{filepath.Base(r.File), r.Deprecated, r.Where, r.Line, r.Breaks})
	}
	assert.ElementsMatch(t, []read{
		{"dashboard.json", "rpc.response.status_code", "promql", 8, true},
		{"dashboard.json", "rpc.response.status_code", "legend", 8, true},
		{"rules.yaml", "rpc.response.status_code", "promql", 5, true},
		{"rules.yaml", "rpc.response.status_code", "alert template", 7, true},
		{"rules.yaml", "http.method", "promql", 9, false},
		{"rules.yaml", "rpc.response.status_code", "promql", 11, true},
		{"rules.yaml", "rpc.response.status_code", "alert template", 13, true},
	}, got)
	assert.Equal(t, 6, c.Breaking)
	assert.Equal(t, 6, c.Rewritable, "--write rewrites each: the legend and the templates follow their expressions")
	for _, r := range c.Reads {
		if !r.Breaks {
			assert.Empty(t, r.Kinds)
			continue
		}
		assert.Equal(t, []string{"attribute_renamed"}, r.Kinds)
		assert.Equal(t, []string{"rpc.status_code"}, r.CurrentOTel)
		assert.True(t, r.Window.Works, "%s:%d %s: %+v", r.File, r.Line, r.Where, r.Window)
		switch {
		case r.Where != "promql":
			assert.Empty(t, r.Both, "%s:%d: kept as it is", r.File, r.Line)
			assert.Contains(t, r.Window.Why, "keeps the old label")
		case filepath.Base(r.File) == "dashboard.json":
			// Only the grouping names the label: the selector is wrapped to
			// fill the old label from the new one where a series lacks it.
			assert.Equal(t, `sum by (rpc_response_status_code) (label_replace(label_replace(label_replace(label_join(rate(rpc_server_call_duration_seconds_count[5m]), `+
				`"__otelgov_window", ";", "rpc_response_status_code", "rpc_status_code"), "rpc_response_status_code", "$1", "__otelgov_window", ";(.+)"), `+
				`"__otelgov_window", "", "__otelgov_window", ".*"), "rpc_status_code", "", "rpc_status_code", ".*"))`, r.Both)
		default:
			assert.Contains(t, r.Both, `or label_replace(`, "the transition form reads old or new")
			assert.Contains(t, r.Both, `rpc_status_code`)
		}
	}
	after, err := os.ReadFile(filepath.Join(dir, "rules.yaml"))
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "the impact scan writes nothing")
}

// TestStatusSeesLegends: a panel folded by hand to rpc_status_code whose
// legend still names rpc_response_status_code is a read of the old name:
// status is "not yet" and names the legend's line.
func TestStatusSeesLegends(t *testing.T) {
	_, newIx, set := loadPair(t)
	dir := t.TempDir()
	const d = `{"panels": [{"title": "calls", "datasource": {"type": "prometheus"}, "targets": [
  {"refId": "A", "expr": "sum by (rpc_status_code) (rate(rpc_server_call_duration_seconds_count[5m]))",
   "legendFormat": "{{rpc_response_status_code}}"}]}]}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "d.json"), []byte(d), 0o600))
	c, err := ScanConsumers(NewTouches(set), newIx, []string{dir})
	require.NoError(t, err)
	require.Len(t, c.Reads, 1)
	r := c.Reads[0]
	assert.True(t, r.Breaks)
	assert.Equal(t, "legend", r.Where)
	assert.False(t, r.Rewritable, "the expression does not read the label: rewrite both by hand")
	st := Evaluate(&Fleet{Traffic: Traffic{Services: []string{"a"}}, Covered: true}, c, time.Hour)
	assert.False(t, st.Done)
	assert.Contains(t, st.Reasons, filepath.Join(dir, "d.json")+":3: legend reads the old name rpc_response_status_code")
}
