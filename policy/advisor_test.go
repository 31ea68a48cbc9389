package policy_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/findingrules"
	"github.com/otelgov/otelcol-governance/otlpfile"
	"github.com/otelgov/otelcol-governance/policy"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// readOnlyEngine is an engine that changes nothing, with the checks on
// (detail: the per-name findings) and a (nil: no policies) as its Advisor.
func readOnlyEngine(a *policy.Advisor, detail bool, rules ...*findingrules.Rules) *engine.Engine {
	o := engine.Options{
		Deprecated: engine.DeprecatedOff, Unknown: engine.UnknownKeep, TypeMismatch: engine.TypeMismatchKeep,
		EnumViolation: engine.EnumViolationKeep, Findings: true, Detail: detail,
	}
	if len(rules) > 0 {
		o.Rules = rules[0]
	}
	if a != nil {
		o.Advisor = a
	}
	return engine.New(o)
}

// engineIDs walks a suite OTLP file with the engine, the policies of s as
// its Advisor, and counts the findings by ID.
func engineIDs(t testing.TB, a *policy.Advisor, ix *registry.Index, name string) map[string]int {
	t.Helper()
	e := readOnlyEngine(a, true)
	n := map[string]int{}
	readOTLP(t, name, func(r *otlpfile.Record) {
		w := e.Walker(ix, true)
		switch r.Kind {
		case vocab.KindTraces:
			w.Traces(r.Traces)
		case vocab.KindMetrics:
			w.Metrics(r.Metrics)
		case vocab.KindLogs:
			w.Logs(r.Logs)
		case vocab.KindUnknown, vocab.NumKinds:
			t.Fatalf("unknown record in %s", name)
		}
		for _, f := range w.Batch().Findings {
			if f.ID != "" {
				n[f.ID] += int(f.Count)
			}
		}
		e.Release(w)
	})
	return n
}

// The engine's walk offers the Advisor the samples of the policy package's
// own walk (Weaver's): the policy-defined findings agree on Weaver's policy
// tests' inputs.
func TestAdvisorThroughEngine(t *testing.T) {
	for _, tc := range []struct{ registry, file, id string }{
		{"comprehensive", "span.json", "contains_test_in_status"},
		{"metrics", "metrics.json", "invalid_data_point_value"},
		{"comprehensive", "attribute_live_checker.json", ""},
	} {
		t.Run(tc.file, func(t *testing.T) {
			ix := suiteRegistry(t, tc.registry)
			s := load(t, ix, policy.Options{}, weaverPolicies+"/live_check_advice", "testdata/example")
			want := countIDs(t, s, ix, tc.file)
			a := policy.NewAdvisor(s, policy.AdvisorOptions{})
			got := engineIDs(t, a, ix, tc.file)
			for id := range want {
				if f, _ := s.IDs().Resolve(id, vocab.LevelViolation); f.Builtin() {
					delete(want, id) // counted per service, not in the detail's IDs
				}
			}
			require.NotEmpty(t, want)
			assert.Equal(t, want, got)
			if tc.id != "" {
				assert.Positive(t, got[tc.id], "%v", got)
			}
			assert.Zero(t, a.Stats().Errors, "%v", a.Errors())
		})
	}
}

// The worked example through the engine: both rules, with their levels
// (one overridden by ID) and the subject they are about.
func TestAdvisorExample(t *testing.T) {
	ix, err := registry.Default()
	require.NoError(t, err)
	s := load(t, ix, policy.Options{}, "testdata/example")
	// A policy's own ID takes finding_level_overrides like a built-in one.
	rules, err := findingrules.Compile(nil, []findingrules.LevelOverride{{IDs: []string{"acme_no_test_keys"}, Level: "improvement"}})
	require.NoError(t, err)
	a := policy.NewAdvisor(s, policy.AdvisorOptions{})
	e := readOnlyEngine(a, true, rules)
	td := ptrace.NewTraces()
	sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetName("GET /cart")
	sp.Attributes().PutStr("url.full", "https://bob:secret@shop.example/cart")
	sp.Attributes().PutStr("acme.test_run", "42")
	w := e.Walker(ix, true)
	defer e.Release(w)
	w.Traces(td)
	b := w.Batch()
	got := map[string]engine.FindingTally{}
	for _, f := range b.Findings {
		if f.ID != "" {
			got[f.ID] = f
		}
	}
	require.Len(t, got, 2, "%v", got)
	assert.Equal(t, "url.full", got["acme_url_credentials"].Name)
	assert.Equal(t, vocab.LevelViolation, got["acme_url_credentials"].Level)
	assert.Equal(t, "acme.test_run", got["acme_no_test_keys"].Name)
	assert.Equal(t, vocab.LevelImprovement, got["acme_no_test_keys"].Level)
	assert.Equal(t, vocab.SubjectKey, got["acme_no_test_keys"].Subject)
	require.Len(t, b.Advice, 2)
	for _, at := range b.Advice {
		assert.Equal(t, int64(1), at.Count, at.ID)
	}
}

// The budget bounds the value-dependent evaluations per second and counts
// what it skipped; the value-free policies are not budgeted.
func TestAdvisorBudget(t *testing.T) {
	ix, err := registry.Default()
	require.NoError(t, err)
	s := load(t, ix, policy.Options{}, "testdata/example")
	now := time.Unix(1000, 0)
	a := policy.NewAdvisor(s, policy.AdvisorOptions{BudgetPerSecond: 2, Now: func() time.Time { return now }})
	e := readOnlyEngine(a, false)
	td := ptrace.NewTraces()
	sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.Attributes().PutStr("acme.test_run", "42")
	sp.Attributes().PutStr("url.full", "https://bob:secret@shop.example/cart")
	walk := func() map[string]int64 {
		w := e.Walker(ix, true)
		defer e.Release(w)
		w.Traces(td)
		n := map[string]int64{}
		for _, at := range w.Batch().Advice {
			n[at.ID] += at.Count
		}
		return n
	}
	// The examples fire on attributes only (Set.FiresOn): 2 samples, each
	// a value-free group (memo) and a value-dependent one. The memo's
	// misses spend the budget too: acme.test_run takes both (its name rule
	// fires), url.full is skipped (2 skips).
	assert.Equal(t, map[string]int64{"acme_no_test_keys": 1}, walk())
	assert.Equal(t, int64(2), a.Stats().BudgetSkips)
	// The same second: acme.test_run's name rule answers from the memo
	// without budget; every evaluation is skipped (3).
	assert.Equal(t, map[string]int64{"acme_no_test_keys": 1}, walk(), "the budget of this second is spent")
	assert.Equal(t, int64(5), a.Stats().BudgetSkips)
	// A new second: acme.test_run's value rule takes 1, url.full's name
	// rule the other; url.full's value rule is skipped (1).
	now = now.Add(time.Second)
	assert.Equal(t, map[string]int64{"acme_no_test_keys": 1}, walk())
	assert.Equal(t, int64(6), a.Stats().BudgetSkips)
	// The same second: both name rules answer from the memo, both value
	// rules are skipped (2).
	assert.Equal(t, map[string]int64{"acme_no_test_keys": 1}, walk())
	assert.Equal(t, int64(8), a.Stats().BudgetSkips)
	// A new second: both value rules run; url.full's fires.
	now = now.Add(time.Second)
	assert.Equal(t, map[string]int64{"acme_no_test_keys": 1, "acme_url_credentials": 1}, walk())
	assert.Equal(t, int64(8), a.Stats().BudgetSkips)
	assert.Positive(t, a.Stats().MemoHits)
}
