package engine

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// This file holds the signal conformance checks: each metric, log event and
// matched span is checked against its registry definition, with Weaver
// live-check's findings. The walk resolves one definition per item through
// the registry's generated tables, and the attribute walk that already runs
// sets the definition's positions in a fixed-size bitset; the requirement
// checks are then a few word operations. Nothing here allocates once the
// walker's report maps have grown.

// maxPendingSpanAttrs bounds the attributes of one span remembered until a
// matcher selects its definition; attributes beyond it are checked as keys
// only (no unexpected_attribute, and they count as absent).
const maxPendingSpanAttrs = 64

// signalState is the walker's per-item signal check.
type signalState struct {
	// def is the definition the current item is checked against; nil
	// outside an item or for items without one.
	def *registry.Group
	// active: the attribute map being walked is the item's own (not an
	// exemplar's, a span event's or a link's).
	active bool
	// pending: a span whose definition the matchers select after its
	// attributes are walked.
	pending bool
	// resource: the item is a resource, checked for the service entity's
	// required attributes only.
	resource bool
	// guard: drop attributes outside def (metric data points with
	// DropUnexpected on writable data).
	guard bool
	seen  registry.AttrBits
	match uint64
	nPend int
	pendA [maxPendingSpanAttrs]*registry.Attribute
	pendK [maxPendingSpanAttrs]string

	// Per-registry cache: the service entity of ix.
	ix      *registry.Index
	service *registry.Group

	// sink is the context of Options.Sink (sink.go).
	sink sinkState
}

func (s *signalState) reset() {
	s.def, s.active, s.pending, s.resource, s.guard = nil, false, false, false, false
	clear(s.pendK[:s.nPend])
	clear(s.pendA[:s.nPend])
	s.nPend = 0
	s.ix, s.service = nil, nil
	s.sink.reset()
}

// finding counts one finding of the current item.
func (w *Walker) finding(f vocab.Finding, subj vocab.Subject, name string) {
	if !w.e.opts.Findings {
		return
	}
	w.svc.Findings[f]++
	w.report.finding(f, w.e.levels[f], subj, name)
	if w.e.opts.Sink != nil {
		w.emit(f, subj, name)
	}
}

// nameFindings reports the format findings of a name the registry does not
// define: invalid_format, missing_namespace and, for attribute keys,
// extends_namespace.
func (w *Walker) nameFindings(name string, subj vocab.Subject) {
	if !vocab.ValidName(name) {
		w.finding(vocab.FindingInvalidFormat, subj, name)
	}
	hasDot := false
	for i := 0; i < len(name); i++ {
		if name[i] == '.' {
			hasDot = true
			break
		}
	}
	if !hasDot {
		w.finding(vocab.FindingMissingNamespace, subj, name)
		return
	}
	if subj == vocab.SubjectKey && w.ix.ExtendsNamespace(name) {
		w.finding(vocab.FindingExtendsNamespace, subj, name)
	}
}

// sigAttr is the signal check of one attribute, called by check before the
// key is classified. a is the registry's entry (nil when unknown). It
// reports whether the attribute was dropped by the cardinality guard; it
// is then fully counted.
func (w *Walker) sigAttr(k string, a *registry.Attribute) bool {
	s := &w.sig
	if a != nil && !a.Placeholder {
		if a.Template {
			w.finding(vocab.FindingTemplateAttribute, vocab.SubjectKey, k)
		}
		if a.Stability != registry.StabilityStable && a.Deprecation.Reason == registry.NotDeprecated {
			w.finding(vocab.FindingNotStable, vocab.SubjectKey, k)
		}
	}
	if !s.active || (s.def == nil && !s.pending) {
		return false
	}
	// A deprecated key that the walk renames is checked as its target.
	if a != nil && (a.Placeholder || a.Deprecation.Reason != registry.NotDeprecated) {
		if t := a.Target(w.ctx); t != nil {
			a = t
		} else if a.Placeholder {
			a = nil
		}
	}
	if s.pending {
		s.match |= a.MatchBit()
		if s.nPend < maxPendingSpanAttrs {
			s.pendA[s.nPend], s.pendK[s.nPend] = a, k
			s.nPend++
		}
		return false
	}
	if p := s.def.Position(a); p >= 0 {
		s.seen.Set(p)
		return false
	}
	if s.resource {
		return false
	}
	w.finding(vocab.FindingUnexpectedAttribute, vocab.SubjectKey, k)
	if s.guard {
		w.drop(k, vocab.ReasonUnexpected)
		return true
	}
	return false
}

