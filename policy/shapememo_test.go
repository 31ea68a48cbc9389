package policy_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/engine/enginetest"
	"github.com/otelgov/otelcol-governance/policy"
	"github.com/otelgov/otelcol-governance/registry"
)

// plainAdvisor hides the engine.ShapeAdvisor of an Advisor: an engine
// with it walks with the shape memo off, every attribute offered (the
// engine before the memo kept policy findings).
type plainAdvisor struct{ a engine.Advisor }

func (p plainAdvisor) Advise(s *engine.Sample, dst []engine.Advice) []engine.Advice {
	return p.a.Advise(s, dst)
}

// copySink keeps every finding event, with copies of its strings.
type copySink struct{ events []engine.FindingEvent }

func (s *copySink) Emit(ev *engine.FindingEvent) bool {
	c := *ev
	c.ID, c.Name, c.SignalName, c.Service = strings.Clone(c.ID), strings.Clone(c.Name), strings.Clone(c.SignalName), strings.Clone(c.Service)
	s.events = append(s.events, c)
	return true
}

// batchGen builds random batches whose attribute maps repeat their shapes
// (a pool of key sequences) with random value types: registry keys, keys
// that otel.rego or the name rule flag (no namespace, bad format, a
// namespace colliding with an attribute, "test"), and fresh keys.
type batchGen struct {
	r    *rand.Rand
	keys []string
	pool [][]string
}

func newBatchGen(seed uint64, ix *registry.Index) *batchGen {
	g := &batchGen{r: rand.New(rand.NewPCG(seed, seed^0x5eed))} //nolint:gosec // a test's reproducible randomness
	for i, a := range ix.Attributes() {
		if i%9 == 0 && !a.Template {
			g.keys = append(g.keys, a.Key)
		}
	}
	g.keys = append(g.keys, "nonamespace", "Bad-Key", "app.TestRun", "acme.test_run", "http.request.method.extra",
		"server.address.x", "app.tenant.id", "shop.latest", "url.full")
	for range 40 {
		g.pool = append(g.pool, g.shape())
	}
	return g
}

func (g *batchGen) shape() []string {
	n := 1 + g.r.IntN(10)
	ks := make([]string, 0, n)
	for len(ks) < n {
		k := g.keys[g.r.IntN(len(g.keys))]
		if g.r.IntN(12) == 0 {
			k = fmt.Sprintf("app.fresh%d.test", g.r.IntN(1<<20))
		}
		if !slices.Contains(ks, k) {
			ks = append(ks, k)
		}
	}
	return ks
}

func (g *batchGen) fill(m pcommon.Map) {
	ks := g.pool[g.r.IntN(len(g.pool))]
	if g.r.IntN(10) == 0 {
		ks = g.shape()
	}
	for _, k := range ks {
		v := m.PutEmpty(k)
		switch g.r.IntN(10) {
		case 0:
			v.SetInt(int64(g.r.IntN(9)))
		case 1:
			v.SetDouble(1.5)
		case 2:
			v.SetBool(true)
		case 3:
			s := v.SetEmptySlice()
			for range g.r.IntN(3) {
				s.AppendEmpty().SetStr("x")
			}
		default:
			v.SetStr("v")
		}
	}
}

func (g *batchGen) resource(r pcommon.Resource) {
	r.Attributes().PutStr("service.name", []string{"cart", "shop"}[g.r.IntN(2)])
	if g.r.IntN(2) == 0 {
		g.fill(r.Attributes())
	}
}

func (g *batchGen) batch(i int) any {
	switch i % 3 {
	case 0:
		td := ptrace.NewTraces()
		rs := td.ResourceSpans().AppendEmpty()
		g.resource(rs.Resource())
		ss := rs.ScopeSpans().AppendEmpty()
		if g.r.IntN(3) == 0 {
			g.fill(ss.Scope().Attributes())
		}
		for range 1 + g.r.IntN(10) {
			sp := ss.Spans().AppendEmpty()
			sp.SetName([]string{"GET /cart", "SELECT", "BadSpan"}[g.r.IntN(3)])
			g.fill(sp.Attributes())
			if g.r.IntN(4) == 0 {
				ev := sp.Events().AppendEmpty()
				ev.SetName("exception")
				g.fill(ev.Attributes())
			}
		}
		return td
	case 1:
		md := pmetric.NewMetrics()
		rm := md.ResourceMetrics().AppendEmpty()
		g.resource(rm.Resource())
		sm := rm.ScopeMetrics().AppendEmpty()
		for range 1 + g.r.IntN(6) {
			m := sm.Metrics().AppendEmpty()
			m.SetName([]string{"http.server.request.duration", "app.Bad-Metric", "db.client.operation.duration"}[g.r.IntN(3)])
			g.fill(m.SetEmptyGauge().DataPoints().AppendEmpty().Attributes())
		}
		return md
	default:
		ld := plog.NewLogs()
		rl := ld.ResourceLogs().AppendEmpty()
		g.resource(rl.Resource())
		sl := rl.ScopeLogs().AppendEmpty()
		for range 1 + g.r.IntN(10) {
			lr := sl.LogRecords().AppendEmpty()
			lr.SetEventName([]string{"", "exception", "session.start"}[g.r.IntN(3)])
			g.fill(lr.Attributes())
		}
		return ld
	}
}

