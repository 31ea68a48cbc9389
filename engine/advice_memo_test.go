package engine

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/engine/enginetest"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// shapeAdvisor is a fake ShapeAdvisor: its findings on an attribute
// depend on the key, the value's inferred type, the registry attribute and
// the signal's group, with a built-in finding among its own. Some samples
// are not keepable (as a budget skip or an error would make them), and on
// those its findings depend on the value: an entry that kept them would
// replay wrong findings. It also reports findings on spans, metrics and
// logs, which the memo never holds.
type shapeAdvisor struct {
	// free is AttrsShapeFree's answer, typeFree AttrsTypeFree's: then
	// its findings on attributes ignore the value's type.
	free, typeFree atomic.Bool
	// calls counts the attribute samples offered.
	calls atomic.Int64
	// spans counts the span samples offered.
	spans atomic.Int64
	// kinds is Kinds' answer; offered counts the samples offered by kind.
	kinds   atomic.Uint32
	offered [NumSampleKinds]atomic.Int64
}

var _ ShapeAdvisor = (*shapeAdvisor)(nil)

// The fake's defined findings.
const (
	fakeLong   = vocab.NumFindings + iota // a long key of a string value
	fakeInt                               // an int value of a namespaced key
	fakeGroup                             // a key of an item with a definition
	fakeSlow                              // a value-dependent finding on an unkeepable sample
	fakeSpan                              // a span named SELECT
	fakeType                              // a key outside the registry with a value not a string
	fakeUnit                              // a metric with a unit
	fakePoints                            // a value-dependent finding on an unkeepable metric
)

var fakeIDs = map[vocab.Finding]string{
	fakeLong: "fake_long_key", fakeInt: "fake_int", fakeGroup: "fake_group", fakeSlow: "fake_slow", fakeSpan: "fake_select", fakeType: "fake_type",
	fakeUnit: "fake_unit", fakePoints: "fake_points",
}

// fakeHash is a fixed hash of a key: which keys the fake does not keep is
// the same in every run (a random seed made some runs' conforming keys
// unkeepable, and the tests that expect all hits flaky).
func fakeHash(k string) uint32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(k))
	return h.Sum32()
}

func newShapeAdvisor() *shapeAdvisor {
	a := &shapeAdvisor{}
	a.free.Store(true)
	a.kinds.Store(uint32(AllSampleKinds))
	return a
}

func (a *shapeAdvisor) AttrsShapeFree() bool { return a.free.Load() }

func (a *shapeAdvisor) AttrsTypeFree() bool { return a.typeFree.Load() }

func (a *shapeAdvisor) Kinds() SampleKinds { return SampleKinds(a.kinds.Load()) } //nolint:gosec // holds a SampleKinds

func (a *shapeAdvisor) Advise(s *Sample, dst []Advice) []Advice {
	dst, _ = a.AdviseKept(s, dst)
	return dst
}

// unkeepable reports the samples whose evaluation the fake "skips": a
// sixth of the keys, with a value of type double or a slice (of any type
// when the fake is type-free: whether it keeps may not depend on it).
func (a *shapeAdvisor) unkeepable(s *Sample) bool {
	if fakeHash(s.Key)%6 != 0 {
		return false
	}
	t := s.Value.Type()
	return a.typeFree.Load() || t == pcommon.ValueTypeDouble || t == pcommon.ValueTypeSlice
}

