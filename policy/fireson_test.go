package policy_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/policy"
	"github.com/otelgov/otelcol-governance/registry"
)

const finding = `{"id": "f", "level": "violation", "message": "m", "context": {}}`

// firesOnCases are policies whose deny rules fire on some sample kinds
// (guarded), or on any (the analysis cannot tell): the kinds
// Set.FiresOn must report.
var firesOnCases = []struct {
	name, text string
	want       engine.SampleKinds
}{
	{"existence", `deny contains ` + finding + ` if { input.sample.span }`, 1 << engine.SampleSpan},
	{"operand", `deny contains ` + finding + ` if { startswith(input.sample.metric.name, "") }`, 1 << engine.SampleMetric},
	{"assignment", `deny contains ` + finding + ` if { n := input.sample.log.event_name; n == "" }`, 1 << engine.SampleLog},
	{"comparison", `deny contains ` + finding + ` if { input.sample.attribute.name != "" }`, 1 << engine.SampleAttribute},
	{"two rules", `deny contains ` + finding + ` if { input.sample.attribute }
deny contains ` + finding + ` if { input.sample.span_event }`, 1<<engine.SampleAttribute | 1<<engine.SampleSpanEvent},
	{"negated", `deny contains ` + finding + ` if { not input.sample.span }`, engine.AllSampleKinds},
	{"comprehension", `deny contains ` + finding + ` if { count([1 | input.sample.span]) == 0 }`, engine.AllSampleKinds},
	{"helper rule", `is_span if input.sample.span
deny contains ` + finding + ` if { not is_span }`, engine.AllSampleKinds},
	{"helper rule guard", `is_span if input.sample.span
deny contains ` + finding + ` if { is_span }`, engine.AllSampleKinds},
	{"no guard", `deny contains ` + finding + ` if { input.registry_group == null }`, engine.AllSampleKinds},
	{"every sample", `deny contains ` + finding + ` if { true }`, engine.AllSampleKinds},
	{"not a kind", `deny contains ` + finding + ` if { not input.sample.instrumentation }`, engine.AllSampleKinds},
	{"with", `deny contains ` + finding + ` if { input.sample.span with input.sample as {"span": {}}; input.sample.attribute }`, 1 << engine.SampleAttribute},
	{"helper only", `not_deny contains ` + finding + ` if { true }
deny contains ` + finding + ` if { input.sample.resource }`, 1 << engine.SampleResource},
}

func TestFiresOn(t *testing.T) {
	ix := suiteRegistry(t, "comprehensive")
	for _, tc := range firesOnCases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := source(t, ix, policy.Options{}, "package live_check_advice\n\nimport rego.v1\n\n"+tc.text+"\n")
			require.NoError(t, err)
			assert.Equal(t, tc.want, s.FiresOn(), "got %s", kindNames(s.FiresOn()))
		})
	}
	// A rule on the instrumentation scope, which neither walk offers as a
	// sample (the suite has none to fire on, so not in firesOnCases), fires
	// on that kind alone: it is one of the sample kinds.
	s, err := source(t, ix, policy.Options{}, "package live_check_advice\n\nimport rego.v1\n\ndeny contains "+finding+" if { input.sample.instrumentation_scope }\n")
	require.NoError(t, err)
	assert.Equal(t, engine.SampleKinds(1<<engine.SampleScope), s.FiresOn(), "got %s", kindNames(s.FiresOn()))
	s = load(t, ix, policy.Options{}, weaverPolicies+"/default")
	assert.Equal(t, engine.SampleKinds(1<<engine.SampleAttribute|1<<engine.SampleMetric), s.FiresOn(), "otel.rego: %s", kindNames(s.FiresOn()))
	s = load(t, ix, policy.Options{}, weaverPolicies+"/default", "testdata/example")
	assert.Equal(t, engine.SampleKinds(1<<engine.SampleAttribute|1<<engine.SampleMetric), s.FiresOn(), "otel.rego and the examples")
}

// On every sample of the suite's telemetry, a policy fires on the kinds
// FiresOn reports only: Weaver's policies, the examples and the cases
// above, evaluated in full (Set's walk offers every sample).
func TestFiresOnSound(t *testing.T) {
	ix := suiteRegistry(t, "comprehensive")
	sets := map[string]*policy.Set{}
	for _, d := range []string{"default", "live_check_advice"} { // entity_advice needs data the suite has not (TestWeaverEntityPolicy)
		sets[d] = load(t, ix, policy.Options{}, filepath.Join(weaverPolicies, d))
	}
	sets["example"] = load(t, ix, policy.Options{}, "testdata/example")
	for _, tc := range firesOnCases {
		s, err := source(t, ix, policy.Options{}, "package live_check_advice\n\nimport rego.v1\n\n"+tc.text+"\n")
		require.NoError(t, err)
		sets[tc.name] = s
	}
	files, err := os.ReadDir(filepath.Join(suite, "otlp"))
	require.NoError(t, err)
	for name, s := range sets {
		fired := engine.SampleKinds(0)
		for _, f := range files {
			for id, kinds := range firedKinds(t, s, ix, f.Name()) {
				fired |= kinds
				assert.Equal(t, kinds, kinds&s.FiresOn(), "%s: %s fired on %s, FiresOn %s", name, id, kindNames(kinds), kindNames(s.FiresOn()))
			}
		}
		assert.NotZero(t, fired, "%s fired on no sample of the suite", name)
	}
}

