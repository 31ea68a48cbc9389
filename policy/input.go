package policy

import (
	"encoding/hex"
	"encoding/json"
	"math"
	"strconv"

	"github.com/open-policy-agent/opa/v1/ast"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/registry"
)

// Sample is one sample as Weaver's live check sees it, over pdata: built
// into Weaver's JSON form only when a policy is evaluated on it.
type Sample struct {
	// Kind is the member of input.sample that is set, named as Weaver's
	// SampleRef serializes it: the engine's sample kinds, one vocabulary
	// for the processor's walk and this package's.
	Kind engine.SampleKind
	// name is the attribute key, or the span, event or metric name;
	// detail the attribute's inferred type, the span kind or the metric's
	// instrument, unit the metric's unit: with Kind, the memo key.
	name, detail, unit string

	val   pcommon.Value
	span  ptrace.Span
	event ptrace.SpanEvent
	link  ptrace.SpanLink
	res   pcommon.Resource
	scope pcommon.InstrumentationScope
	// schemaURL is a scope sample's container's schema URL.
	schemaURL string
	metric    pmetric.Metric
	ndp       pmetric.NumberDataPoint
	hdp       pmetric.HistogramDataPoint
	edp       pmetric.ExponentialHistogramDataPoint
	ex        pmetric.Exemplar
	log       plog.LogRecord
}

// Name is the sample's name: attribute key, span, span event, metric or
// event name ("" for the others).
func (s *Sample) Name() string { return s.name }

// Attribute is an attribute sample: key k with value v.
func Attribute(k string, v pcommon.Value) Sample {
	return Sample{Kind: engine.SampleAttribute, name: k, detail: valueType(v), val: v}
}

// Span is a span sample.
func Span(s ptrace.Span) Sample {
	return Sample{Kind: engine.SampleSpan, name: s.Name(), detail: engine.SpanKindOf(s.Kind()), span: s}
}

// SpanEvent is a span event sample.
func SpanEvent(e ptrace.SpanEvent) Sample {
	return Sample{Kind: engine.SampleSpanEvent, name: e.Name(), event: e}
}

// SpanLink is a span link sample.
func SpanLink(l ptrace.SpanLink) Sample { return Sample{Kind: engine.SampleSpanLink, link: l} }

// Resource is a resource sample.
func Resource(r pcommon.Resource) Sample { return Sample{Kind: engine.SampleResource, res: r} }

// Scope is an instrumentation scope sample; schemaURL is its container's
// (ScopeSpans, ScopeMetrics, ScopeLogs) schema URL.
func Scope(s pcommon.InstrumentationScope, schemaURL string) Sample {
	return Sample{Kind: engine.SampleScope, name: s.Name(), scope: s, schemaURL: schemaURL}
}

// Metric is a metric sample.
func Metric(m pmetric.Metric) Sample {
	return Sample{Kind: engine.SampleMetric, name: m.Name(), detail: instrument(m), unit: m.Unit(), metric: m}
}

// NumberDataPoint is a gauge or sum data point sample.
func NumberDataPoint(p pmetric.NumberDataPoint) Sample {
	return Sample{Kind: engine.SampleNumberDataPoint, ndp: p}
}

// HistogramDataPoint is a histogram data point sample.
func HistogramDataPoint(p pmetric.HistogramDataPoint) Sample {
	return Sample{Kind: engine.SampleHistogramDataPoint, hdp: p}
}

// ExponentialHistogramDataPoint is an exponential histogram data point
// sample.
func ExponentialHistogramDataPoint(p pmetric.ExponentialHistogramDataPoint) Sample {
	return Sample{Kind: engine.SampleExponentialHistogramDataPoint, edp: p}
}

// Exemplar is an exemplar sample.
func Exemplar(e pmetric.Exemplar) Sample { return Sample{Kind: engine.SampleExemplar, ex: e} }

// Log is a log record sample; its name is the event name.
func Log(l plog.LogRecord) Sample { return Sample{Kind: engine.SampleLog, name: l.EventName(), log: l} }

// Input is Weaver's input document of one evaluation: the sample, the
// resource and scope of the signal it belongs to, and the registry's
// definitions of the attribute and of the signal (nil when none).
type Input struct {
	Sample Sample
	// Resource and Scope are the signal's: a span's, metric's or log's,
	// and of what belongs to it (null for a resource, a scope and their
	// attributes, as in Weaver); without Has*, null. ScopeSchemaURL is the
	// scope's container's schema URL.
	Resource       pcommon.Resource
	HasResource    bool
	Scope          pcommon.InstrumentationScope
	HasScope       bool
	ScopeSchemaURL string
	// Attribute is the registry's entry of an attribute sample's key.
	Attribute *registry.Attribute
	// Group is the registry's definition of the signal.
	Group *registry.Group
}