func (a *shapeAdvisor) AdviseKept(s *Sample, dst []Advice) ([]Advice, bool) {
	if s.Kind < NumSampleKinds {
		a.offered[s.Kind].Add(1)
	}
	ad := func(f vocab.Finding, lv vocab.Level, subj vocab.Subject, name string) {
		id := fakeIDs[f]
		if f < vocab.NumFindings {
			id = f.String()
		}
		dst = append(dst, Advice{Finding: f, ID: id, Level: lv, Subject: subj, Name: name})
	}
	switch s.Kind {
	case SampleAttribute:
		a.calls.Add(1)
		typ := InferredType(s.Value)
		if a.typeFree.Load() {
			typ = "any" // fake_type on every key outside the registry, the other type findings never
		}
		if len(s.Key) > 14 && typ == "string" {
			ad(fakeLong, vocab.LevelImprovement, vocab.SubjectKey, s.Key)
		}
		if typ == "int" && strings.Contains(s.Key, ".") {
			ad(fakeInt, vocab.LevelInformation, vocab.SubjectKey, s.Key)
		}
		if s.Attr == nil && typ != "string" {
			ad(fakeType, vocab.LevelImprovement, vocab.SubjectKey, s.Key)
		}
		if s.Group != nil && len(s.Key)%2 == 0 {
			ad(fakeGroup, vocab.LevelViolation, vocab.SubjectKey, s.Key)
		}
		if s.Attr != nil && s.Attr.Deprecation.Reason != registry.NotDeprecated && typ == "string[]" {
			ad(vocab.FindingMissingNamespace, vocab.LevelImprovement, vocab.SubjectKey, s.Key)
		}
		if a.unkeepable(s) {
			if s.Value.Type() == pcommon.ValueTypeDouble && s.Value.Double() > 0.5 ||
				s.Value.Type() == pcommon.ValueTypeSlice && s.Value.Slice().Len() > 1 {
				ad(fakeSlow, vocab.LevelViolation, vocab.SubjectKey, s.Key)
			}
			return dst, false
		}
		return dst, a.free.Load()
	case SampleSpan:
		a.spans.Add(1)
		if s.SignalName == "SELECT" {
			ad(fakeSpan, vocab.LevelInformation, vocab.SubjectSpan, s.SignalName)
		}
	case SampleMetric:
		// Keyed by the unit (SampleKey); the engine compares the name.
		if s.Metric.Unit() != "" && len(s.SignalName)%2 == 0 {
			ad(fakeUnit, vocab.LevelImprovement, vocab.SubjectMetric, s.SignalName)
		}
		if len(s.SignalName)%3 == 0 {
			// Not keepable: depends on the data points.
			if s.Metric.Type() == pmetric.MetricTypeGauge && s.Metric.Gauge().DataPoints().Len() > 1 {
				ad(fakePoints, vocab.LevelViolation, vocab.SubjectMetric, s.SignalName)
			}
			return dst, false
		}
	case SampleResource, SampleSpanEvent, SampleSpanLink, SampleNumberDataPoint, SampleHistogramDataPoint,
		SampleExponentialHistogramDataPoint, SampleExemplar, SampleLog, SampleScope, NumSampleKinds:
	}
	return dst, true
}

// SampleKey is what the fake's findings on a sample other than an
// attribute depend on besides the signal's name: its kind, group and, for
// a metric, its unit.
func (a *shapeAdvisor) SampleKey(s *Sample) (AdviceKey, bool) {
	if !a.free.Load() {
		return AdviceKey{}, false
	}
	k := AdviceKey{Kind: s.Kind, Group: s.Group}
	if s.Kind == SampleMetric {
		k.Unit = s.Metric.Unit()
	}
	return k, true
}

// plainAdvisor hides the ShapeAdvisor of a: the memo is off with it.
type plainAdvisor struct{ a Advisor }

func (p plainAdvisor) Advise(s *Sample, dst []Advice) []Advice { return p.a.Advise(s, dst) }

