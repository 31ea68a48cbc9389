package findingrules

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/vocab"
)

// The cases of Weaver's finding modifier tests
// (crates/weaver_live_check/src/finding_modifier.rs at afa9700c), on the
// same findings and samples. Weaver's tests use IDs of their own ("foo",
// "anything") for any ID: here they are built-in IDs no rule names.

type finding struct {
	id    vocab.Finding
	level vocab.Level
	s     Sample
}

func on(id vocab.Finding, l vocab.Level, signalType, name string) finding {
	return finding{id: id, level: l, s: Sample{SignalType: signalType, Name: name, Named: name != ""}}
}

func compile(t *testing.T, filters []Filter, overrides []LevelOverride) *Rules {
	t.Helper()
	r, err := Compile(filters, overrides)
	require.NoError(t, err)
	require.NotNil(t, r)
	return r
}

const (
	vio = "violation"
	imp = "improvement"
	inf = "information"

	deprecated = vocab.FindingDeprecated
	notStable  = vocab.FindingNotStable
	missing    = vocab.FindingMissingAttribute
	illegal    = vocab.FindingIllegalNamespace
	enumVar    = vocab.FindingUndefinedEnumVariant
	foo        = vocab.FindingUnitMismatch // Weaver's "foo": an ID no rule names
)

var lv = map[string]vocab.Level{vio: vocab.LevelViolation, imp: vocab.LevelImprovement, inf: vocab.LevelInformation}

func TestNoRules(t *testing.T) {
	r, err := Compile(nil, nil)
	require.NoError(t, err)
	assert.Nil(t, r)
	assert.False(t, r.Scoped())
	levels, keep := r.Table()
	for f := range vocab.NumFindings {
		assert.Equal(t, vocab.DefaultLevel(f), levels[f])
		assert.True(t, keep[f])
	}
}

func TestFilters(t *testing.T) {
	tests := []struct {
		name   string
		filter Filter
		f      finding
		kept   bool
	}{
		{"global exclude by id", Filter{Exclude: []string{"deprecated"}}, on(deprecated, lv[vio], "", "some.attr"), false},
		{"global exclude other id", Filter{Exclude: []string{"deprecated"}}, on(notStable, lv[vio], "", "some.attr"), true},
		{"min_level drops information", Filter{MinLevel: imp}, on(foo, lv[inf], "", "some.attr"), false},
		{"min_level keeps improvement", Filter{MinLevel: imp}, on(foo, lv[imp], "", "some.attr"), true},
		{"min_level keeps violation", Filter{MinLevel: imp}, on(foo, lv[vio], "", "some.attr"), true},
		{"scoped filter, span", Filter{Exclude: []string{"not_stable"}, SignalType: "span"}, on(notStable, lv[inf], "span", "some.attr"), false},
		{"scoped filter, metric", Filter{Exclude: []string{"not_stable"}, SignalType: "span"}, on(notStable, lv[inf], "metric", "some.attr"), true},
		{"exclude_samples match", Filter{ExcludeSamples: []string{"trace.parent_id", "trace.span_id"}}, on(missing, lv[vio], "span", "trace.parent_id"), false},
		{"exclude_samples no match", Filter{ExcludeSamples: []string{"trace.parent_id", "trace.span_id"}}, on(missing, lv[vio], "span", "http.method"), true},
		{"exclude_samples + signal_type", Filter{SignalType: "span", ExcludeSamples: []string{"trace.parent_id"}}, on(missing, lv[vio], "span", "trace.parent_id"), false},
		{"exclude_samples, other signal_type", Filter{SignalType: "span", ExcludeSamples: []string{"trace.parent_id"}}, on(missing, lv[vio], "metric", "trace.parent_id"), true},
		{"exclude_samples wildcard", Filter{ExcludeSamples: []string{"trace.*"}}, on(missing, lv[vio], "", "trace.span_id"), false},
		{"exclude_samples wildcard no match", Filter{ExcludeSamples: []string{"trace.*"}}, on(missing, lv[vio], "", "http.method"), true},
		{"sample_names AND exclude", Filter{Exclude: []string{"illegal_namespace"}, SampleNames: []string{"server.address", "server.port"}}, on(illegal, lv[vio], "", "server.address"), false},
		{"sample_names AND exclude, other sample", Filter{Exclude: []string{"illegal_namespace"}, SampleNames: []string{"server.address", "server.port"}}, on(illegal, lv[vio], "", "db.statement"), true},
		{"sample_names wildcard", Filter{Exclude: []string{"illegal_namespace"}, SampleNames: []string{"http.*"}}, on(illegal, lv[vio], "", "http.method"), false},
		{"sample_names wildcard no match", Filter{Exclude: []string{"illegal_namespace"}, SampleNames: []string{"http.*"}}, on(illegal, lv[vio], "", "server.address"), true},
		{"sample_names scopes min_level", Filter{MinLevel: imp, SampleNames: []string{"http.*"}}, on(foo, lv[inf], "", "http.method"), false},
		{"sample_names scopes min_level, other sample", Filter{MinLevel: imp, SampleNames: []string{"http.*"}}, on(foo, lv[inf], "", "server.address"), true},
		{"sample_names never matches a nameless sample", Filter{Exclude: []string{"unit_mismatch"}, SampleNames: []string{"*"}}, on(foo, lv[vio], "", ""), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := compile(t, []Filter{tc.filter}, nil)
			_, kept := r.Apply(tc.f.id, tc.f.level, &tc.f.s)
			assert.Equal(t, tc.kept, kept)
		})
	}
}

