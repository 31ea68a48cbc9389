package engine

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// This file is the engine's hook for an organisation's own rules (Weaver's
// Rego advice policies, package policy): Options.Advisor is offered every
// sample the walk visits, in Weaver's order, and the findings it returns are
// counted through the walk's one finding path (Walker.finding), with the
// advisor's IDs. The engine does not know how the advisor decides: package
// policy implements it with OPA, behind an adapter (policy.Advisor). Without
// an Advisor each call site costs one nil test.

// SampleKind is the kind of a sample offered to an Advisor: the member of
// Weaver's input.sample that is set, Weaver's sample type (vocab).
type SampleKind = vocab.SampleType

// The sample kinds, vocab's sample types. SampleScope is an
// instrumentation scope (Weaver's input.sample.instrumentation_scope),
// offered once per scope before the scope's attributes and signals, as
// Weaver's OTLP ingester does (afa9700c, src/registry/otlp/otlp_ingester.rs).
const (
	SampleResource                      = vocab.SampleResource
	SampleAttribute                     = vocab.SampleAttribute
	SampleSpan                          = vocab.SampleSpan
	SampleSpanEvent                     = vocab.SampleSpanEvent
	SampleSpanLink                      = vocab.SampleSpanLink
	SampleMetric                        = vocab.SampleMetric
	SampleNumberDataPoint               = vocab.SampleNumberDataPoint
	SampleHistogramDataPoint            = vocab.SampleHistogramDataPoint
	SampleExponentialHistogramDataPoint = vocab.SampleExponentialHistogramDataPoint
	SampleExemplar                      = vocab.SampleExemplar
	SampleLog                           = vocab.SampleLog
	SampleScope                         = vocab.SampleScope
	NumSampleKinds                      = vocab.NumSampleTypes
)

// SampleKinds is a set of sample kinds.
type SampleKinds uint16

// AllSampleKinds holds every sample kind.
const AllSampleKinds = SampleKinds(1)<<NumSampleKinds - 1

// Has reports whether k is in the set.
func (s SampleKinds) Has(k SampleKind) bool { return s&(1<<k) != 0 }

// Sample is one sample offered to an Advisor, with its signal's context.
// Only the members of its Kind are set; it points into the batch and is
// valid during the call only.
type Sample struct {
	Kind SampleKind
	// Resource and Scope are the resource and scope being walked; Scope
	// is unset for the resource and its attributes. SchemaURL is the
	// scope's container's (ScopeSpans, ScopeMetrics, ScopeLogs) schema URL
	// as received.
	Resource  pcommon.Resource
	Scope     pcommon.InstrumentationScope
	SchemaURL string
	// HasResource and HasScope say whether they are the sample's signal's
	// context (Weaver's input.resource and input.instrumentation_scope):
	// only for a span, metric or log and what belongs to it. A resource,
	// a scope and their attributes are samples of their own, with neither
	// (Weaver's Sample::resource and instrumentation_scope are None for
	// them). pdata cannot tell an absent resource or scope from an empty
	// one: both are offered, and are the context, as if present.
	HasResource, HasScope bool
	// Group is the registry's definition of the signal (a metric's, a log
	// event's); nil when none.
	Group *registry.Group
	// SignalType and SignalName are the signal the sample belongs to:
	// resource, span, metric or log, and its name.
	SignalType, SignalName string

	// SampleAttribute: the key, its value and its registry entry (nil when
	// the registry does not define the key).
	Key   string
	Value pcommon.Value
	Attr  *registry.Attribute

	Span           ptrace.Span
	SpanEvent      ptrace.SpanEvent
	SpanLink       ptrace.SpanLink
	Metric         pmetric.Metric
	NumberPoint    pmetric.NumberDataPoint
	HistogramPoint pmetric.HistogramDataPoint
	ExpPoint       pmetric.ExponentialHistogramDataPoint
	Exemplar       pmetric.Exemplar
	Log            plog.LogRecord
}