// Within a batch, a span sample with the key and name of an earlier one is
// answered by the walk (AdviceRepeats), not the advisor, with the same
// findings; an advisor that gives no key is asked every time.
func TestAdviceCacheRepeats(t *testing.T) {
	// A name in the slot of SELECT: the walk compares the signal name, not
	// only the slot and the advisor's key (the fake's holds no name).
	other := ""
	for i := 0; other == ""; i++ {
		if n := fmt.Sprintf("op-%d", i); adviceSlotOf(&AdviceKey{Kind: SampleSpan}, n) == adviceSlotOf(&AdviceKey{Kind: SampleSpan}, "SELECT") {
			other = n
		}
	}
	td := ptrace.NewTraces()
	spans := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	for i := range 30 {
		sp := spans.AppendEmpty()
		sp.SetName([]string{"SELECT", "GET /cart", "SELECT", other}[i%4])
		sp.Attributes().PutStr("http.request.method", "GET")
	}
	// Metrics of one name, with one or two points: the fake's finding on
	// the points is not keepable, and only the two-point metrics have it.
	md := pmetric.NewMetrics()
	ms := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics()
	for i := range 8 {
		m := ms.AppendEmpty()
		m.SetName("cpu.usage") // len 9: the fake's unkeepable case
		m.SetUnit("1")
		dps := m.SetEmptyGauge().DataPoints()
		dps.AppendEmpty().SetDoubleValue(0.5)
		if i%2 == 1 {
			dps.AppendEmpty().SetDoubleValue(0.7)
		}
	}
	twire := enginetest.TracesBytes(td)
	walk := func(adv Advisor) Batch {
		opts := defaultOptions()
		opts.Findings, opts.Detail, opts.Advisor = true, true, adv
		e, ix := newTestEngine(t, opts)
		w := e.Walker(ix, true)
		w.Traces(enginetest.UnmarshalTraces(twire))
		mc := pmetric.NewMetrics()
		md.CopyTo(mc)
		w.Metrics(mc)
		b := *w.Batch()
		b.Advice = slices.Clone(b.Advice)
		b.Findings = slices.Clone(b.Findings)
		e.Release(w)
		return b
	}
	cached := newShapeAdvisor()
	got := walk(cached)
	plain := newShapeAdvisor()
	want := walk(plainAdvisor{plain})
	// SELECT and the other name take each other's slot: the repeats are
	// the G, and the second S of each S G S O.
	assert.Equal(t, int64(16), cached.spans.Load(), "span samples asked")
	assert.Equal(t, int64(30), plain.spans.Load())
	assert.Greater(t, got.AdviceRepeats, int64(14))
	assert.Zero(t, want.AdviceRepeats)
	assert.Equal(t, want.Advice, got.Advice)
	assert.Equal(t, want.Findings, got.Findings)
	count := func(id string) (n int64) {
		for _, at := range got.Advice {
			if at.ID == id {
				n += at.Count
			}
		}
		return n
	}
	assert.Equal(t, int64(15), count("fake_select"))
	assert.Equal(t, int64(4), count("fake_points"))
}

