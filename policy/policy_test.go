package policy_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelgov/otelcol-governance/policy"
	"github.com/otelgov/otelcol-governance/vocab"
)

const header = "package live_check_advice\n\nimport rego.v1\n\n"

// rule is a deny rule on attribute samples with body as its condition.
func rule(body string) string {
	return header + `deny contains {"id": "r", "level": "violation", "message": "m"} if {
	input.sample.attribute
	` + body + `
}
`
}

func TestValueAnalysis(t *testing.T) {
	ix := suiteRegistry(t, "comprehensive")
	for _, tt := range []struct {
		name, body string
		reads      bool
		why        string
	}{
		{"key", `contains(input.sample.attribute.name, "test")`, false, ""},
		{"inferred type", `input.sample.attribute.type == "int"`, false, ""},
		{"registry definition", `input.registry_attribute.stability == "development"`, false, ""},
		{"data", `data.attributes_set[input.sample.attribute.name]`, false, ""},
		{"value", `input.sample.attribute.value == "x"`, true, "input.sample.attribute.value"},
		{"resource", `count(input.resource.attributes) > 0`, true, "input.resource.attributes"},
		{"scope", `input.instrumentation_scope.name == "x"`, true, "input.instrumentation_scope.name"},
		{"variable key", `some k; input.sample.attribute[k] == "x"`, true, "input.sample.attribute"},
		{"whole sample as a value", `a := input.sample.attribute; a.value == 1`, true, "input.sample.attribute"},
		{"walk", `walk(input, [p, v]); v == "x"`, true, "input"},
		{"object.get", `object.get(input, ["sample", "attribute", "value"], 0) == 1`, true, "input"},
		{"span status", `input.sample.span.status.message == ""`, true, "input.sample.span.status.message"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := source(t, ix, policy.Options{}, rule(tt.body))
			require.NoError(t, err)
			m := s.Modules()
			require.Len(t, m, 1)
			assert.Equal(t, tt.reads, m[0].ReadsValues, m[0].Why)
			assert.Equal(t, tt.reads, s.HasValueDependent())
			assert.Equal(t, !tt.reads, s.HasValueFree())
			if tt.reads {
				assert.Contains(t, m[0].Why, "inline.rego:")
				assert.Contains(t, m[0].Why, tt.why)
			}
		})
	}
}

// Weaver's default policy reads names only; its example policy reads values.
func TestWeaverPoliciesAnalysed(t *testing.T) {
	ix := suiteRegistry(t, "comprehensive")
	s := load(t, ix, policy.Options{}, weaverPolicies+"/default", weaverPolicies+"/live_check_advice")
	m := s.Modules()
	require.Len(t, m, 2)
	assert.False(t, m[0].ReadsValues, m[0].Why)
	assert.True(t, m[1].ReadsValues)
	assert.True(t, s.HasValueFree())
	assert.True(t, s.HasValueDependent())
}

// A value-free policy that calls a helper only a value-dependent one
// defines cannot be evaluated apart: both are value-dependent.
func TestSplitKeepsHelpers(t *testing.T) {
	ix := suiteRegistry(t, "comprehensive")
	free := header + `deny contains mk("a") if { input.sample.attribute; contains(input.sample.attribute.name, "x") }
`
	dep := header + `deny contains mk("b") if { input.sample.attribute.value == 1 }

mk(id) := {"id": id, "level": "violation", "message": "m"}
`
	s, err := policy.Compile(ix, policy.Options{}, policy.Source{File: "a.rego", Text: free}, policy.Source{File: "b.rego", Text: dep})
	require.NoError(t, err)
	assert.False(t, s.HasValueFree())
	in := policy.Input{Sample: policy.Attribute("x.y", pcommon.NewValueInt(1))}
	fs, err := s.Eval(context.Background(), &in)
	require.NoError(t, err)
	assert.Len(t, fs, 2)
}

func TestSandbox(t *testing.T) {
	ix := suiteRegistry(t, "comprehensive")
	for _, call := range []string{
		`http.send({"method": "get", "url": "http://127.0.0.1:1"})`,
		`net.lookup_ip_addr("example.com")`,
		`opa.runtime()`,
		`time.now_ns()`,
		`rand.intn("x", 10)`,
	} {
		t.Run(call, func(t *testing.T) {
			_, err := source(t, ix, policy.Options{}, rule("x := "+call+"\n\tx"))
			require.ErrorIs(t, err, policy.ErrCompile)
			assert.Contains(t, err.Error(), "inline.rego:7:7: undefined function")
		})
	}
	// trace is allowed.
	_, err := source(t, ix, policy.Options{}, rule(`trace("x")`))
	require.NoError(t, err)
}

