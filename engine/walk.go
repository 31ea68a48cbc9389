package engine

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

const serviceNameKey = "service.name"

// Walker walks one batch. It holds everything the walk needs, so that a walk
// over conforming data allocates nothing: the Engine pools walkers, and the
// op list and the scratch value are reused from batch to batch.
type Walker struct {
	e      *Engine
	ix     *registry.Index
	mutate bool // the configuration mutates and the batch is writable

	ctx registry.Context
	// tally is the batch's one tally (Batch).
	tally Batch
	// svc is the tally of the current resource's service: it points into
	// tally.Services, or at noService outside a governed resource.
	svc       *ServiceTally
	noService ServiceTally
	// services files resources by bounded service.name when the engine has
	// no ServiceSlots and fills the detail: name -> index in tally.Services.
	// With neither, nothing reads per-service counts, and one entry
	// (wholeBatch) holds the batch.
	services map[string]int
	// lastSlot is the identity ServiceSlots gave the last name that got a
	// slot of its own (its Name is the table's copy, and that name as
	// received); ok is false until one did. A slot never changes hands,
	// so it outlives the batch: consecutive batches of one service skip
	// ServiceSlots.Slot (a lock and a map).
	lastSlot   ServiceID
	lastSlotOK bool

	// ops are the changes found in the current map, applied after the scan:
	// pdata has no stable iteration under mutation.
	ops  []op
	nOps opCounts
	// keys remembers, per location and position in the map, the last key
	// seen there and what the registry said about it. Items of one
	// instrumentation carry their keys in the same order, so most lookups
	// become one string comparison.
	keys [NumLocations]keyCache
	// moved carries the values of renamed keys from their old keys to their
	// new keys without a copy; it grows to the most renames of one map.
	moved []pcommon.Value
	empty pcommon.Value // always empty; clears a moved value without allocating
	// planSpare holds, per map length n, a spare backing array that
	// layOut lays a map of n keys out in before giving it to the map,
	// and it takes the map's former one back as the next spare: a key
	// slice whose values are all empty, len n, cap >= n (made lazily, once
	// per length). planOld is the empty Map that receives the map's array.
	planSpare [memoMaxKeys + 1]pcommon.Map
	planMade  [memoMaxKeys + 1]bool
	planOld   pcommon.Map
	// report fills the tally's detail (Options.Detail).
	report reportTally
	// mig is the value-migration state (values.go).
	mig migState
	// grp is the check of the current item against its semconv group (groups.go).
	grp groupCheck

	// memo is the walker's state of the shape memo (memo.go).
	memo memoWalker
	// advisor is the batch's Advisor (Engine.WalkerAdvised), nil without
	// one; shape is it when it is a ShapeAdvisor.
	advisor Advisor
	shape   ShapeAdvisor
	// adv is the Advisor's context (advice.go).
	adv adviceState
}

func newWalker(e *Engine) *Walker {
	w := &Walker{
		e:       e,
		ops:     make([]op, 0, 16),
		empty:   pcommon.NewValueEmpty(),
		planOld: pcommon.NewMap(),
		report:  newReportTally(e.opts.Detail),
	}
	w.report.batch = &w.tally
	w.svc = &w.noService
	if e.opts.Services == nil && e.opts.Detail {
		w.services = make(map[string]int, 8)
	}
	return w
}

// keyCacheSize is the number of map positions remembered per location.
const keyCacheSize = 32

type keyCache struct {
	keys [keyCacheSize]string
	refs [keyCacheSize]registry.Ref
	used int // positions below used may be set; reset clears only those
}

// lookup is Index.LookupRef through the positional cache. The zero entry
// ("", 0) is correct too: the registry defines no empty key.
func (w *Walker) lookup(k string, pos int) registry.Ref {
	if pos >= keyCacheSize {
		return w.ix.LookupRef(k)
	}
	c := &w.keys[w.ctx.Location]
	if c.keys[pos] == k {
		return c.refs[pos]
	}
	r := w.ix.LookupRef(k)
	c.keys[pos], c.refs[pos] = k, r
	c.used = max(c.used, pos+1)
	return r
}

