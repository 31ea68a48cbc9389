package regwrite

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/registry"
)

func model() *Model {
	return &Model{
		Attributes: []Attribute{
			{Key: "acme.tenant", Members: []Member{{ID: "a", Value: "a"}, {ID: "b", Value: "b"}}, Examples: []any{"a", "b"}},
			{Key: "acme.size", Type: "int", Examples: []any{int64(3)}},
			{Key: "acme.ratio", Type: "double", Examples: []any{0.5, 1.5}},
			{Key: "acme.tags", Type: "string[]"},
			{Key: "http_method", Type: "string", RenamedTo: "http.request.method"},
		},
		Metrics: []Metric{{Name: "acme.requests", Instrument: "counter", Unit: "{request}", Attributes: []Ref{{Key: "acme.tenant", RequirementLevel: "required"}, {Key: "acme.size"}}}},
		Spans:   []Span{{Type: "acme_checkout", Kind: "server", NameNote: "POST /checkout", Attributes: []Ref{{Key: "acme.tenant", RequirementLevel: "recommended"}}}},
		Events:  []Event{{Name: "acme.order.placed", Attributes: []Ref{{Key: "acme.ratio", RequirementLevel: "required"}}}},
	}
}

func load(dir string) (*registry.Index, error) {
	return registry.Load(registry.Sources{Embedded: true, OrgRegistries: []string{dir}})
}

func check(staged string) error {
	_, err := load(staged)
	return err
}

// TestWriteLoads: both formats load with registry.Load into the same
// definitions: types, enums, examples-free arrays, a deprecated
// attribute renamed, a metric with instrument, unit and requirement
// levels, a span and an event.
func TestWriteLoads(t *testing.T) {
	for _, f := range []Format{V2, V1} {
		t.Run(f.String(), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "acme")
			res, err := Write(dir, model(), Options{Format: f, Check: check})
			require.NoError(t, err)
			assert.Len(t, res.Added, 8)
			ix, err := load(dir)
			require.NoError(t, err)
			a := ix.Lookup("acme.tenant")
			require.NotNil(t, a)
			assert.Equal(t, []string{"a", "b"}, a.EnumStrings)
			assert.Equal(t, registry.TypeInt, ix.Lookup("acme.size").Type)
			assert.Equal(t, registry.TypeStringArray, ix.Lookup("acme.tags").Type)
			old := ix.Lookup("http_method")
			require.NotNil(t, old)
			assert.Equal(t, "http.request.method", old.Deprecation.RenamedTo)
			m := ix.MetricGroup("acme.requests")
			require.NotNil(t, m)
			assert.Equal(t, "counter", m.Metric.Instrument)
			assert.Equal(t, "{request}", m.Metric.Unit)
			levels := map[string]registry.RequirementLevel{}
			for _, ga := range m.Attrs {
				levels[ga.Key] = ga.Level
			}
			assert.Equal(t, map[string]registry.RequirementLevel{"acme.tenant": registry.RequirementRequired, "acme.size": registry.RequirementRecommended}, levels)
			require.NotNil(t, ix.EventGroup("acme.order.placed"))
			s := ix.SpanGroup("span.acme_checkout")
			require.NotNil(t, s)
			assert.Equal(t, registry.SpanKindServer, s.SpanKind)
		})
	}
}

// TestWriteIntoEmptyDir: an existing empty directory is written into.
func TestWriteIntoEmptyDir(t *testing.T) {
	dir := t.TempDir()
	res, err := Write(dir, model(), Options{Check: check})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, FileName), res.File)
	_, err = load(dir)
	require.NoError(t, err)
}

// weaverFields are the fields Weaver's v2 structs accept (all
// deny_unknown_fields at afa9700c): CommonFields (v2/mod.rs:38: brief
// and stability required), AttributeDef (v2/attribute.rs:112), Metric
// (v2/metric.rs:27), Span (v2/span.rs:65), Event (v2/event.rs:27) and
// AttributeRef (v2/attribute.rs:22).
var weaverFields = map[string][]string{
	"":           {"file_format", "attributes", "metrics", "spans", "events", "entities", "attribute_groups", "span_refinements", "metric_refinements", "event_refinements", "imports"},
	"attributes": {"key", "type", "examples", "brief", "note", "stability", "deprecated", "annotations"},
	"metrics":    {"name", "instrument", "unit", "attributes", "entity_associations", "requirement_level", "brief", "note", "stability", "deprecated", "annotations"},
	"spans":      {"type", "kind", "name", "attributes", "entity_associations", "requirement_level", "brief", "note", "stability", "deprecated", "annotations"},
	"events":     {"name", "attributes", "entity_associations", "requirement_level", "brief", "note", "stability", "deprecated", "annotations"},
	"refs":       {"ref", "brief", "examples", "requirement_level", "note", "stability", "deprecated", "annotations", "sampling_relevant"},
}

func fields(n *yaml.Node) []string {
	var out []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, n.Content[i].Value)
	}
	return out
}