// A ShapeAdvisor's Kinds decide what the walk offers: with the kinds the
// fake's rules can fire on (attribute, span, metric), every other sample
// goes unoffered and the findings are those of all kinds offered; without
// spans, no span is offered and the span findings go; without attributes,
// no attribute is offered, the shape memo still hits, and the attribute
// findings go.
func TestAdvisorKinds(t *testing.T) {
	td := enginetest.GenTraces(30, enginetest.MixRealistic)
	spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	for i := range spans.Len() {
		if i%3 == 0 {
			spans.At(i).SetName("SELECT")
		}
		spans.At(i).Events().AppendEmpty().SetName("exception")
		spans.At(i).Links().AppendEmpty()
	}
	twire := enginetest.TracesBytes(td)
	md := pmetric.NewMetrics()
	ms := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics()
	for i := range 6 {
		m := ms.AppendEmpty()
		m.SetName(fmt.Sprintf("app.metric.m1%d", i%2)) // len 14: the fake's unit finding
		m.SetUnit("1")
		m.SetEmptyGauge().DataPoints().AppendEmpty().SetDoubleValue(0.5)
	}
	walk := func(kinds SampleKinds) (Batch, *shapeAdvisor, MemoStats) {
		a := newShapeAdvisor()
		a.kinds.Store(uint32(kinds))
		opts := defaultOptions()
		opts.Findings, opts.Detail, opts.Advisor = true, true, a
		e, ix := newTestEngine(t, opts)
		var b Batch
		for range 4 { // the memo admits shapes on a later sighting
			w := e.Walker(ix, true)
			w.Traces(enginetest.UnmarshalTraces(twire))
			mc := pmetric.NewMetrics()
			md.CopyTo(mc)
			w.Metrics(mc)
			b = *w.Batch()
			b.Advice = slices.Clone(b.Advice)
			b.Findings = slices.Clone(b.Findings)
			b.Services = slices.Clone(b.Services)
			e.Release(w)
		}
		return b, a, e.MemoStats()
	}
	all, allAdv, _ := walk(AllSampleKinds)
	require.NotZero(t, allAdv.offered[SampleSpanEvent].Load())
	require.NotZero(t, allAdv.offered[SampleNumberDataPoint].Load())
	firing := SampleKinds(1<<SampleAttribute | 1<<SampleSpan | 1<<SampleMetric)
	got, adv, _ := walk(firing)
	assert.Equal(t, all.Advice, got.Advice)
	assert.Equal(t, all.Findings, got.Findings)
	assert.Equal(t, all.Services, got.Services)
	for k := range NumSampleKinds {
		if !firing.Has(k) {
			assert.Zero(t, adv.offered[k].Load(), "%s offered", k)
		} else {
			assert.NotZero(t, adv.offered[k].Load(), "%s not offered", k)
		}
	}
	count := func(b Batch, id string) (n int64) {
		for _, at := range b.Advice {
			if at.ID == id {
				n += at.Count
			}
		}
		return n
	}
	require.NotZero(t, count(all, "fake_select"))
	require.NotZero(t, count(all, "fake_long_key"))
	require.NotZero(t, count(all, "fake_unit"))

	noSpans, adv, _ := walk(firing &^ (1 << SampleSpan))
	assert.Zero(t, adv.offered[SampleSpan].Load())
	assert.Zero(t, count(noSpans, "fake_select"))
	assert.Equal(t, count(all, "fake_long_key"), count(noSpans, "fake_long_key"))

	noAttrs, adv, st := walk(firing &^ (1 << SampleAttribute))
	assert.Zero(t, adv.offered[SampleAttribute].Load())
	assert.Zero(t, count(noAttrs, "fake_long_key"))
	assert.Equal(t, count(all, "fake_select"), count(noAttrs, "fake_select"))
	assert.Equal(t, count(all, "fake_unit"), count(noAttrs, "fake_unit"))
	assert.NotZero(t, st.Hits)
}

// The memo is on with a ShapeAdvisor, and off with an Advisor that is not
// one; a shape-free advisor's attributes are offered at misses only.
func TestShapeAdvisorMemo(t *testing.T) {
	opts := defaultOptions()
	opts.Findings = true
	a := newShapeAdvisor()
	ix, err := registry.Default()
	require.NoError(t, err)
	opts.Advisor = plainAdvisor{a}
	assert.Nil(t, New(opts).memo, "an Advisor that is not a ShapeAdvisor")
	opts.Advisor = a
	e := New(opts)
	require.NotNil(t, e.memo)
	wire := enginetest.TracesBytes(enginetest.GenTraces(20, enginetest.MixConformant))
	walk := func() {
		w := e.Walker(ix, true)
		w.Traces(enginetest.UnmarshalTraces(wire))
		e.Release(w)
	}
	for range 10 {
		walk()
	}
	calls, before := a.calls.Load(), e.MemoStats()
	walk()
	assert.Equal(t, calls, a.calls.Load(), "every map a hit: no attribute offered")
	assert.Equal(t, before.Hits+21, e.MemoStats().Hits)
	// Not shape-free: the batch is walked in full, every attribute offered.
	a.free.Store(false)
	walk()
	assert.Greater(t, a.calls.Load(), calls)
	assert.Equal(t, before.Hits+21, e.MemoStats().Hits)
}