func (w *Walker) reset() {
	// Do not keep the batch's key strings alive in the pool. Only the
	// positions used are cleared: clearing all of them cost more than
	// walking a small batch.
	for i := range w.keys {
		c := &w.keys[i]
		clear(c.keys[:c.used])
		clear(c.refs[:c.used])
		c.used = 0
	}
	w.tally.reset()
	clear(w.services)
	w.ops = w.ops[:0]
	w.svc, w.noService = &w.noService, ServiceTally{}
	w.ctx = registry.Context{}
	w.ix = nil
	w.report.reset()
	w.mig = migState{}
	w.grp.reset()
	w.memo.detail.reset()
	if w.advisor != nil {
		w.adv.reset() // only an Advisor's walk fills it
	}
}

// Batch returns the tally of the batch walked so far. It belongs to the
// walker: read it before Release.
func (w *Walker) Batch() *Batch {
	w.flushMemoDetail()
	w.report.flush()
	return &w.tally
}

// count counts one attribute's outcome, by location and for its service.
func (w *Walker) count(o vocab.Outcome) { w.countN(o, 1) }

// countN counts n attributes of outcome o, as count does one.
func (w *Walker) countN(o vocab.Outcome, n int) {
	w.tally.Attrs[w.ctx.Location][o] += int64(n)
	w.svc.Outcomes[o] += int64(n)
	w.mig.rewrites += n * rewriteOutcome[o]
}

// serviceID is the service identity of a resource: the front-end's
// ServiceSlots, or the bounded name.
func (w *Walker) serviceID(name string, hasName bool) ServiceID {
	slots := w.e.opts.Services
	switch {
	case slots != nil && hasName:
		if w.lastSlotOK && w.lastSlot.Name == name {
			return w.lastSlot
		}
		id := slots.Slot(name)
		if !id.Overflow && id.Name == name {
			w.lastSlot, w.lastSlotOK = id, true
		}
		return id
	case slots != nil:
		return slots.Missing()
	case hasName:
		b, _ := vocab.Bound(name)
		return ServiceID{Slot: -1, Name: b}
	}
	return ServiceID{Slot: -1, Name: vocab.ServiceMissing}
}

// wholeBatch is the one service entry of a walk without ServiceSlots and
// without Options.Detail.
var wholeBatch = ServiceID{Slot: -1}

// service selects the tally of a service identity, adding it on first use.
func (w *Walker) service(id ServiceID) {
	if id.Overflow {
		w.tally.Overflow++
	}
	ss := w.tally.Services
	i := -1
	if w.services == nil {
		for j := range ss {
			if ss[j].Slot == id.Slot {
				i = j
				break
			}
		}
	} else if j, ok := w.services[id.Name]; ok {
		i = j
	}
	if i < 0 {
		i = len(ss)
		if w.services != nil {
			id.Slot = i
			w.services[id.Name] = i
		}
		w.tally.Services = append(ss, ServiceTally{Slot: id.Slot, Service: id.Name})
	}
	w.svc = &w.tally.Services[i]
	w.report.svcIdx = i
}

// resource starts a resource: it applies include_resources, selects the
// service tally and walks the resource attributes. It reports whether the
// resource is governed.
func (w *Walker) resource(res pcommon.Resource) bool {
	attrs := res.Attributes()
	if len(w.e.include) > 0 && !w.e.included(attrs) {
		return false
	}
	// service.name is looked up once per resource, and the service identity
	// computed once, for every sink of the tally and the finding sink.
	name, hasName := "", false
	if v, ok := attrs.Get(serviceNameKey); ok && v.Type() == pcommon.ValueTypeStr {
		name, hasName = v.Str(), true
	}
	if w.e.opts.Services == nil && w.services == nil {
		w.service(wholeBatch)
	} else {
		w.service(w.serviceID(name, hasName))
	}
	w.setCtx(registry.LocationResource, 0, "")
	w.groupResource(name, attrs) // the sink's context first: see adviseResource
	w.adviseResource(res)
	w.attrs(attrs)
	w.groupResourceEnd()
	return true
}

