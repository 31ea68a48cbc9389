package queries

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/queryfile"
	"github.com/otelgov/otelcol-governance/registry"
)

// nextDir is the unreleased semantic conventions the upgrade tests move to
// (v1.44.0 -> next-384d661: rpc.response.status_code becomes
// rpc.status_code, the older names of it move with it).
const nextDir = "../../shared/semconv/next-384d661"

var nextNames = sync.OnceValues(func() (*Names, error) {
	ix, err := registry.Load(registry.Sources{SemconvDir: nextDir})
	if err != nil {
		return nil, err
	}
	return NewNames(ix), nil
})

// windowFiles are the real-world files, this package's fixtures (a
// collector config's processor keys among them) and the upgrade package's
// consumer fixtures: name -> content.
func windowFiles(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, dir := range []string{"testdata/realworld", "testdata", "../upgrade/testdata"} {
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range entries {
			ext := strings.ToLower(filepath.Ext(e.Name()))
			if e.IsDir() || e.Name() == "EXPECTED.yaml" || (ext != ".json" && ext != ".yaml" && ext != ".yml") {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			require.NoError(t, err)
			out[strings.ReplaceAll(dir, "/", "-")+"-"+e.Name()] = b
		}
	}
	require.GreaterOrEqual(t, len(out), 27)
	return out
}

type readAt struct {
	file, name, where string
	line              int
}

// TestWindowProperty: for every read of every real-world file and upgrade
// fixture, against the embedded registry and against next-384d661:
//   - `--write --both` then `--write` gives exactly the bytes `--write`
//     gives;
//   - --both marks a read [rewritten] exactly when it wrote its window form,
//     and the form is in the written file, as a query that parses;
//   - the window form a plain scan reports is the one --both writes, and a
//     read without one says why.
func TestWindowProperty(t *testing.T) {
	next, err := nextNames()
	require.NoError(t, err)
	files := windowFiles(t)
	for _, reg := range []struct {
		name  string
		names *Names
	}{{"embedded", names(t)}, {"next-384d661", next}} {
		t.Run(reg.name, func(t *testing.T) {
			reads, windows, rewritten := 0, 0, 0
			for name, orig := range files {
				scan := func(write, both bool, content []byte) (Result, []byte) {
					s := NewScanner(reg.names)
					s.Write, s.Both = write, both
					res, out, err := s.ScanContent(name, content)
					require.NoError(t, err, name)
					return res, out
				}
				report, _ := scan(false, false, orig)
				_, direct := scan(true, false, orig)
				bres, window := scan(true, true, orig)
				_, later := scan(true, false, window)
				assert.Equal(t, string(direct), string(later), "%s: --both then --write is --write", name)

				written := map[string]bool{}
				for _, q := range queryfile.Extract(name, window).Queries {
					written[q.Text] = true
				}
				promised := map[readAt]Window{}
				for _, f := range report.Findings {
					reads++
					promised[readAt{f.File, f.Name, f.Where, f.Line}] = f.Window
					if f.Window.Form == "" {
						assert.NotEmpty(t, f.Window.Why, "%s:%d: %s: a read without a window form says why", name, f.Line, f.Name)
					} else {
						windows++
					}
				}
				changed := 0
				for _, f := range bres.Findings {
					at := readAt{f.File, f.Name, f.Where, f.Line}
					{
						assert.Equal(t, promised[at], f.Window, "%s:%d: %s: the reported window form is --both's", name, f.Line, f.Name)
					}
					assert.Equal(t, f.Window.Form != "", f.Rewritten, "%s:%d: %s: [rewritten] exactly when its window form is written (%+v)", name, f.Line, f.Name, f.Window)
					if f.Rewritten {
						rewritten++
						changed++
						assert.True(t, written[f.Window.Form], "%s:%d: %s: the window form is in the written file", name, f.Line, f.Name)
						if f.Where == "promql" {
							_, err := queryfile.ParsePromQL(f.Window.Form)
							require.NoError(t, err, "%s: %s", name, f.Window.Form)
						}
					}
				}
				if changed > 0 {
					assert.NotEqual(t, string(orig), string(window), "%s: reads marked rewritten, bytes unchanged", name)
					assert.NotEmpty(t, bres.Rewrites, name)
				}
			}
			t.Logf("%s: %d files, %d reads, %d with a window form; --both rewrote %d", reg.name, len(files), reads, windows, rewritten)
			assert.Positive(t, rewritten)
		})
	}
}

// TestTemplateRefs: the label references of alert templates ($labels.x,
// .Labels.x) and Grafana legends ({{x}}, spaces allowed), at their offsets.
func TestTemplateRefs(t *testing.T) {
	tests := []struct {
		text string
		kind queryfile.Kind
		want []labelRef
	}{
		{`{{ $labels.http_method }} on {{ .Labels.instance }}: {{ humanize $value }}`, queryfile.KindTemplate, []labelRef{{"http_method", 11}, {"instance", 40}}},
		{`{{http_method}} {{ http_route }} {{ $labels.x }}`, queryfile.KindLegend, []labelRef{{"http_method", 2}, {"http_route", 19}}}, // no $labels in Grafana
		{`RPC server (status {{rpc_grpc_status_code}})`, queryfile.KindLegend, []labelRef{{"rpc_grpc_status_code", 21}}},
		{`{{ humanize $value }} {{`, queryfile.KindLegend, nil},
		{`{{http_method}}`, queryfile.KindTemplate, nil},
		{`{{ index $labels "http.method" }} {{ index .Labels "a\"b" }}`, queryfile.KindTemplate, []labelRef{{"http.method", 18}}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got := templateRefs(tt.text, tt.kind)
			assert.Equal(t, tt.want, got)
			for _, r := range got {
				assert.Equal(t, r.name, tt.text[r.off:r.off+len(r.name)])
			}
		})
	}
}

