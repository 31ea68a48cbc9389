package engine

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// This file holds the checks against semconv groups: each metric, log event and
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

// groupCheck is the walker's check of the current item against its semconv group.
type groupCheck struct {
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
	// quiet: the attributes being walked get no findings (pointUnchecked).
	quiet bool
	// res are the attributes of the current resource, which its items'
	// entity_associations are checked against (entities.go).
	res    pcommon.Map
	hasRes bool
	seen   registry.AttrBits
	match  uint64
	nPend  int
	pendA  [maxPendingSpanAttrs]*registry.Attribute
	pendK  [maxPendingSpanAttrs]string

	// Per-registry cache: the service entity and the name rules of ix.
	ix      *registry.Index
	service *registry.Group
	rules   *nameRules

	// sink is the context of Options.Sink (sink.go).
	sink sinkState
}

func (s *groupCheck) reset() {
	s.def, s.active, s.pending, s.resource, s.guard, s.quiet = nil, false, false, false, false, false
	s.res, s.hasRes = pcommon.Map{}, false
	clear(s.pendK[:s.nPend])
	clear(s.pendA[:s.nPend])
	s.nPend = 0
	s.ix, s.service, s.rules = nil, nil, nil
	s.sink.reset()
}

// finding counts one finding of the current item.
func (w *Walker) finding(f vocab.Finding, subj vocab.Subject, name string) {
	w.findingAt(f, w.e.levels[f], subj, name, "")
}

// findingAt counts one finding at level lv: a built-in one per service, a
// defined one (an Advisor's, named id) in Batch.Advice.
func (w *Walker) findingAt(f vocab.Finding, lv vocab.Level, subj vocab.Subject, name, id string) {
	if !w.e.opts.Findings || w.grp.quiet {
		return
	}
	if w.e.findingRules.on {
		var keep bool
		if lv, keep = w.rule(f, lv, subj, name, id); !keep {
			return
		}
	}
	if w.memo.rec != nil {
		w.memo.rec.finding(f, lv, subj, id)
	}
	if f < vocab.NumFindings {
		w.svc.Findings[f]++
	} else {
		w.countAdvice(f, lv, id, 1)
	}
	w.findingOut(f, lv, subj, name, id)
}

// findingOut is the detail of one finding counted by findingAt at level
// lv (after the finding rules), or replayed by the shape memo: the report's
// tally by name and the sink. It returns the finding's index in
// Batch.Findings (-1 without Options.Detail).
func (w *Walker) findingOut(f vocab.Finding, lv vocab.Level, subj vocab.Subject, name, id string) int {
	i := w.report.finding(f, lv, subj, name, id)
	if w.e.opts.Sink != nil {
		w.emit(f, lv, subj, name, id)
	}
	return i
}

// nameFindings reports otel.rego's findings on an attribute key the
// registry does not define (weaver.go).
func (w *Walker) nameFindings(k string) { w.keyNameFindings(k, nil) }