// requirementFindings maps requirement levels to the finding of an absent
// attribute; required first, the only level resources are checked for.
var requirementFindings = [...]struct {
	l registry.RequirementLevel
	f vocab.Finding
}{
	{registry.RequirementRequired, vocab.FindingRequiredAttributeNotPresent},
	{registry.RequirementRecommended, vocab.FindingRecommendedAttributeNotPresent},
	{registry.RequirementOptIn, vocab.FindingOptInAttributeNotPresent},
	{registry.RequirementConditionallyRequired, vocab.FindingConditionallyRequiredAttributeNotPresent},
}

// requirements reports the definition's attributes the item lacks, and
// notes its coverage. Resources are checked for required attributes only.
func (w *Walker) requirements() {
	s := &w.sig
	d := s.def
	names := w.report.findings.enabled || w.e.opts.Sink != nil
	for i := range requirementFindings {
		lv := &requirementFindings[i]
		missing := d.Levels[lv.l].AndNot(s.seen)
		if n := int64(missing.Count()); n > 0 {
			// Counted in bulk; the positions are walked only when a
			// report needs the names.
			w.svc.Findings[lv.f] += n
			if names {
				for p := missing.Next(0); p >= 0; p = missing.Next(p + 1) {
					w.report.finding(lv.f, w.e.levels[lv.f], vocab.SubjectKey, d.Attrs[p].Key)
					if w.e.opts.Sink != nil {
						w.emit(lv.f, vocab.SubjectKey, d.Attrs[p].Key)
					}
				}
			}
		}
		if s.resource {
			break
		}
	}
	if !s.resource {
		w.report.signal(d, &s.seen)
	}
}

// refresh caches the per-registry lookups when the batch's registry differs
// from the last one.
func (s *signalState) refresh(ix *registry.Index) {
	if s.ix != ix {
		s.ix = ix
		s.service = ix.EntityGroup("service")
	}
}

// sigResource starts the resource check; sigResourceEnd finishes it.
func (w *Walker) sigResource(service string) {
	s := &w.sig
	if !w.e.opts.Findings {
		return
	}
	w.sinkResource(service)
	s.refresh(w.ix)
	s.def, s.active, s.resource, s.seen = s.service, true, true, registry.AttrBits{}
}

func (w *Walker) sigResourceEnd() {
	s := &w.sig
	if s.resource && s.def != nil {
		w.requirements()
	}
	s.def, s.active, s.resource = nil, false, false
}

// spanAttrs walks a span's own attributes and checks the span against the
// definition the first matching matcher selects.
func (w *Walker) spanAttrs(span ptrace.Span, kind registry.SpanKind) {
	s := &w.sig
	if !w.e.opts.Findings {
		w.attrs(span.Attributes())
		return
	}
	s.active, s.pending, s.match = true, true, 0
	w.sinkItem("span", span.Name(), "")
	w.attrs(span.Attributes())
	s.active, s.pending = false, false
	d := w.ix.MatchSpan(kind, s.match)
	n := s.nPend
	s.nPend = 0
	if d == nil {
		clear(s.pendK[:n])
		return
	}
	s.def, s.seen = d, registry.AttrBits{}
	for i := range n {
		if p := d.Position(s.pendA[i]); p >= 0 {
			s.seen.Set(p)
		} else {
			w.finding(vocab.FindingUnexpectedAttribute, vocab.SubjectKey, s.pendK[i])
		}
	}
	clear(s.pendK[:n])
	if d.HasKind && d.SpanKind != kind {
		w.finding(vocab.FindingKindMismatch, vocab.SubjectSpan, d.ID)
	}
	if d.Stability != registry.StabilityStable {
		w.finding(vocab.FindingNotStable, vocab.SubjectSpan, d.ID)
	}
	w.requirements()
	s.def = nil
}

