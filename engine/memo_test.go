package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/engine/enginetest"
	"github.com/otelgov/otelcol-governance/findingrules"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// eventSink keeps every finding event offered to it, with copies of
// its strings; every other one is refused, which closes it for the batch
// as a rate limit would.
type eventSink struct {
	events []FindingEvent
	budget int
}

func (s *eventSink) Emit(ev *FindingEvent) bool {
	if s.budget > 0 && len(s.events) >= s.budget {
		return false
	}
	c := *ev
	c.Name, c.SignalName, c.Service = strings.Clone(c.Name), strings.Clone(c.SignalName), strings.Clone(c.Service)
	s.events = append(s.events, c)
	return true
}

// shapeGen builds random attribute maps over a registry: current,
// deprecated, enum, template and unknown keys, in random orders and with
// random value types and enum values, drawn from a pool of shapes so that
// shapes repeat.
type shapeGen struct {
	r           *rand.Rand
	keys        []*registry.Attribute
	metricNames []string
	pool        [][]string
}

func newShapeGen(seed uint64, ix *registry.Index) *shapeGen {
	g := &shapeGen{r: rand.New(rand.NewPCG(seed, seed^0x9e37))} //nolint:gosec // a test's reproducible randomness
	attrs := ix.Attributes()
	// Every kind of entry, and a sample of the rest.
	for _, a := range attrs {
		if a.Template || a.Placeholder || a.Migration != nil || a.DeprecatedMembers != nil || isEnum(a) ||
			a.Deprecation.Reason != registry.NotDeprecated || g.r.IntN(8) == 0 {
			g.keys = append(g.keys, a)
		}
	}
	for _, m := range ix.Metrics() {
		if g.r.IntN(4) == 0 || m.RenamedTo != "" {
			g.metricNames = append(g.metricNames, m.Name)
		}
	}
	g.metricNames = append(g.metricNames, "app.unknown.metric", "Bad Name")
	for range 60 {
		g.pool = append(g.pool, g.newShape())
	}
	return g
}

func (g *shapeGen) key() string {
	switch g.r.IntN(10) {
	case 0:
		return []string{"app.custom", "nonamespace", "Bad-Key", "shop.peer", "http.request.header.x-id", "app.tenant.id"}[g.r.IntN(6)]
	case 1:
		return fmt.Sprintf("app.random.%d", g.r.IntN(1<<30))
	}
	a := g.keys[g.r.IntN(len(g.keys))]
	if a.Template {
		return a.Key + "." + []string{"content-type", "x-forwarded-for", fmt.Sprint(g.r.IntN(1000))}[g.r.IntN(3)]
	}
	return a.Key
}

func (g *shapeGen) newShape() []string {
	n := 1 + g.r.IntN(14)
	ks := make([]string, 0, n)
	for len(ks) < n {
		if k := g.key(); !slices.Contains(ks, k) {
			ks = append(ks, k)
		}
	}
	return ks
}

// fill puts a shape's keys, from the pool or new, with random values.
func (g *shapeGen) fill(m pcommon.Map, ix *registry.Index) {
	ks := g.pool[g.r.IntN(len(g.pool))]
	if g.r.IntN(10) == 0 {
		ks = g.newShape()
	}
	for _, k := range ks {
		g.value(m.PutEmpty(k), ix.Lookup(k))
	}
}

func (g *shapeGen) value(v pcommon.Value, a *registry.Attribute) {
	t := registry.TypeString
	if a != nil && g.r.IntN(8) != 0 {
		t = a.Type
	}
	if g.r.IntN(12) == 0 {
		t = registry.Type(g.r.UintN(uint(registry.TypeBooleanArray) + 1)) //nolint:gosec // < 16
	}
	switch t {
	case registry.TypeInt:
		if a != nil && a.EnumInts != nil && g.r.IntN(3) != 0 {
			v.SetInt(a.EnumInts[g.r.IntN(len(a.EnumInts))])
			return
		}
		v.SetInt(int64(g.r.IntN(600)))
	case registry.TypeDouble:
		v.SetDouble(g.r.Float64())
	case registry.TypeBoolean:
		v.SetBool(g.r.IntN(2) == 0)
	case registry.TypeStringArray, registry.TypeIntArray, registry.TypeDoubleArray, registry.TypeBooleanArray:
		s := v.SetEmptySlice()
		for range g.r.IntN(3) {
			if g.r.IntN(2) == 0 {
				s.AppendEmpty().SetStr("x")
			} else {
				s.AppendEmpty().SetInt(1)
			}
		}
	default:
		switch {
		case a != nil && a.EnumStrings != nil && g.r.IntN(3) != 0:
			v.SetStr(a.EnumStrings[g.r.IntN(len(a.EnumStrings))])
		case a != nil && len(a.DeprecatedMembers) > 0 && g.r.IntN(2) == 0:
			v.SetStr(a.DeprecatedMembers[g.r.IntN(len(a.DeprecatedMembers))].Value)
		case a != nil && a.Migration != nil && a.Migration.Values != nil && g.r.IntN(2) == 0:
			for s := range a.Migration.Values {
				v.SetStr(s)
				break
			}
		default:
			v.SetStr([]string{"200", "true", "1.5", "GET", "a/b", "x"}[g.r.IntN(6)])
		}
	}
}

func (g *shapeGen) resource(res pcommon.Resource, ix *registry.Index) {
	m := res.Attributes()
	m.PutStr("service.name", []string{"cart", "shop", "auth"}[g.r.IntN(3)])
	if g.r.IntN(2) == 0 {
		g.fill(m, ix)
	}
}