// TestShapeAdvisorHitAllocates0: a hit that replays an advisor's findings
// (a string value of a long key: fake_long_key) allocates nothing.
func TestShapeAdvisorHitAllocates0(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, detail := range []bool{false, true} {
		opts := defaultOptions()
		opts.Findings, opts.Detail, opts.Advisor = true, detail, newShapeAdvisor()
		e, ix := newTestEngine(t, opts)
		wire := enginetest.TracesBytes(enginetest.GenTraces(20, enginetest.MixRealistic))
		walk := func(td ptrace.Traces) int64 {
			w := e.Walker(ix, true)
			w.Traces(td)
			var n int64
			for _, at := range w.Batch().Advice {
				n += at.Count
			}
			e.Release(w)
			return n
		}
		for range 10 {
			walk(enginetest.UnmarshalTraces(wire))
		}
		batches := make([]ptrace.Traces, 0, 101)
		for range 101 {
			batches = append(batches, enginetest.UnmarshalTraces(wire))
		}
		before := e.MemoStats()
		i := 0
		var advice int64
		allocs := testing.AllocsPerRun(100, func() {
			advice = walk(batches[i])
			i++
		})
		assert.Zero(t, allocs, "detail=%v", detail)
		assert.Equal(t, before.Misses, e.MemoStats().Misses, "all hits")
		assert.Positive(t, advice, "the hits replay the advisor's findings")
	}
}

// recordingAdvisor records each sample offered: kind, name and context.
type recordingAdvisor struct{ seen []string }

func (r *recordingAdvisor) Advise(s *Sample, dst []Advice) []Advice {
	name := s.Key
	if s.Kind == SampleScope {
		name = s.Scope.Name() + " " + s.SchemaURL
	}
	r.seen = append(r.seen, fmt.Sprintf("%s %s signal=%q resource=%v scope=%v", s.Kind, name, s.SignalType, s.HasResource, s.HasScope))
	switch s.Kind {
	case SampleResource, SampleScope:
		// A finding on the sample itself, named as the policy Advisor
		// names those on a resource or scope: a key, with no name.
		dst = append(dst, Advice{Finding: vocab.NumFindings, ID: "on_" + s.Kind.String(), Level: vocab.LevelInformation, Subject: vocab.SubjectKey})
	case SampleSpan:
		dst = append(dst, Advice{Finding: vocab.NumFindings, ID: "on_span", Level: vocab.LevelInformation, Subject: vocab.SubjectSpan, Name: s.SignalName})
	case SampleMetric:
		dst = append(dst, Advice{Finding: vocab.NumFindings, ID: "on_metric", Level: vocab.LevelInformation, Subject: vocab.SubjectMetric, Name: s.SignalName})
	case SampleLog:
		dst = append(dst, Advice{Finding: vocab.NumFindings, ID: "on_log", Level: vocab.LevelInformation, Subject: vocab.SubjectEvent, Name: s.SignalName})
	default:
	}
	return dst
}

