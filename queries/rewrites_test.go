package queries

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replay applies a file's listed rewrites, in order, to its content as it
// was read.
func replay(t *testing.T, orig []byte, file string, rewrites []Rewrite) string {
	t.Helper()
	var b strings.Builder
	last := 0
	for _, r := range rewrites {
		if r.File != file {
			continue
		}
		require.GreaterOrEqual(t, r.Offset, last, "%s: rewrites in offset order, not overlapping", file)
		require.Equal(t, r.Old, string(orig[r.Offset:r.Offset+len(r.Old)]), "%s: the old bytes are at the offset", file)
		lineStart := strings.LastIndexByte(string(orig[:r.Offset]), '\n') + 1
		require.Equal(t, strings.Count(string(orig[:r.Offset]), "\n")+1, r.Line, "%s: line of byte %d", file, r.Offset)
		require.Equal(t, r.Offset-lineStart+1, r.Column, "%s: column of byte %d", file, r.Offset)
		b.Write(orig[last:r.Offset])
		b.WriteString(r.New)
		last = r.Offset + len(r.Old)
	}
	b.Write(orig[last:])
	return b.String()
}

// grafanaDashboard is shaped like the demo's dashboards (testdata/realworld):
// a data source variable, a query variable written the way Grafana 10+
// saves it (a "definition" string and a "query" object), an older one with
// both as strings, and a panel whose compared value migrates with its label.
const grafanaDashboard = `{
  "title": "RPC",
  "panels": [
    {
      "title": "Errors",
      "type": "timeseries",
      "datasource": {"type": "prometheus", "uid": "${datasource}"},
      "targets": [
        {
          "refId": "A",
          "expr": "sum by (http_method) (rate(rpc_server_duration_count{rpc_grpc_status_code!=\"0\"}[$__rate_interval]))",
          "legendFormat": "{{http_method}}"
        }
      ]
    }
  ],
  "templating": {
    "list": [
      {"name": "datasource", "type": "datasource", "query": "prometheus"},
      {
        "name": "method",
        "type": "query",
        "datasource": {"type": "prometheus", "uid": "${datasource}"},
        "definition": "label_values(db_client_connections_usage, http_method)",
        "query": {
          "qryType": 1,
          "query": "label_values(db_client_connections_usage, http_method)",
          "refId": "PrometheusVariableQueryEditor-VariableQuery"
        },
        "refresh": 1,
        "includeAll": true
      },
      {
        "name": "pool",
        "type": "query",
        "datasource": "Prometheus",
        "definition": "label_values(db_client_connections_usage{http_method=~\"$method\"}, job)",
        "query": "label_values(db_client_connections_usage{http_method=~\"$method\"}, job)"
      }
    ]
  }
}
`

// TestGrafanaVariableDefinition: a query variable's definition, what
// Grafana's variable editor shows, is read and rewritten with its query.
func TestGrafanaVariableDefinition(t *testing.T) {
	res, dir := scanText(t, true, map[string]string{"rpc.json": grafanaDashboard})
	lines := map[int][]string{}
	for _, f := range res.Findings {
		lines[f.Line] = append(lines[f.Line], f.Name)
	}
	for _, line := range []int{24, 27, 37, 38} { // definitions and queries of both variables
		assert.ElementsMatch(t, []string{"db_client_connections_usage", "http_method"}, lines[line], "line %d", line)
	}
	b, err := os.ReadFile(filepath.Join(dir, "rpc.json"))
	require.NoError(t, err)
	out := string(b)
	assert.NotContains(t, out, "db_client_connections_usage")
	assert.Equal(t, 2, strings.Count(out, `"label_values(db_client_connection_count, http_request_method)"`), "definition and query")
	assert.Equal(t, 2, strings.Count(out, `"label_values(db_client_connection_count{http_request_method=~\"$method\"}, job)"`))
	assert.Contains(t, out, `rpc_response_status_code!=\"OK\"`)
	assert.Equal(t, out, replay(t, []byte(grafanaDashboard), filepath.Join(dir, "rpc.json"), res.Rewrites), "the listed rewrites are the written file")
}

