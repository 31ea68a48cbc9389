package policy

import (
	"context"
	"errors"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/registry"
)

// Event is one finding of a policy on one sample of a batch, with the
// sample's signal (Weaver fills signal_type and signal_name from it when the
// policy set none).
type Event struct {
	Finding
	// Sample is the kind of sample the policy saw; Name its name.
	Sample engine.SampleKind
	Name   string
	// Resource is the sample's resource (its service.name is the report's
	// service).
	Resource pcommon.Resource
}

// Emit receives the events of a walk. The event is reused: copy what is kept.
type Emit func(ev *Event)

// maxWalkErrors bounds the errors one walk returns (all are counted).
const maxWalkErrors = 8

// walk is one batch's evaluation: Weaver's samples in Weaver's order, each
// with its signal's resource, scope and registry definition.
type walk struct {
	ctx  context.Context
	s    *Set
	ix   *registry.Index
	emit Emit
	errs []error
	ev   Event
	// the current resource, scope and signal; inSignal says that the
	// resource and scope are the samples' context (Input.HasResource).
	res        pcommon.Resource
	scp        pcommon.InstrumentationScope
	schemaURL  string
	inSignal   bool
	group      *registry.Group
	signalType string
	signalName string
}

func (w *walk) eval(smp Sample, attr *registry.Attribute) {
	in := Input{
		Sample: smp, Resource: w.res, HasResource: w.inSignal, Scope: w.scp, HasScope: w.inSignal,
		ScopeSchemaURL: w.schemaURL, Attribute: attr, Group: w.group,
	}
	fs, err := w.s.Eval(w.ctx, &in)
	if err != nil && len(w.errs) < maxWalkErrors {
		w.errs = append(w.errs, err)
	}
	for i := range fs {
		w.ev = Event{Finding: fs[i], Sample: smp.Kind, Name: smp.name, Resource: w.res}
		if w.ev.SignalType == "" {
			w.ev.SignalType = w.signalType
		}
		if w.ev.SignalName == "" {
			w.ev.SignalName = w.signalName
		}
		w.emit(&w.ev)
	}
}

func (w *walk) attributes(m pcommon.Map) {
	for k, v := range m.All() {
		w.eval(Attribute(k, v), w.ix.Lookup(k))
	}
}

// resource evaluates a resource and its attributes: samples of their
// own, with no resource or scope as their context.
func (w *walk) resource(r pcommon.Resource) {
	w.res, w.inSignal, w.group, w.signalType, w.signalName = r, false, nil, "resource", ""
	w.eval(Resource(r), nil)
	w.attributes(r.Attributes())
}

// scope evaluates a scope and its attributes, like a resource: Weaver's
// OTLP ingester offers a sample per scope, before the scope's signals,
// with no signal type or name. schemaURL is its container's.
func (w *walk) scope(s pcommon.InstrumentationScope, schemaURL string) {
	w.scp, w.schemaURL, w.inSignal, w.group, w.signalType, w.signalName = s, schemaURL, false, nil, "", ""
	w.eval(Scope(s, schemaURL), nil)
	w.attributes(s.Attributes())
}

// signal starts a span, metric or log: the resource and the scope are
// its samples' context.
func (w *walk) signal(typ, name string, g *registry.Group) {
	w.inSignal, w.group, w.signalType, w.signalName = true, g, typ, name
}

func (w *walk) err() error { return errors.Join(w.errs...) }

// Traces evaluates the policies on every sample of td: each resource and
// its attributes, each scope and its attributes, each span, its
// attributes, events and links. Spans have
// no registry definition here (Weaver's span matching is the engine's).
func (s *Set) Traces(ctx context.Context, ix *registry.Index, td ptrace.Traces, emit Emit) error {
	w := &walk{ctx: ctx, s: s, ix: ix, emit: emit}
	for _, rs := range td.ResourceSpans().All() {
		w.resource(rs.Resource())
		for _, ss := range rs.ScopeSpans().All() {
			w.scope(ss.Scope(), ss.SchemaUrl())
			for _, sp := range ss.Spans().All() {
				w.signal("span", sp.Name(), nil)
				w.eval(Span(sp), nil)
				w.attributes(sp.Attributes())
				for _, e := range sp.Events().All() {
					w.eval(SpanEvent(e), nil)
					w.attributes(e.Attributes())
				}
				for _, l := range sp.Links().All() {
					w.eval(SpanLink(l), nil)
					w.attributes(l.Attributes())
				}
			}
		}
	}
	return w.err()
}

// Metrics evaluates the policies on every sample of md: each resource and
// its attributes, each scope and its attributes, each metric (with its
// registry definition), its data points, their attributes and exemplars.
func (s *Set) Metrics(ctx context.Context, ix *registry.Index, md pmetric.Metrics, emit Emit) error {
	w := &walk{ctx: ctx, s: s, ix: ix, emit: emit}
	for _, rm := range md.ResourceMetrics().All() {
		w.resource(rm.Resource())
		for _, sm := range rm.ScopeMetrics().All() {
			w.scope(sm.Scope(), sm.SchemaUrl())
			for _, m := range sm.Metrics().All() {
				w.signal("metric", m.Name(), ix.MetricGroup(m.Name()))
				w.eval(Metric(m), nil)
				w.points(m)
			}
		}
	}
	return w.err()
}

func (w *walk) exemplars(es pmetric.ExemplarSlice) {
	for _, e := range es.All() {
		w.eval(Exemplar(e), nil)
		w.attributes(e.FilteredAttributes())
	}
}

func (w *walk) points(m pmetric.Metric) {
	number := func(dp pmetric.NumberDataPointSlice) {
		for _, p := range dp.All() {
			w.eval(NumberDataPoint(p), nil)
			w.attributes(p.Attributes())
			w.exemplars(p.Exemplars())
		}
	}
	switch m.Type() {
	case pmetric.MetricTypeGauge:
		number(m.Gauge().DataPoints())
	case pmetric.MetricTypeSum:
		number(m.Sum().DataPoints())
	case pmetric.MetricTypeHistogram:
		for _, p := range m.Histogram().DataPoints().All() {
			w.eval(HistogramDataPoint(p), nil)
			w.attributes(p.Attributes())
			w.exemplars(p.Exemplars())
		}
	case pmetric.MetricTypeExponentialHistogram:
		for _, p := range m.ExponentialHistogram().DataPoints().All() {
			w.eval(ExponentialHistogramDataPoint(p), nil)
			w.attributes(p.Attributes())
			w.exemplars(p.Exemplars())
		}
	case pmetric.MetricTypeSummary:
		for _, p := range m.Summary().DataPoints().All() {
			w.attributes(p.Attributes())
		}
	case pmetric.MetricTypeEmpty:
	}
}

// Logs evaluates the policies on every sample of ld: each resource and its
// attributes, each scope and its attributes, each log record (with its
// event's registry definition) and its attributes.
func (s *Set) Logs(ctx context.Context, ix *registry.Index, ld plog.Logs, emit Emit) error {
	w := &walk{ctx: ctx, s: s, ix: ix, emit: emit}
	for _, rl := range ld.ResourceLogs().All() {
		w.resource(rl.Resource())
		for _, sl := range rl.ScopeLogs().All() {
			w.scope(sl.Scope(), sl.SchemaUrl())
			for _, lr := range sl.LogRecords().All() {
				var g *registry.Group
				if lr.EventName() != "" {
					g = ix.EventGroup(lr.EventName())
				}
				w.signal("log", lr.EventName(), g)
				w.eval(Log(lr), nil)
				w.attributes(lr.Attributes())
			}
		}
	}
	return w.err()
}