// scope starts a scope: the scope sample, then its attributes; schemaURL
// is its container's.
func (w *Walker) scope(s pcommon.InstrumentationScope, schemaURL string) {
	w.setCtx(registry.LocationScope, 0, "")
	// The sink sees a scope and its attributes with no signal type or
	// name, as Weaver reports them (the scope sample is their signal, and
	// it has none), not in the context of the previous scope's last item.
	w.sinkItem("", "", "")
	w.adviseScope(s, schemaURL)
	w.attrs(s.Attributes())
	w.adviseScopeEnd()
}

// Traces walks a traces batch.
func (w *Walker) Traces(td ptrace.Traces) {
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		rs := rss.At(i)
		r0 := w.mig.rewrites
		if !w.resource(rs.Resource()) {
			continue
		}
		sss := rs.ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			ss := sss.At(j)
			s0 := w.mig.rewrites
			w.scope(ss.Scope(), ss.SchemaUrl())
			spans := ss.Spans()
			for k := 0; k < spans.Len(); k++ {
				w.span(spans.At(k))
			}
			schemaURL(w, ss, s0, SchemaScope)
		}
		schemaURL(w, rs, r0, SchemaResource)
	}
}

func (w *Walker) span(span ptrace.Span) {
	kind := spanKind(span.Kind())
	w.setCtx(registry.LocationSpan, kind, "")
	w.mig.span = span
	w.sinkItem("span", span.Name(), "")
	w.adviseSpan(span)
	w.spanAttrs(span, kind)
	events := span.Events()
	if events.Len() > 0 {
		w.setCtx(registry.LocationSpanEvent, kind, "")
		for i := 0; i < events.Len(); i++ {
			w.spanEvent(events.At(i))
		}
	}
	links := span.Links()
	if links.Len() > 0 {
		w.setCtx(registry.LocationSpanLink, kind, "")
		for i := 0; i < links.Len(); i++ {
			adviseOn(w, SampleSpanLink, &w.adv.s.SpanLink, links.At(i))
			w.attrs(links.At(i).Attributes())
		}
	}
}

// setCtx sets the walk's context (SpanName stays empty: the walk does not
// scope renames by span name). It writes only the fields that change: the
// walk sets the context for every item, and writing a string field costs
// write barriers while the collector's GC marks, which at line rate is
// much of the time.
func (w *Walker) setCtx(l registry.Location, kind registry.SpanKind, metric string) {
	c := &w.ctx
	c.Location, c.SpanKind = l, kind
	if c.MetricName != metric {
		c.MetricName = metric
	}
	if c.SpanName != "" {
		c.SpanName = ""
	}
}

// spanKind maps pdata's span kind to the registry's.
func spanKind(k ptrace.SpanKind) registry.SpanKind {
	switch k {
	case ptrace.SpanKindInternal:
		return registry.SpanKindInternal
	case ptrace.SpanKindServer:
		return registry.SpanKindServer
	case ptrace.SpanKindClient:
		return registry.SpanKindClient
	case ptrace.SpanKindProducer:
		return registry.SpanKindProducer
	case ptrace.SpanKindConsumer:
		return registry.SpanKindConsumer
	default:
		return registry.SpanKindUnspecified
	}
}

// Logs walks a logs batch.
func (w *Walker) Logs(ld plog.Logs) {
	rls := ld.ResourceLogs()
	for i := 0; i < rls.Len(); i++ {
		rl := rls.At(i)
		r0 := w.mig.rewrites
		if !w.resource(rl.Resource()) {
			continue
		}
		sls := rl.ScopeLogs()
		for j := 0; j < sls.Len(); j++ {
			sl := sls.At(j)
			s0 := w.mig.rewrites
			w.scope(sl.Scope(), sl.SchemaUrl())
			w.setCtx(registry.LocationLog, 0, "")
			records := sl.LogRecords()
			for k := 0; k < records.Len(); k++ {
				w.logRecord(records.At(k))
			}
			schemaURL(w, sl, s0, SchemaScope)
		}
		schemaURL(w, rl, r0, SchemaResource)
	}
}