// Advice is one finding of an Advisor on a sample.
type Advice struct {
	// Finding is a built-in finding (a policy reporting one of Weaver's
	// IDs) or one the advisor defined (vocab.Catalog; >= vocab.NumFindings).
	Finding vocab.Finding
	// ID names Finding: the advisor's ID, bounded (vocab.MaxFindingIDLength).
	ID string
	// Level is the advisor's level of a defined finding; a built-in
	// finding is counted at the engine's level (Options.LevelOverrides).
	Level vocab.Level
	// Subject and Name are what the finding is about (an attribute key, a
	// metric name...).
	Subject vocab.Subject
	Name    string
}

// Advisor evaluates an organisation's own rules on each sample
// (Options.Advisor). Advise appends the sample's findings to dst and
// returns it; it never changes the data, and it counts and bounds its own
// errors and time-outs. It is called concurrently from the walks of
// concurrent batches.
type Advisor interface {
	Advise(s *Sample, dst []Advice) []Advice
}

// ShapeAdvisor is an Advisor whose findings on attribute samples the shape
// memo (memo.go) may keep in a shape's entry and replay at its hits, without
// offering the attributes again. Engine.New checks for it by type
// assertion: with an Advisor that does not implement it, the shape memo is
// off, every attribute is offered.
//
// The contract: while AttrsShapeFree reports true, Advise's findings on a
// SampleAttribute depend only on what a shape fixes: Key, the value's
// inferred type (InferredType), Attr, and the signal's Group; never on the
// value itself, the resource, the scope or the signal's name. The findings'
// Subject is vocab.SubjectKey and their Name is Key.
type ShapeAdvisor interface {
	Advisor
	// AttrsShapeFree reports whether Advise's findings on attribute samples
	// are shape-free now. It is asked once per Walker (per batch): false
	// walks the batch's attribute maps in full, as with any other Advisor.
	AttrsShapeFree() bool
	// AttrsTypeFree reports whether those findings are moreover the same
	// whatever the value's inferred type (no rule reads it): the shape
	// memo then guards no position by its value's type for the Advisor's
	// sake. Asked with AttrsShapeFree.
	AttrsTypeFree() bool
	// AdviseKept is Advise, and reports whether its findings may be kept
	// for every sample of the same shape (an attribute's) or key
	// (SampleKey's, any other sample's): false when
	// the evaluation was skipped (a budget), failed or timed out, or the
	// findings stopped being shape-free. A recording with any finding not
	// kept is not inserted in the memo.
	AdviseKept(s *Sample, dst []Advice) ([]Advice, bool)
	// SampleKey returns the key that determines Advise's findings on a
	// sample other than an attribute, together with the sample's
	// SignalType and SignalName (which the walk compares itself), and
	// false when no key does (a value-dependent rule is loaded). Within a
	// batch, a sample with the key and signal of an earlier one whose
	// findings were kept (AdviseKept) gets that sample's findings without
	// a call (adviceCache).
	SampleKey(s *Sample) (AdviceKey, bool)
	// Kinds returns the sample kinds on which Advise can return findings
	// now (a superset: package policy decides it from the rules'
	// guards). The walk offers no sample of another kind: a span costs
	// nothing when no rule can fire on spans. It is asked once per Walker,
	// with AttrsShapeFree; the shape memo keeps the entries recorded with
	// attributes offered apart from the others (memoAdvised).
	Kinds() SampleKinds
}

// AdviceKey is what a ShapeAdvisor's findings on a sample other than an
// attribute depend on, besides the sample's signal type and name: the
// members of the sample it reads (a span's kind, a metric's unit and
// instrument...) and the registry's definitions. Comparable. Package
// policy keys its memo of every sample, attributes included, with it
// (policy.Key).
type AdviceKey struct {
	Kind               SampleKind
	Name, Detail, Unit string
	Attr               *registry.Attribute
	Group              *registry.Group
}