func TestLevelOverrides(t *testing.T) {
	promote := LevelOverride{IDs: []string{"undefined_enum_variant"}, Level: vio}
	scoped := LevelOverride{IDs: []string{"undefined_enum_variant"}, Level: vio, SignalType: "span", SampleNames: []string{"http.*"}}
	tests := []struct {
		name     string
		override LevelOverride
		filters  []Filter
		f        finding
		kept     bool
		level    string
	}{
		{"promotes by id", promote, nil, on(enumVar, lv[inf], "", "some.attr"), true, vio},
		{"other id untouched", promote, nil, on(deprecated, lv[inf], "", "some.attr"), true, inf},
		{"scoped: signal_type and sample_names match", scoped, nil, on(enumVar, lv[inf], "span", "http.method"), true, vio},
		{"scoped: other sample name", scoped, nil, on(enumVar, lv[inf], "span", "server.address"), true, inf},
		{"scoped: other signal_type", scoped, nil, on(enumVar, lv[inf], "metric", "http.method"), true, inf},
		{"never drops", LevelOverride{Level: vio}, nil, on(foo, lv[inf], "", "some.attr"), true, vio},
		{"before min_level", promote, []Filter{{MinLevel: vio}}, on(enumVar, lv[inf], "", "some.attr"), true, vio},
		{"min_level still drops the rest", promote, []Filter{{MinLevel: vio}}, on(deprecated, lv[inf], "", "some.attr"), false, inf},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := compile(t, tc.filters, []LevelOverride{tc.override})
			got, kept := r.Apply(tc.f.id, tc.f.level, &tc.f.s)
			require.Equal(t, tc.kept, kept)
			assert.Equal(t, lv[tc.level], got)
		})
	}
}

func TestFirstOverrideWins(t *testing.T) {
	r := compile(t, nil, []LevelOverride{{IDs: []string{"deprecated"}, Level: inf}, {Level: vio}})
	l, _ := r.Apply(deprecated, lv[vio], &Sample{})
	assert.Equal(t, lv[inf], l)
	l, _ = r.Apply(notStable, lv[inf], &Sample{})
	assert.Equal(t, lv[vio], l)
	empty := compile(t, nil, []LevelOverride{{IDs: []string{}, Level: vio}})
	l, _ = empty.Apply(notStable, lv[inf], &Sample{})
	assert.Equal(t, lv[inf], l, "ids = [] matches no ID")
}

