package queries

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/registry"
)

func names(t *testing.T) *Names {
	t.Helper()
	ix, err := registry.Default()
	require.NoError(t, err)
	return NewNames(ix)
}

func TestNames(t *testing.T) {
	n := names(t)
	assert.Equal(t, "http_method", PromLabel("http.method"))
	assert.Equal(t, "key_3com", PromLabel("3com"))
	assert.Equal(t, "http_server_duration", PromMetricBase("http.server.duration"))

	r := n.Attribute("http.method")
	require.NotNil(t, r)
	assert.True(t, r.Rewritable)
	assert.Equal(t, "http.request.method", r.New)
	_, ok := n.Label("http_method", nil)
	assert.True(t, ok)
	_, ok = n.Label("http_request_method", nil)
	assert.False(t, ok, "a current key is no finding")
	_, ok = n.Label("job", nil)
	assert.False(t, ok)

	net := n.Attribute("net.peer.name")
	require.NotNil(t, net)
	assert.False(t, net.Rewritable, "the current name depends on the span kind")

	rs, cur, ok := n.SeriesRename("http_server_duration_milliseconds_bucket")
	require.True(t, ok)
	assert.Equal(t, "http.server.duration", rs.Old)
	assert.Equal(t, "http_server_request_duration_seconds_bucket", cur)
	_, _, ok = n.SeriesRename("http_server_request_duration_seconds_bucket")
	assert.False(t, ok)
	rs, cur, ok = n.SeriesRename("db_client_connections_usage")
	require.True(t, ok)
	assert.True(t, rs.Rewritable)
	assert.Equal(t, "db_client_connection_count", cur)
	// issue 18 point 9: a name ending in .count is no histogram's _count.
	_, cur, ok = n.SeriesRename("process_runtime_jvm_threads_count")
	require.True(t, ok)
	assert.Equal(t, "jvm_thread_count", cur)
}

func TestScanPromQL(t *testing.T) {
	n := names(t)
	tests := []struct {
		name    string
		expr    string
		want    map[string]string // written -> replacement ("" = reported, not rewritable)
		rewrite string            // the expression after applying the rewrites
	}{
		{
			name:    "matcher and grouping",
			expr:    `sum by (http_method) (rate(x{http_status_code="500"}[5m]))`,
			want:    map[string]string{"http_method": "http_request_method", "http_status_code": "http_response_status_code"},
			rewrite: `sum by (http_request_method) (rate(x{http_response_status_code="500"}[5m]))`,
		},
		{
			name:    "same name as a value: only the name is rewritten",
			expr:    `sum by (http_method) (x{job="http_method"})`,
			want:    map[string]string{"http_method": "http_request_method"},
			rewrite: `sum by (http_request_method) (x{job="http_method"})`,
		},
		{
			name:    "label_replace and on()",
			expr:    `label_replace(a, "m", "$1", "http_method", "(.*)") * on (http_method) group_left b`,
			want:    map[string]string{"http_method": "http_request_method"},
			rewrite: `label_replace(a, "m", "$1", "http_request_method", "(.*)") * on (http_request_method) group_left b`,
		},
		{
			name: "metric with a unit change",
			expr: `histogram_quantile(0.99, sum by (le) (rate(http_server_duration_milliseconds_bucket[$__rate_interval])))`,
			want: map[string]string{"http_server_duration_milliseconds_bucket": ""},
		},
		{
			name:    "renamed metric, same unit",
			expr:    `max(db_client_connections_usage{state="used"}) # pool`,
			want:    map[string]string{"db_client_connections_usage": "db_client_connection_count", "state": "db_client_connection_state"},
			rewrite: `max(db_client_connection_count{db_client_connection_state="used"}) # pool`,
		},
		{
			name: "UTF-8 label name in OTel form",
			expr: `sum by ("http.method") ({__name__="x", "http.method"="GET"})`,
			want: map[string]string{"http.method": "http.request.method"},
		},
		{
			name: "context-dependent rename",
			expr: `count by (net_peer_name) (x)`,
			want: map[string]string{"net_peer_name": ""},
		},
		{name: "clean", expr: `sum by (http_request_method) (rate(http_server_request_duration_seconds_count[5m]))`, want: map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := scanPromQL(tt.expr, n)
			require.NoError(t, err)
			got := map[string]string{}
			for _, h := range hits {
				got[h.written] = h.replacement
				assert.GreaterOrEqual(t, h.first, 0)
			}
			assert.Equal(t, tt.want, got)
			if tt.rewrite != "" {
				var edits []edit
				for _, h := range hits {
					edits = append(edits, h.edits...)
				}
				out, ok := applyEdits(tt.expr, edits)
				require.True(t, ok)
				assert.Equal(t, tt.rewrite, out)
			}
		})
	}
	_, err := scanPromQL(`sum(`, n)
	assert.Error(t, err)
}

