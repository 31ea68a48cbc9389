package policy_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/otelgov/otelcol-governance/policy"
	"github.com/otelgov/otelcol-governance/registry"
)

// adviceData is the Weaver suite's advice policies and data
// (checker/weaversuite/testdata/README.md says where each comes from).
const adviceData = suite + "/advice"

// evalAttr evaluates s on one attribute sample and returns the IDs found.
func evalAttr(t *testing.T, s *policy.Set, ix *registry.Index, key, value string) []string {
	t.Helper()
	in := policy.Input{Sample: policy.Attribute(key, pcommon.NewValueStr(value)), Attribute: ix.Lookup(key)}
	fs, err := s.Eval(context.Background(), &in)
	require.NoError(t, err)
	ids := make([]string, 0, len(fs))
	for _, f := range fs {
		ids = append(ids, f.ID)
	}
	return ids
}

// test_live_checker_loads_advice_data and
// test_live_checker_loads_advice_data_with_glob (crates/weaver_live_check/
// src/live_checker.rs): data/user.json loaded with "data/**/*.json" or
// "data/*.json" is data.user, and the policy that reads it fires; without
// the data it does not. data/admin.txt is skipped.
func TestWeaverLoadsAdviceData(t *testing.T) {
	ix := suiteRegistry(t, "comprehensive")
	for _, pattern := range []string{adviceData + "/data/**/*.json", adviceData + "/data/*.json", adviceData + "/data", adviceData + "/data/user.json"} {
		data, err := policy.ReadData(pattern)
		require.NoError(t, err, pattern)
		assert.Equal(t, []string{"user"}, keys(data), pattern)
		s := load(t, ix, policy.Options{Data: data}, adviceData+"/custom")
		assert.Equal(t, []string{"custom_advice_finding"}, evalAttr(t, s, ix, "test.custom_trigger", "val"), pattern)
		assert.Empty(t, evalAttr(t, s, ix, "test.other", "val"))
	}
	s := load(t, ix, policy.Options{}, adviceData+"/custom")
	assert.Empty(t, evalAttr(t, s, ix, "test.custom_trigger", "val"), "no data, no finding")
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// test_rego_advisor_advice_data_invalid_path: a pattern whose base does not
// exist is an error.
func TestWeaverAdviceDataInvalidPath(t *testing.T) {
	_, err := policy.ReadData("/non/existent/path/*.json")
	require.ErrorIs(t, err, policy.ErrData)
	assert.ErrorContains(t, err, "/non/existent/path")
}

// The example of "Loading Additional Rego Data" in Weaver's
// crates/weaver_live_check/README.md: --advice-data "schemas/**/*.json"
// puts schemas/user.json at data.user, and the policy reports a user.id
// that is not in data.user.allowed_ids, with the list in its context.
func TestWeaverReadmeAdviceData(t *testing.T) {
	ix, err := registry.Default()
	require.NoError(t, err)
	data, err := policy.ReadData(adviceData + "/readme/schemas/**/*.json")
	require.NoError(t, err)
	s := load(t, ix, policy.Options{Data: data}, adviceData+"/readme")
	assert.Empty(t, evalAttr(t, s, ix, "user.id", "usr_123"))
	in := policy.Input{Sample: policy.Attribute("user.id", pcommon.NewValueStr("usr_999")), Attribute: ix.Lookup("user.id")}
	fs, err := s.Eval(context.Background(), &in)
	require.NoError(t, err)
	require.Len(t, fs, 1)
	assert.Equal(t, "invalid_user_id", fs[0].ID)
	assert.JSONEq(t, `{"attribute_key":"user.id","attribute_value":"usr_999","allowed_ids":["usr_123","usr_456"]}`, fs[0].Context)
	assert.Equal(t, `User ID 'usr_999' is not in the allowed list: ["usr_123", "usr_456"]`, fs[0].Message)
}

// Weaver adds each data document to its engine one level deep (regorus
// 0.10.1's Value::merge): two files under one directory set the same
// top-level key to different objects, and a data file named like a key of
// the preprocessor's result conflicts with it.
func TestAdviceDataConflicts(t *testing.T) {
	_, err := policy.ReadData("testdata/advice/conflict/**/*.json")
	require.ErrorIs(t, err, policy.ErrDataConflict)
	require.ErrorContains(t, err, "data.x")

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "attributes_set.json"), []byte(`{"x": true}`), 0o600))
	data, err := policy.ReadData(dir)
	require.NoError(t, err)
	_, err = policy.LoadDirs(suiteRegistry(t, "comprehensive"), policy.Options{Data: data}, adviceData+"/custom")
	require.ErrorIs(t, err, policy.ErrDataConflict)
	require.ErrorContains(t, err, "data.attributes_set")

	// An entity view as advice data conflicts with the default data's
	// (empty for a v1 registry): a preprocessor supplies it
	// (TestWeaverPreprocessorFeedsPolicy).
	_, err = policy.LoadDirs(suiteRegistry(t, "comprehensive"), policy.Options{Data: map[string]any{"entities": map[string]any{"u": map[string]any{}}}}, adviceData+"/custom")
	require.ErrorIs(t, err, policy.ErrDataConflict)
}