// Metrics walks a metrics batch.
func (w *Walker) Metrics(md pmetric.Metrics) {
	rms := md.ResourceMetrics()
	for i := 0; i < rms.Len(); i++ {
		rm := rms.At(i)
		r0 := w.mig.rewrites
		if !w.resource(rm.Resource()) {
			continue
		}
		sms := rm.ScopeMetrics()
		for j := 0; j < sms.Len(); j++ {
			sm := sms.At(j)
			s0 := w.mig.rewrites
			w.scope(sm.Scope(), sm.SchemaUrl())
			ms := sm.Metrics()
			// Copies of renamed metrics are appended; do not walk them again.
			n := ms.Len()
			for k := range n {
				m := ms.At(k)
				// The sink's context is set before the advisor's findings
				// on the metric, as for every sample.
				w.sinkItem("metric", m.Name(), pointType(m.Type()))
				w.adviseMetric(m)
				w.groupMetric(m)
				w.dataPoints(m)
				w.groupMetricEnd()
				w.metricName(ms, m)
			}
			schemaURL(w, sm, s0, SchemaScope)
		}
		schemaURL(w, rm, r0, SchemaResource)
	}
}

// dataPoints walks the data-point and exemplar attributes of one metric. The
// rename context is the metric name as received.
func (w *Walker) dataPoints(m pmetric.Metric) {
	w.setCtx(registry.LocationDataPoint, 0, m.Name())
	switch m.Type() {
	case pmetric.MetricTypeGauge:
		w.numberPoints(m.Gauge().DataPoints())
	case pmetric.MetricTypeSum:
		w.numberPoints(m.Sum().DataPoints())
	case pmetric.MetricTypeHistogram:
		dps := m.Histogram().DataPoints()
		for i := 0; i < dps.Len(); i++ {
			dp := dps.At(i)
			adviseOn(w, SampleHistogramDataPoint, &w.adv.s.HistogramPoint, dp)
			w.pointAttrs(dp.Attributes(), pointFull)
			w.exemplars(dp.Exemplars())
		}
	case pmetric.MetricTypeExponentialHistogram:
		dps := m.ExponentialHistogram().DataPoints()
		for i := 0; i < dps.Len(); i++ {
			dp := dps.At(i)
			adviseOn(w, SampleExponentialHistogramDataPoint, &w.adv.s.ExpPoint, dp)
			w.pointAttrs(dp.Attributes(), pointAttrsOnly)
			w.exemplars(dp.Exemplars())
		}
	case pmetric.MetricTypeSummary:
		dps := m.Summary().DataPoints()
		for i := 0; i < dps.Len(); i++ {
			w.pointAttrs(dps.At(i).Attributes(), pointUnchecked)
		}
	case pmetric.MetricTypeEmpty:
	}
}

func (w *Walker) numberPoints(dps pmetric.NumberDataPointSlice) {
	for i := 0; i < dps.Len(); i++ {
		dp := dps.At(i)
		adviseOn(w, SampleNumberDataPoint, &w.adv.s.NumberPoint, dp)
		w.pointAttrs(dp.Attributes(), pointFull)
		w.exemplars(dp.Exemplars())
	}
}

func (w *Walker) exemplars(exs pmetric.ExemplarSlice) {
	for i := 0; i < exs.Len(); i++ {
		adviseOn(w, SampleExemplar, &w.adv.s.Exemplar, exs.At(i))
		w.attrs(exs.At(i).FilteredAttributes())
	}
}

// attrs checks every attribute of one map, then applies the changes found.
// The shape memo (memo.go) walks it when it can.
func (w *Walker) attrs(m pcommon.Map) {
	n := m.Len()
	if n == 0 {
		return
	}
	w.ops, w.nOps = w.ops[:0], opCounts{}
	if w.memo.on && !w.grp.pending && n <= memoMaxKeys && w.memoTry() {
		w.memoAttrs(m, n)
	} else {
		w.attrsFull(m)
	}
	switch {
	case len(w.ops) > 0:
		w.apply(m, w.ops, &w.nOps, nil)
	case w.memo.hitOps != nil: // a plan memoWalk laid out already
		w.apply(m, w.memo.hitOps.ops, &w.memo.hitOps.nOps, w.memo.hitOps.renameAt)
	}
	if w.memo.hitOps != nil {
		w.memo.hitOps = nil
	}
}