// typeRule reports the namespaced keys of a value that is no string.
const typeRule = `package live_check_advice

import rego.v1

deny contains {
	"id": "acme_typed",
	"level": "information",
	"message": "not a string",
	"context": {"attribute_key": input.sample.attribute.name},
} if {
	input.sample.attribute
	contains(input.sample.attribute.name, ".")
	input.sample.attribute.type != "string"
}
`

// logValueRule reports the logs without an event name that have no
// severity: it reads a value, and fires on logs only (Set.FiresOn).
const logValueRule = `package live_check_advice

import rego.v1

deny contains {
	"id": "acme_log_severity",
	"level": "information",
	"message": "a log without severity",
	"context": {},
} if {
	input.sample.log
	input.sample.log.event_name == ""
	input.sample.log.severity_number == 0
}
`

// nameRuleDir is a directory holding the example's name rule alone
// (testdata/example/names.rego), value-free.
func nameRuleDir(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/example/names.rego")
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "names.rego"), b, 0o600)) //nolint:gosec // a test's temporary directory
	return dir
}

func walkCopy(e *engine.Engine, ix *registry.Index, batch any) engine.Batch {
	w := e.Walker(ix, true)
	defer e.Release(w)
	switch b := batch.(type) {
	case ptrace.Traces:
		w.Traces(b)
	case pmetric.Metrics:
		w.Metrics(b)
	case plog.Logs:
		w.Logs(b)
	}
	b := *w.Batch()
	b.Services = slices.Clone(b.Services)
	b.Keys = slices.Clone(b.Keys)
	b.Findings = slices.Clone(b.Findings)
	b.Signals = slices.Clone(b.Signals)
	b.Advice = slices.Clone(b.Advice)
	b.Relevelled = slices.Clone(b.Relevelled)
	// Work saved, as the memos' hits: the samples the walk answered from
	// an earlier one of the batch (the memo off, it asks every time).
	b.AdviceRepeats = 0
	for i := range b.Advice {
		b.Advice[i].ID = strings.Clone(b.Advice[i].ID)
	}
	return b
}

// Weaver's otel.rego and the name rule (testdata/example/names.rego),
// value-free both, through the engine with the shape memo on (the
// policies' attribute findings kept in its entries) and off: randomized
// batches of every signal give the same tallies, policy findings and sink
// events. With the memo on, the policies are asked for the attributes of
// new shapes only.
func TestShapeMemoWithOtelRego(t *testing.T) {
	ix, err := registry.Default()
	require.NoError(t, err)
	dir := nameRuleDir(t)
	// A value-free rule on the inferred type: the entries' type guards
	// hold it.
	typeDir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(typeDir, "types.rego"), []byte(typeRule), 0o600))
	// A value-dependent rule that fires on logs only: the attributes'
	// findings stay value-free, and the memo keeps them.
	logDir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(logDir, "logs.rego"), []byte(logValueRule), 0o600))
	for _, tc := range []struct {
		name   string
		budget int
		dirs   []string
		dep    bool // a value-dependent policy is loaded
	}{
		{"no_budget", 0, []string{dir}, false},
		{"budget", 10, []string{dir}, false},
		{"type_rule", 0, []string{dir, typeDir}, false},
		{"log_value_rule", 0, []string{dir, logDir}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := load(t, ix, policy.Options{}, append([]string{weaverPolicies + "/default"}, tc.dirs...)...)
			require.Equal(t, tc.dep, s.HasValueDependent())
			require.True(t, policy.NewAdvisor(s, policy.AdvisorOptions{}).AttrsShapeFree())
			// One Advisor per engine, each with its own budget: with a
			// budget, the batches in which either skipped an evaluation
			// are not compared (the budget's findings differ by design);
			// those the memo recorded then are not kept (AdviseKept).
			now := time.Unix(1000, 0)
			clock := func() time.Time { return now }
			var a [2]*policy.Advisor
			var sinks [2]*copySink
			var engines [2]*engine.Engine
			for i := range engines {
				a[i] = policy.NewAdvisor(s, policy.AdvisorOptions{BudgetPerSecond: tc.budget, Now: clock})
				sinks[i] = &copySink{}
				o := engine.Options{
					Deprecated: engine.DeprecatedOff, Unknown: engine.UnknownKeep, TypeMismatch: engine.TypeMismatchKeep,
					EnumViolation: engine.EnumViolationKeep, Findings: true, Detail: true, Sink: sinks[i], Advisor: a[i],
				}
				if i == 1 {
					o.Advisor = plainAdvisor{a[i]}
				}
				engines[i] = engine.New(o)
			}
			g := newBatchGen(uint64(len(tc.name)), ix)
			compared, advice := 0, int64(0)
			for it := range 600 {
				b := g.batch(it)
				if it%4 == 0 {
					now = now.Add(time.Second)
				}
				var tallies [2]engine.Batch
				var skips [2]int64
				for i, e := range engines {
					sinks[i].events = sinks[i].events[:0]
					before := a[i].Stats().BudgetSkips
					tallies[i] = walkCopy(e, ix, b)
					skips[i] = a[i].Stats().BudgetSkips - before
				}
				if skips[0]+skips[1] > 0 {
					continue
				}
				compared++
				require.Equal(t, tallies[1], tallies[0], "iteration %d: tally", it)
				require.Equal(t, sinks[1].events, sinks[0].events, "iteration %d: sink", it)
				for _, at := range tallies[0].Advice {
					advice += at.Count
				}
			}
			st := engines[0].MemoStats()
			t.Logf("%d batches compared, %d policy findings; shape memo %+v; advisor on %+v, off %+v", compared, advice, st, a[0].Stats(), a[1].Stats())
			assert.Positive(t, advice)
			assert.Positive(t, compared)
			assert.Positive(t, st.Hits)
			assert.Zero(t, engines[1].MemoStats().Hits+engines[1].MemoStats().Misses, "the memo is off without a ShapeAdvisor")
			if tc.budget == 0 {
				assert.Equal(t, 600, compared)
				assert.Less(t, a[0].Stats().MemoHits, a[1].Stats().MemoHits, "shape hits ask no policy")
				assert.Zero(t, a[0].Stats().Errors)
			}
		})
	}
}