// TestV2IsWeaversShape: every item has only fields Weaver's v2 model
// accepts, and the ones it requires.
func TestV2IsWeaversShape(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "acme")
	_, err := Write(dir, model(), Options{})
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	require.NoError(t, err)
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal(b, &doc))
	root := doc.Content[0]
	assert.Subset(t, weaverFields[""], fields(root))
	assert.Equal(t, "definition/2", get(root, "file_format").Value)
	for _, sec := range []string{"attributes", "metrics", "spans", "events"} {
		items := get(root, sec)
		require.NotNil(t, items, sec)
		for _, it := range items.Content {
			fs := fields(it)
			assert.Subset(t, weaverFields[sec], fs, sec)
			assert.Contains(t, fs, "brief", sec)
			assert.Contains(t, fs, "stability", sec)
			if refs := get(it, "attributes"); refs != nil {
				for _, r := range refs.Content {
					assert.Subset(t, weaverFields["refs"], fields(r))
				}
			}
		}
	}
}

// TestWriteKeepsEdits: a second write appends only what is new; what a
// person wrote (a brief, a requirement level, the order, comments, a
// stability) is kept byte for byte.
func TestWriteKeepsEdits(t *testing.T) {
	for _, f := range []Format{V2, V1} {
		t.Run(f.String(), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "acme")
			_, err := Write(dir, model(), Options{Format: f, Check: check})
			require.NoError(t, err)
			path := filepath.Join(dir, FileName)
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			edited := "# Acme's registry: reviewed by the platform team.\n" + strings.Replace(string(b), "brief: ''", "brief: The tenant the request is for. # reviewed", 1)
			edited = strings.Replace(edited, "requirement_level: required", "requirement_level: opt_in", 1)
			i := strings.Index(edited, "acme.size")
			edited = edited[:i] + strings.Replace(edited[i:], "stability: development", "stability: stable", 1)
			require.NoError(t, os.WriteFile(path, []byte(edited), 0o600)) //nolint:gosec // a path under t.TempDir()

			m := model()
			m.Attributes = append(m.Attributes, Attribute{Key: "acme.new", Type: "boolean"})
			m.Metrics[0].Attributes = append(m.Metrics[0].Attributes, Ref{Key: "acme.new", RequirementLevel: "required"})
			res, err := Write(dir, m, Options{Format: f, Check: check})
			require.NoError(t, err)
			assert.Equal(t, []string{"attribute acme.new", "ref acme.new on metric acme.requests"}, res.Added)
			assert.Len(t, res.Kept, 8)
			b, err = os.ReadFile(path)
			require.NoError(t, err)
			got := string(b)
			for _, line := range strings.Split(edited, "\n") {
				assert.Contains(t, got, line)
			}
			assert.Contains(t, got, "acme.new")
			ix, err := load(dir)
			require.NoError(t, err)
			assert.Equal(t, registry.TypeBoolean, ix.Lookup("acme.new").Type)
			assert.Equal(t, registry.StabilityStable, ix.Lookup("acme.size").Stability)
		})
	}
}

// TestWriteFailsCleanly: a failed check, a format mismatch, a name that
// cannot be an ID and a directory that is not a registry each leave
// everything as it was, with no staging directory behind.
func TestWriteFailsCleanly(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "acme")
	_, err := Write(dir, model(), Options{Check: check})
	require.NoError(t, err)
	path := filepath.Join(dir, FileName)
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	notReg := filepath.Join(parent, "src")
	require.NoError(t, os.MkdirAll(notReg, 0o750))
	require.NoError(t, os.WriteFile(filepath.Join(notReg, "README.md"), []byte("hi"), 0o600))

	more := &Model{Attributes: []Attribute{{Key: "acme.more", Type: "string"}}}
	tests := []struct {
		name string
		dir  string
		m    *Model
		o    Options
		want string
	}{
		{"check fails", dir, more, Options{Check: func(string) error { return errors.New("boom") }}, "the written registry does not load, nothing changed in " + dir + ": boom"},
		{"format mismatch", dir, more, Options{Format: V1}, "is in the v2 format, not v1"},
		{"not an ID", dir, &Model{Attributes: []Attribute{{Key: "acme..x", Type: "string"}}}, Options{}, `attribute "acme..x" cannot be a registry ID`},
		{"not a registry", notReg, more, Options{}, "not a registry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Write(tt.dir, tt.m, tt.o)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			after, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, string(before), string(after))
			entries, err := os.ReadDir(parent)
			require.NoError(t, err)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			assert.Equal(t, []string{"acme", "src"}, names)
			entries, err = os.ReadDir(dir)
			require.NoError(t, err)
			assert.Len(t, entries, 1, "no temporary file left in the registry")
			_, err = os.Stat(filepath.Join(notReg, FileName))
			assert.True(t, os.IsNotExist(err), "nothing written to a directory that is not a registry")
		})
	}
}