// attrsFull checks every attribute of one map, queueing the changes.
func (w *Walker) attrsFull(m pcommon.Map) {
	pos := 0
	for k, v := range m.All() {
		r := w.lookup(k, pos)
		w.adviseAttr(k, v, r)
		w.checkKey(k, r, v, true)
		pos++
	}
}

// An attribute is classified in two halves, which the shape memo
// (memo.go) tells apart: checkKey reads the key and never the value,
// checkTail reads the value; on the full walk checkKey runs checkTail
// itself (one call per attribute). Changes are queued in w.ops.

// tail says what checkTail still has to do for an attribute once
// checkKey has decided all that the key alone decides.
type tail uint8

const (
	// tailDone: nothing (an unknown key, or one the cardinality guard
	// dropped).
	tailDone tail = iota
	// tailPlain: a plain registry key (registry.Ref.Plain): its value's
	// type is checked.
	tailPlain
	// tailValue: a current registry key: type and enum membership.
	tailValue
	// tailTarget: a deprecated key with a rename target in this context:
	// the value's finding, value migrations, then the rename.
	tailTarget
	// tailDeprecated: a deprecated key without a target: the value's
	// finding, value migrations, else deprecated_kept.
	tailDeprecated
)

// checkKey does what the key alone decides: the group check, the key's
// findings, the report's key tallies, unknown keys. It reads no value, so
// that for one key in one context it always does the same, and returns
// what checkTail still has to do; with full set it does that too (v is
// read only then) and returns tailDone.
func (w *Walker) checkKey(k string, r registry.Ref, v pcommon.Value, full bool) tail {
	if w.e.opts.Findings && w.groupAttr(k, r) {
		return tailDone
	}
	if r.Plain() {
		// The common case: a current key that no rule renames and no enum
		// constrains. Its outcome is decided from the Ref alone: a scalar
		// of the right type is conformant without reading the *Attribute
		// here. With Options.Findings on (the default), groupAttr above has
		// already read ix.Attr(r) for the key's findings; the Ref saves the
		// rest of the classification, not that read.
		if w.report.enabled {
			w.report.registryKey(r, w.ix)
		}
		if !full {
			return tailPlain
		}
		// checkTail's first case, inline: the common case costs no call.
		if want := scalarType[r.Type()&typeMask]; want != pcommon.ValueTypeEmpty && v.Type() == want {
			w.count(vocab.OutcomeConformant)
			return tailDone
		}
		return w.tailIf(full, k, v, r, tailPlain)
	}
	a := w.ix.Attr(r)
	if a == nil {
		w.unknown(k)
		return tailDone
	}
	if !a.Placeholder {
		w.report.registryKey(r, w.ix)
	}
	if t := a.Target(w.ctx); t != nil {
		w.report.key(k, KeyDeprecated)
		switch {
		case !a.Placeholder:
			w.finding(vocab.FindingDeprecated, vocab.SubjectKey, k)
		case w.e.extended:
			w.finding(vocab.FindingDeprecated, vocab.SubjectKey, k)
		case w.e.opts.Findings:
			// Only a schema file or a rule renames it: not in Weaver's
			// registry.
			w.unknownFindings(k, w.e.allowed(k))
		}
		return w.tailIf(full, k, v, r, tailTarget)
	}
	switch {
	case a.Placeholder:
		w.unknown(k)
		return tailDone
	case a.Deprecation.Reason != registry.NotDeprecated:
		w.report.key(k, KeyDeprecated)
		w.finding(vocab.FindingDeprecated, vocab.SubjectKey, k)
		return w.tailIf(full, k, v, r, tailDeprecated)
	}
	return w.tailIf(full, k, v, r, tailValue)
}