// A Set with a value-dependent policy (values.rego) keeps the shape memo
// off: every attribute is offered with its value.
func TestShapeMemoOffWithValueRule(t *testing.T) {
	ix, err := registry.Default()
	require.NoError(t, err)
	a := policy.NewAdvisor(load(t, ix, policy.Options{}, weaverPolicies+"/default", "testdata/example"), policy.AdvisorOptions{})
	require.False(t, a.AttrsShapeFree())
	e := readOnlyEngine(a, false)
	td := enginetest.GenTraces(20, enginetest.MixConformant)
	for range 10 {
		w := e.Walker(ix, true)
		w.Traces(td)
		e.Release(w)
	}
	assert.Zero(t, e.MemoStats().Hits)
	assert.Zero(t, e.MemoStats().Misses)
}

// TestAdvisorMemoHitAllocates0: a sample answered from the Set's memo (a
// metric, an attribute) builds no Input and allocates nothing; nor does a
// sample on which no policy can fire (a span: otel.rego and the name rule
// fire on attributes and metrics), which counts no memo hit.
func TestAdvisorMemoHitAllocates0(t *testing.T) {
	ix, err := registry.Default()
	require.NoError(t, err)
	a := policy.NewAdvisor(load(t, ix, policy.Options{}, weaverPolicies+"/default", nameRuleDir(t)), policy.AdvisorOptions{BudgetPerSecond: 1000})
	sp := ptrace.NewSpan()
	sp.SetName("GET /cart")
	m := pmetric.NewMetric()
	m.SetName("Bad-Metric")
	m.SetUnit("s")
	m.SetEmptyGauge()
	res := pcommon.NewResource()
	for _, s := range []engine.Sample{
		{Kind: engine.SampleSpan, Resource: res, Span: sp, SignalType: "span", SignalName: sp.Name()},
		{Kind: engine.SampleMetric, Resource: res, Metric: m, SignalType: "metric", SignalName: m.Name()},
		{Kind: engine.SampleAttribute, Resource: res, Key: "Bad-Key", Value: pcommon.NewValueStr("x")},
	} {
		dst, kept := a.AdviseKept(&s, nil)
		require.True(t, kept)
		hits := a.Stats().MemoHits
		allocs := testing.AllocsPerRun(100, func() { dst, kept = a.AdviseKept(&s, dst[:0]) })
		assert.Zero(t, allocs, s.Kind.String())
		assert.True(t, kept)
		want := hits + 101
		if s.Kind == engine.SampleSpan {
			want = hits
		}
		assert.Equal(t, want, a.Stats().MemoHits, s.Kind.String())
		if s.Kind != engine.SampleSpan {
			assert.NotEmpty(t, dst, s.Kind.String())
		}
	}
}