func kindNames(ks engine.SampleKinds) []string {
	var out []string
	for k := range engine.NumSampleKinds {
		if ks.Has(k) {
			out = append(out, k.String())
		}
	}
	return out
}

// A group of policies is evaluated only on the kinds its deny rules can
// fire on: with otel.rego (value-free, attributes and metrics) and a
// value-dependent rule on logs, an attribute evaluates the value-free
// group alone and its findings stay memoized, a log the value-dependent
// group alone, a span neither; each gives Eval's findings (every policy
// evaluated).
func TestGroupsByKind(t *testing.T) {
	ix, err := registry.Default()
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "logs.rego"), []byte(logValueRule), 0o600))
	s := load(t, ix, policy.Options{}, weaverPolicies+"/default", dir)
	require.True(t, s.HasValueDependent())
	a := policy.NewAdvisor(s, policy.AdvisorOptions{})
	assert.True(t, a.AttrsShapeFree(), "no value-dependent policy fires on attributes")

	ctx := context.Background()
	lr := plog.NewLogRecord()
	for _, tc := range []struct {
		name   string
		in     policy.Input
		want   policy.Outcome
		id     string // a finding expected
		keyed  bool   // the Advisor gives the sample a memo key
		sample engine.Sample
	}{
		{
			"attribute",
			policy.Input{Sample: policy.Attribute("Bad-Key", pcommon.NewValueStr("v"))},
			policy.Outcome{Evaluations: 1},
			"invalid_format", true,
			engine.Sample{Kind: engine.SampleAttribute, Key: "Bad-Key", Value: pcommon.NewValueStr("v")},
		},
		{
			"log",
			policy.Input{Sample: policy.Log(lr)},
			policy.Outcome{Evaluations: 1},
			"acme_log_severity", false,
			engine.Sample{Kind: engine.SampleLog, Log: lr},
		},
		{
			"span",
			policy.Input{Sample: policy.Span(ptrace.NewSpan())},
			policy.Outcome{},
			"", true,
			engine.Sample{Kind: engine.SampleSpan, Span: ptrace.NewSpan()},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, o, err := advise(ctx, s, &tc.in, nil)
			require.NoError(t, err)
			assert.Equal(t, tc.want, o)
			want, err := s.Eval(ctx, &tc.in)
			require.NoError(t, err)
			assert.Equal(t, want, got)
			ids := []string{}
			for _, f := range got {
				ids = append(ids, f.ID)
			}
			if tc.id != "" {
				assert.Contains(t, ids, tc.id)
			} else {
				assert.Empty(t, ids)
			}
			// Again: the value-free group's findings from the memo, the
			// value-dependent group's evaluated again.
			again, o, err := advise(ctx, s, &tc.in, nil)
			require.NoError(t, err)
			assert.Equal(t, got, again)
			if tc.keyed && tc.want.Evaluations > 0 {
				assert.Equal(t, policy.Outcome{MemoHits: 1}, o)
			} else {
				assert.Equal(t, tc.want, o)
			}
			_, keyed := a.SampleKey(&tc.sample)
			assert.Equal(t, tc.keyed, keyed, "memo key")
		})
	}
}

// An attribute's findings depend on its value's type only when a
// value-free policy reads input.sample.attribute.type, directly or in a
// helper rule: otherwise the engine's shape memo guards no position by
// type for the policies' sake (Advisor.AttrsTypeFree).
func TestAttrsTypeFree(t *testing.T) {
	ix := suiteRegistry(t, "comprehensive")
	const head = "package live_check_advice\n\nimport rego.v1\n\n"
	for _, tc := range []struct {
		name, text string
		typeFree   bool
	}{
		{"name", `deny contains ` + finding + ` if { startswith(input.sample.attribute.name, "tmp.") }`, true},
		{"type", `deny contains ` + finding + ` if { input.sample.attribute.type == "int" }`, false},
		{"helper", `is_int if input.sample.attribute.type == "int"
deny contains ` + finding + ` if { input.sample.attribute; is_int }`, false},
		{"value rule on logs", `deny contains ` + finding + ` if { input.sample.log; input.sample.log.severity_number == 0 }`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := source(t, ix, policy.Options{}, head+tc.text+"\n")
			require.NoError(t, err)
			assert.Equal(t, tc.typeFree, policy.NewAdvisor(s, policy.AdvisorOptions{}).AttrsTypeFree())
		})
	}
	a := policy.NewAdvisor(load(t, ix, policy.Options{}, weaverPolicies+"/default", "testdata/example"), policy.AdvisorOptions{})
	assert.True(t, a.AttrsTypeFree(), "otel.rego and the examples read no attribute type")
}
