package registry

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeFiles creates files (name -> content) under a new temp dir.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o750))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	}
	return dir
}

const goodAttr = `groups:
  - id: registry.x
    type: attribute_group
    attributes:
      - id: x.a
        type: string
        stability: development
`

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		rules map[string]string // rules files, loaded after the org registry
		embed bool
		want  []string // substrings of the error
	}{
		{
			name:  "malformed yaml",
			files: map[string]string{"a.yaml": "groups:\n  - id: x\n    attributes: [\n"},
			want:  []string{"a.yaml", "line"},
		},
		{
			name: "unknown attribute type",
			files: map[string]string{"a.yaml": `groups:
  - id: registry.x
    type: attribute_group
    attributes:
      - id: x.a
        type: strnig
`},
			want: []string{"a.yaml:6: x.a: unknown attribute type \"strnig\""},
		},
		{
			name: "unknown template type",
			files: map[string]string{"a.yaml": `file_format: definition/2
attributes:
  - key: x.a
    type: template[map]
`},
			want: []string{"a.yaml:4: x.a: unknown attribute type \"template[map]\""},
		},
		{
			name: "attribute without type",
			files: map[string]string{"a.yaml": `file_format: definition/2
attributes:
  - key: x.a
    stability: stable
`},
			want: []string{"a.yaml:3: x.a: attribute without type"},
		},
		{
			name: "unknown deprecation reason",
			files: map[string]string{"a.yaml": goodAttr + `      - id: x.b
        type: string
        deprecated:
          reason: retired
`},
			want: []string{"a.yaml:11: deprecated.reason: unknown deprecation reason \"retired\""},
		},
		{
			name: "renamed without renamed_to",
			files: map[string]string{"a.yaml": goodAttr + `      - id: x.b
        type: string
        deprecated:
          reason: renamed
`},
			want: []string{"a.yaml:11: deprecated.renamed_to: reason renamed without renamed_to"},
		},
		{
			name: "renamed_to unknown key",
			files: map[string]string{"a.yaml": goodAttr + `      - id: x.b
        type: string
        deprecated:
          reason: renamed
          renamed_to: x.nope
`},
			want: []string{"a.yaml:8", `attribute "x.b": renamed_to "x.nope" is not a known attribute`},
		},
		{
			name: "template renamed to a non-template",
			files: map[string]string{"a.yaml": goodAttr + `      - id: x.t
        type: template[string]
        deprecated: {reason: renamed, renamed_to: x.a}
`},
			want: []string{"a.yaml:8", `attribute "x.t": renamed_to "x.a": a template and a non-template cannot rename to each other`},
		},
		{
			name: "rename cycle",
			files: map[string]string{"a.yaml": `groups:
  - id: registry.x
    type: attribute_group
    attributes:
      - id: x.a
        type: string
        deprecated: {reason: renamed, renamed_to: x.b}
      - id: x.b
        type: string
        deprecated: {reason: renamed, renamed_to: x.c}
      - id: x.c
        type: string
        deprecated: {reason: renamed, renamed_to: x.a}
`},
			want: []string{"rename cycle: x.a -(", "a.yaml:5)-> x.b -(", "a.yaml:8)-> x.c -(", "a.yaml:11)-> x.a"},
		},
		{
			name: "rename cycle through a rule",
			files: map[string]string{"a.yaml": goodAttr + `      - id: x.b
        type: string
        deprecated: {reason: renamed, renamed_to: x.a}
`},
			rules: map[string]string{"r.yaml": `file_format: otelgov.rules/1
rules:
  - key: x.a
    renames:
      - to: x.b
        locations: [log]
`},
			want: []string{"rename cycle: x.a -(", "r.yaml:5)-> x.b -(", "a.yaml:8)-> x.a"},
		},
		{
			name: "duplicate key across files",
			files: map[string]string{
				"a.yaml": goodAttr,
				"b.yaml": "file_format: definition/2\nattributes:\n  - key: x.a\n    type: string\n    stability: development\n",
			},
			want: []string{`attribute "x.a" defined twice`, "a.yaml:5", "b.yaml:3"},
		},
		{
			name: "conflict with semconv",
			files: map[string]string{"a.yaml": `file_format: definition/2
attributes:
  - key: http.request.method
    type: int
`},
			embed: true,
			want:  []string{`attribute "http.request.method" has conflicting definitions`, "embedded:model/http/registry.yaml:", "a.yaml:3"},
		},
		{
			name:  "unknown ref",
			files: map[string]string{"a.yaml": goodAttr + "  - id: span.x\n    type: span\n    attributes:\n      - ref: x.zzz\n"},
			want:  []string{"a.yaml:11", `ref "x.zzz" is not a known attribute`},
		},
		{
			name:  "enum mixing strings and ints",
			files: map[string]string{"a.yaml": "file_format: definition/2\nattributes:\n  - key: x.e\n    type: enum\n    members:\n      - {id: a, value: a}\n      - {id: b, value: 2}\n"},
			want:  []string{"a.yaml:6: x.e: enum mixes string and int member values"},
		},
		{
			name:  "top level not a mapping",
			files: map[string]string{"a.yaml": "- 1\n- 2\n"},
			want:  []string{"a.yaml:1: top level must be a mapping"},
		},
		{
			name:  "groups not a list",
			files: map[string]string{"a.yaml": "groups:\n  id: x\n"},
			want:  []string{"a.yaml:2: groups: must be a sequence"},
		},
		{
			name:  "rule target unknown",
			files: map[string]string{"a.yaml": goodAttr},
			rules: map[string]string{"r.yaml": "file_format: otelgov.rules/1\nrules:\n  - key: x.old\n    renames:\n      - to: x.missing\n"},
			want:  []string{"r.yaml:5", `target "x.missing" is not a known attribute`},
		},
		{
			name:  "rule unknown field",
			files: map[string]string{"a.yaml": goodAttr},
			rules: map[string]string{"r.yaml": "file_format: otelgov.rules/1\nrules:\n  - key: x.old\n    renames:\n      - to: x.a\n        span_kind: [client]\n"},
			want:  []string{"r.yaml:6: span_kind: unknown field"},
		},
		{
			name:  "rule unknown span kind",
			files: map[string]string{"a.yaml": goodAttr},
			rules: map[string]string{"r.yaml": "file_format: otelgov.rules/1\nrules:\n  - key: x.old\n    renames:\n      - to: x.a\n        span_kinds: [clinet]\n"},
			want:  []string{"r.yaml:6: span_kinds: unknown span kind \"clinet\""},
		},
		{
			name:  "rules file format",
			files: map[string]string{"a.yaml": goodAttr},
			rules: map[string]string{"r.yaml": "rules: []\n"},
			want:  []string{"r.yaml:1: file_format: want \"otelgov.rules/2\" or \"otelgov.rules/1\""},
		},
		{
			name:  "metrics scope outside data points",
			files: map[string]string{"a.yaml": goodAttr},
			rules: map[string]string{"r.yaml": "file_format: otelgov.rules/1\nrules:\n  - key: x.old\n    renames:\n      - to: x.a\n        locations: [span]\n        metrics: [m]\n"},
			want:  []string{"r.yaml:5: metrics: metrics scope requires locations [data_point], got span"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, tt.files)
			src := Sources{Embedded: tt.embed, OrgRegistries: []string{dir}}
			if tt.rules != nil {
				rdir := writeFiles(t, tt.rules)
				for name := range tt.rules {
					src.RulesFiles = append(src.RulesFiles, filepath.Join(rdir, name))
				}
			}
			ix, err := Load(src)
			require.Error(t, err)
			assert.Nil(t, ix, "never a half-loaded index")
			require.ErrorIs(t, err, ErrInvalid)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestLoadSources(t *testing.T) {
	_, err := Load(Sources{})
	require.ErrorIs(t, err, ErrSources)
	_, err = Load(Sources{Embedded: true, SemconvDir: "x"})
	require.ErrorIs(t, err, ErrSources)
	_, err = Load(Sources{SemconvDir: t.TempDir()})
	require.ErrorIs(t, err, ErrNotRegistry)
	_, err = Load(Sources{Embedded: true, OrgRegistries: []string{filepath.Join(t.TempDir(), "missing")}})
	require.ErrorIs(t, err, os.ErrNotExist)
	_, err = Load(Sources{Embedded: true, RulesFiles: []string{filepath.Join(t.TempDir(), "missing.yaml")}})
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestIdenticalRedefinitionIsNotAConflict(t *testing.T) {
	// An org registry may repeat a semconv definition verbatim (e.g. a
	// vendored copy as a local dependency).
	dir := writeFiles(t, map[string]string{"a.yaml": `file_format: definition/2
attributes:
  - key: server.port
    stability: stable
    type: int
`})
	ix, err := Load(Sources{Embedded: true, OrgRegistries: []string{dir}})
	require.NoError(t, err)
	assert.Empty(t, ix.Lookup("server.port").Source, "first definition (embedded) is kept")
}

// TestSchemaFile loads a small semconv checkout with a schema file to cover
// sections, apply_to_* scoping, precedence and disagreements.
func TestSchemaFile(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"model/manifest.yaml": "schema_url: https://example.com/schemas/2.0.0\n",
		"model/r.yaml": `groups:
  - id: registry.t
    type: attribute_group
    attributes:
      - id: t.new
        type: string
      - id: t.other
        type: string
      - id: t.old
        type: string
        deprecated: {reason: renamed, renamed_to: t.new}
      - id: t.gone
        type: string
        deprecated: {reason: obsoleted}
  - id: metric.t
    type: metric
    metric_name: t.count
    instrument: counter
    unit: "1"
`,
		"schemas/1.0.0": "file_format: 1.1.0\nversions:\n  1.0.0:\n",
		"schemas/2.0.0": `file_format: 1.1.0
schema_url: https://example.com/schemas/2.0.0
versions:
  2.0.0:
    spans:
      changes:
        - rename_attributes:
            attribute_map:
              t.old: t.other
              t.gone: t.other
              t.span_only: t.new
            apply_to_spans: [GET /]
    span_events:
      changes:
        - rename_attributes:
            attribute_map:
              t.event_only: t.new
    resources:
      changes:
        - rename_attributes:
            attribute_map:
              t.res: t.new
    logs:
      changes:
        - rename_attributes:
            attribute_map:
              t.log: t.new
    metrics:
      changes:
        - rename_attributes:
            attribute_map:
              kind: t.other
            apply_to_metrics: [t.legacy.count]
        - rename_metrics:
            t.legacy.count: t.count
  1.0.0:
    all:
      changes:
        - rename_attributes:
            attribute_map:
              t.ancient: t.old
`,
	})
	ix, err := Load(Sources{SemconvDir: dir, SkipShippedRules: true})
	require.NoError(t, err)
	assert.Equal(t, "https://example.com/schemas/2.0.0", ix.SchemaURL())

	span := Context{Location: LocationSpan, SpanName: "GET /"}
	// Registry wins over the schema file.
	assert.Equal(t, "t.new", targetKey(ix.Lookup("t.old"), span))
	assert.Nil(t, ix.Lookup("t.gone").Target(span))
	// apply_to_spans needs the span name.
	assert.Equal(t, "t.new", targetKey(ix.Lookup("t.span_only"), span))
	assert.Equal(t, "t.new", targetKey(ix.Lookup("t.span_only"), Context{Location: LocationSpanLink, SpanName: "GET /"}))
	assert.Empty(t, targetKey(ix.Lookup("t.span_only"), Context{Location: LocationSpan, SpanName: "POST /"}))
	assert.Empty(t, targetKey(ix.Lookup("t.span_only"), Context{Location: LocationSpanEvent, SpanName: "GET /"}))
	assert.Equal(t, "t.new", targetKey(ix.Lookup("t.event_only"), Context{Location: LocationSpanEvent}))
	assert.Empty(t, targetKey(ix.Lookup("t.event_only"), Context{Location: LocationSpan}))
	assert.Equal(t, "t.new", targetKey(ix.Lookup("t.res"), Context{Location: LocationResource}))
	assert.Empty(t, targetKey(ix.Lookup("t.res"), Context{Location: LocationLog}))
	assert.Equal(t, "t.new", targetKey(ix.Lookup("t.log"), Context{Location: LocationLog}))
	// Chain through the registry: t.ancient -> t.old -> t.new, everywhere.
	assert.Equal(t, "t.new", targetKey(ix.Lookup("t.ancient"), Context{Location: LocationScope}))
	// apply_to_metrics matches the old and the current metric name.
	kind := ix.Lookup("kind")
	require.NotNil(t, kind)
	assert.True(t, kind.Placeholder)
	assert.Equal(t, "t.other", targetKey(kind, Context{Location: LocationDataPoint, MetricName: "t.legacy.count"}))
	assert.Equal(t, "t.other", targetKey(kind, Context{Location: LocationDataPoint, MetricName: "t.count"}))
	assert.Empty(t, targetKey(kind, Context{Location: LocationDataPoint, MetricName: "x"}))
	m := ix.Metric("t.legacy.count")
	require.NotNil(t, m)
	assert.True(t, m.Placeholder)
	assert.Equal(t, "t.count", m.RenamedTo)

	assert.ElementsMatch(t, []string{"t.ancient", "t.event_only", "t.log", "t.old", "t.res", "t.span_only"}, ix.Sources("t.new"))
	ds := ix.Disagreements()
	require.Len(t, ds, 2)
	assert.Equal(t, "t.gone", ds[0].Key)
	assert.Equal(t, "not_renamed", ds[0].Kind)
	assert.Equal(t, "schemas/2.0.0:10", ds[0].Where)
	assert.Equal(t, "t.old", ds[1].Key)
	assert.Equal(t, "target", ds[1].Kind)
	assert.Equal(t, "registry wins: renamed to t.new", ds[1].Resolution)
	assert.Equal(t, 2, ix.Stats().Disagreements)
}

func TestSchemaFileErrors(t *testing.T) {
	for name, tt := range map[string]struct{ schema, want string }{
		"format":        {"file_format: 2.0.0\nversions: {}\n", "file_format: unsupported schema file_format \"2.0.0\""},
		"section":       {"file_format: 1.1.0\nversions:\n  1.0.0:\n    traces: {}\n", "1.0.0:4: versions.1.0.0: unknown schema section \"traces\""},
		"version":       {"file_format: 1.1.0\nversions:\n  one: {}\n", "1.0.0:3: versions: bad version \"one\""},
		"apply_to":      {"file_format: 1.1.0\nversions:\n  1.0.0:\n    all:\n      changes:\n        - rename_attributes:\n            attribute_map: {a: b}\n            apply_to_metrics: [m]\n", "apply_to_metrics: only valid in the metrics section"},
		"rename target": {"file_format: 1.1.0\nversions:\n  1.0.0:\n    all:\n      changes:\n        - rename_attributes:\n            attribute_map: {a: [b]}\n", "1.0.0:7: a: must be a scalar"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"model/r.yaml": goodAttr, "schemas/1.0.0": tt.schema})
			_, err := Load(Sources{SemconvDir: dir, SkipShippedRules: true})
			require.ErrorIs(t, err, ErrInvalid)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