func TestScanOTTL(t *testing.T) {
	n := names(t)
	hits := scanOTTL(`set(attributes["http.route"], "x") where resource.attributes["http.method"] == "GET"`, n)
	require.Len(t, hits, 1)
	assert.Equal(t, "http.request.method", hits[0].replacement)

	hits = scanOTTL(`delete_key(attributes, "http.method")`, n)
	require.Len(t, hits, 1)
	assert.Empty(t, hits[0].replacement, "a function argument is reported only")

	hits = scanOTTL(`set(attributes["http.method"], "http.method")`, n)
	require.Len(t, hits, 1)
	assert.Empty(t, hits[0].replacement, "key and value spelled the same: rewrite neither")

	assert.Empty(t, scanOTTL(`set(attributes["unterminated)`, n))
}

func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dst, e.Name()), b, 0o600)) //nolint:gosec // a path under t.TempDir()
	}
	return dst
}

func TestScanFilesAndWrite(t *testing.T) {
	dir := copyDir(t, "../e2e/testdata/otelgov/queries")
	b, err := os.ReadFile("testdata/dashboards-configmap.yaml")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cm.yaml"), b, 0o600)) //nolint:gosec // a path under t.TempDir()
	before := map[string]string{}
	for _, f := range []string{"checkout-rules.yaml", "checkout-dashboard.json", "collector.yaml", "cm.yaml"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		before[f] = string(b)
	}

	s := NewScanner(names(t))
	res, err := s.ScanPaths([]string{dir})
	require.NoError(t, err)
	assert.Equal(t, 4, res.Files)
	assert.Empty(t, res.Notes)
	type key struct {
		file string
		line int
		name string
	}
	got := map[key]string{}
	for _, f := range res.Findings {
		got[key{filepath.Base(f.File), f.Line, f.Name}] = f.Current
	}
	assert.Equal(t, map[key]string{
		{"checkout-rules.yaml", 15, "http_method"}:                                  "http_request_method",
		{"checkout-rules.yaml", 22, "http_method"}:                                  "http_request_method",
		{"checkout-rules.yaml", 24, "http_method"}:                                  "http_request_method",
		{"checkout-dashboard.json", 13, "http_server_duration_milliseconds_bucket"}: "http_server_request_duration_seconds_bucket",
		{"checkout-dashboard.json", 13, "http_status_code"}:                         "http_response_status_code",
		{"collector.yaml", 19, "http.method"}:                                       "http.request.method",
		{"collector.yaml", 22, "http.status_code"}:                                  "http.response.status_code",
		{"collector.yaml", 25, "http.method"}:                                       "http.request.method",
		{"cm.yaml", 12, "http_method"}:                                              "http_request_method",
	}, got)

	s.Write = true
	_, err = s.ScanPaths([]string{dir})
	require.NoError(t, err)
	for f, old := range before {
		b, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		want := old
		switch f {
		case "checkout-rules.yaml", "cm.yaml":
			want = strings.NewReplacer("(http_method", "(http_request_method", ".http_method ", ".http_request_method ").Replace(old)
		case "checkout-dashboard.json":
			want = strings.ReplaceAll(old, "http_status_code", "http_response_status_code")
		case "collector.yaml":
			want = strings.ReplaceAll(old, `attributes["http.method"]`, `attributes["http.request.method"]`)
		}
		assert.Equal(t, want, string(b), "%s: only the names change, comments survive", f)
	}
	res, err = s.ScanPaths([]string{dir})
	require.NoError(t, err)
	for _, f := range res.Findings {
		assert.False(t, f.Rewritable, "nothing rewritable is left: %+v", f)
	}
}

func TestDistributionIsClean(t *testing.T) {
	res, err := NewScanner(names(t)).ScanPaths([]string{"../distribution/k8s"})
	require.NoError(t, err)
	assert.Positive(t, res.Files)
	assert.Empty(t, res.Findings)
	assert.Empty(t, res.Notes)
}

func TestScanEmbeddedCollectorAndPlainRules(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"v1alpha1-collector.yaml", "rules.yaml"} {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o600)) //nolint:gosec // a path under t.TempDir()
	}
	s := NewScanner(names(t))
	s.Write = true
	res, err := s.ScanPaths([]string{dir})
	require.NoError(t, err)
	require.Empty(t, res.Notes)
	type key struct {
		file, where, name string
		line              int
		rewritten         bool
	}
	var got []key
	for _, f := range res.Findings {
		got = append(got, key{filepath.Base(f.File), f.Where, f.Name, f.Line, f.Rewritten})
	}
	assert.ElementsMatch(t, []key{
		{"rules.yaml", "promql", "http_scheme", 5, true},
		{"v1alpha1-collector.yaml", "ottl", "http.target", 13, false},
		{"v1alpha1-collector.yaml", "filter processor key", "http.scheme", 19, false},
	}, got)
	b, err := os.ReadFile(filepath.Join(dir, "rules.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(b), `{url_scheme="https"}[5m]))) > 1 # p90`)
}