func (g *shapeGen) traces(ix *registry.Index) ptrace.Traces {
	td := ptrace.NewTraces()
	for range 1 + g.r.IntN(2) {
		rs := td.ResourceSpans().AppendEmpty()
		g.resource(rs.Resource(), ix)
		ss := rs.ScopeSpans().AppendEmpty()
		if g.r.IntN(3) == 0 {
			g.fill(ss.Scope().Attributes(), ix)
		}
		for range 1 + g.r.IntN(12) {
			sp := ss.Spans().AppendEmpty()
			sp.SetName([]string{"GET /cart", "SELECT", "publish"}[g.r.IntN(3)])
			sp.SetKind(ptrace.SpanKind(g.r.Int32N(6)))
			if g.r.IntN(4) == 0 {
				sp.Status().SetCode(ptrace.StatusCodeError)
			}
			g.fill(sp.Attributes(), ix)
			if g.r.IntN(4) == 0 {
				ev := sp.Events().AppendEmpty()
				ev.SetName([]string{"exception", "retry"}[g.r.IntN(2)])
				g.fill(ev.Attributes(), ix)
			}
			if g.r.IntN(6) == 0 {
				g.fill(sp.Links().AppendEmpty().Attributes(), ix)
			}
		}
	}
	return td
}

func (g *shapeGen) metrics(ix *registry.Index) pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	g.resource(rm.Resource(), ix)
	sm := rm.ScopeMetrics().AppendEmpty()
	for range 1 + g.r.IntN(8) {
		m := sm.Metrics().AppendEmpty()
		m.SetName(g.metricNames[g.r.IntN(len(g.metricNames))])
		if md := ix.Metric(m.Name()); md != nil && g.r.IntN(2) == 0 {
			m.SetUnit(md.Unit)
		}
		for range 1 + g.r.IntN(4) {
			switch g.r.IntN(4) {
			case 0:
				dp := m.SetEmptyGauge().DataPoints().AppendEmpty()
				g.fill(dp.Attributes(), ix)
			case 1:
				s := m.SetEmptySum()
				s.SetIsMonotonic(g.r.IntN(2) == 0)
				dp := s.DataPoints().AppendEmpty()
				g.fill(dp.Attributes(), ix)
				if g.r.IntN(3) == 0 {
					g.fill(dp.Exemplars().AppendEmpty().FilteredAttributes(), ix)
				}
			case 2:
				g.fill(m.SetEmptyHistogram().DataPoints().AppendEmpty().Attributes(), ix)
			default:
				g.fill(m.SetEmptySummary().DataPoints().AppendEmpty().Attributes(), ix)
			}
		}
	}
	return md
}

func (g *shapeGen) logs(ix *registry.Index) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	g.resource(rl.Resource(), ix)
	sl := rl.ScopeLogs().AppendEmpty()
	for range 1 + g.r.IntN(12) {
		lr := sl.LogRecords().AppendEmpty()
		if g.r.IntN(2) == 0 {
			lr.SetEventName([]string{"exception", "app.started", "session.start", ""}[g.r.IntN(4)])
		}
		g.fill(lr.Attributes(), ix)
	}
	return ld
}

// memoVariants are the option sets the memo is compared under.
func memoVariants() map[string]config {
	base := config{Options: defaultOptions(), Registry: registry.Sources{Embedded: true}}
	base.Findings = true
	orgRegistry(&base)
	v := map[string]config{}
	add := func(name string, f func(c *config)) {
		c := base
		f(&c)
		v[name] = c
	}
	add("default", func(*config) {})
	add("detail", func(c *config) { c.Detail = true })
	add("detail_sink", func(c *config) { c.Detail = true })
	add("default_sink", func(*config) {})
	add("checks_off", func(c *config) { c.Findings = false })
	add("checks_off_detail", func(c *config) { c.Findings = false; c.Detail = true })
	add("extended_detail", func(c *config) { c.Profile = vocab.ProfileExtended; c.Detail = true })
	add("extended_detail_sink", func(c *config) { c.Profile = vocab.ProfileExtended; c.Detail = true })
	add("copy_coerce_drop", func(c *config) {
		c.Deprecated, c.TypeMismatch, c.Unknown = DeprecatedCopy, TypeMismatchCoerce, UnknownDrop
		c.EnumViolation, c.ClosedEnums = EnumViolationDrop, []string{"http.request.method", "rpc.system"}
		c.DropUnexpected, c.AllowPrefixes, c.Detail = true, []string{"app.tenant."}, true
	})
	// Renames and drops in one map: a hit applies the entry's renames by
	// position, and a drop moves the positions.
	add("rename_drop_coerce", func(c *config) {
		c.TypeMismatch, c.Unknown, c.DropUnexpected = TypeMismatchCoerce, UnknownDrop, true
	})
	add("off_drop_mismatch", func(c *config) {
		c.Deprecated, c.TypeMismatch = DeprecatedOff, TypeMismatchDrop
		c.Rules = mustRules(nil, []findingrules.LevelOverride{{IDs: []string{"not_stable"}, Level: "violation"}})
	})
	// Weaver's finding modifier: unscoped rules read the finding ID only,
	// scoped ones the sample's signal type and name (span, metric and event
	// names: the memo's context then holds them).
	add("rules_unscoped_detail", func(c *config) {
		c.Detail = true
		c.Rules = mustRules(
			[]findingrules.Filter{{Exclude: []string{"missing_namespace"}}},
			[]findingrules.LevelOverride{{IDs: []string{"deprecated", "not_stable"}, Level: "information"}})
	})
	// Per-name deprecated modes (an upgrade's transition): listed keys,
	// value-migrating ones among them, copied, renamed or left over the
	// global mode, so an entry's plan and its value checks ask each key's
	// own mode.
	perName := perNameModes()
	add("per_name_modes_detail", func(c *config) { c.DeprecatedNames, c.Detail = perName, true })
	add("per_name_modes_over_copy", func(c *config) { c.Deprecated, c.DeprecatedNames = DeprecatedCopy, perName })
	// A ShapeAdvisor: its findings on attributes are kept in the entries.
	add("advisor", func(c *config) { c.Advisor = newShapeAdvisor() })
	add("advisor_type_free", func(c *config) {
		a := newShapeAdvisor()
		a.typeFree.Store(true)
		c.Detail, c.Advisor = true, a
	})
	add("advisor_detail_sink", func(c *config) { c.Detail, c.Advisor = true, newShapeAdvisor() })
	add("advisor_rules_scoped_detail", func(c *config) {
		c.Detail, c.Advisor = true, newShapeAdvisor()
		c.Rules = mustRules(
			[]findingrules.Filter{{Exclude: []string{"fake_int"}, SignalType: "log"}},
			[]findingrules.LevelOverride{{IDs: []string{"fake_long_key", "missing_namespace"}, Level: "violation", SignalType: "metric"}})
	})
	for _, variant := range []string{"", "_sink", "_extended", "_extended_sink"} {
		add("rules_scoped_detail"+variant, func(c *config) {
			c.Detail = true
			if strings.Contains(variant, "extended") {
				c.Profile = vocab.ProfileExtended
			}
			c.Rules = mustRules(
				[]findingrules.Filter{
					{Exclude: []string{"type_mismatch"}, SignalType: "span"},
					{ExcludeSamples: []string{"GET*", "db.*"}},
					{MinLevel: "improvement", SampleNames: []string{"exception", "app.*"}},
				},
				[]findingrules.LevelOverride{
					{IDs: []string{"deprecated"}, Level: "violation", SignalType: "log"},
					{IDs: []string{"not_stable", "missing_attribute"}, Level: "information", SampleNames: []string{"SELECT", "http.*"}},
					{IDs: []string{"undefined_enum_variant"}, Level: "violation", SignalType: "metric"},
					// Findings on the sample, not the attribute: the rule
					// reads the event's, span's or metric's name.
					{IDs: []string{"unexpected_attribute"}, Level: "violation", SampleNames: []string{"exception", "SELECT", "http.server.*"}},
				})
		})
	}
	return v
}