// Key is what a value-free policy's findings depend on: the memo key. It
// is the engine's AdviceKey, which the shape memo keys a ShapeAdvisor's
// findings with: Name is an attribute's key or the span, event or metric
// name; Detail an attribute's inferred type, the span kind or the metric's
// instrument; Unit the metric's unit.
type Key = engine.AdviceKey

// Key returns in's memo key.
func (in *Input) Key() Key {
	return Key{Kind: in.Sample.Kind, Name: in.Sample.name, Detail: in.Sample.detail, Unit: in.Sample.unit, Attr: in.Attribute, Group: in.Group}
}

// keySize is what the memo counts for k, in bytes.
func keySize(k *Key) int { return len(k.Name) + len(k.Detail) + len(k.Unit) + 64 }

// sampleKey is the Key of the Input that Advisor.Advise builds for s
// (input(s).Key()), without building it: the memo is asked first.
func sampleKey(s *engine.Sample) Key {
	k := Key{Attr: s.Attr, Group: s.Group}
	switch s.Kind {
	case engine.SampleAttribute:
		k.Kind, k.Name, k.Detail = engine.SampleAttribute, s.Key, valueType(s.Value)
	case engine.SampleSpan:
		k.Kind, k.Name, k.Detail = engine.SampleSpan, s.Span.Name(), engine.SpanKindOf(s.Span.Kind())
	case engine.SampleSpanEvent:
		k.Kind, k.Name = engine.SampleSpanEvent, s.SpanEvent.Name()
	case engine.SampleSpanLink:
		k.Kind = engine.SampleSpanLink
	case engine.SampleMetric:
		k.Kind, k.Name, k.Detail, k.Unit = engine.SampleMetric, s.Metric.Name(), instrument(s.Metric), s.Metric.Unit()
	case engine.SampleNumberDataPoint:
		k.Kind = engine.SampleNumberDataPoint
	case engine.SampleHistogramDataPoint:
		k.Kind = engine.SampleHistogramDataPoint
	case engine.SampleExponentialHistogramDataPoint:
		k.Kind = engine.SampleExponentialHistogramDataPoint
	case engine.SampleExemplar:
		k.Kind = engine.SampleExemplar
	case engine.SampleLog:
		k.Kind, k.Name = engine.SampleLog, s.Log.EventName()
	case engine.SampleScope:
		k.Kind, k.Name = engine.SampleScope, s.Scope.Name()
	case engine.SampleResource, engine.NumSampleKinds:
		k.Kind = engine.SampleResource
	}
	return k
}

// document builds Weaver's input document: RegoInput in
// crates/weaver_live_check/src/advice/rego_advisor.rs.
func (in *Input) document() ast.Value {
	null := ast.NullTerm()
	res, scope, ra, rg := null, null, null, null
	if in.HasResource {
		res = resourceTerm(in.Resource)
	}
	if in.HasScope {
		scope = scopeTerm(in.Scope, in.ScopeSchemaURL)
	}
	if in.Attribute != nil {
		ra = registryAttribute(in.Attribute)
	}
	if in.Group != nil {
		rg = registryGroup(in.Group)
	}
	return ast.NewObject(
		ast.Item(ast.StringTerm("sample"), ast.ObjectTerm(ast.Item(ast.StringTerm(in.Sample.Kind.String()), in.Sample.term()))),
		ast.Item(ast.StringTerm("resource"), res),
		ast.Item(ast.StringTerm("instrumentation_scope"), scope),
		ast.Item(ast.StringTerm("registry_attribute"), ra),
		ast.Item(ast.StringTerm("registry_group"), rg),
	)
}

func obj(kv ...any) *ast.Term {
	items := make([][2]*ast.Term, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		items = append(items, ast.Item(ast.StringTerm(kv[i].(string)), kv[i+1].(*ast.Term)))
	}
	return ast.ObjectTerm(items...)
}

func str(s string) *ast.Term { return ast.StringTerm(s) }

func optStr(s string) *ast.Term {
	if s == "" {
		return ast.NullTerm()
	}
	return ast.StringTerm(s)
}

