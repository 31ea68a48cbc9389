package checker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/vocab"
)

// The cases of Weaver's finding modifier tests
// (crates/weaver_live_check/src/finding_modifier.rs at afa9700c), on the
// same findings and samples. Finding IDs other than Weaver's ("foo",
// "anything") stand for any ID.

func finding(id string, l vocab.Level, signalType string) WeaverFinding {
	f := WeaverFinding{ID: id, Level: l.String(), level: l}
	if signalType != "" {
		f.SignalType = &signalType
	}
	return f
}

// onAttribute is the finding on an attribute sample named name.
func onAttribute(f WeaverFinding, name string) *WeaverFinding {
	f.sampleName, f.named = name, true
	return &f
}

func modifier(t *testing.T, filters []FindingFilter, overrides []FindingLevelOverride) *Modifier {
	t.Helper()
	m, err := NewModifier(filters, overrides)
	require.NoError(t, err)
	require.NotNil(t, m)
	return m
}

func level(l vocab.Level) *vocab.Level { return &l }

const (
	vio = vocab.LevelViolation
	imp = vocab.LevelImprovement
	inf = vocab.LevelInformation
)

func TestModifierNoRules(t *testing.T) {
	m, err := NewModifier(nil, nil)
	require.NoError(t, err)
	assert.Nil(t, m)
}

func TestModifierFilters(t *testing.T) {
	tests := []struct {
		name   string
		filter FindingFilter
		f      *WeaverFinding
		kept   bool
	}{
		{"global exclude by id", FindingFilter{Exclude: []string{"deprecated"}}, onAttribute(finding("deprecated", vio, ""), "some.attr"), false},
		{"global exclude other id", FindingFilter{Exclude: []string{"deprecated"}}, onAttribute(finding("not_stable", vio, ""), "some.attr"), true},
		{"min_level drops information", FindingFilter{MinLevel: level(imp)}, onAttribute(finding("foo", inf, ""), "some.attr"), false},
		{"min_level keeps improvement", FindingFilter{MinLevel: level(imp)}, onAttribute(finding("foo", imp, ""), "some.attr"), true},
		{"min_level keeps violation", FindingFilter{MinLevel: level(imp)}, onAttribute(finding("foo", vio, ""), "some.attr"), true},
		{"scoped filter, span", FindingFilter{Exclude: []string{"not_stable"}, SignalType: "span"}, onAttribute(finding("not_stable", inf, "span"), "some.attr"), false},
		{"scoped filter, metric", FindingFilter{Exclude: []string{"not_stable"}, SignalType: "span"}, onAttribute(finding("not_stable", inf, "metric"), "some.attr"), true},
		{"exclude_samples match", FindingFilter{ExcludeSamples: []string{"trace.parent_id", "trace.span_id"}}, onAttribute(finding("missing_attribute", vio, "span"), "trace.parent_id"), false},
		{"exclude_samples no match", FindingFilter{ExcludeSamples: []string{"trace.parent_id", "trace.span_id"}}, onAttribute(finding("missing_attribute", vio, "span"), "http.method"), true},
		{"exclude_samples + signal_type", FindingFilter{SignalType: "span", ExcludeSamples: []string{"trace.parent_id"}}, onAttribute(finding("missing_attribute", vio, "span"), "trace.parent_id"), false},
		{"exclude_samples, other signal_type", FindingFilter{SignalType: "span", ExcludeSamples: []string{"trace.parent_id"}}, onAttribute(finding("missing_attribute", vio, "metric"), "trace.parent_id"), true},
		{"exclude_samples wildcard", FindingFilter{ExcludeSamples: []string{"trace.*"}}, onAttribute(finding("missing_attribute", vio, ""), "trace.span_id"), false},
		{"exclude_samples wildcard no match", FindingFilter{ExcludeSamples: []string{"trace.*"}}, onAttribute(finding("missing_attribute", vio, ""), "http.method"), true},
		{"sample_names AND exclude", FindingFilter{Exclude: []string{"illegal_namespace"}, SampleNames: []string{"server.address", "server.port"}}, onAttribute(finding("illegal_namespace", vio, ""), "server.address"), false},
		{"sample_names AND exclude, other sample", FindingFilter{Exclude: []string{"illegal_namespace"}, SampleNames: []string{"server.address", "server.port"}}, onAttribute(finding("illegal_namespace", vio, ""), "db.statement"), true},
		{"sample_names wildcard", FindingFilter{Exclude: []string{"illegal_namespace"}, SampleNames: []string{"http.*"}}, onAttribute(finding("illegal_namespace", vio, ""), "http.method"), false},
		{"sample_names wildcard no match", FindingFilter{Exclude: []string{"illegal_namespace"}, SampleNames: []string{"http.*"}}, onAttribute(finding("illegal_namespace", vio, ""), "server.address"), true},
		{"sample_names scopes min_level", FindingFilter{MinLevel: level(imp), SampleNames: []string{"http.*"}}, onAttribute(finding("foo", inf, ""), "http.method"), false},
		{"sample_names scopes min_level, other sample", FindingFilter{MinLevel: level(imp), SampleNames: []string{"http.*"}}, onAttribute(finding("foo", inf, ""), "server.address"), true},
		{"sample_names never matches a nameless sample", FindingFilter{Exclude: []string{"foo"}, SampleNames: []string{"*"}}, func() *WeaverFinding { f := finding("foo", vio, ""); return &f }(), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := modifier(t, []FindingFilter{tc.filter}, nil)
			assert.Equal(t, tc.kept, m.Apply(tc.f))
		})
	}
}