// TestRewritesListed: a value-migrating rewrite is listed with the value it
// changed, and the listed rewrites, applied to the original, give the
// written file byte for byte; a dry run lists the same rewrites.
func TestRewritesListed(t *testing.T) {
	const rules = `groups:
- name: rpc
  rules:
  - alert: GrpcErrors
    expr: |
      sum by (http_method) (rate(rpc_server_duration_count{rpc_grpc_status_code!="0"}[5m]))
        / sum by (http_method) (rate(rpc_server_duration_count[5m])) > 0.05
    annotations:
      summary: "{{ $labels.http_method }} fails"
`
	files := map[string]string{"rules.yaml": rules, "rpc.json": grafanaDashboard}
	dry, _ := scanText(t, false, files)
	res, dir := scanText(t, true, files)
	assert.False(t, dry.Written)
	assert.True(t, res.Written)
	strip := func(rs []Rewrite) []Rewrite {
		out := make([]Rewrite, len(rs))
		for i, r := range rs {
			r.File = filepath.Base(r.File)
			out[i] = r
		}
		return out
	}
	assert.Equal(t, strip(dry.Rewrites), strip(res.Rewrites), "a dry run lists what --write does")

	path := filepath.Join(dir, "rules.yaml")
	var mine []Rewrite
	for _, r := range res.Rewrites {
		if r.File == path {
			r.File = "rules.yaml"
			mine = append(mine, r)
		}
	}
	assert.Equal(t, []Rewrite{
		{File: "rules.yaml", Line: 6, Column: 15, Offset: 77, What: "label", Name: "http_method", Old: "http_method", New: "http_request_method"},
		{File: "rules.yaml", Line: 6, Column: 60, Offset: 122, What: "label", Name: "rpc_grpc_status_code", Old: "rpc_grpc_status_code", New: "rpc_response_status_code"},
		{File: "rules.yaml", Line: 6, Column: 83, Offset: 145, What: "label value", Name: "rpc_grpc_status_code", Old: "0", New: "OK"},
		{File: "rules.yaml", Line: 7, Column: 19, Offset: 173, What: "label", Name: "http_method", Old: "http_method", New: "http_request_method"},
		{File: "rules.yaml", Line: 9, Column: 28, Offset: 275, What: "label", Name: "http_method", Old: "http_method", New: "http_request_method"},
	}, mine)
	for name, orig := range files {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.Equal(t, string(b), replay(t, []byte(orig), filepath.Join(dir, name), res.Rewrites), name)
	}

	// In memory: the same rewrites and the same content, nothing written.
	s := NewScanner(names(t))
	s.Write = true
	mem, out, err := s.ScanContent("rules.yaml", []byte(rules))
	require.NoError(t, err)
	assert.Equal(t, mine, mem.Rewrites)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(b), string(out))
}

// TestSplitCollectorConfig: a collector config split across --config files
// (receivers and processors in one, exporters and service in another) is
// read; a Helm values file is not read as a collector config, its config:
// (here a fragment with processors only) is.
func TestSplitCollectorConfig(t *testing.T) {
	res, _ := scanText(t, false, map[string]string{
		"base.yaml": `exporters:
  otlp:
    endpoint: backend:4317
service:
  pipelines:
    traces:
      receivers: [otlp]
      processors: [attributes/http, filter/health]
      exporters: [otlp]
`,
		"processors.yaml": `receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 0.0.0.0:4317
processors:
  attributes/http:
    actions:
      - key: http.method
        action: delete
  filter/health:
    error_mode: ignore
    traces:
      span:
        - attributes["http.target"] == "/healthz"
`,
		"values.yaml": `mode: deployment
image:
  repository: otel/opentelemetry-collector-k8s
service:
  type: ClusterIP
ports:
  otlp:
    enabled: true
    containerPort: 4317
config:
  processors:
    attributes/http:
      actions:
        - key: http.scheme
          action: delete
`,
	})
	assert.ElementsMatch(t, []found{
		{"processors.yaml", "http.method", "http.request.method", 9, false},
		{"processors.yaml", "http.target", "", 15, false},
		{"values.yaml", "http.scheme", "url.scheme", 14, false},
	}, findings(res))
}

// TestCompose: edits of a collapsed file are moved back onto the file as it
// was read, around the collapses; one inside a collapse is refused.
func TestCompose(t *testing.T) {
	orig := "a (x or y) b (p or q) c"
	first := []edit{{off: 2, old: "(x or y)", repl: "y"}, {off: 13, old: "(p or q)", repl: "q"}}
	mid, ok := applyEdits(orig, slices.Clone(first))
	require.True(t, ok)
	require.Equal(t, "a y b q c", mid)
	then := []edit{{off: 0, old: "a", repl: "A"}, {off: 4, old: "b", repl: "BB"}, {off: 8, old: "c", repl: "C"}}
	want, ok := applyEdits(mid, slices.Clone(then))
	require.True(t, ok)

	got, err := compose("f", slices.Clone(first), then)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 2, 11, 13, 22}, offsets(got))
	out, ok := applyEdits(orig, got)
	require.True(t, ok)
	assert.Equal(t, want, out)

	_, err = compose("f", slices.Clone(first), []edit{{off: 2, old: "y", repl: "z"}})
	require.ErrorContains(t, err, "f: internal error: edit at byte 2 inside a collapsed transition")
}

func offsets(es []edit) []int {
	var out []int
	for _, e := range es {
		out = append(out, e.off)
	}
	return out
}