// The walk offers a scope sample per scope, after the resource and its
// attributes and before the scope's attributes and signals (Weaver's OTLP
// ingester), with its container's schema URL. A resource, a scope and
// their attributes have no resource or scope as their context and a
// scope no signal type; a signal's samples have both.
func TestAdviseScopeOrder(t *testing.T) {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "checkout")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.SetSchemaUrl("https://opentelemetry.io/schemas/1.32.0")
	ss.Scope().SetName("library")
	ss.Scope().Attributes().PutStr("scope.environment", "test")
	ss.Spans().AppendEmpty().Attributes().PutStr("http.request.method", "GET")
	rs.ScopeSpans().AppendEmpty()
	r := &recordingAdvisor{}
	sink := &recordingSink{limit: 100}
	e, ix := newTestEngine(t, Options{Advisor: r, Findings: true, Sink: sink})
	w := e.Walker(ix, true)
	w.Traces(td)
	e.Release(w)
	offered := slices.Clone(r.seen)
	// The sink sees each sample's finding on its sample type and in its
	// own context (its service, the scope's with no signal type), as
	// Weaver reports them.
	var onSamples []string
	for _, ev := range sink.got {
		if ev.ID != "" {
			onSamples = append(onSamples, ev.ID+" "+ev.SampleType+" "+ev.SignalType)
			assert.Equal(t, "checkout", ev.Service, ev.ID)
		}
	}
	assert.Equal(t, []string{
		"on_resource resource resource", "on_instrumentation_scope instrumentation_scope ",
		"on_span span span", "on_instrumentation_scope instrumentation_scope ",
	}, onSamples)

	// A metric's and a log record's, after a scope.
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "checkout")
	rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty().SetName("requests")
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "checkout")
	rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().SetEventName("done")
	sink.got = nil
	w = e.Walker(ix, true)
	w.Metrics(md)
	w.Logs(ld)
	e.Release(w)
	onSamples = onSamples[:0]
	for _, ev := range sink.got {
		if ev.ID == "on_metric" || ev.ID == "on_log" {
			onSamples = append(onSamples, ev.ID+" "+ev.SampleType+" "+ev.SignalType+" "+ev.SignalName)
		}
	}
	assert.Equal(t, []string{"on_metric metric metric requests", "on_log log log done"}, onSamples)
	assert.Equal(t, []string{
		`resource  signal="resource" resource=false scope=false`,
		`attribute service.name signal="resource" resource=false scope=false`,
		`instrumentation_scope library https://opentelemetry.io/schemas/1.32.0 signal="" resource=false scope=false`,
		`attribute scope.environment signal="" resource=false scope=false`,
		`span  signal="span" resource=true scope=true`,
		`attribute http.request.method signal="span" resource=true scope=true`,
		`instrumentation_scope   signal="" resource=false scope=false`,
	}, offered)
}

// TestWalkerAdvised: one engine whose walks take the Advisor per batch
// (Engine.WalkerAdvised), some with a ShapeAdvisor and some without, gives
// each batch the answers of an engine made with that Advisor and of one
// made without, from one shape memo (whose entries of the two kinds never
// serve each other: memoAdvised), but for the report's registry keys,
// listed once per engine.
func TestWalkerAdvised(t *testing.T) {
	c := memoVariants()["advisor_detail_sink"]
	ix, err := registry.Load(c.Registry)
	require.NoError(t, err)
	adv := c.Advisor
	plain := c.Options
	plain.Advisor = nil
	one, with, without := New(plain), New(c.Options), New(plain)
	g := newShapeGen(11, ix)
	advised := 0
	for it := range 600 {
		td := g.traces(ix)
		ref := ptrace.NewTraces()
		td.CopyTo(ref)
		var a Advisor
		want := without
		if it%3 != 0 {
			a, want = adv, with
			advised++
		}
		got := walkWith(one, one.WalkerAdvised(ix, false, a), td)
		exp := walkInto(want, ix, ref, false)
		// The report lists a registry key once per engine and Index
		// (notedKeys): one engine lists what two list twice.
		got.Keys, _ = splitRegistryKeys(got.Keys)
		exp.Keys, _ = splitRegistryKeys(exp.Keys)
		for _, b := range []*Batch{&got, &exp} {
			if len(b.Advice) == 0 {
				b.Advice = nil // an advised batch's walker keeps its slice
			}
		}
		require.Equal(t, exp, got, "iteration %d (advised: %v): tally", it, a != nil)
		require.Equal(t, dump(ref), dump(td), "iteration %d: pdata", it)
	}
	st := one.MemoStats()
	t.Logf("%d of 600 batches advised; one memo: %+v; two: %+v, %+v", advised, st, with.MemoStats(), without.MemoStats())
	assert.Positive(t, st.Hits)
}
