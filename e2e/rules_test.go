//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/checker"
	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// advice collects the findings (objects with an id, a level and a
// signal_type) anywhere in decoded Weaver report documents.
func advice(v any, out *[]map[string]any) {
	switch x := v.(type) {
	case map[string]any:
		_, id := x["id"]
		_, lv := x["level"]
		_, st := x["signal_type"]
		if id && lv && st {
			*out = append(*out, x)
			return
		}
		for _, c := range x {
			advice(c, out)
		}
	case []any:
		for _, c := range x {
			advice(c, out)
		}
	}
}

// weaverDocs decodes a stream of Weaver report documents.
func weaverDocs(t *testing.T, s string) []any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	var docs []any
	for dec.More() {
		var d any
		require.NoError(t, dec.Decode(&d))
		docs = append(docs, d)
	}
	return docs
}

// countAdvice counts the findings of id, by signal type.
func countAdvice(docs []any, id string) map[string]int {
	var all []map[string]any
	for _, d := range docs {
		advice(d, &all)
	}
	n := map[string]int{}
	for _, f := range all {
		if f["id"] == id {
			st, _ := f["signal_type"].(string)
			n[st]++
		}
	}
	return n
}

// TestOtelgovCheckWeaverTomlScopedFilter: a .weaver.toml's finding_filters
// scoped by signal_type apply in otelgov check's every format: the
// deprecated findings of spans are gone from the text, JSON and Weaver
// reports, those of metrics and logs stay, and a scoped override moves a
// level in the text report.
func TestOtelgovCheckWeaverTomlScopedFilter(t *testing.T) {
	code, out, errOut := otelgov(t, nil, "check", "--format", "weaver", recordedDeprecated)
	require.Equal(t, 1, code, errOut)
	base := countAdvice(weaverDocs(t, out), "deprecated")
	require.Positive(t, base["span"], "the recording has deprecated span attributes")
	require.Positive(t, base["metric"]+base["log"], "and deprecated metric or log attributes")

	cfg := filepath.Join(t.TempDir(), "weaver.toml")
	require.NoError(t, os.WriteFile(cfg, []byte(`["live-check"]
[["live-check".finding_filters]]
signal_type = "span"
exclude = ["deprecated"]

[["live-check".finding_level_overrides]]
ids = ["not_stable"]
level = "violation"
signal_type = "metric"
`), 0o600))

	// Weaver's report.
	code, out, errOut = otelgov(t, nil, "check", "--config", cfg, "--format", "weaver", recordedDeprecated)
	require.Equal(t, 1, code, errOut)
	docs := weaverDocs(t, out)
	got := countAdvice(docs, "deprecated")
	assert.Zero(t, got["span"], "filtered")
	assert.Equal(t, base["metric"], got["metric"])
	assert.Equal(t, base["log"], got["log"])
	var notStable []map[string]any
	for _, d := range docs {
		advice(d, &notStable)
	}
	for _, f := range notStable {
		if f["id"] == "not_stable" && f["signal_type"] == "metric" {
			assert.Equal(t, "violation", f["level"], "the scoped override")
		}
	}

	// The aggregate: JSON and text.
	code, out, errOut = otelgov(t, nil, "check", "--config", cfg, "--format", "json", recordedDeprecated)
	require.Equal(t, 1, code, errOut)
	var doc checker.JSONResult
	require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
	var total int64
	for _, s := range doc.Services {
		total += s.Findings["deprecated"].Count
	}
	assert.Equal(t, int64(base["metric"]+base["log"]+base["resource"]), total, "the aggregate counts what Weaver's report holds")
	for _, byID := range doc.Examples {
		for _, ex := range byID["deprecated"] {
			assert.NotEqual(t, "span", ex.SignalType)
		}
	}
	code, out, errOut = otelgov(t, nil, "check", "--config", cfg, recordedDeprecated)
	require.Equal(t, 1, code, errOut)
	block := out[strings.Index(out, "  violation    deprecated"):]
	block = block[:strings.Index(block, "  violation    not_stable")]
	assert.Regexp(t, `deprecated +`+strconv.FormatInt(total, 10)+` `, block, "the text report counts the same")
	assert.NotContains(t, block, "traces span", "no span example of the filtered finding")
	assert.Contains(t, block, "e.g. metrics metric")

	// A bad scope is exit 2 naming the file, key and entry.
	require.NoError(t, os.WriteFile(cfg, []byte("[[\"live-check\".finding_filters]]\nsignal_type = \"trace\"\n"), 0o600))
	code, _, errOut = otelgov(t, nil, "check", "--config", cfg, recordedDeprecated)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, cfg)
	assert.Contains(t, errOut, `finding_filters[0].signal_type: unknown signal type "trace"`)
}

// TestOtelgovListenWeaverFormat: check --listen --format weaver streams
// Weaver's documents for what an SDK sends, with the statistics last, and
// /stop answers with the statistics; a .weaver.toml's filter applies.
func TestOtelgovListenWeaverFormat(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "weaver.toml")
	require.NoError(t, os.WriteFile(cfg, []byte("[[\"live-check\".finding_filters]]\nexclude = [\"not_stable\"]\n"), 0o600))
	l := startListen(t, "--format", "weaver", "--config", cfg)
	c, err := e2e.NewClient(l.grpc, l.http)
	require.NoError(t, err)
	defer c.Close()
	ctx := context.Background()
	require.NoError(t, c.SendTraces(ctx, e2e.GRPC, e2e.Traces("svc", 0, 2, map[string]any{"http.method": "GET"})))
	require.NoError(t, c.SendLogs(ctx, e2e.HTTP, e2e.Logs("svc", 0, 1, map[string]any{"http.request.method": "GET"})))

	resp, err := http.Post("http://"+l.http+"/stop", "", nil)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, resp.Body.Close())
	require.NoError(t, err)
	assert.Equal(t, "1", resp.Header.Get("X-Otelgov-Exit"))
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var stats checker.WeaverStatistics
	require.NoError(t, json.Unmarshal(body, &stats), string(body))
	assert.Positive(t, stats.TotalAdvisories)
	assert.Positive(t, stats.AdviceTypeCounts["deprecated"])
	assert.Zero(t, stats.AdviceTypeCounts["not_stable"], "filtered by the .weaver.toml")

	assert.Equal(t, 1, l.wait(t), "stderr:\n%s", l.stderr)
	docs := weaverDocs(t, l.stdout.String())
	require.GreaterOrEqual(t, len(docs), 4, "resource, scope, span and log samples, then the statistics")
	last, ok := docs[len(docs)-1].(map[string]any)
	require.True(t, ok)
	assert.Contains(t, last, "total_advisories", "the statistics come last")
	spans, logs := 0, 0
	for _, d := range docs[:len(docs)-1] {
		m, _ := d.(map[string]any)
		if _, ok := m["span"]; ok {
			spans++
		}
		if _, ok := m["log"]; ok {
			logs++
		}
	}
	assert.Equal(t, 2, spans)
	assert.Equal(t, 1, logs)
	assert.Equal(t, 2, countAdvice(docs, "deprecated")["span"], "http.method on both spans")
	assert.Empty(t, countAdvice(docs, "not_stable"))
	assert.False(t, bytes.Contains(l.stderr.Bytes(), []byte("not supported")), l.stderr.String())
}