func TestTable(t *testing.T) {
	r := compile(t, []Filter{{Exclude: []string{"not_stable"}}, {MinLevel: imp}}, []LevelOverride{{IDs: []string{"deprecated"}, Level: inf}})
	require.False(t, r.Scoped())
	levels, keep := r.Table()
	assert.Equal(t, vocab.LevelInformation, levels[deprecated])
	assert.False(t, keep[deprecated], "relevelled to information, then below min_level")
	assert.False(t, keep[notStable])
	assert.True(t, keep[missing])
	assert.Equal(t, vocab.DefaultLevel(missing), levels[missing])
}

func TestScoped(t *testing.T) {
	for name, c := range map[string]struct {
		f      []Filter
		o      []LevelOverride
		scoped bool
	}{
		"exclude only":       {f: []Filter{{Exclude: []string{"deprecated"}}}},
		"min_level only":     {f: []Filter{{MinLevel: vio}}},
		"override by id":     {o: []LevelOverride{{IDs: []string{"deprecated"}, Level: vio}}},
		"filter signal_type": {f: []Filter{{SignalType: "span"}}, scoped: true},
		"filter names":       {f: []Filter{{SampleNames: []string{"a"}}}, scoped: true},
		"exclude_samples":    {f: []Filter{{ExcludeSamples: []string{"a"}}}, scoped: true},
		"override scoped":    {o: []LevelOverride{{Level: vio, SignalType: "log"}}, scoped: true},
	} {
		assert.Equal(t, c.scoped, compile(t, c.f, c.o).Scoped(), name)
	}
}

func TestCompileErrors(t *testing.T) {
	for want, c := range map[string]struct {
		f []Filter
		o []LevelOverride
	}{
		"finding_filters[0].sample_names: invalid sample name pattern":          {f: []Filter{{SampleNames: []string{"["}}}},
		"finding_filters[1].exclude_samples: invalid sample name pattern":       {f: []Filter{{}, {ExcludeSamples: []string{"["}}}},
		"finding_level_overrides[0].sample_names: invalid sample name pattern":  {o: []LevelOverride{{Level: vio, SampleNames: []string{"["}}}},
		"finding_filters[0].sample_names: invalid sample name pattern \"{a,b\"": {f: []Filter{{SampleNames: []string{"{a,b"}}}},
		"finding_filters[0].min_level: invalid level \"warn\"":                  {f: []Filter{{MinLevel: "warn"}}},
		"finding_level_overrides[0].level: missing":                             {o: []LevelOverride{{IDs: []string{"deprecated"}}}},
		"finding_level_overrides[0].level: invalid level \"high\"":              {o: []LevelOverride{{Level: "high"}}},
		"finding_level_overrides[0].signal_type: unknown signal type \"trace\"": {o: []LevelOverride{{Level: vio, SignalType: "trace"}}},
		"finding_filters[0].signal_type: unknown signal type \"spans\"":         {f: []Filter{{SignalType: "spans"}}},
	} {
		_, err := Compile(c.f, c.o)
		assert.ErrorContains(t, err, want)
	}
}

func TestUnknownIDs(t *testing.T) {
	r := compile(t, []Filter{{Exclude: []string{"my_policy_id", "deprecated"}}}, []LevelOverride{{IDs: []string{"other"}, Level: vio}})
	assert.Equal(t, []string{`finding_level_overrides[0].ids: "other"`, `finding_filters[0].exclude: "my_policy_id"`}, r.UnknownIDs())
	_, keep := r.Apply(deprecated, lv[vio], &Sample{})
	assert.False(t, keep)
}