// groupAttr is the per-attribute part of the signal checks, called by
// checkKey before the key is classified; r is the key's registry reference
// (no entry when the registry does not define the key). A registry key gets
// its own findings here: template_attribute, otel.rego's name rules when it
// is a template or breaks them itself (nameRules.odd), and not_stable. Then,
// when the item is checked against a definition (or a span's waits for
// its matchers), the attribute, a deprecated key as its rename target, is
// marked present in the definition; one outside it (resources excepted)
// gets unexpected_attribute in the profile extended and is dropped under
// the cardinality guard. groupAttr reports whether it dropped the
// attribute, which is then fully counted.
func (w *Walker) groupAttr(k string, r registry.Ref) bool {
	s := &w.grp
	a := w.ix.Attr(r)
	if a != nil && !a.Placeholder {
		if a.Template {
			w.finding(vocab.FindingTemplateAttribute, vocab.SubjectKey, k)
		}
		if a.Template || s.rules.isOdd(r) {
			w.keyNameFindings(k, a)
		}
		// Weaver's stability advisor runs whether or not the attribute is
		// deprecated.
		if w.e.unstable(a.Stability) {
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
	if w.e.extended {
		// Weaver raises unexpected_attribute for v2 signals only.
		w.finding(vocab.FindingUnexpectedAttribute, vocab.SubjectKey, k)
	}
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
	s := &w.grp
	d := s.def
	names := w.report.findings.enabled || w.e.opts.Sink != nil
	for i := range requirementFindings {
		lv := &requirementFindings[i]
		missing := d.Levels[lv.l].AndNot(s.seen)
		if n := int64(missing.Count()); n > 0 && w.e.findingRules.on {
			// Each finding through the rules (rules.go).
			for p := missing.Next(0); p >= 0; p = missing.Next(p + 1) {
				w.finding(lv.f, vocab.SubjectKey, d.Attrs[p].Key)
			}
		} else if n > 0 {
			// Counted in bulk; the positions are walked only when a
			// report needs the names.
			w.svc.Findings[lv.f] += n
			if names {
				for p := missing.Next(0); p >= 0; p = missing.Next(p + 1) {
					w.findingOut(lv.f, w.e.levels[lv.f], vocab.SubjectKey, d.Attrs[p].Key, "")
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
func (w *Walker) refresh(ix *registry.Index) {
	s := &w.grp
	if s.ix != ix {
		s.ix = ix
		s.service = ix.ServiceEntity()
		s.rules = w.e.nameRules(ix)
	}
}

// groupResource starts the resource check; groupResourceEnd finishes it.
func (w *Walker) groupResource(service string, attrs pcommon.Map) {
	s := &w.grp
	if !w.e.opts.Findings {
		return
	}
	s.noteResource(attrs)
	w.sinkResource(service)
	w.refresh(w.ix)
	if !w.e.extended {
		// Weaver checks no resource against the service entity.
		return
	}
	s.def, s.active, s.resource, s.seen = s.service, true, true, registry.AttrBits{}
}

func (w *Walker) groupResourceEnd() {
	s := &w.grp
	if s.resource && s.def != nil {
		w.requirements()
	}
	s.def, s.active, s.resource = nil, false, false
}

// spanAttrs walks a span's own attributes and checks the span against the
// definition the first matching matcher selects.
func (w *Walker) spanAttrs(span ptrace.Span, kind registry.SpanKind) {
	s := &w.grp
	if !w.e.opts.Findings {
		w.attrs(span.Attributes())
		return
	}
	if !w.e.extended {
		// Weaver matches no span to a v1 definition.
		w.attrs(span.Attributes())
		return
	}
	s.active, s.pending, s.match = true, true, 0
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
	if w.e.unstable(d.Stability) {
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
	adviseOn(w, SampleSpanEvent, &w.adv.s.SpanEvent, ev)
	s := &w.grp
	if !w.e.opts.Findings || !w.e.extended {
		// Weaver checks a span event's attributes as attributes only.
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
	w.sinkItem(vocab.SignalLog.String(), lr.EventName(), "")
	w.adviseLog(lr)
	s := &w.grp
	if !w.e.opts.Findings {
		w.attrs(lr.Attributes())
		return
	}
	s.def = nil
	if name := lr.EventName(); name != "" {
		s.def = w.ix.EventGroup(name)
		if s.def == nil {
			// otel.rego has no rule for event names.
			w.finding(vocab.FindingMissingEvent, vocab.SubjectEvent, name)
		} else {
			if s.def.Deprecated {
				w.finding(vocab.FindingDeprecated, vocab.SubjectEvent, name)
			}
			if w.e.unstable(s.def.Stability) {
				w.finding(vocab.FindingNotStable, vocab.SubjectEvent, name)
			}
			w.entities(s.def, vocab.SubjectEvent, name)
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

// groupMetric resolves the definition of a metric and reports its
// metric-level findings; the data points are checked by pointAttrs.
func (w *Walker) groupMetric(m pmetric.Metric) {
	s := &w.grp
	s.def = nil
	if !w.e.opts.Findings {
		return
	}
	name := m.Name()
	// otel.rego checks every metric name's format, and nothing else of it.
	if !vocab.ValidName(name) {
		w.finding(vocab.FindingInvalidFormat, vocab.SubjectMetric, name)
	}
	d := w.ix.MetricGroup(name)
	if d != nil && d.Metric.Placeholder && !w.e.extended {
		// A name only a schema file or a rule renames is not in Weaver's
		// registry.
		d = nil
	}
	if d == nil {
		w.finding(vocab.FindingMissingMetric, vocab.SubjectMetric, name)
		return
	}
	md := d.Metric
	if md.Placeholder || md.Deprecation.Reason != registry.NotDeprecated {
		w.finding(vocab.FindingDeprecated, vocab.SubjectMetric, name)
	}
	if w.e.unstable(d.Stability) {
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
	w.entities(d, vocab.SubjectMetric, name)
	s.def = d
	s.guard = w.mutate && w.e.opts.DropUnexpected
}

// groupMetricEnd ends a metric's checks.
func (w *Walker) groupMetricEnd() {
	w.grp.def, w.grp.guard = nil, false
}

// pointCheck says how much of a data point Weaver checks.
type pointCheck uint8

const (
	// pointFull: the attributes, and the definition's requirements
	// (number and histogram data points).
	pointFull pointCheck = iota
	// pointAttrsOnly: the attributes, not the requirements (exponential
	// histogram data points).
	pointAttrsOnly
	// pointUnchecked: nothing (summary data points, which Weaver's OTLP
	// conversion drops); the walk still migrates and guards them.
	pointUnchecked
)

// pointAttrs walks one data point's attributes and checks them against the
// metric's definition, as much as pc says.
func (w *Walker) pointAttrs(m pcommon.Map, pc pointCheck) {
	s := &w.grp
	s.quiet = pc == pointUnchecked
	if s.def == nil {
		w.attrs(m)
		s.quiet = false
		return
	}
	s.active, s.seen = true, registry.AttrBits{}
	w.attrs(m)
	s.active, s.quiet = false, false
	switch pc {
	case pointFull:
		w.requirements()
	case pointAttrsOnly, pointUnchecked:
		w.report.signal(s.def, &s.seen)
	}
}

// instrumentMatches reports whether metric data has the registry's
// instrument. Summaries match no instrument.
func instrumentMatches(m pmetric.Metric, instrument string) bool {
	i := InstrumentOf(m)
	return i.Supported() && i.String() == instrument
}