// A data file that does not parse is named with the line and column; a
// hidden file is skipped.
func TestAdviceDataErrors(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.json"), []byte("{\n  \"a\": 1,\n  oops\n}"), 0o600))
	_, err := policy.ReadData(dir + "/*.json")
	require.ErrorIs(t, err, policy.ErrData)
	require.ErrorContains(t, err, filepath.Join(dir, "bad.json")+":3:3:")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.json"), []byte("a: [1\n"), 0o600))
	require.NoError(t, os.Rename(filepath.Join(dir, "bad.json"), filepath.Join(dir, "bad.yaml")))
	_, err = policy.ReadData(dir)
	require.ErrorIs(t, err, policy.ErrData)
	require.ErrorContains(t, err, "bad.yaml")
	require.ErrorContains(t, err, "line")

	require.NoError(t, os.Remove(filepath.Join(dir, "bad.yaml")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".hidden.json"), []byte("not json"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ok.yml"), []byte("a:\n  b: 1\n"), 0o600))
	data, err := policy.ReadData(dir)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"ok": map[string]any{"a": map[string]any{"b": 1}}}, data)
}

// Weaver's default preprocessor (defaults/jq/advice.jq, copied), run with
// gojq on the document Weaver gives a preprocessor (Document), derives the
// same sets as the data this package builds in Go (Data): the document
// holds what advice.jq reads, in Weaver's shape.
func TestWeaverDefaultPreprocessor(t *testing.T) {
	for _, ix := range []*registry.Index{defaultRegistry(t), suiteRegistry(t, "comprehensive")} {
		p, err := policy.LoadPreprocessor(weaverPolicies + "/default/advice.jq")
		require.NoError(t, err)
		got, err := p.Run(context.Background(), ix)
		require.NoError(t, err)
		want := policy.Data(ix)
		for _, k := range []string{"attributes_set", "deprecated_attributes_set", "templates_set", "namespaces_to_check_set"} {
			require.NotEmpty(t, got[k], k)
			assert.Len(t, got[k], len(want[k].(map[string]any)), k)
			assert.Equal(t, want[k], got[k], k)
		}
		assert.Equal(t, map[string]any{}, got["entities"], "a v1 registry has no entity view")
		assert.Nil(t, got["schema_url"], "a v1 registry has no schema_url (README: null for a v1 registry)")
	}
}

func newEvent(name string) plog.LogRecord {
	lr := plog.NewLogRecord()
	lr.SetEventName(name)
	return lr
}

func defaultRegistry(t *testing.T) *registry.Index {
	t.Helper()
	ix, err := registry.Default()
	require.NoError(t, err)
	return ix
}