func TestModifierLevelOverrides(t *testing.T) {
	promote := FindingLevelOverride{IDs: []string{"undefined_enum_variant"}, Level: vio}
	scoped := FindingLevelOverride{IDs: []string{"undefined_enum_variant"}, Level: vio, SignalType: "span", SampleNames: []string{"http.*"}}
	tests := []struct {
		name     string
		override FindingLevelOverride
		filters  []FindingFilter
		f        *WeaverFinding
		kept     bool
		level    vocab.Level
	}{
		{"promotes by id", promote, nil, onAttribute(finding("undefined_enum_variant", inf, ""), "some.attr"), true, vio},
		{"other id untouched", promote, nil, onAttribute(finding("deprecated", inf, ""), "some.attr"), true, inf},
		{"scoped: signal_type and sample_names match", scoped, nil, onAttribute(finding("undefined_enum_variant", inf, "span"), "http.method"), true, vio},
		{"scoped: other sample name", scoped, nil, onAttribute(finding("undefined_enum_variant", inf, "span"), "server.address"), true, inf},
		{"scoped: other signal_type", scoped, nil, onAttribute(finding("undefined_enum_variant", inf, "metric"), "http.method"), true, inf},
		{"never drops", FindingLevelOverride{Level: vio}, nil, onAttribute(finding("anything", inf, ""), "some.attr"), true, vio},
		{"before min_level", promote, []FindingFilter{{MinLevel: level(vio)}}, onAttribute(finding("undefined_enum_variant", inf, ""), "some.attr"), true, vio},
		{"min_level still drops the rest", promote, []FindingFilter{{MinLevel: level(vio)}}, onAttribute(finding("deprecated", inf, ""), "some.attr"), false, inf},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := modifier(t, tc.filters, []FindingLevelOverride{tc.override})
			require.Equal(t, tc.kept, m.Apply(tc.f))
			if tc.kept {
				assert.Equal(t, tc.level, tc.f.level)
				assert.Equal(t, tc.level.String(), tc.f.Level)
			}
		})
	}
}

func TestModifierPatternErrors(t *testing.T) {
	for name, c := range map[string]struct {
		f []FindingFilter
		o []FindingLevelOverride
	}{
		"sample_names":          {f: []FindingFilter{{SampleNames: []string{"["}}}},
		"exclude_samples":       {f: []FindingFilter{{ExcludeSamples: []string{"["}}}},
		"override sample_names": {o: []FindingLevelOverride{{Level: vio, SampleNames: []string{"["}}}},
		"unclosed alternation":  {f: []FindingFilter{{SampleNames: []string{"{a,b"}}}},
	} {
		_, err := NewModifier(c.f, c.o)
		assert.ErrorContains(t, err, "invalid sample name pattern", name)
	}
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