func TestPackageAndSyntax(t *testing.T) {
	ix := suiteRegistry(t, "comprehensive")
	_, err := source(t, ix, policy.Options{}, "package other\n\nimport rego.v1\n\ndeny contains 1 if true\n")
	require.ErrorIs(t, err, policy.ErrPackage)
	assert.Contains(t, err.Error(), "inline.rego:1")
	_, err = source(t, ix, policy.Options{}, header+"deny contains x if {\n")
	require.ErrorIs(t, err, policy.ErrCompile)
	assert.Contains(t, err.Error(), "inline.rego:")
}

// deny must be a set of finding objects: a deny of another type, or a
// member that is not a finding, is an error that names it, and the
// evaluation's other findings are kept.
func TestDenyShape(t *testing.T) {
	ix := suiteRegistry(t, "comprehensive")
	in := policy.Input{Sample: policy.Attribute("a.b", pcommon.NewValueInt(3))}
	s, err := source(t, ix, policy.Options{}, header+`deny := {"id": "r"}`+"\n")
	require.NoError(t, err)
	_, err = s.Eval(context.Background(), &in)
	require.ErrorIs(t, err, policy.ErrFinding)
	assert.Contains(t, err.Error(), "deny is not a set")
	s, err = source(t, ix, policy.Options{}, header+`deny contains "not an object" if input.sample.attribute
deny contains {"id": "r", "level": "violation", "message": "m"} if input.sample.attribute
`)
	require.NoError(t, err)
	fs, err := s.Eval(context.Background(), &in)
	require.ErrorIs(t, err, policy.ErrFinding)
	require.Len(t, fs, 1)
	assert.Equal(t, "r", fs[0].ID)
	assert.EqualValues(t, 1, s.Stats().Evaluations)
	assert.EqualValues(t, 1, s.Stats().Errors)
}

func TestTimeout(t *testing.T) {
	ix := suiteRegistry(t, "comprehensive")
	s, err := source(t, ix, policy.Options{Timeout: 20 * time.Millisecond},
		rule(`count([x | some x in numbers.range(1, 100000000); x % 7 == input.sample.attribute.value]) > 0`))
	require.NoError(t, err)
	in := policy.Input{Sample: policy.Attribute("a.b", pcommon.NewValueInt(3))}
	start := time.Now()
	_, err = s.Eval(context.Background(), &in)
	require.ErrorIs(t, err, policy.ErrTimeout)
	assert.Less(t, time.Since(start), 5*time.Second)
	st := s.Stats()
	assert.EqualValues(t, 1, st.Timeouts)
	assert.EqualValues(t, 1, st.Errors)
}