// tailIf runs checkTail when full is set (and then returns tailDone), or
// returns tl.
func (w *Walker) tailIf(full bool, k string, v pcommon.Value, r registry.Ref, tl tail) tail {
	if !full {
		return tl
	}
	w.checkTail(k, v, r, tl)
	return tailDone
}

// checkTail does what the value decides, after checkKey returned tl.
func (w *Walker) checkTail(k string, v pcommon.Value, r registry.Ref, tl tail) {
	switch tl {
	case tailPlain:
		if want := scalarType[r.Type()&typeMask]; want != pcommon.ValueTypeEmpty && v.Type() == want {
			w.count(vocab.OutcomeConformant)
			return
		}
		w.value(k, v, w.ix.Attr(r))
	case tailValue:
		w.value(k, v, w.ix.Attr(r))
	case tailTarget:
		a := w.ix.Attr(r)
		t := a.Target(w.ctx)
		if !a.Placeholder && w.e.opts.Findings {
			w.valueFinding(k, v, a)
		}
		if (a.Migration != nil || t.DeprecatedMembers != nil) && w.renameValue(k, v, a, t) {
			return
		}
		w.deprecated(k, a, t)
	case tailDeprecated:
		a := w.ix.Attr(r)
		if w.e.opts.Findings {
			w.valueFinding(k, v, a)
		}
		if a.Migration != nil && w.migrate(k, v, a) {
			return
		}
		w.count(vocab.OutcomeDeprecatedKept)
	case tailDone:
	}
}

func (w *Walker) unknown(k string) {
	allowed := w.e.allowed(k)
	w.unknownFindings(k, allowed)
	switch {
	case allowed:
		w.count(vocab.OutcomeAllowed)
	case w.mutate && w.e.opts.Unknown == UnknownDrop:
		w.report.key(k, KeyUnknown)
		w.drop(k, vocab.ReasonUnknown)
	default:
		w.report.key(k, KeyUnknown)
		w.count(vocab.OutcomeUnknown)
	}
}

// unknownFindings are the findings on a key outside the registry.
func (w *Walker) unknownFindings(k string, allowed bool) {
	if w.e.opts.Findings && !allowed {
		w.finding(vocab.FindingMissingAttribute, vocab.SubjectKey, k)
		w.nameFindings(k)
	}
}

func (w *Walker) drop(k string, r vocab.DropReason) {
	w.queue(op{kind: opDrop, key: k})
	w.tally.Drops[r]++
	w.count(vocab.OutcomeDropped)
}

func (w *Walker) deprecated(k string, a, t *registry.Attribute) {
	mode := w.e.deprecatedMode(k)
	if !w.mutate || mode == DeprecatedOff {
		w.count(vocab.OutcomeDeprecatedKept)
		return
	}
	newKey := a.RenamedKey(k, t)
	kind := opRename
	if mode == DeprecatedCopy {
		kind = opCopy
	}
	// Counted when applied: only then is a collision known.
	w.queue(op{kind: kind, key: k, target: newKey})
}

// value checks a current attribute's type and enum membership.
func (w *Walker) value(k string, v pcommon.Value, a *registry.Attribute) {
	if !typeMatches(a.Type, v) {
		w.mismatch(k, v, a)
		return
	}
	w.enumValue(k, v, a)
}

func (w *Walker) mismatch(k string, v pcommon.Value, a *registry.Attribute) {
	want := a.Type
	if w.e.opts.Findings {
		// The finding is Weaver's verdict, which differs from the
		// outcome for enums and compatible or untyped values.
		w.valueFinding(k, v, a)
	}
	if !w.mutate {
		w.count(vocab.OutcomeTypeMismatch)
		return
	}
	switch w.e.opts.TypeMismatch {
	case TypeMismatchDrop:
		w.drop(k, vocab.ReasonTypeMismatch)
		return
	case TypeMismatchCoerce:
		if c, ok := coerce(v, want); ok {
			w.queue(op{kind: opCoerce, key: k, val: c})
			w.count(vocab.OutcomeCoerced)
			return
		}
	case TypeMismatchKeep:
	}
	w.count(vocab.OutcomeTypeMismatch)
}