// spanEvent walks a span event's attributes; an event whose name the
// registry defines (exception) is checked against that definition. Other
// span events get the attribute checks only: span event names are free
// text in many instrumentations, so an unknown one is not missing_event.
func (w *Walker) spanEvent(ev ptrace.SpanEvent) {
	s := &w.sig
	if !w.e.opts.Findings {
		w.attrs(ev.Attributes())
		return
	}
	d := w.ix.EventGroup(ev.Name())
	if d == nil {
		w.attrs(ev.Attributes())
		return
	}
	s.def, s.active, s.seen = d, true, registry.AttrBits{}
	w.attrs(ev.Attributes())
	s.active = false
	w.requirements()
	s.def = nil
}

// logRecord walks a log record's attributes and checks an event against
// its definition.
func (w *Walker) logRecord(lr plog.LogRecord) {
	w.mig.rec = lr // a move to EventName needs the record (values.go)
	s := &w.sig
	if !w.e.opts.Findings {
		w.attrs(lr.Attributes())
		return
	}
	s.def = nil
	w.sinkItem("log", lr.EventName(), "")
	if name := lr.EventName(); name != "" {
		s.def = w.ix.EventGroup(name)
		switch {
		case s.def == nil:
			w.finding(vocab.FindingMissingEvent, vocab.SubjectEvent, name)
			w.nameFindings(name, vocab.SubjectEvent)
		case s.def.Stability != registry.StabilityStable:
			w.finding(vocab.FindingNotStable, vocab.SubjectEvent, name)
		}
	}
	s.active, s.seen = true, registry.AttrBits{}
	w.attrs(lr.Attributes())
	s.active = false
	if s.def != nil {
		w.requirements()
		s.def = nil
	}
}

// sigMetric resolves the definition of a metric and reports its
// metric-level findings; the data points are checked by pointAttrs.
func (w *Walker) sigMetric(m pmetric.Metric) {
	s := &w.sig
	s.def = nil
	if !w.e.opts.Findings {
		return
	}
	name := m.Name()
	w.sinkItem("metric", name, pointType(m.Type()))
	d := w.ix.MetricGroup(name)
	if d == nil {
		w.finding(vocab.FindingMissingMetric, vocab.SubjectMetric, name)
		w.nameFindings(name, vocab.SubjectMetric)
		return
	}
	md := d.Metric
	if md.Placeholder || md.Deprecation.Reason != registry.NotDeprecated {
		w.finding(vocab.FindingDeprecated, vocab.SubjectMetric, name)
	} else if d.Stability != registry.StabilityStable {
		w.finding(vocab.FindingNotStable, vocab.SubjectMetric, name)
	}
	if md.Placeholder {
		return
	}
	if !instrumentMatches(m, md.Instrument) {
		w.finding(vocab.FindingUnexpectedInstrument, vocab.SubjectMetric, name)
	}
	if m.Unit() != md.Unit {
		w.finding(vocab.FindingUnitMismatch, vocab.SubjectMetric, name)
	}
	s.def = d
	s.guard = w.mutate && w.e.opts.DropUnexpected
}

// sigMetricEnd ends a metric's checks.
func (w *Walker) sigMetricEnd() {
	w.sig.def, w.sig.guard = nil, false
}

// pointAttrs walks one data point's attributes and checks them against the
// metric's definition.
func (w *Walker) pointAttrs(m pcommon.Map) {
	s := &w.sig
	if s.def == nil {
		w.attrs(m)
		return
	}
	s.active, s.seen = true, registry.AttrBits{}
	w.attrs(m)
	s.active = false
	w.requirements()
}

// instrumentMatches reports whether metric data has the registry's
// instrument. Summaries match no instrument.
func instrumentMatches(m pmetric.Metric, instrument string) bool {
	switch m.Type() {
	case pmetric.MetricTypeSum:
		if m.Sum().IsMonotonic() {
			return instrument == "counter"
		}
		return instrument == "updowncounter"
	case pmetric.MetricTypeGauge:
		return instrument == "gauge"
	case pmetric.MetricTypeHistogram, pmetric.MetricTypeExponentialHistogram:
		return instrument == "histogram"
	case pmetric.MetricTypeSummary, pmetric.MetricTypeEmpty:
		return false
	}
	return false
}