// AdviceTally is how often one defined finding (an Advisor's own ID) was
// counted in one batch, at one level, over all services.
type AdviceTally struct {
	Finding vocab.Finding
	// ID names Finding; it is the advisor's string (bounded), valid after
	// the batch.
	ID    string
	Level vocab.Level
	Count int64
}

// adviceState is the walker's context for the Advisor: the current
// resource, scope and signal, and the findings buffer reused across
// samples. Only maintained when Options.Advisor is set.
type adviceState struct {
	s   Sample
	buf []Advice
	// cache holds, with a ShapeAdvisor whose findings are shape-free in
	// this batch (cacheOn), the findings on recent samples other than
	// attributes by AdviceKey (adviceCache): one batch's items repeat a
	// few span, metric and event names. Emptied with the batch: it holds
	// the batch's names. An advisor whose rules change in the middle of a
	// batch (a policy reload) has the slots filled before the change
	// serve until the batch ends.
	cache   [adviceCacheSlots]adviceSlot
	cacheOn bool
	// kinds are the sample kinds offered (ShapeAdvisor.Kinds; all with
	// any other Advisor), set by Engine.Walker.
	kinds SampleKinds
	// typeFree: the ShapeAdvisor's attribute findings do not depend on
	// the value's type (AttrsTypeFree), set by Engine.Walker.
	typeFree bool
}

// adviceSlot is one sample's key and signal and the findings kept for it.
type adviceSlot struct {
	key                    AdviceKey
	signalType, signalName string
	ok                     bool
	advice                 []Advice
}

const adviceCacheSlots = 16

// reset empties the state for the next batch, keeping the buffers.
func (a *adviceState) reset() {
	for i := range a.cache {
		c := &a.cache[i]
		if c.ok || len(c.advice) > 0 {
			clear(c.advice)
			*c = adviceSlot{advice: c.advice[:0]}
		}
	}
	a.s, a.buf, a.cacheOn = Sample{}, a.buf[:0], false
}

// maxAdviceTallies bounds Batch.Advice: one entry per distinct (ID, level)
// of the advisor's catalog, and then some.
const maxAdviceTallies = vocab.MaxDefinedFindings * int(vocab.NumLevels)

// advise offers the sample in w.adv.s to the Advisor and counts its
// findings. The call site has checked that kind is offered (kinds), before
// it set the sample's member.
func (w *Walker) advise(kind SampleKind) {
	a := &w.adv
	a.s.Kind = kind
	if a.cacheOn && kind != SampleAttribute && w.adviceCache() {
		return
	}
	a.buf = w.advisor.Advise(&a.s, a.buf[:0])
	w.adviceFindings()
}

// adviceCache offers the sample in w.adv.s (not an attribute) through the
// walker's cache: a sample with the key and signal of one whose findings
// were kept earlier in the batch counts those findings, and the Advisor is
// not asked; otherwise it is, and kept findings fill the key's slot. It
// reports false when the ShapeAdvisor gives no key.
func (w *Walker) adviceCache() bool {
	a := &w.adv
	k, ok := w.shape.SampleKey(&a.s)
	if !ok {
		return false
	}
	c := &a.cache[adviceSlotOf(&k, a.s.SignalName)]
	if c.ok && c.key == k && c.signalName == a.s.SignalName && c.signalType == a.s.SignalType {
		for i := range c.advice {
			ad := &c.advice[i]
			w.findingAt(ad.Finding, w.adviceLevel(ad), ad.Subject, ad.Name, ad.ID)
		}
		w.tally.AdviceRepeats++
		return true
	}
	var keep bool
	a.buf, keep = w.shape.AdviseKept(&a.s, a.buf[:0])
	if keep {
		clear(c.advice)
		*c = adviceSlot{key: k, signalType: a.s.SignalType, signalName: a.s.SignalName, ok: true, advice: append(c.advice[:0], a.buf...)}
	} else {
		c.ok = false
	}
	w.adviceFindings()
	return true
}