// mustRules compiles finding rules for a variant.
func mustRules(filters []findingrules.Filter, overrides []findingrules.LevelOverride) *findingrules.Rules {
	r, err := findingrules.Compile(filters, overrides)
	if err != nil {
		panic(err)
	}
	return r
}

// TestMemoMatchesFullWalk compares the memoized walk against the full walk
// (the memo off) on randomized batches of every signal: the resulting
// pdata, the Batch tallies and the findings a sink sees must be the same.
// With renames on, some entries' plans hold renames whose values migrate
// (memoAbsorb), and the test requires that some do.
func TestMemoMatchesFullWalk(t *testing.T) {
	iterations := 400
	if testing.Short() {
		iterations = 100
	}
	// Three rounds, each with new engines (the memo's hash seed is random:
	// shapes land in other sets) and other batches.
	for round := range 3 {
		for name, c := range memoVariants() {
			t.Run(fmt.Sprintf("%s/round=%d", name, round), func(t *testing.T) {
				memoMatchesFullWalk(t, name, c, uint64(len(name)+1000*round), iterations) //nolint:gosec // small and positive
			})
		}
	}
}

// memoMatchesFullWalk is one variant and round of TestMemoMatchesFullWalk.
func memoMatchesFullWalk(t *testing.T, name string, c config, seed uint64, iterations int) {
	ix, err := registry.Load(c.Registry)
	require.NoError(t, err)
	sinks := [2]*eventSink{{budget: 1 << 30}, {budget: 1 << 30}}
	var engines [2]*Engine
	for i := range engines {
		o := c.Options
		// A sink sees every finding with its context; the variants
		// without one take the report's per-batch shortcut.
		if strings.HasSuffix(name, "_sink") {
			o.Sink = sinks[i]
		}
		engines[i] = New(o)
	}
	memo, full := engines[0], engines[1]
	full.memo = nil
	g := newShapeGen(seed, ix)
	var advice int64
	planned, tailPlanned := 0, 0
	for it := range iterations {
		var batches [2]any
		readOnly := it%7 == 3
		switch it % 3 {
		case 0:
			td := g.traces(ix)
			c2 := ptrace.NewTraces()
			td.CopyTo(c2)
			batches = [2]any{td, c2}
		case 1:
			md := g.metrics(ix)
			c2 := pmetric.NewMetrics()
			md.CopyTo(c2)
			batches = [2]any{md, c2}
		default:
			ld := g.logs(ix)
			c2 := plog.NewLogs()
			ld.CopyTo(c2)
			batches = [2]any{ld, c2}
		}
		var tallies [2]Batch
		for i, e := range engines {
			sinks[i].events = sinks[i].events[:0]
			tallies[i] = walkInto(e, ix, batches[i], readOnly)
		}
		require.Equal(t, dump(batches[1]), dump(batches[0]), "iteration %d: pdata", it)
		require.Equal(t, tallies[1], tallies[0], "iteration %d: tally", it)
		require.Equal(t, sinks[1].events, sinks[0].events, "iteration %d: sink", it)
		for _, at := range tallies[0].Advice {
			advice += at.Count
		}
		p, tp := memoPlans(memo)
		planned, tailPlanned = max(planned, p), max(tailPlanned, tp)
	}
	if c.Advisor != nil {
		t.Logf("%s: %d advisor findings", name, advice)
		assert.Positive(t, advice, "advisor findings")
	}
	st := memo.MemoStats()
	t.Logf("%s: %+v, plans %d, with value checks' renames %d", name, st, planned, tailPlanned)
	assert.Positive(t, st.Hits, "hits")
	assert.Positive(t, st.Misses, "misses")
	assert.Positive(t, st.Entries, "entries")
	if c.Deprecated == DeprecatedRename {
		// Renames by value checks (a value that migrates with its key)
		// are laid out by plans, as the entry's own are.
		assert.Positive(t, tailPlanned, "plans with value checks' renames")
	}
	assert.Zero(t, full.MemoStats().Hits)
}