func (s *Sample) term() *ast.Term {
	switch s.Kind {
	case engine.SampleAttribute:
		return attributeTerm(s.name, s.val)
	case engine.SampleSpan:
		return spanTerm(s.span)
	case engine.SampleSpanEvent:
		return obj("name", str(s.event.Name()), "attributes", attributesTerm(s.event.Attributes()))
	case engine.SampleSpanLink:
		return obj("attributes", attributesTerm(s.link.Attributes()))
	case engine.SampleResource:
		return resourceTerm(s.res)
	case engine.SampleScope:
		return scopeTerm(s.scope, s.schemaURL)
	case engine.SampleMetric:
		return metricTerm(s.metric)
	case engine.SampleNumberDataPoint:
		return numberPointTerm(s.ndp)
	case engine.SampleHistogramDataPoint:
		return histogramPointTerm(s.hdp)
	case engine.SampleExponentialHistogramDataPoint:
		return expPointTerm(s.edp)
	case engine.SampleExemplar:
		return exemplarTerm(s.ex)
	case engine.SampleLog:
		return logTerm(s.log)
	case engine.NumSampleKinds:
	}
	return ast.NullTerm()
}

// attributeTerm is Weaver's SampleAttribute: name, value and the type
// inferred from the value.
func attributeTerm(k string, v pcommon.Value) *ast.Term {
	return obj("name", str(k), "value", valueTerm(v), "type", optStr(valueType(v)))
}

func attributesTerm(m pcommon.Map) *ast.Term {
	ts := make([]*ast.Term, 0, m.Len())
	for k, v := range m.All() {
		ts = append(ts, attributeTerm(k, v))
	}
	return ast.ArrayTerm(ts...)
}

// valueTerm is the JSON form of v in Weaver's OTLP conversion: bytes and
// maps have none (null), nor do array elements without one, which are
// left out.
func valueTerm(v pcommon.Value) *ast.Term {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return ast.StringTerm(v.Str())
	case pcommon.ValueTypeInt:
		return ast.IntNumberTerm(int(v.Int()))
	case pcommon.ValueTypeDouble:
		return floatTerm(v.Double())
	case pcommon.ValueTypeBool:
		return ast.BooleanTerm(v.Bool())
	case pcommon.ValueTypeSlice:
		s := v.Slice()
		ts := make([]*ast.Term, 0, s.Len())
		for i := 0; i < s.Len(); i++ {
			if t := valueTerm(s.At(i)); t.Value.Compare(ast.Null{}) != 0 {
				ts = append(ts, t)
			}
		}
		return ast.ArrayTerm(ts...)
	case pcommon.ValueTypeEmpty, pcommon.ValueTypeBytes, pcommon.ValueTypeMap:
	}
	return ast.NullTerm()
}

func floatTerm(f float64) *ast.Term {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return ast.NullTerm()
	}
	return ast.FloatNumberTerm(f)
}

// valueType is Weaver's type inferred from v (SampleAttribute::infer_type):
// "" when none. The engine's type advisor infers the same.
func valueType(v pcommon.Value) string { return engine.InferredType(v) }

func uintNumber(u uint64) json.Number { return json.Number(strconv.FormatUint(u, 10)) }

func spanTerm(s ptrace.Span) *ast.Term {
	status := ast.NullTerm()
	if c, ok := engine.StatusCodeOf(s.Status().Code()); ok {
		status = obj("code", str(c), "message", str(s.Status().Message()))
	}
	events := make([]*ast.Term, 0, s.Events().Len())
	for i := 0; i < s.Events().Len(); i++ {
		e := s.Events().At(i)
		events = append(events, obj("name", str(e.Name()), "attributes", attributesTerm(e.Attributes())))
	}
	links := make([]*ast.Term, 0, s.Links().Len())
	for i := 0; i < s.Links().Len(); i++ {
		links = append(links, obj("attributes", attributesTerm(s.Links().At(i).Attributes())))
	}
	return obj("name", str(s.Name()), "kind", str(engine.SpanKindOf(s.Kind())), "status", status,
		"attributes", attributesTerm(s.Attributes()), "span_events", ast.ArrayTerm(events...), "span_links", ast.ArrayTerm(links...))
}

func resourceTerm(r pcommon.Resource) *ast.Term {
	return obj("attributes", attributesTerm(r.Attributes()))
}

// scopeTerm is Weaver's SampleInstrumentationScope, with its container's
// schema URL.
func scopeTerm(s pcommon.InstrumentationScope, schemaURL string) *ast.Term {
	return obj("name", str(s.Name()), "version", str(s.Version()), "schema_url", str(schemaURL),
		"attributes", attributesTerm(s.Attributes()), "dropped_attributes_count", ast.IntNumberTerm(int(s.DroppedAttributesCount())))
}

// instrument is Weaver's instrument of m as it serializes it (counter,
// updowncounter, gauge, histogram, Summary, Unspecified): the engine's one
// mapping, which the Weaver report writes too.
func instrument(m pmetric.Metric) string { return engine.InstrumentOf(m).String() }

