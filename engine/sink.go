package engine

import (
	"slices"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// FindingEvent is one finding with the context a FindingSink needs to turn
// it into Weaver's weaver.live_check.finding log record. Its strings point
// into the batch being walked: a sink copies what it keeps.
type FindingEvent struct {
	Finding vocab.Finding
	// ID names a defined finding (an Advisor's own, Finding >=
	// vocab.NumFindings); "" for a built-in one.
	ID      string
	Level   vocab.Level
	Subject vocab.Subject
	// Name is the attribute key, metric name, event name or span definition
	// id the finding is about.
	Name string
	// SampleType is Weaver's weaver.finding.sample.type, a
	// vocab.SampleType's name: attribute, span, resource,
	// instrumentation_scope, metric, number_data_point,
	// histogram_data_point, exponential_histogram_data_point, log.
	SampleType string
	// SignalType is Weaver's weaver.finding.signal.type, a
	// vocab.SignalType's name: span, metric, log or resource; "" for a
	// scope and its attributes.
	SignalType string
	// SignalName is the metric name, event name or span name ("" when none).
	SignalName string
	// Service is the resource's service.name ("" when none).
	Service string
	// Entity is, for the entity_*_attribute_not_present findings, the
	// entity type whose attribute the resource lacks (Weaver's context
	// entity_type); "" for other findings.
	Entity string
	// Association is, for entity_association_not_satisfied, the one_of
	// that no entity satisfied (registry data: read-only); EntityTypes
	// names its entities.
	Association []registry.EntityAssociation
}

// EntityTypes are the entity types an entity_association_not_satisfied
// finding's association names, in order and each once: Weaver's context
// {"entity_type": [...]} (crates/weaver_live_check/src/advice/
// type_advisor.rs, entity_association_not_satisfied, at afa9700c). Nil for
// other findings.
func (ev *FindingEvent) EntityTypes() []string { return EntityTypes(ev.Association) }

// EntityTypes are the entity types as names, in order and each once.
func EntityTypes(as []registry.EntityAssociation) []string {
	var out []string
	var walk func([]registry.EntityAssociation)
	walk = func(as []registry.EntityAssociation) {
		for i := range as {
			switch a := &as[i]; {
			case a.Entity != "":
				if !slices.Contains(out, a.Entity) {
					out = append(out, a.Entity)
				}
			case a.OneOf != nil:
				walk(a.OneOf)
			default:
				walk(a.AllOf)
			}
		}
	}
	walk(as)
	return out
}

// FindingSink receives a sample of the findings (Options.Sink). Emit is
// called from the walk, for at most as many findings as it accepts: the
// first refusal closes the sink for the rest of the batch, so a sink that
// rate-limits costs one comparison per finding once its budget is spent.
type FindingSink interface {
	Emit(ev *FindingEvent) bool
}

// sinkState is the walker's context for the sink and the scoped rules;
// only maintained when Options.Sink is set or a rule is scoped.
type sinkState struct {
	closed     bool // the sink refused a finding in this batch
	service    string
	signalType string
	signalName string
	pointType  string
	// assoc is the association of the entity_association_not_satisfied
	// being reported (entities.go).
	assoc []registry.EntityAssociation
	// entity is the entity whose attributes are being checked.
	entity string
}

func (s *sinkState) reset() { *s = sinkState{} }

// emit offers one finding, at level lv, to the sink; id names a defined
// finding.
func (w *Walker) emit(f vocab.Finding, lv vocab.Level, subj vocab.Subject, name, id string) {
	ss := &w.grp.sink
	if ss.closed {
		return
	}
	ev := FindingEvent{
		Finding: f, ID: id, Level: lv, Subject: subj, Name: name,
		SignalType: ss.signalType, SignalName: ss.signalName, Service: ss.service,
		SampleType: w.sampleType(f, subj), Entity: ss.entity, Association: ss.assoc,
	}
	if !w.e.opts.Sink.Emit(&ev) {
		ss.closed = true
	}
}

// sampleType is Weaver's sample type of the sample a finding is on, in the
// walk's current context.
func (w *Walker) sampleType(f vocab.Finding, subj vocab.Subject) string {
	ss := &w.grp.sink
	switch {
	case f >= vocab.NumFindings && (w.adv.s.Kind == SampleResource || w.adv.s.Kind == SampleScope):
		// An Advisor's finding on the resource or scope sample itself (its
		// subject is a key, with no name): the kind is reset once the
		// sample's findings are counted (adviseResource, adviseScope).
		return w.adv.s.Kind.String()
	case subj == vocab.SubjectKey && (f >= vocab.FindingRequiredAttributeNotPresent && f <= vocab.FindingUnexpectedAttribute ||
		f >= vocab.FindingEntityRequiredAttributeNotPresent && f <= vocab.FindingEntityConditionallyRequiredAttributeNotPresent):
		if ss.pointType != "" {
			return ss.pointType
		}
		return ss.signalType
	case subj == vocab.SubjectKey:
		return vocab.SampleAttribute.String()
	case f >= vocab.NumFindings:
		// An Advisor's finding is on the sample it was offered.
		return w.adv.s.Kind.String()
	case subj == vocab.SubjectMetric:
		return vocab.SampleMetric.String()
	case subj == vocab.SubjectEvent:
		return vocab.SampleLog.String()
	default:
		return vocab.SampleSpan.String()
	}
}

// sinkResource notes the resource's service.name ("" when none) for the
// sink.
func (w *Walker) sinkResource(service string) {
	if !w.e.tracksSample() {
		return
	}
	w.grp.sink.service = service
	w.grp.sink.signalType, w.grp.sink.signalName, w.grp.sink.pointType = vocab.SignalResource.String(), "", ""
}

// sinkItem notes the item being walked for the sink.
func (w *Walker) sinkItem(signalType, name, pointType string) {
	if !w.e.tracksSample() {
		return
	}
	w.grp.sink.signalType, w.grp.sink.signalName, w.grp.sink.pointType = signalType, name, pointType
}

// pointType is Weaver's sample type of a metric's data points.
func pointType(t pmetric.MetricType) string {
	switch t {
	case pmetric.MetricTypeHistogram:
		return vocab.SampleHistogramDataPoint.String()
	case pmetric.MetricTypeExponentialHistogram:
		return vocab.SampleExponentialHistogramDataPoint.String()
	case pmetric.MetricTypeGauge, pmetric.MetricTypeSum, pmetric.MetricTypeSummary, pmetric.MetricTypeEmpty:
	}
	return vocab.SampleNumberDataPoint.String()
}