// memoPlans counts the entries of e's memo with a renamePlan, and those
// among them whose plan holds renames that value checks make (memoPlan).
func memoPlans(e *Engine) (plans, tails int) {
	for i := range e.memo.sets {
		for j := range e.memo.sets[i].ways {
			if en := e.memo.sets[i].ways[j].Load(); en != nil && en.plan != nil {
				plans++
				if en.planTails > 0 {
					tails++
				}
			}
		}
	}
	return plans, tails
}

// walkInto walks one batch and returns a deep copy of its tally.
func walkInto(e *Engine, ix *registry.Index, batch any, readOnly bool) Batch {
	return walkWith(e, e.Walker(ix, readOnly), batch)
}

// walkWith walks one batch with w, a walker of e, releases it and returns
// a deep copy of its tally.
func walkWith(e *Engine, w *Walker, batch any) Batch {
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
	// Work saved, as the memo's hits: the samples the walk answered from
	// an earlier one of the batch (the memo off, it asks every time).
	b.AdviceRepeats = 0
	b.Relevelled = slices.Clone(b.Relevelled)
	return b
}

// dump is a batch's OTLP JSON, map order included.
func dump(batch any) string {
	var b []byte
	var err error
	switch d := batch.(type) {
	case ptrace.Traces:
		b, err = (&ptrace.JSONMarshaler{}).MarshalTraces(d)
	case pmetric.Metrics:
		b, err = (&pmetric.JSONMarshaler{}).MarshalMetrics(d)
	case plog.Logs:
		b, err = (&plog.JSONMarshaler{}).MarshalLogs(d)
	}
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// TestMemoSetIsOneCacheLine: a set, loaded by the walk of every map, fits
// one cache line.
func TestMemoSetIsOneCacheLine(t *testing.T) {
	assert.Equal(t, uintptr(64), unsafe.Sizeof(memoSet{}))
	assert.Zero(t, unsafe.Offsetof(memo{}.sets))
}

// TestMemoHitAllocates0: once the memo knows a batch's shapes, walking
// another batch of them is all hits and allocates nothing, with and
// without the report feed and with renames.
func TestMemoHitAllocates0(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, detail := range []bool{false, true} {
		// MixDeprecatedAll: 13 renames, one value migrating with its key
		// (net.transport=ip_tcp), by plan (memoAbsorb).
		for _, mix := range []enginetest.Mix{enginetest.MixConformant, enginetest.MixRealistic, enginetest.MixDeprecatedAll} {
			t.Run(fmt.Sprintf("detail=%v/mix=%+v", detail, mix), func(t *testing.T) {
				opts := defaultOptions()
				opts.Findings, opts.Detail = true, detail
				e, ix := newTestEngine(t, opts)
				wire := enginetest.TracesBytes(enginetest.GenTraces(20, mix))
				walk := func(td ptrace.Traces) {
					w := e.Walker(ix, false)
					w.Traces(td)
					_ = w.Batch()
					e.Release(w)
				}
				// The shapes are admitted on their second sighting and
				// recorded at a later miss (the admission budget).
				for range 10 {
					walk(enginetest.UnmarshalTraces(wire))
				}
				// Fresh batches, unmarshalled before the runs: the runs walk
				// them one by one.
				batches := make([]ptrace.Traces, 0, 101)
				for range 101 {
					batches = append(batches, enginetest.UnmarshalTraces(wire))
				}
				before := e.MemoStats()
				i := 0
				allocs := testing.AllocsPerRun(100, func() {
					walk(batches[i])
					i++
				})
				after := e.MemoStats()
				assert.Zero(t, allocs)
				assert.Equal(t, before.Misses, after.Misses, "all hits")
				assert.Equal(t, int64(101*21), after.Hits-before.Hits, "a resource and 20 spans per batch (the scope has no attributes)")
			})
		}
	}
}

// TestMemoBypass: a client whose every map has new keys (an unknown key or
// a template instance made of random bytes) sends the walker past the memo
// (memoTry) and admits nothing; a warm-up of more than memoBypassAfter
// shapes, each seen once, does not, and the shapes that then repeat hit.
func TestMemoBypass(t *testing.T) {
	opts := defaultOptions()
	opts.Findings = true
	r := rand.New(rand.NewPCG(7, 8)) //nolint:gosec // a test's reproducible randomness
	// spans makes a batch of n spans, the resource and scope without
	// attributes, span i's attributes put by put(i, m).
	spans := func(n int, put func(i int, m pcommon.Map)) ptrace.Traces {
		td := ptrace.NewTraces()
		ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
		for i := range n {
			s := ss.AppendEmpty()
			s.SetName("op")
			put(i, s.Attributes())
		}
		return td
	}
	// skipped is the number of maps the engine's idle walker sent past
	// the memo.
	skipped := func(e *Engine) int {
		require.Len(t, e.walkers, 1)
		return e.walkers[0].memo.skip
	}
	for name, churn := range map[string]func(m pcommon.Map){
		"unknown":  func(m pcommon.Map) { m.PutStr(fmt.Sprintf("app.k%016x", r.Uint64()), "v") },
		"template": func(m pcommon.Map) { m.PutStr(fmt.Sprintf("http.request.header.x-%016x", r.Uint64()), "v") },
	} {
		t.Run("churn="+name, func(t *testing.T) {
			e, ix := newTestEngine(t, opts)
			for range 10 {
				walkInto(e, ix, spans(100, func(_ int, m pcommon.Map) {
					m.PutStr("url.scheme", "https")
					churn(m)
					m.PutInt("server.port", 443)
				}), false)
			}
			st := e.MemoStats()
			assert.Zero(t, st.Hits)
			assert.Equal(t, int64(1000), st.Misses)
			assert.Zero(t, st.Entries, "new keys with every map were admitted")
			// 64 maps go through the memo, then one in 16 of the others.
			assert.Equal(t, 1000-memoBypassAfter, skipped(e), "maps walked past the memo")
		})
	}
	t.Run("warm-up", func(t *testing.T) {
		e, ix := newTestEngine(t, opts)
		// 200 shapes, each of three current keys of the registry.
		var keys []*registry.Attribute
		for _, a := range ix.Attributes() {
			if !a.Template && !a.Placeholder && a.Deprecation.Reason == registry.NotDeprecated && a.Type == registry.TypeString && !isEnum(a) {
				keys = append(keys, a)
			}
		}
		require.Greater(t, len(keys), 202)
		const n = 200
		td := spans(n, func(i int, m pcommon.Map) {
			for _, a := range keys[i : i+3] {
				m.PutStr(a.Key, "v")
			}
		})
		walk := func() (hits int64) {
			before := e.MemoStats().Hits
			c := ptrace.NewTraces()
			td.CopyTo(c)
			walkInto(e, ix, c, false)
			return e.MemoStats().Hits - before
		}
		// The first walk sees every shape once: more than memoBypassAfter
		// misses in a row, none of them a second sighting.
		walk()
		assert.Equal(t, n-memoBypassAfter, skipped(e), "first walk: maps past the memo")
		// The second walk's first map sampled by the bypass is a second
		// sighting: it ends the bypass, which does not come back.
		walk()
		second := skipped(e)
		assert.Less(t, second, n-memoBypassAfter+memoBypassSample, "second walk: maps past the memo")
		// Admitted on the second sighting, recorded on a later miss, at
		// most one recording per memoAdmitEvery misses: the shapes still
		// missing fall by about an eighth with each walk, and every
		// shape hits in the end. (With a doorkeeper of two fingerprints
		// per set, a third of them never did: two shapes of a set pushed
		// each other out of it.)
		hits, walks := int64(0), 2
		for ; walks < 100 && hits < n; walks++ {
			hits = walk()
		}
		t.Logf("after %d walks: %+v", walks, e.MemoStats())
		assert.Equal(t, int64(n), hits, "hits of the last walk")
		assert.Equal(t, int64(n), e.MemoStats().Entries)
		assert.Equal(t, second, skipped(e), "maps past the memo after the second walk")
	})
}

// TestMemoReloadAndConcurrency: walkers share the memo concurrently (run
// with -race), and a walker on another registry Index (a reload) empties
// it: no entry of the old Index is used with the new one.
func TestMemoReloadAndConcurrency(t *testing.T) {
	c := memoVariants()["detail"]
	ix1, err := registry.Load(c.Registry)
	require.NoError(t, err)
	ix2, err := registry.Load(c.Registry)
	require.NoError(t, err)
	require.NotSame(t, ix1, ix2)
	e := New(c.Options)
	full := New(c.Options)
	full.memo = nil
	wire := enginetest.TracesBytes(enginetest.GenTraces(20, enginetest.MixRealistic))
	want := walkInto(full, ix1, enginetest.UnmarshalTraces(wire), false)
	wantKeys, wantRegistry := splitRegistryKeys(want.Keys)
	require.NotEmpty(t, wantRegistry)
	for _, ix := range []*registry.Index{ix1, ix2, ix1} {
		var wg sync.WaitGroup
		got := make([][]Batch, 4)
		for g := range got {
			wg.Go(func() {
				for range 20 {
					got[g] = append(got[g], walkInto(e, ix, enginetest.UnmarshalTraces(wire), false))
				}
			})
		}
		wg.Wait()
		// Each registry key is listed once over the walks of one Index,
		// whichever walker met it first; a reload lists them again.
		listed := map[string]int{}
		for _, bs := range got {
			for _, b := range bs {
				assert.Equal(t, want.Attrs, b.Attrs)
				keys, reg := splitRegistryKeys(b.Keys)
				assert.Equal(t, wantKeys, keys)
				for _, k := range reg {
					listed[k]++
				}
				assert.Equal(t, want.Findings, b.Findings)
			}
		}
		wantListed := map[string]int{}
		for _, k := range wantRegistry {
			wantListed[k] = 1
		}
		assert.Equal(t, wantListed, listed)
		st := e.MemoStats()
		assert.Positive(t, st.Entries)
		for i := range e.memo.sets {
			for j := range e.memo.sets[i].ways {
				if en := e.memo.sets[i].ways[j].Load(); en != nil {
					assert.Same(t, ix, en.ix, "an entry of another registry survived the reload")
				}
			}
		}
	}
	st := e.MemoStats()
	assert.Positive(t, st.Hits)
	assert.LessOrEqual(t, st.Bytes, int64(memoMaxBytes))
}

// TestMemoHitNotesRefs: a memo hit lists the registry keys of its entry
// in the walker's set of listed keys when they are not noted there (the
// set a walker holds can be another than the one the entry was recorded
// under: a walker that started before a reload), and only then.
func TestMemoHitNotesRefs(t *testing.T) {
	c := memoVariants()["detail"]
	ix, err := registry.Load(c.Registry)
	require.NoError(t, err)
	e := New(c.Options)
	wire := enginetest.TracesBytes(enginetest.GenTraces(20, enginetest.MixRealistic))
	var all []string
	for range 4 { // admitted on the second sighting, then hits
		_, reg := splitRegistryKeys(walkInto(e, ix, enginetest.UnmarshalTraces(wire), false).Keys)
		all = append(all, reg...)
	}
	require.NotEmpty(t, all)
	hits := e.MemoStats().Hits
	_, reg := splitRegistryKeys(walkInto(e, ix, enginetest.UnmarshalTraces(wire), false).Keys)
	require.Greater(t, e.MemoStats().Hits, hits)
	assert.Empty(t, reg, "listed before, in the same set")

	e.noted.Store(newNotedKeys(ix))
	hits = e.MemoStats().Hits
	b := walkInto(e, ix, enginetest.UnmarshalTraces(wire), false)
	require.Equal(t, hits+21, e.MemoStats().Hits, "a resource and 20 spans, all hits")
	_, reg = splitRegistryKeys(b.Keys)
	assert.ElementsMatch(t, all, reg, "the hits list them in the new set")
}

// splitRegistryKeys separates a batch's registry keys (listed once per
// engine and Index: notedKeys) from its other keys (listed per batch).
func splitRegistryKeys(keys []KeyTally) (other []KeyTally, registryKeys []string) {
	for _, k := range keys {
		if k.Kind == KeyRegistry {
			registryKeys = append(registryKeys, k.Key)
		} else {
			other = append(other, k)
		}
	}
	return other, registryKeys
}

// TestRenamePlanMade: a memo entry lays its renames out by a plan when they
// are more than a third of its keys (the line rate's 10 of 13), not for a
// few (4 of 13: renameAll's scans cost less), and a hit by plan leaves the
// map as the full walk does.
func TestRenamePlanMade(t *testing.T) {
	for _, tc := range []struct {
		mix  enginetest.Mix
		plan bool
		// tails is the rename a value check makes at every hit: the
		// plan holds it (memoPlan), and a hit takes its op (memoAbsorb).
		tails []string
	}{
		{enginetest.MixLineDeprecated, true, nil},
		{enginetest.MixDeprecated, true, nil}, // 4 renames of 13
		{enginetest.MixRealistic, false, nil}, // 3 of 13
		// net.transport, an enum: its value check renames it at every hit.
		{enginetest.MixDeprecatedAll, true, []string{"network.transport"}},
	} {
		opts := defaultOptions()
		opts.Findings = true
		e, ix := newTestEngine(t, opts)
		wire := enginetest.TracesBytes(enginetest.GenTraces(4, tc.mix))
		td := walkAdmitted(e, ix, wire)
		planned := 0
		var tails []string
		for i := range e.memo.sets {
			for j := range e.memo.sets[i].ways {
				if en := e.memo.sets[i].ways[j].Load(); en != nil && en.plan != nil {
					planned++
					for _, to := range en.renameTo {
						if to != "" {
							tails = append(tails, to)
						}
					}
				}
			}
		}
		assert.Equal(t, tc.plan, planned > 0, "%d renames of %d", tc.mix.Deprecated, enginetest.AttrsPerItem)
		assert.Equal(t, tc.tails, tails, "the renames of value checks in the plan")
		require.Positive(t, e.MemoStats().Hits)
		full, fix := newTestEngine(t, opts)
		full.memo = nil
		requireFullWalkSpans(t, full, fix, wire, td)
	}
}

// TestRenamePlanSpares: layOut lays a map out in the walker's spare
// array of the map's length and keeps the map's former array as the next
// spare, so maps of several lengths, in turn, each find a spare of their
// own: the same answers as the full walk, and no allocation once each
// length has been seen. The lengths take each of layOut's arrays of value
// handles (16, 32 and 64).
func TestRenamePlanSpares(t *testing.T) {
	opts := defaultOptions()
	opts.Findings = true
	var wires [][]byte
	for _, extra := range []int{0, 4, 2, 24} { // 13, 17, 15 and 37 keys, 10 renamed: a plan for each
		td := enginetest.GenTraces(4, enginetest.MixLineDeprecated)
		for _, s := range td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().All() {
			for i := range extra {
				s.Attributes().PutStr(fmt.Sprintf("acme.custom_%d", i), "value")
			}
		}
		wires = append(wires, enginetest.TracesBytes(td))
	}
	e, ix := newTestEngine(t, opts)
	walk := func(td ptrace.Traces) {
		w := e.Walker(ix, false)
		w.Traces(td)
		e.Release(w)
	}
	for range 4 { // shapes are admitted on a later sighting
		for _, wire := range wires {
			walk(enginetest.UnmarshalTraces(wire))
		}
	}
	planned := map[int]bool{}
	for i := range e.memo.sets {
		for j := range e.memo.sets[i].ways {
			if en := e.memo.sets[i].ways[j].Load(); en != nil && en.plan != nil {
				planned[len(en.keys)] = true
			}
		}
	}
	assert.Equal(t, map[int]bool{13: true, 17: true, 15: true, 37: true}, planned, "the lengths with a plan")
	const runs = 20
	batches := make([]ptrace.Traces, 0, (runs+1)*len(wires))
	for range runs + 1 {
		for _, wire := range wires {
			batches = append(batches, enginetest.UnmarshalTraces(wire))
		}
	}
	before := e.MemoStats()
	next := 0
	allocs := testing.AllocsPerRun(runs, func() {
		for range wires {
			walk(batches[next])
			next++
		}
	})
	assert.Zero(t, allocs)
	after := e.MemoStats()
	assert.Equal(t, before.Misses, after.Misses, "every map a hit")
	assert.GreaterOrEqual(t, after.Hits-before.Hits, int64((runs+1)*len(wires)*4))
	full, fix := newTestEngine(t, opts)
	full.memo = nil
	for i, got := range batches {
		requireFullWalkSpans(t, full, fix, wires[i%len(wires)], got)
	}
}

// newMemoAndFull returns an engine with findings on, one with the same
// options and no memo (the full walk), and their registry.
func newMemoAndFull(t *testing.T) (memo, full *Engine, ix *registry.Index) {
	t.Helper()
	opts := defaultOptions()
	opts.Findings = true
	memo, ix = newTestEngine(t, opts)
	full = New(opts)
	full.memo = nil
	return memo, full, ix
}

// walkAdmitted walks the batch of wire through e four times, fresh each
// time (a shape is admitted on a later sighting, so that the last walks
// hit), and returns the last batch walked.
func walkAdmitted(e *Engine, ix *registry.Index, wire []byte) ptrace.Traces {
	var td ptrace.Traces
	for range 4 {
		td = enginetest.UnmarshalTraces(wire)
		w := e.Walker(ix, false)
		w.Traces(td)
		e.Release(w)
	}
	return td
}

// requireFullWalkSpans requires that the spans of got, walked through the
// memo, have the keys, in order, and the values that the full walk (full,
// an engine without a memo) gives the same batch, wire.
func requireFullWalkSpans(t *testing.T, full *Engine, ix *registry.Index, wire []byte, got ptrace.Traces) {
	t.Helper()
	want := enginetest.UnmarshalTraces(wire)
	w := full.Walker(ix, false)
	w.Traces(want)
	full.Release(w)
	ws, gs := want.ResourceSpans().At(0).ScopeSpans().At(0).Spans(), got.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	require.Equal(t, ws.Len(), gs.Len())
	for j := range ws.Len() {
		x, g := ws.At(j).Attributes(), gs.At(j).Attributes()
		var xk, gk []string
		for k := range x.All() {
			xk = append(xk, k)
		}
		for k := range g.All() {
			gk = append(gk, k)
		}
		require.Equal(t, xk, gk, "span %d", j)
		require.Equal(t, x.AsRaw(), g.AsRaw(), "span %d", j)
	}
}

// TestMemoSetIndexSpreads: the set of a shape depends on all of its
// context, not only on its first key and length. Shapes that differ only
// in span kind or location used to share a set (the context sat in bits
// the set index never read): 200 first keys in five span kinds and two
// locations, 2,000 shapes, must spread over about as many sets as 2,000
// random draws from 512 (512 × (1 − e^−3.9) ≈ 502).
func TestMemoSetIndexSpreads(t *testing.T) {
	mo := newMemo()
	kinds := []registry.SpanKind{registry.SpanKindUnspecified, registry.SpanKindInternal, registry.SpanKindServer, registry.SpanKindClient, registry.SpanKindProducer}
	sets := map[int]bool{}
	for i := range 200 {
		first := fmt.Sprintf("app.key%d", i)
		for _, loc := range []registry.Location{registry.LocationSpan, registry.LocationSpanEvent} {
			for _, k := range kinds {
				mc := memoCtx{ctx: registry.Context{Location: loc, SpanKind: k}}
				sets[mo.setIndex(&mc.ctx, mc.def, mc.flags, 13, first)] = true
			}
		}
	}
	t.Logf("2,000 shapes in %d of %d sets", len(sets), memoSets)
	assert.Greater(t, len(sets), 480)
}

// TestMemoSwitch: memoWalk follows one candidate entry of a set per key
// and, when it stops matching, memoSwitch looks for another that matches
// the keys and types so far. Four shapes of one length and context share
// a set: A and C differ in a value's type at the second key, A and B in
// the third key, D (a deprecated key, renamed) in the second. Each must
// hit, whatever way its entry sits in. A map that shares its second key
// with D and its third with A (Y) matches none: it must miss, and be
// renamed and tallied as the full walk does.
func TestMemoSwitch(t *testing.T) {
	e, full, ix := newMemoAndFull(t)
	// Each shape's keys and values, in order (an int value or a string).
	type kv struct {
		k string
		v any
	}
	shapes := map[string][]kv{
		"A": {{"url.scheme", "https"}, {"server.address", "example.com"}, {"server.port", 443}},
		"B": {{"url.scheme", "https"}, {"server.address", "example.com"}, {"url.path", "/"}},
		"C": {{"url.scheme", "https"}, {"server.address", 7}, {"server.port", 443}},
		"D": {{"url.scheme", "https"}, {"http.method", "GET"}, {"url.path", "/"}},
		"Y": {{"url.scheme", "https"}, {"http.method", "GET"}, {"server.port", 443}},
	}
	batch := func(names ...string) ptrace.Traces {
		td := ptrace.NewTraces()
		ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
		for _, n := range names {
			s := ss.AppendEmpty()
			s.SetName("op")
			for _, a := range shapes[n] {
				if i, ok := a.v.(int); ok {
					s.Attributes().PutInt(a.k, int64(i))
				} else {
					s.Attributes().PutStr(a.k, a.v.(string))
				}
			}
		}
		return td
	}
	// walk walks a batch of the shapes named through both engines and
	// returns the memo's hits in it.
	walk := func(names ...string) int64 {
		t.Helper()
		before := e.MemoStats().Hits
		got, want := batch(names...), batch(names...)
		tally := walkInto(e, ix, got, false)
		require.Equal(t, walkInto(full, ix, want, false), tally, "tally of %v", names)
		require.Equal(t, dump(want), dump(got), "pdata of %v", names)
		return e.MemoStats().Hits - before
	}
	four := []string{"A", "B", "C", "D"}
	for range 100 {
		if walk(four...) == 4 {
			break
		}
	}
	st := e.MemoStats()
	require.Equal(t, int64(4), st.Entries, "%+v", st)
	require.Zero(t, st.Evictions, "the four shapes share one set of four ways")
	for _, order := range [][]string{four, {"D", "C", "B", "A"}, {"B", "D", "A", "C"}} {
		assert.Equal(t, int64(4), walk(order...), "hits in %v", order)
	}
	assert.Zero(t, walk("Y"), "Y matches no entry")
}

// TestMemoCtxHolds: memoCtx.holds, which a hit's lookup compares each
// candidate's context with instead of building the current one, answers
// as memoContext() == *o does when any one of the context's inputs
// changes: the registry.Context, the group check's definition and flags,
// the batch's writability, the sample's signal and point types (scoped
// finding rules) and the signal's registry group (a ShapeAdvisor).
func TestMemoCtxHolds(t *testing.T) {
	c := memoVariants()["advisor_rules_scoped_detail"]
	ix, err := registry.Load(c.Registry)
	require.NoError(t, err)
	e := New(c.Options)
	require.True(t, e.findingRules.scoped)
	w := e.Walker(ix, false)
	defer e.Release(w)
	shape := w.shape
	require.NotNil(t, shape)
	g1, g2 := &registry.Group{ID: "a"}, &registry.Group{ID: "b"}
	set := func() {
		w.ctx = registry.Context{Location: registry.LocationSpan, SpanKind: registry.SpanKindServer, MetricName: "m", SpanName: "s"}
		w.grp.def, w.grp.active, w.grp.resource, w.grp.guard, w.grp.quiet = g1, true, false, false, false
		w.mutate = true
		w.grp.sink.signalType, w.grp.sink.pointType = "span", ""
		w.adv.s.Group = g1
		w.shape = shape
	}
	set()
	o := w.memoContext()
	require.True(t, o.holds(w, w.memoFlags()), "the context it was built from")
	for name, change := range map[string]func(){
		"location":    func() { w.ctx.Location = registry.LocationSpanEvent },
		"span kind":   func() { w.ctx.SpanKind = registry.SpanKindClient },
		"metric name": func() { w.ctx.MetricName = "n" },
		"span name":   func() { w.ctx.SpanName = "t" },
		"definition":  func() { w.grp.def = g2 },
		"active":      func() { w.grp.active = false },
		"resource":    func() { w.grp.resource = true },
		"guard":       func() { w.grp.guard = true },
		"quiet":       func() { w.grp.quiet = true },
		"mutate":      func() { w.mutate = false },
		"signal type": func() { w.grp.sink.signalType = "log" },
		"point type":  func() { w.grp.sink.pointType = "histogram_data_point" },
		"group":       func() { w.adv.s.Group = g2 },
		"no advisor":  func() { w.shape = nil },
	} {
		set()
		change()
		assert.NotEqual(t, o, w.memoContext(), name)
		assert.False(t, o.holds(w, w.memoFlags()), name)
	}
	set()
	w.ctx.SpanName = strings.Clone(w.ctx.SpanName) // equal, in other memory
	assert.True(t, o.holds(w, w.memoFlags()), "equal strings")
}

// TestOldValuesMigrate: the line rate's old-values workload arrives with
// its keys renamed and its values migrated as enginetest.OldValues (and
// the testbench README) list them, through memo hits laid out by a plan
// that holds the value checks' renames, as through the full walk.
func TestOldValuesMigrate(t *testing.T) {
	e, full, ix := newMemoAndFull(t)
	wire := enginetest.TracesBytes(enginetest.GenTracesWith(4, enginetest.PutLineOldValuesAttrs))
	td := walkAdmitted(e, ix, wire)
	require.Positive(t, e.MemoStats().Hits)
	_, tails := memoPlans(e)
	assert.Positive(t, tails, "a plan holds the value checks' renames")
	requireFullWalkSpans(t, full, ix, wire, td)
	attrs := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(3).Attributes()
	assert.Equal(t, enginetest.AttrsPerItem, attrs.Len())
	for _, o := range enginetest.OldValues {
		_, ok := attrs.Get(o.Key)
		assert.False(t, ok, "%s renamed", o.Key)
		v, ok := attrs.Get(o.To)
		require.True(t, ok, o.To)
		assert.Equal(t, pcommon.ValueTypeStr, v.Type(), o.To)
		assert.Equal(t, o.ToValue, v.Str(), o.To)
	}
}

// perNameModes gives every deprecated attribute of the embedded registry
// its own mode, copy, rename and off in turn, so that the shapes of
// TestMemoMatchesFullWalk, drawn from every deprecated key, meet all three.
func perNameModes() map[string]DeprecatedMode {
	ix, err := registry.Default()
	if err != nil {
		panic(err)
	}
	modes := [...]DeprecatedMode{DeprecatedCopy, DeprecatedRename, DeprecatedOff}
	m := map[string]DeprecatedMode{}
	for _, a := range ix.Attributes() {
		if a.Deprecation.Reason != registry.NotDeprecated {
			m[a.Key] = modes[len(m)%len(modes)]
		}
	}
	return m
}

// TestMemoValueHitOnlyValueDecides: a value check whose decision depends
// on more than the key, the context and the value is not replayed by a
// hit (memoTail). rpc.jsonrpc.error_message moves into the span's status
// description on spans with status Error only: a shape recorded on Error
// spans and hit by an Unset span keeps the attribute there, as the full
// walk does.
func TestMemoValueHitOnlyValueDecides(t *testing.T) {
	e, full, ix := newMemoAndFull(t)
	batch := func(code ptrace.StatusCode) []byte {
		td := ptrace.NewTraces()
		spans := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
		for range 3 {
			sp := spans.AppendEmpty()
			sp.SetName("rpc")
			sp.Status().SetCode(code)
			m := sp.Attributes()
			m.PutStr("rpc.system", "jsonrpc")
			m.PutStr("rpc.jsonrpc.error_message", "boom")
			m.PutStr("server.address", "api.example.com")
		}
		return enginetest.TracesBytes(td)
	}
	walkAdmitted(e, ix, batch(ptrace.StatusCodeError))
	hits := e.MemoStats().Hits
	require.Positive(t, hits)
	wire := batch(ptrace.StatusCodeUnset)
	td := enginetest.UnmarshalTraces(wire)
	w := e.Walker(ix, false)
	w.Traces(td)
	e.Release(w)
	require.Greater(t, e.MemoStats().Hits, hits, "the Unset spans hit the shape recorded on Error spans")
	requireFullWalkSpans(t, full, ix, wire, td)
	sp := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(2)
	_, ok := sp.Attributes().Get("rpc.jsonrpc.error_message")
	assert.True(t, ok, "not moved on a span whose status is not Error")
	assert.Empty(t, sp.Status().Message())
}