func TestOverride(t *testing.T) {
	o, err := ParseOverride("--level-override", "missing_attribute=improvement")
	require.NoError(t, err)
	assert.Equal(t, LevelOverride{IDs: []string{"missing_attribute"}, Level: imp}, o)
	for bad, want := range map[string]string{
		"missing_attribute":          "want FINDING_ID=LEVEL",
		"No Such ID=violation":       `unknown finding ID "No Such ID"`,
		"missing_attribute=critical": `--level-override.missing_attribute: invalid level "critical"`,
		"=violation":                 `unknown finding ID ""`,
		"deprecated=":                `invalid level ""`,
	} {
		_, err := ParseOverride("--level-override", bad)
		require.ErrorContains(t, err, want, bad)
	}
	// An ID that is not built in but can be an advice policy's is taken,
	// listed by UnknownIDs, and matched by Sample.ID.
	o, err = ParseOverride("--level-override", "acme_no_test_keys=violation")
	require.NoError(t, err)
	r, err := Compile([]Filter{{Exclude: []string{"acme_dropped"}}}, []LevelOverride{o})
	require.NoError(t, err)
	assert.Equal(t, []string{`finding_level_overrides[0].ids: "acme_no_test_keys"`, `finding_filters[0].exclude: "acme_dropped"`}, r.UnknownIDs())
	policyID := vocab.NumFindings + 3 // a defined finding
	lv, keep := r.Apply(policyID, vocab.LevelInformation, &Sample{ID: "acme_no_test_keys"})
	assert.Equal(t, vocab.LevelViolation, lv)
	assert.True(t, keep)
	_, keep = r.Apply(policyID, vocab.LevelInformation, &Sample{ID: "acme_dropped"})
	assert.False(t, keep)
	lv, keep = r.Apply(policyID, vocab.LevelInformation, &Sample{ID: "acme_other"})
	assert.Equal(t, vocab.LevelInformation, lv)
	assert.True(t, keep)
	os, err := OverridesOf("level_overrides", map[string]string{"not_stable": inf, "deprecated": vio})
	require.NoError(t, err)
	assert.Equal(t, []LevelOverride{{IDs: []string{"deprecated"}, Level: vio}, {IDs: []string{"not_stable"}, Level: inf}}, os)
	_, err = OverridesOf("level_overrides", map[string]string{"deprecated": "x"})
	assert.ErrorContains(t, err, `level_overrides.deprecated: invalid level "x"`)
}

func TestGlob(t *testing.T) {
	g, err := compileGlobs([]string{"http.*", "db.?ame", "{rpc,net}.peer", "[ab]x", "a.b+c"})
	require.NoError(t, err)
	for s, want := range map[string]bool{
		"http.method": true, "http.": true, "xhttp.a": false, "db.name": true, "db.names": false,
		"rpc.peer": true, "net.peer": true, "grpc.peer": false, "ax": true, "cx": false, "a.b+c": true, "aXb+c": false,
	} {
		assert.Equal(t, want, g.match(s), s)
	}
}

// Literal and prefix* patterns are compared, not compiled: the same
// matches either way.
func TestGlobSimple(t *testing.T) {
	g, err := compileGlobs([]string{"http.*", "server.address", "*"})
	require.NoError(t, err)
	assert.Equal(t, []string{"server.address"}, g.exact)
	assert.Equal(t, []string{"http.", ""}, g.prefixes)
	assert.Nil(t, g.re)
	g, err = compileGlobs([]string{"http.*", "server.address"})
	require.NoError(t, err)
	for s, want := range map[string]bool{"http.method": true, "http": false, "server.address": true, "server.addresses": false, "": false} {
		assert.Equal(t, want, g.match(s), s)
	}
}

// Glob's ** components are globset's (Weaver's --advice-data patterns,
// crates/weaver_checker/src/lib.rs add_data_from_file_or_dir): **/ matches
// no directory too, and * crosses a /.
func TestGlobPaths(t *testing.T) {
	for pattern, cases := range map[string]map[string]bool{
		"**/*.json":   {"user.json": true, "a/b/user.json": true, "user.yaml": false},
		"*.json":      {"user.json": true, "a/user.json": true},
		"a/**/b.yaml": {"a/b.yaml": true, "a/x/y/b.yaml": true, "ab.yaml": false},
		"x/**":        {"x/y": true, "x/y/z": true, "y/x": false},
	} {
		re, err := Glob(pattern)
		require.NoError(t, err)
		for s, want := range cases {
			assert.Equal(t, want, re.MatchString(s), "%s ~ %s", pattern, s)
		}
	}
	_, err := Glob("{a")
	require.ErrorIs(t, err, ErrInvalidPattern)
}