func metricTerm(m pmetric.Metric) *ast.Term {
	var pts []*ast.Term
	switch m.Type() {
	case pmetric.MetricTypeSum:
		pts = numberPoints(m.Sum().DataPoints())
	case pmetric.MetricTypeGauge:
		pts = numberPoints(m.Gauge().DataPoints())
	case pmetric.MetricTypeHistogram:
		dp := m.Histogram().DataPoints()
		for i := 0; i < dp.Len(); i++ {
			pts = append(pts, histogramPointTerm(dp.At(i)))
		}
	case pmetric.MetricTypeExponentialHistogram:
		dp := m.ExponentialHistogram().DataPoints()
		for i := 0; i < dp.Len(); i++ {
			pts = append(pts, expPointTerm(dp.At(i)))
		}
	case pmetric.MetricTypeSummary, pmetric.MetricTypeEmpty:
	}
	return obj("name", str(m.Name()), "instrument", str(instrument(m)), "unit", str(m.Unit()), "data_points", ast.ArrayTerm(pts...))
}

func numberPoints(dp pmetric.NumberDataPointSlice) []*ast.Term {
	pts := make([]*ast.Term, 0, dp.Len())
	for i := 0; i < dp.Len(); i++ {
		pts = append(pts, numberPointTerm(dp.At(i)))
	}
	return pts
}

func numberValue(t pmetric.NumberDataPointValueType, i int64, d float64) *ast.Term {
	if t == pmetric.NumberDataPointValueTypeInt {
		return ast.IntNumberTerm(int(i))
	}
	return floatTerm(d)
}

func exemplarsTerm(es pmetric.ExemplarSlice) *ast.Term {
	ts := make([]*ast.Term, 0, es.Len())
	for i := 0; i < es.Len(); i++ {
		ts = append(ts, exemplarTerm(es.At(i)))
	}
	return ast.ArrayTerm(ts...)
}

func exemplarTerm(e pmetric.Exemplar) *ast.Term {
	return obj("filtered_attributes", attributesTerm(e.FilteredAttributes()),
		"value", numberValue(pmetric.NumberDataPointValueType(e.ValueType()), e.IntValue(), e.DoubleValue()),
		"timestamp", str(e.Timestamp().String()), "span_id", str(hexID(e.SpanID())), "trace_id", str(hexTrace(e.TraceID())))
}

func numberPointTerm(p pmetric.NumberDataPoint) *ast.Term {
	return obj("attributes", attributesTerm(p.Attributes()), "value", numberValue(p.ValueType(), p.IntValue(), p.DoubleValue()),
		"flags", ast.IntNumberTerm(int(p.Flags())), "exemplars", exemplarsTerm(p.Exemplars()))
}

func optFloat(has bool, f float64) *ast.Term {
	if !has {
		return ast.NullTerm()
	}
	return floatTerm(f)
}

func uints(s pcommon.UInt64Slice) *ast.Term {
	ts := make([]*ast.Term, s.Len())
	for i := range ts {
		ts[i] = ast.NumberTerm(uintNumber(s.At(i)))
	}
	return ast.ArrayTerm(ts...)
}

func floats(s pcommon.Float64Slice) *ast.Term {
	ts := make([]*ast.Term, s.Len())
	for i := range ts {
		ts[i] = floatTerm(s.At(i))
	}
	return ast.ArrayTerm(ts...)
}

func histogramPointTerm(p pmetric.HistogramDataPoint) *ast.Term {
	return obj("attributes", attributesTerm(p.Attributes()), "count", ast.NumberTerm(uintNumber(p.Count())),
		"sum", optFloat(p.HasSum(), p.Sum()), "bucket_counts", uints(p.BucketCounts()), "explicit_bounds", floats(p.ExplicitBounds()),
		"min", optFloat(p.HasMin(), p.Min()), "max", optFloat(p.HasMax(), p.Max()),
		"flags", ast.IntNumberTerm(int(p.Flags())), "exemplars", exemplarsTerm(p.Exemplars()))
}

func buckets(b pmetric.ExponentialHistogramDataPointBuckets) *ast.Term {
	return obj("offset", ast.IntNumberTerm(int(b.Offset())), "bucket_counts", uints(b.BucketCounts()))
}