// adviceSlotOf chooses a sample's slot from its key's kind and name and
// its signal name.
func adviceSlotOf(k *AdviceKey, signalName string) int {
	h := uint(k.Kind)*31 + nameHash(k.Name) + 17*nameHash(signalName)
	return int(h % adviceCacheSlots)
}

// nameHash is a cheap hash of a name: its length and three of its bytes.
func nameHash(s string) uint {
	n := len(s)
	if n == 0 {
		return 0
	}
	return uint(n)*7 + uint(s[0]) + 3*uint(s[n-1]) + 5*uint(s[n/2])
}

// adviceLevel is the level an advice is counted at: the engine's for a
// built-in finding, the advisor's for its own.
func (w *Walker) adviceLevel(ad *Advice) vocab.Level {
	if ad.Finding < vocab.NumFindings {
		return w.e.levels[ad.Finding]
	}
	return ad.Level
}

// adviceFindings counts the findings in w.adv.buf and empties it.
func (w *Walker) adviceFindings() {
	a := &w.adv
	for i := range a.buf {
		ad := &a.buf[i]
		w.findingAt(ad.Finding, w.adviceLevel(ad), ad.Subject, ad.Name, ad.ID)
	}
	clear(a.buf) // keep no string of the batch
}

// countAdvice counts n defined findings of the Advisor in the batch.
func (w *Walker) countAdvice(f vocab.Finding, lv vocab.Level, id string, n int64) {
	w.tally.Advice = addAdvice(w.tally.Advice, f, lv, id, n)
}

// addAdvice adds n findings (f, lv, id) to t, one entry per distinct
// (f, lv, id), at most maxAdviceTallies: a batch's (Batch.Advice) and a
// shape memo recording's (memoRec.advice).
func addAdvice(t []AdviceTally, f vocab.Finding, lv vocab.Level, id string, n int64) []AdviceTally {
	for i := range t {
		if t[i].Finding == f && t[i].Level == lv && t[i].ID == id {
			t[i].Count += n
			return t
		}
	}
	if len(t) < maxAdviceTallies {
		t = append(t, AdviceTally{Finding: f, ID: id, Level: lv, Count: n})
	}
	return t
}

// The call sites of the walk: each tests Options.Advisor and, when set
// and the sample's kind is offered, fills the sample's members and offers
// it.

// adviseResource offers the resource sample; the walk sets the sink's
// context (the service) first, as it does for every sample.
func (w *Walker) adviseResource(r pcommon.Resource) {
	if w.advisor == nil {
		return
	}
	w.adv.s = Sample{Resource: r, SignalType: vocab.SignalResource.String()}
	if w.adv.kinds.Has(SampleResource) {
		w.advise(SampleResource)
	}
	w.adv.s.Kind = SampleAttribute // not SampleResource's any more: see sampleType
}

// adviseScope starts a scope: it offers the scope sample, and its
// attributes follow in its context (no signal, resource or scope).
func (w *Walker) adviseScope(s pcommon.InstrumentationScope, schemaURL string) {
	if w.advisor == nil {
		return
	}
	w.adv.s = Sample{Resource: w.adv.s.Resource, Scope: s, SchemaURL: schemaURL}
	if w.adv.kinds.Has(SampleScope) {
		w.advise(SampleScope)
	}
	w.adv.s.Kind = SampleAttribute // not SampleScope's any more: see sampleType
}

// adviseScopeEnd ends the scope's own samples: the signals that follow
// have the resource and the scope as their context.
func (w *Walker) adviseScopeEnd() {
	w.adv.s.HasResource, w.adv.s.HasScope = true, true
}

func (w *Walker) adviseAttr(k string, v pcommon.Value, r registry.Ref) {
	if w.advisor == nil || !w.offersAttrs() {
		return
	}
	w.adviseAttrOn(k, v, r)
}

// offersAttrs reports whether the current map's attributes are offered:
// attributes must be among the kinds.
func (w *Walker) offersAttrs() bool {
	return w.adv.kinds.Has(SampleAttribute)
}