// test_rego_policy_reads_the_entities: the entity policy
// (entity_advice/entities.rego) reads an entity definition from
// data.entities. The registry model reads semantic conventions as
// Weaver's v1 registry, whose default data has no entity view, so a jq
// preprocessor supplies it, next to advice.jq's sets: the policy reads the
// preprocessor's result.
func TestWeaverPreprocessorFeedsPolicy(t *testing.T) {
	ix, err := registry.Load(registry.Sources{OrgRegistries: []string{"testdata/entity"}})
	require.NoError(t, err)
	g := ix.EventGroup("thing.happened")
	require.NotNil(t, g)
	jq := `(.registry.registry_url // "") as $url | {schema_url: $url, entities: {($url): (.registry.groups
		| map(select(.type == "entity")) | map({key: .name, value: {type: .name, annotations: {id_prefix: "host-"},
		  identity: (.attributes | map(select(.requirement_level == "required") | {key: .name}))}}) | from_entries)}}`
	p, err := policy.CompilePreprocessor("entities.jq", jq)
	require.NoError(t, err)
	s := load(t, ix, policy.Options{Preprocessor: p}, weaverPolicies+"/entity_advice")
	for _, tt := range []struct {
		value string
		want  int
	}{{"local-1", 1}, {"host-1", 0}} {
		res := pcommon.NewResource()
		res.Attributes().PutStr("host.name", tt.value)
		lrIn := policy.Input{Sample: policy.Log(newEvent("thing.happened")), Resource: res, HasResource: true, Group: g}
		fs, err := s.Eval(context.Background(), &lrIn)
		require.NoError(t, err)
		require.Len(t, fs, tt.want, tt.value)
		if tt.want > 0 {
			assert.Equal(t, "unexpected_entity_id_prefix", fs[0].ID)
			assert.Contains(t, fs[0].Context, `"expected":"host-"`)
		}
	}
}

// A preprocessor that does not compile is named with its line and column;
// one that fails, runs too long or gives no object is an error naming the
// file.
func TestPreprocessorErrors(t *testing.T) {
	_, err := policy.CompilePreprocessor("p.jq", "{\n  a: .x |\n}")
	require.ErrorIs(t, err, policy.ErrPreprocessor)
	require.ErrorContains(t, err, "p.jq:3:1:")

	_, err = policy.CompilePreprocessor("p.jq", "semconv_attributes")
	require.ErrorIs(t, err, policy.ErrPreprocessor)
	require.ErrorContains(t, err, "p.jq: function not defined: semconv_attributes/0")

	_, err = policy.LoadPreprocessor("testdata/none.jq")
	require.ErrorIs(t, err, policy.ErrPreprocessor)

	ix := suiteRegistry(t, "comprehensive")
	for src, want := range map[string]string{
		`error("no")`:             "p.jq: error: no",
		`.semconv_attributes[]`:   "the result must be one object",
		`empty`:                   "got 0 results",
		`"x"`:                     "got a string",
		`{a: env.HOME, b: $ENV}`:  "", // no environment: an object of nulls and {}
		`input`:                   "p.jq:",
		`import "x" as x; {}`:     "p.jq:",
		`{a: last(range(1e15))}`:  "ran longer than 50ms",
		`{a: (.registry.groups)}`: "",
	} {
		p, err := policy.CompilePreprocessor("p.jq", src)
		if err != nil {
			assert.NotEmpty(t, want, src)
			require.ErrorContains(t, err, want, src)
			continue
		}
		p.Timeout = 50 * time.Millisecond
		start := time.Now()
		got, err := p.Run(context.Background(), ix)
		assert.Less(t, time.Since(start), 5*time.Second, src)
		if want == "" {
			require.NoError(t, err, src)
			if strings.Contains(src, "env") {
				assert.Equal(t, map[string]any{"a": nil, "b": map[string]any{}}, got)
			}
			continue
		}
		require.ErrorIs(t, err, policy.ErrPreprocessor, src)
		assert.ErrorContains(t, err, want, src)
	}
}