func expPointTerm(p pmetric.ExponentialHistogramDataPoint) *ast.Term {
	return obj("attributes", attributesTerm(p.Attributes()), "count", ast.NumberTerm(uintNumber(p.Count())),
		"sum", optFloat(p.HasSum(), p.Sum()), "scale", ast.IntNumberTerm(int(p.Scale())), "zero_count", ast.NumberTerm(uintNumber(p.ZeroCount())),
		"positive", buckets(p.Positive()), "negative", buckets(p.Negative()), "flags", ast.IntNumberTerm(int(p.Flags())),
		"min", optFloat(p.HasMin(), p.Min()), "max", optFloat(p.HasMax(), p.Max()),
		"zero_threshold", floatTerm(p.ZeroThreshold()), "exemplars", exemplarsTerm(p.Exemplars()))
}

// logTerm is Weaver's OTLP conversion of a log record
// (otlp_log_record_to_sample_log), except the body: Weaver writes an OTLP
// body in Rust's debug form (StringValue("...")); here a body is its
// string form (a string body as is), null when absent.
func logTerm(l plog.LogRecord) *ast.Term {
	body := ast.NullTerm()
	if l.Body().Type() != pcommon.ValueTypeEmpty {
		body = str(l.Body().AsString())
	}
	trace, span := ast.NullTerm(), ast.NullTerm()
	if !l.TraceID().IsEmpty() {
		trace = str(hexTrace(l.TraceID()))
	}
	if !l.SpanID().IsEmpty() {
		span = str(hexID(l.SpanID()))
	}
	return obj("event_name", str(l.EventName()), "severity_number", ast.IntNumberTerm(int(l.SeverityNumber())),
		"severity_text", str(l.SeverityText()), "body", body, "attributes", attributesTerm(l.Attributes()),
		"trace_id", trace, "span_id", span)
}

func hexID(id pcommon.SpanID) string     { return hex.EncodeToString(id[:]) }
func hexTrace(id pcommon.TraceID) string { return hex.EncodeToString(id[:]) }

// registryAttribute is the registry's entry as input.registry_attribute:
// Weaver's attribute fields that the registry model holds.
func registryAttribute(a *registry.Attribute) *ast.Term {
	typ := a.Type.String()
	if a.Template {
		typ = "template[" + typ + "]"
	}
	kv := []any{"name", str(a.Key), "key", str(a.Key), "type", str(typ), "stability", str(a.Stability.String())}
	if a.Deprecation.Reason != registry.NotDeprecated {
		kv = append(kv, "deprecated", deprecatedTerm(a.Deprecation))
	}
	if a.EnumStrings != nil || a.EnumInts != nil {
		var members []*ast.Term
		for _, s := range a.EnumStrings {
			members = append(members, obj("value", str(s)))
		}
		for _, i := range a.EnumInts {
			members = append(members, obj("value", ast.IntNumberTerm(int(i))))
		}
		kv = append(kv, "members", ast.ArrayTerm(members...))
	}
	return obj(kv...)
}

// deprecatedTerm is a definition's deprecated field: reason, renamed_to
// and note.
func deprecatedTerm(d registry.Deprecation) *ast.Term {
	return obj("reason", str(d.Reason.String()), "renamed_to", optStr(d.RenamedTo), "note", str(d.Note))
}

// registryGroup is the registry's definition of the signal as
// input.registry_group: Weaver's group fields that the registry model
// holds.
func registryGroup(g *registry.Group) *ast.Term {
	attrs := make([]*ast.Term, 0, len(g.Attrs))
	for _, a := range g.Attrs {
		attrs = append(attrs, obj("name", str(a.Key), "requirement_level", str(a.Level.String())))
	}
	kv := []any{
		"id", str(g.ID), "type", str(g.Kind.String()), "name", str(g.Name), "stability", str(g.Stability.String()),
		"attributes", ast.ArrayTerm(attrs...), "entity_associations", associations(g.Entities),
	}
	if g.Deprecated {
		kv = append(kv, "deprecated", deprecatedTerm(g.Deprecation))
	}
	if g.HasKind {
		kv = append(kv, "span_kind", str(g.SpanKind.String()))
	}
	if m := g.Metric; m != nil {
		kv = append(kv, "metric_name", str(m.Name), "instrument", str(m.Instrument), "unit", str(m.Unit))
	}
	return obj(kv...)
}

func associations(es []registry.EntityAssociation) *ast.Term {
	ts := make([]*ast.Term, 0, len(es))
	for _, e := range es {
		switch {
		case e.Entity != "":
			ts = append(ts, obj("type", str(e.Entity)))
		case e.OneOf != nil:
			ts = append(ts, obj("one_of", associations(e.OneOf)))
		default:
			ts = append(ts, obj("all_of", associations(e.AllOf)))
		}
	}
	return ast.ArrayTerm(ts...)
}