// scalarType maps scalar registry types to their pdata value type; every
// other type maps to ValueTypeEmpty and takes the full check.
var scalarType = [typeMask + 1]pcommon.ValueType{
	registry.TypeString:  pcommon.ValueTypeStr,
	registry.TypeInt:     pcommon.ValueTypeInt,
	registry.TypeDouble:  pcommon.ValueTypeDouble,
	registry.TypeBoolean: pcommon.ValueTypeBool,
}

// typeMask bounds the scalarType index without a bounds check.
const typeMask = 15

// typeMatches reports whether a value has the declared type. Arrays must be
// homogeneous; an empty array matches any array type.
func typeMatches(t registry.Type, v pcommon.Value) bool {
	switch t {
	case registry.TypeString:
		return v.Type() == pcommon.ValueTypeStr
	case registry.TypeInt:
		return v.Type() == pcommon.ValueTypeInt
	case registry.TypeDouble:
		return v.Type() == pcommon.ValueTypeDouble
	case registry.TypeBoolean:
		return v.Type() == pcommon.ValueTypeBool
	case registry.TypeStringArray:
		return sliceOf(v, pcommon.ValueTypeStr)
	case registry.TypeIntArray:
		return sliceOf(v, pcommon.ValueTypeInt)
	case registry.TypeDoubleArray:
		return sliceOf(v, pcommon.ValueTypeDouble)
	case registry.TypeBooleanArray:
		return sliceOf(v, pcommon.ValueTypeBool)
	case registry.TypeAny, registry.TypeUnknown:
		return true
	}
	return true
}

func sliceOf(v pcommon.Value, elem pcommon.ValueType) bool {
	if v.Type() != pcommon.ValueTypeSlice {
		return false
	}
	s := v.Slice()
	for i := 0; i < s.Len(); i++ {
		if s.At(i).Type() != elem {
			return false
		}
	}
	return true
}

// metricName handles a deprecated metric name. It renames only when the
// registry's target has the data's instrument and unit.
func (w *Walker) metricName(ms pmetric.MetricSlice, m pmetric.Metric) {
	md := w.ix.Metric(m.Name())
	switch {
	case md == nil:
		w.tally.Names[vocab.OutcomeUnknown]++
	case md.RenamedTo != "":
		t := w.ix.Metric(md.RenamedTo)
		if t == nil || !compatible(m, t) {
			w.tally.Names[vocab.OutcomeIncompatible]++
			return
		}
		if !w.mutate {
			w.tally.Names[vocab.OutcomeDeprecatedKept]++
			return
		}
		switch w.e.deprecatedMode(md.Name) {
		case DeprecatedRename:
			m.SetName(t.Name)
			w.tally.Names[vocab.OutcomeRenamed]++
			w.mig.rewrites++
		case DeprecatedCopy:
			c := ms.AppendEmpty()
			m.CopyTo(c)
			c.SetName(t.Name)
			w.tally.Names[vocab.OutcomeCopied]++
		case DeprecatedOff:
			w.tally.Names[vocab.OutcomeDeprecatedKept]++
		}
	case md.Deprecation.Reason != registry.NotDeprecated:
		w.tally.Names[vocab.OutcomeDeprecatedKept]++
	default:
		w.tally.Names[vocab.OutcomeConformant]++
	}
}

// compatible reports whether metric data fits a registry metric definition:
// same unit, and an instrument that produces this data type.
func compatible(m pmetric.Metric, t *registry.Metric) bool {
	if m.Unit() != t.Unit {
		return false
	}
	switch m.Type() {
	case pmetric.MetricTypeSum:
		if m.Sum().IsMonotonic() {
			return t.Instrument == "counter"
		}
		return t.Instrument == "updowncounter"
	case pmetric.MetricTypeGauge:
		return t.Instrument == "gauge"
	case pmetric.MetricTypeHistogram, pmetric.MetricTypeExponentialHistogram:
		return t.Instrument == "histogram"
	case pmetric.MetricTypeSummary, pmetric.MetricTypeEmpty:
		return false
	}
	return false
}