// The three shapes of crates/weaver_checker/src/finding.rs.
func TestFindingShapes(t *testing.T) {
	ix := suiteRegistry(t, "comprehensive")
	for _, tt := range []struct {
		name, obj string
		want      policy.Finding
		err       bool
	}{
		{
			"unified", `{"id": "my_rule", "level": "improvement", "message": "m", "context": {"k": 1}, "signal_type": "span", "signal_name": "GET"}`,
			policy.Finding{ID: "my_rule", Level: vocab.LevelImprovement, Message: "m", Context: `{"k":1}`, SignalType: "span", SignalName: "GET"},
			false,
		},
		{
			"advice", `{"type": "advice", "advice_type": "my_rule", "advice_level": "information", "advice_context": {"k": "v"}, "message": "m"}`,
			policy.Finding{ID: "my_rule", Level: vocab.LevelInformation, Message: "m", Context: `{"k":"v"}`},
			false,
		},
		{
			"semconv_attribute", `{"type": "semconv_attribute", "id": "i", "category": "c", "group": "g", "attr": "a"}`,
			policy.Finding{ID: "semconv_attribute", Level: vocab.LevelViolation, Message: "id=i, category=c, group=g, attr=a", Context: `{"attr":"a","category":"c","group":"g","id":"i"}`},
			false,
		},
		{"builtin ID", `{"id": "deprecated", "level": "violation", "message": "m"}`, policy.Finding{ID: "deprecated", Level: vocab.LevelViolation, Message: "m", Finding: vocab.FindingDeprecated}, false},
		{"ID not in Weaver's format", `{"id": "My-Rule", "level": "violation", "message": "m"}`, policy.Finding{ID: policy.OtherID, Finding: policy.FindingOther, Level: vocab.LevelViolation, Message: "m"}, false},
		{"unknown type", `{"type": "x", "id": "a", "level": "violation", "message": "m"}`, policy.Finding{}, true},
		{"missing level", `{"id": "a", "message": "m"}`, policy.Finding{}, true},
		{"unknown level", `{"id": "a", "level": "fatal", "message": "m"}`, policy.Finding{}, true},
		{"advice without advice_type", `{"type": "advice", "advice_level": "violation", "message": "m"}`, policy.Finding{}, true},
		{"not an object", `"x"`, policy.Finding{}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := source(t, ix, policy.Options{}, header+"deny contains "+tt.obj+" if input.sample.attribute\n")
			require.NoError(t, err)
			in := policy.Input{Sample: policy.Attribute("a.b", pcommon.NewValueEmpty())}
			fs, err := s.Eval(context.Background(), &in)
			if tt.err {
				require.ErrorIs(t, err, policy.ErrFinding)
				assert.Empty(t, fs)
				return
			}
			require.NoError(t, err)
			require.Len(t, fs, 1)
			got := fs[0]
			if tt.want.Finding == 0 && !got.Finding.Builtin() && got.Finding != policy.FindingOther {
				assert.Equal(t, tt.want.ID, s.IDs().Name(got.Finding))
				got.Finding = 0
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// Client-influenced IDs and messages are bounded: at most
// vocab.MaxDefinedFindings distinct IDs, then _other; messages cut.
func TestBounds(t *testing.T) {
	ix := suiteRegistry(t, "comprehensive")
	s, err := source(t, ix, policy.Options{}, header+`deny contains {"id": input.sample.attribute.name, "level": "violation", "message": concat("", [input.sample.attribute.name | some i in numbers.range(1, 200)])} if input.sample.attribute
`)
	require.NoError(t, err)
	ctx := context.Background()
	other := 0
	for i := range vocab.MaxDefinedFindings + 10 {
		in := policy.Input{Sample: policy.Attribute(fmt.Sprintf("rule%d", i), pcommon.NewValueEmpty())}
		fs, err := s.Eval(ctx, &in)
		require.NoError(t, err)
		require.Len(t, fs, 1)
		assert.LessOrEqual(t, len(fs[0].Message), policy.MaxMessageBytes)
		if fs[0].ID == policy.OtherID {
			other++
		}
	}
	assert.Equal(t, 10, other)
	long := strings.Repeat("a", vocab.MaxFindingIDLength+1)
	in := policy.Input{Sample: policy.Attribute(long, pcommon.NewValueEmpty())}
	fs, err := s.Eval(ctx, &in)
	require.NoError(t, err)
	assert.Equal(t, policy.OtherID, fs[0].ID)
}

// A value-free policy is evaluated once per key; a value-dependent one on
// every sample.
func TestMemo(t *testing.T) {
	ix := suiteRegistry(t, "comprehensive")
	s := load(t, ix, policy.Options{Memo: policy.MemoLimits{Entries: 4}}, weaverPolicies+"/default")
	ctx := context.Background()
	for i := range 10 {
		in := policy.Input{Sample: policy.Attribute("testString2", pcommon.NewValueInt(int64(i)))}
		fs, err := s.Eval(ctx, &in)
		require.NoError(t, err)
		ids := []string{}
		for _, f := range fs {
			ids = append(ids, f.ID)
		}
		assert.ElementsMatch(t, []string{"missing_namespace", "invalid_format"}, ids)
	}
	st := s.Stats()
	assert.EqualValues(t, 1, st.Evaluations)
	assert.EqualValues(t, 9, st.MemoHits)
	for i := range 10 {
		in := policy.Input{Sample: policy.Attribute(fmt.Sprintf("k%d", i), pcommon.NewValueEmpty())}
		_, err := s.Eval(ctx, &in)
		require.NoError(t, err)
	}
	st = s.Stats()
	assert.LessOrEqual(t, st.MemoEntries, 4)
	assert.Positive(t, st.MemoResets)

	dep := load(t, ix, policy.Options{}, weaverPolicies+"/live_check_advice")
	for range 3 {
		in := policy.Input{Sample: policy.Attribute("test.x", pcommon.NewValueEmpty())}
		_, err := dep.Eval(ctx, &in)
		require.NoError(t, err)
	}
	assert.EqualValues(t, 3, dep.Stats().Evaluations)
	assert.Zero(t, dep.Stats().MemoHits)
}