func (w *Walker) adviseAttrOn(k string, v pcommon.Value, r registry.Ref) {
	w.attrSample(k, v, r)
	w.advise(SampleAttribute)
	w.attrSampleEnd()
}

// attrSample sets the attribute members of the sample: the key, its value
// and its registry entry (none for a template's placeholder).
func (w *Walker) attrSample(k string, v pcommon.Value, r registry.Ref) {
	a := w.ix.Attr(r)
	if a != nil && a.Placeholder {
		a = nil
	}
	s := &w.adv.s
	s.Key, s.Value, s.Attr, s.Kind = k, v, a, SampleAttribute
}

// attrSampleEnd unsets them: the sample keeps no value of the batch.
func (w *Walker) attrSampleEnd() {
	w.adv.s.Key, w.adv.s.Value, w.adv.s.Attr = "", pcommon.Value{}, nil
}

// adviseAttrKept offers an attribute of a map the shape memo records
// (memoStep) to the ShapeAdvisor: advised reports that it was offered (the
// scope's are not), keep that its findings may be kept in the entry.
func (w *Walker) adviseAttrKept(k string, v pcommon.Value, r registry.Ref) (advised, keep bool) {
	if w.shape == nil || !w.offersAttrs() {
		return false, true
	}
	w.attrSample(k, v, r)
	ad := &w.adv
	ad.buf, keep = w.shape.AdviseKept(&ad.s, ad.buf[:0])
	for i := range ad.buf {
		// A hit replays a finding on key k (memoReplay).
		if ad.buf[i].Name != k || ad.buf[i].Subject != vocab.SubjectKey {
			keep = false
		}
	}
	w.adviceFindings()
	w.attrSampleEnd()
	return true, keep
}

// adviseSignal starts a signal (span, metric, log) with its registry
// definition.
func (w *Walker) adviseSignal(typ, name string, g *registry.Group) {
	w.adv.s.SignalType, w.adv.s.SignalName, w.adv.s.Group = typ, name, g
}

func (w *Walker) adviseSpan(sp ptrace.Span) {
	if w.advisor == nil {
		return
	}
	w.adviseSpanOn(sp)
}

func (w *Walker) adviseSpanOn(sp ptrace.Span) {
	w.adviseSignal(vocab.SignalSpan.String(), sp.Name(), nil)
	if w.adv.kinds.Has(SampleSpan) {
		w.adv.s.Span = sp
		w.advise(SampleSpan)
	}
}

// adviseOn sets one member of the sample (a span event, link, data point
// or exemplar of the current signal) and offers it as kind.
func adviseOn[T any](w *Walker, kind SampleKind, member *T, v T) {
	if w.advisor == nil || !w.adv.kinds.Has(kind) {
		return
	}
	*member = v
	w.advise(kind)
}

func (w *Walker) adviseMetric(m pmetric.Metric) {
	if w.advisor == nil {
		return
	}
	w.adviseMetricOn(m)
}

func (w *Walker) adviseMetricOn(m pmetric.Metric) {
	w.adviseSignal(vocab.SignalMetric.String(), m.Name(), w.ix.MetricGroup(m.Name()))
	if w.adv.kinds.Has(SampleMetric) {
		w.adv.s.Metric = m
		w.advise(SampleMetric)
	}
}

func (w *Walker) adviseLog(lr plog.LogRecord) {
	if w.advisor == nil {
		return
	}
	w.adviseLogOn(lr)
}

func (w *Walker) adviseLogOn(lr plog.LogRecord) {
	var g *registry.Group
	if name := lr.EventName(); name != "" {
		g = w.ix.EventGroup(name)
	}
	w.adviseSignal(vocab.SignalLog.String(), lr.EventName(), g)
	if w.adv.kinds.Has(SampleLog) {
		w.adv.s.Log = lr
		w.advise(SampleLog)
	}
}

// FindingID is the finding's ID: ID for a defined finding, Weaver's name
// for a built-in one.
func (ev *FindingEvent) FindingID() string {
	if ev.ID != "" {
		return ev.ID
	}
	return ev.Finding.String()
}