// TestTemplateIndexLabels: an alert on UTF-8 label names reads them with
// index; --write renames them with the expression's label.
func TestTemplateIndexLabels(t *testing.T) {
	rule := `groups:
- name: g
  rules:
  - alert: A
    expr: sum by ("http.method") (rate({"http.server.request.duration_count", "http.method"="GET"}[5m])) > 0
    annotations:
      summary: '{{ index $labels "http.method" }} calls'
`
	s := NewScanner(names(t))
	s.Write = true
	res, out, err := s.ScanContent("r.yaml", []byte(rule))
	require.NoError(t, err)
	for _, f := range res.Findings {
		assert.True(t, f.Rewritten, "%+v", f)
	}
	assert.Contains(t, string(out), `summary: '{{ index $labels "http.request.method" }} calls'`)
	assert.Contains(t, string(out), `sum by ("http.request.method")`)
}

// TestWindowLabelValues: a Grafana variable's label_values() takes a
// series selector, so --both writes no (old or new) expression into it and
// says why.
func TestWindowLabelValues(t *testing.T) {
	d := `{"templating": {"list": [{"name": "m", "type": "query", "datasource": {"type": "prometheus"},
  "query": "label_values(http_server_request_duration_seconds_count{http_method=\"GET\"}, http_method)"}]}}`
	s := NewScanner(names(t))
	s.Write, s.Both = true, true
	res, out, err := s.ScanContent("d.json", []byte(d))
	require.NoError(t, err)
	assert.Equal(t, d, string(out))
	require.NotEmpty(t, res.Findings)
	for _, f := range res.Findings {
		assert.False(t, f.Rewritten)
		assert.Contains(t, f.Window.Why, "label_values() takes a series selector")
	}
}

// TestFieldTemplates: ${__field.labels.x} in a panel's display name or
// data link reads the label of the panel's one target, and is renamed with
// it; in a panel of two targets it is found but left to a person.
func TestFieldTemplates(t *testing.T) {
	d := `{"panels": [
 {"title": "one", "datasource": {"type": "prometheus"},
  "fieldConfig": {"defaults": {"displayName": "${__field.labels.http_method}",
   "links": [{"title": "calls", "url": "/d/x?var-m=${__field.labels.http_method}"}]}},
  "targets": [{"refId": "A", "expr": "sum by (http_method) (rate(http_server_request_duration_seconds_count[5m]))"}]},
 {"title": "two", "datasource": {"type": "prometheus"},
  "fieldConfig": {"defaults": {"displayName": "${__field.labels.http_method}"}},
  "targets": [{"refId": "A", "expr": "sum by (http_method) (rate(http_server_request_duration_seconds_count[5m]))"},
              {"refId": "B", "expr": "sum by (http_method) (rate(http_client_request_duration_seconds_count[5m]))"}]}]}`
	s := NewScanner(names(t))
	s.Write = true
	res, out, err := s.ScanContent("d.json", []byte(d))
	require.NoError(t, err)
	type read struct {
		where     string
		line      int
		rewritten bool
	}
	var got []read
	for _, f := range res.Findings {
		got = append(got, read{f.Where, f.Line, f.Rewritten})
	}
	assert.ElementsMatch(t, []read{
		{"field template", 3, true},
		{"field template", 4, true},
		{"promql", 5, true},
		{"field template", 7, false},
		{"promql", 8, true},
		{"promql", 9, true},
	}, got)
	assert.Contains(t, string(out), `"displayName": "${__field.labels.http_request_method}",`)
	assert.Contains(t, string(out), `var-m=${__field.labels.http_request_method}`)
}
