package checker

// Weaver's live-check report (weaver registry live-check --format json),
// shapes as open-telemetry/weaver afa9700c serializes them:
// crates/weaver_live_check/src/{lib,sample_*,stats}.rs and
// crates/weaver_checker/src/finding.rs. Option fields are always written
// (null when unset), as serde writes them.

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// Formats of WeaverWriter (not of Render, which renders the aggregate).
const (
	FormatWeaver      = "weaver"       // Weaver's --format json
	FormatWeaverLines = "weaver-jsonl" // Weaver's --format jsonl
)

// MaxWeaverArray bounds the elements of an array attribute value echoed in
// the Weaver report (every string in it is bounded by vocab.Bound).
const MaxWeaverArray = 64

// WeaverFinding is Weaver's PolicyFinding.
type WeaverFinding struct {
	ID         string         `json:"id"`
	Context    map[string]any `json:"context"`
	Message    string         `json:"message"`
	Level      string         `json:"level"`
	SignalType *string        `json:"signal_type"`
	SignalName *string        `json:"signal_name"`
	level      vocab.Level
	about      string // the engine's name: attribute key, metric, event or span definition
}

// WeaverResult is Weaver's LiveCheckResult.
type WeaverResult struct {
	AllAdvice          []WeaverFinding `json:"all_advice"`
	HighestAdviceLevel *string         `json:"highest_advice_level"`
}

// WeaverAttribute is Weaver's SampleAttribute.
type WeaverAttribute struct {
	Name            string        `json:"name"`
	Value           any           `json:"value"`
	Type            *string       `json:"type"`
	LiveCheckResult *WeaverResult `json:"live_check_result"`
}

// WeaverResource is Weaver's SampleResource.
type WeaverResource struct {
	Attributes      []*WeaverAttribute `json:"attributes"`
	LiveCheckResult *WeaverResult      `json:"live_check_result"`
}

// WeaverScope is Weaver's SampleInstrumentationScope.
type WeaverScope struct {
	Name                   string             `json:"name"`
	Version                string             `json:"version"`
	SchemaURL              string             `json:"schema_url"`
	Attributes             []*WeaverAttribute `json:"attributes"`
	DroppedAttributesCount uint32             `json:"dropped_attributes_count"`
	LiveCheckResult        *WeaverResult      `json:"live_check_result"`
}

// WeaverStatus is Weaver's span Status.
type WeaverStatus struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// WeaverSpan is Weaver's SampleSpan.
type WeaverSpan struct {
	Name            string             `json:"name"`
	Kind            string             `json:"kind"`
	Status          *WeaverStatus      `json:"status"`
	Attributes      []*WeaverAttribute `json:"attributes"`
	SpanEvents      []*WeaverSpanEvent `json:"span_events"`
	SpanLinks       []*WeaverSpanLink  `json:"span_links"`
	LiveCheckResult *WeaverResult      `json:"live_check_result"`
}

// WeaverSpanEvent is Weaver's SampleSpanEvent.
type WeaverSpanEvent struct {
	Name            string             `json:"name"`
	Attributes      []*WeaverAttribute `json:"attributes"`
	LiveCheckResult *WeaverResult      `json:"live_check_result"`
}

// WeaverSpanLink is Weaver's SampleSpanLink.
type WeaverSpanLink struct {
	Attributes      []*WeaverAttribute `json:"attributes"`
	LiveCheckResult *WeaverResult      `json:"live_check_result"`
}

// WeaverDataPoint is one of Weaver's SampleNumberDataPoint,
// SampleHistogramDataPoint or SampleExponentialHistogramDataPoint: the
// fields of its kind are set (see MarshalJSON).
type WeaverDataPoint struct {
	kind            vocab.SampleType // a number, histogram or exponential histogram data point
	Attributes      []*WeaverAttribute
	Value           any
	Count           uint64
	Sum             *float64
	BucketCounts    []uint64
	ExplicitBounds  []float64
	Min, Max        *float64
	Scale           int32
	ZeroCount       uint64
	Positive        *WeaverBuckets
	Negative        *WeaverBuckets
	Flags           uint32
	LiveCheckResult *WeaverResult
}

// SampleType is the point's sample type: a number, histogram or
// exponential histogram data point.
func (p *WeaverDataPoint) SampleType() vocab.SampleType { return p.kind }

// WeaverBuckets are an exponential histogram's buckets.
type WeaverBuckets struct {
	Offset       int32    `json:"offset"`
	BucketCounts []uint64 `json:"bucket_counts"`
}

// MarshalJSON writes the fields of the point's kind.
func (p *WeaverDataPoint) MarshalJSON() ([]byte, error) {
	m := map[string]any{"attributes": p.Attributes, "live_check_result": p.LiveCheckResult}
	switch p.kind {
	case vocab.SampleNumberDataPoint:
		m["value"], m["flags"], m["exemplars"] = p.Value, p.Flags, []any{}
	case vocab.SampleHistogramDataPoint:
		m["count"], m["sum"], m["bucket_counts"], m["explicit_bounds"] = p.Count, p.Sum, nonNil(p.BucketCounts), nonNil(p.ExplicitBounds)
		m["min"], m["max"], m["flags"], m["exemplars"] = p.Min, p.Max, p.Flags, []any{}
	default:
		m["count"], m["sum"], m["scale"], m["zero_count"] = p.Count, p.Sum, p.Scale, p.ZeroCount
		m["positive"], m["negative"] = p.Positive, p.Negative
	}
	return json.Marshal(m)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// WeaverMetric is Weaver's SampleMetric.
type WeaverMetric struct {
	Name            string             `json:"name"`
	Instrument      string             `json:"instrument"`
	Unit            string             `json:"unit"`
	DataPoints      []*WeaverDataPoint `json:"data_points"`
	LiveCheckResult *WeaverResult      `json:"live_check_result"`
}

// WeaverLog is Weaver's SampleLog.
type WeaverLog struct {
	EventName       string             `json:"event_name"`
	SeverityNumber  *int32             `json:"severity_number"`
	SeverityText    *string            `json:"severity_text"`
	Body            *string            `json:"body"`
	Attributes      []*WeaverAttribute `json:"attributes"`
	TraceID         *string            `json:"trace_id"`
	SpanID          *string            `json:"span_id"`
	LiveCheckResult *WeaverResult      `json:"live_check_result"`
}

// WeaverSample is Weaver's Sample: exactly one field is set, and it is
// written as {"<snake_case kind>": {...}}.
type WeaverSample struct {
	Resource             *WeaverResource `json:"resource,omitempty"`
	InstrumentationScope *WeaverScope    `json:"instrumentation_scope,omitempty"`
	Span                 *WeaverSpan     `json:"span,omitempty"`
	Metric               *WeaverMetric   `json:"metric,omitempty"`
	Log                  *WeaverLog      `json:"log,omitempty"`
}

// WeaverStatistics is Weaver's CumulativeStatistics.
type WeaverStatistics struct {
	TotalEntities            int            `json:"total_entities"`
	TotalEntitiesByType      map[string]int `json:"total_entities_by_type"`
	TotalAdvisories          int            `json:"total_advisories"`
	AdviceLevelCounts        map[string]int `json:"advice_level_counts"`
	HighestAdviceLevelCounts map[string]int `json:"highest_advice_level_counts"`
	NoAdviceCount            int            `json:"no_advice_count"`
	AdviceTypeCounts         map[string]int `json:"advice_type_counts"`
	AdviceMessageCounts      map[string]int `json:"advice_message_counts"`
	SeenRegistryAttributes   map[string]int `json:"seen_registry_attributes"`
	SeenNonRegistryAttrs     map[string]int `json:"seen_non_registry_attributes"`
	SeenRegistryMetrics      map[string]int `json:"seen_registry_metrics"`
	SeenNonRegistryMetrics   map[string]int `json:"seen_non_registry_metrics"`
	SeenRegistryEvents       map[string]int `json:"seen_registry_events"`
	SeenNonRegistryEvents    map[string]int `json:"seen_non_registry_events"`
	RegistryCoverage         float32        `json:"registry_coverage"`
	highest                  vocab.Level
	anyFinding               bool
}

// WeaverReport is Weaver's LiveCheckReport (the report shape).
type WeaverReport struct {
	Statistics *WeaverStatistics `json:"statistics"`
	Samples    []*WeaverSample   `json:"samples"`
}

// WeaverOptions configure a WeaverWriter.
type WeaverOptions struct {
	// Engine are the engine's options (read-only walk; Findings and Sink
	// are set by the writer).
	Engine engine.Options
	// Report selects Weaver's report shape (one {statistics, samples}
	// object, as weaver's --no-stream or --output DIR); otherwise the
	// streaming shape: one document per sample, then the statistics.
	Report bool
	// Lines writes each document on one line (Weaver's jsonl); otherwise
	// indented, as Weaver's json. Lines are always one per sample, then
	// the statistics: Weaver's report of a line-oriented format has no
	// {statistics, samples} object (generate_report in
	// src/registry/live_check.rs).
	Lines bool
}

// WeaverWriter writes Weaver's live-check report for the telemetry it is
// given, finding by finding. It is not safe for concurrent use.
type WeaverWriter struct {
	w       io.Writer
	opts    WeaverOptions
	e       *engine.Engine
	ix      *registry.Index
	rec     *eventRecorder
	stats   *WeaverStatistics
	samples []*WeaverSample
	err     error
}

// NewWeaverWriter returns a writer of Weaver's report on w.
func NewWeaverWriter(w io.Writer, ix *registry.Index, opts WeaverOptions) *WeaverWriter {
	if opts.Lines {
		opts.Report = false // the same documents, in the same order
	}
	rec := &eventRecorder{}
	eo := opts.Engine
	eo.Findings, eo.Sink, eo.Detail, eo.Services = true, rec, false, nil
	ww := &WeaverWriter{w: w, opts: opts, e: engine.New(eo), ix: ix, rec: rec, stats: newWeaverStatistics(ix)}
	return ww
}

func newWeaverStatistics(ix *registry.Index) *WeaverStatistics {
	s := &WeaverStatistics{
		TotalEntitiesByType: map[string]int{}, AdviceLevelCounts: map[string]int{},
		HighestAdviceLevelCounts: map[string]int{}, AdviceTypeCounts: map[string]int{},
		AdviceMessageCounts: map[string]int{}, SeenRegistryAttributes: map[string]int{},
		SeenNonRegistryAttrs: map[string]int{}, SeenRegistryMetrics: map[string]int{},
		SeenNonRegistryMetrics: map[string]int{}, SeenRegistryEvents: map[string]int{},
		SeenNonRegistryEvents: map[string]int{}, highest: vocab.NumLevels,
	}
	// Weaver's extract_registry_items (crates/weaver_live_check/src/stats.rs):
	// the registry's definitions that are not deprecated; a deprecated one
	// seen counts as non-registry. Placeholders (names only a schema or
	// rules file renames) are no definition.
	for _, a := range ix.Attributes() {
		if !a.Placeholder && a.Deprecation.Reason == registry.NotDeprecated {
			s.SeenRegistryAttributes[a.Key] = 0
		}
	}
	for _, m := range ix.Metrics() {
		if g := ix.MetricGroup(m.Name); !m.Placeholder && m.Deprecation.Reason == registry.NotDeprecated && (g == nil || !g.Deprecated) {
			s.SeenRegistryMetrics[m.Name] = 0
		}
	}
	for _, g := range ix.Groups() {
		if g.Kind == registry.GroupEvent && !g.Deprecated {
			s.SeenRegistryEvents[g.Name] = 0
		}
	}
	return s
}

// Fails reports whether a finding written so far (after the modifier) is
// at or above failOn, as Weaver's should_fail over its statistics.
func (ww *WeaverWriter) Fails(failOn FailOn) bool {
	return ww.stats.anyFinding && failOn.Fails(ww.stats.highest)
}

// Samples returns the samples kept in the report shape (nil when
// streaming).
func (ww *WeaverWriter) Samples() []*WeaverSample { return ww.samples }

// Statistics returns the statistics so far.
func (ww *WeaverWriter) Statistics() *WeaverStatistics { return ww.stats }

// eventRecorder is the engine sink of one sub-batch walk.
type eventRecorder struct{ events []engine.FindingEvent }

func (r *eventRecorder) Emit(ev *engine.FindingEvent) bool {
	c := *ev
	c.Name, c.SignalName = clone(ev.Name), clone(ev.SignalName)
	r.events = append(r.events, c)
	return true
}

func clone(s string) string { b, _ := vocab.Bound(s); return string([]byte(b)) }

// Traces writes the samples of a traces request: per resource, the
// resource, then per scope the scope and its spans.
func (ww *WeaverWriter) Traces(td ptrace.Traces) {
	for _, rs := range td.ResourceSpans().All() {
		ww.resource(rs.Resource(), func(w *engine.Walker) {
			one := ptrace.NewTraces()
			rs.Resource().CopyTo(one.ResourceSpans().AppendEmpty().Resource())
			w.Traces(one)
		})
		for _, ss := range rs.ScopeSpans().All() {
			// one is the resource and the scope alone, then with each span.
			one := ptrace.NewTraces()
			r := one.ResourceSpans().AppendEmpty()
			rs.Resource().CopyTo(r.Resource())
			s := r.ScopeSpans().AppendEmpty()
			ss.Scope().CopyTo(s.Scope())
			s.SetSchemaUrl(ss.SchemaUrl())
			ww.scope(ss.Scope(), ss.SchemaUrl(), func(w *engine.Walker) { w.Traces(one) })
			for _, sp := range ss.Spans().All() {
				s.Spans().RemoveIf(func(ptrace.Span) bool { return true })
				sp.CopyTo(s.Spans().AppendEmpty())
				events := ww.walk(func(w *engine.Walker) { w.Traces(one) })
				sample := ww.span(sp)
				ww.attach(sample, events)
				ww.emit(sample)
			}
		}
	}
}

// Metrics writes the samples of a metrics request.
func (ww *WeaverWriter) Metrics(md pmetric.Metrics) {
	for _, rm := range md.ResourceMetrics().All() {
		ww.resource(rm.Resource(), func(w *engine.Walker) {
			one := pmetric.NewMetrics()
			rm.Resource().CopyTo(one.ResourceMetrics().AppendEmpty().Resource())
			w.Metrics(one)
		})
		for _, sm := range rm.ScopeMetrics().All() {
			one := pmetric.NewMetrics()
			r := one.ResourceMetrics().AppendEmpty()
			rm.Resource().CopyTo(r.Resource())
			s := r.ScopeMetrics().AppendEmpty()
			sm.Scope().CopyTo(s.Scope())
			s.SetSchemaUrl(sm.SchemaUrl())
			ww.scope(sm.Scope(), sm.SchemaUrl(), func(w *engine.Walker) { w.Metrics(one) })
			for _, m := range sm.Metrics().All() {
				s.Metrics().RemoveIf(func(pmetric.Metric) bool { return true })
				m.CopyTo(s.Metrics().AppendEmpty())
				events := ww.walk(func(w *engine.Walker) { w.Metrics(one) })
				sample := ww.metric(m)
				ww.attach(sample, events)
				ww.emit(sample)
			}
		}
	}
}

// Logs writes the samples of a logs request.
func (ww *WeaverWriter) Logs(ld plog.Logs) {
	for _, rl := range ld.ResourceLogs().All() {
		ww.resource(rl.Resource(), func(w *engine.Walker) {
			one := plog.NewLogs()
			rl.Resource().CopyTo(one.ResourceLogs().AppendEmpty().Resource())
			w.Logs(one)
		})
		for _, sl := range rl.ScopeLogs().All() {
			one := plog.NewLogs()
			r := one.ResourceLogs().AppendEmpty()
			rl.Resource().CopyTo(r.Resource())
			s := r.ScopeLogs().AppendEmpty()
			sl.Scope().CopyTo(s.Scope())
			s.SetSchemaUrl(sl.SchemaUrl())
			ww.scope(sl.Scope(), sl.SchemaUrl(), func(w *engine.Walker) { w.Logs(one) })
			for _, lr := range sl.LogRecords().All() {
				s.LogRecords().RemoveIf(func(plog.LogRecord) bool { return true })
				lr.CopyTo(s.LogRecords().AppendEmpty())
				events := ww.walk(func(w *engine.Walker) { w.Logs(one) })
				sample := ww.log(lr)
				ww.attach(sample, events)
				ww.emit(sample)
			}
		}
	}
}

// resource writes the resource sample. Its findings are those the engine
// reports for the resource when walk walks it without scopes or items;
// the later walks report them again and attach skips them there.
func (ww *WeaverWriter) resource(r pcommon.Resource, walk func(*engine.Walker)) {
	res := &WeaverResource{Attributes: attributes(r.Attributes())}
	ww.own(vocab.SampleResource, "", &res.LiveCheckResult, res.Attributes, vocab.SignalResource, walk)
	ww.emit(&WeaverSample{Resource: res})
}

// scope writes the scope sample. Its findings are those the engine
// reports with no signal type (a scope and its attributes, engine.
// FindingEvent) when walk walks the resource and the scope without items;
// the items' walks report them again and attach skips them there.
func (ww *WeaverWriter) scope(s pcommon.InstrumentationScope, schemaURL string, walk func(*engine.Walker)) {
	// Weaver writes a scope sample when the OTLP scope is present or a
	// schema URL set; pdata cannot tell an absent scope from an empty one,
	// and SDKs always send it: always written.
	sc := &WeaverScope{
		Name: clone(s.Name()), Version: clone(s.Version()), SchemaURL: clone(schemaURL),
		Attributes: attributes(s.Attributes()), DroppedAttributesCount: s.DroppedAttributesCount(),
	}
	ww.own(vocab.SampleScope, sc.Name, &sc.LiveCheckResult, sc.Attributes, vocab.SignalNone, walk)
	ww.emit(&WeaverSample{InstrumentationScope: sc})
}

// own places on a resource or scope sample (its result r and its
// attributes) the findings of walk with the sample's signal type.
func (ww *WeaverWriter) own(sampleType vocab.SampleType, name string, r **WeaverResult, attrs []*WeaverAttribute, signalType vocab.SignalType, walk func(*engine.Walker)) {
	events := ww.walk(walk)
	t := &tree{}
	t.add(sampleType, name, r)
	t.attrs(attrs)
	for i := range events {
		if events[i].SignalType == signalType.String() {
			ww.place(t, &events[i])
		}
	}
}

func (ww *WeaverWriter) walk(run func(*engine.Walker)) []engine.FindingEvent {
	ww.rec.events = ww.rec.events[:0]
	w := ww.e.Walker(ww.ix, true)
	run(w)
	ww.e.Release(w)
	return slices.Clone(ww.rec.events)
}

func (ww *WeaverWriter) span(sp ptrace.Span) *WeaverSample {
	s := &WeaverSpan{
		Name: clone(sp.Name()), Kind: engine.SpanKindOf(sp.Kind()), Attributes: attributes(sp.Attributes()),
		SpanEvents: []*WeaverSpanEvent{}, SpanLinks: []*WeaverSpanLink{},
	}
	if c, ok := engine.StatusCodeOf(sp.Status().Code()); ok {
		s.Status = &WeaverStatus{Code: c, Message: clone(sp.Status().Message())}
	}
	for _, ev := range sp.Events().All() {
		s.SpanEvents = append(s.SpanEvents, &WeaverSpanEvent{Name: clone(ev.Name()), Attributes: attributes(ev.Attributes())})
	}
	for _, l := range sp.Links().All() {
		s.SpanLinks = append(s.SpanLinks, &WeaverSpanLink{Attributes: attributes(l.Attributes())})
	}
	return &WeaverSample{Span: s}
}

func (ww *WeaverWriter) metric(m pmetric.Metric) *WeaverSample {
	s := &WeaverMetric{Name: clone(m.Name()), Instrument: engine.InstrumentOf(m).String(), Unit: clone(m.Unit())}
	num := func(dps pmetric.NumberDataPointSlice) {
		s.DataPoints = []*WeaverDataPoint{}
		for _, dp := range dps.All() {
			p := &WeaverDataPoint{kind: vocab.SampleNumberDataPoint, Attributes: attributes(dp.Attributes()), Flags: uint32(dp.Flags())}
			if dp.ValueType() == pmetric.NumberDataPointValueTypeInt {
				p.Value = dp.IntValue()
			} else {
				p.Value = jsonFloat(dp.DoubleValue())
			}
			s.DataPoints = append(s.DataPoints, p)
		}
	}
	switch m.Type() {
	case pmetric.MetricTypeSum:
		num(m.Sum().DataPoints())
	case pmetric.MetricTypeGauge:
		num(m.Gauge().DataPoints())
	case pmetric.MetricTypeHistogram:
		s.DataPoints = []*WeaverDataPoint{}
		for _, dp := range m.Histogram().DataPoints().All() {
			p := &WeaverDataPoint{
				kind: vocab.SampleHistogramDataPoint, Attributes: attributes(dp.Attributes()), Count: dp.Count(),
				BucketCounts: dp.BucketCounts().AsRaw(), ExplicitBounds: dp.ExplicitBounds().AsRaw(), Flags: uint32(dp.Flags()),
			}
			p.Sum, p.Min, p.Max = optFloat(dp.HasSum(), dp.Sum()), optFloat(dp.HasMin(), dp.Min()), optFloat(dp.HasMax(), dp.Max())
			s.DataPoints = append(s.DataPoints, p)
		}
	case pmetric.MetricTypeExponentialHistogram:
		s.DataPoints = []*WeaverDataPoint{}
		for _, dp := range m.ExponentialHistogram().DataPoints().All() {
			p := &WeaverDataPoint{
				kind: vocab.SampleExponentialHistogramDataPoint, Attributes: attributes(dp.Attributes()), Count: dp.Count(),
				Scale: dp.Scale(), ZeroCount: dp.ZeroCount(), Sum: optFloat(dp.HasSum(), dp.Sum()),
				Positive: &WeaverBuckets{Offset: dp.Positive().Offset(), BucketCounts: nonNil(dp.Positive().BucketCounts().AsRaw())},
				Negative: &WeaverBuckets{Offset: dp.Negative().Offset(), BucketCounts: nonNil(dp.Negative().BucketCounts().AsRaw())},
			}
			s.DataPoints = append(s.DataPoints, p)
		}
	case pmetric.MetricTypeSummary, pmetric.MetricTypeEmpty:
		// Weaver: SampleInstrument::Unsupported("Summary" or
		// "Unspecified"), no data points
	}
	return &WeaverSample{Metric: s}
}

func (ww *WeaverWriter) log(lr plog.LogRecord) *WeaverSample {
	s := &WeaverLog{EventName: clone(lr.EventName()), Attributes: attributes(lr.Attributes())}
	sev := int32(lr.SeverityNumber())
	s.SeverityNumber = &sev
	st := clone(lr.SeverityText()) // Weaver: always Some
	s.SeverityText = &st
	if b, ok := debugValue(lr.Body()); ok {
		b = clone(b)
		s.Body = &b
	}
	if !lr.TraceID().IsEmpty() {
		t := lr.TraceID().String()
		s.TraceID = &t
	}
	if !lr.SpanID().IsEmpty() {
		t := lr.SpanID().String()
		s.SpanID = &t
	}
	return &WeaverSample{Log: s}
}

// debugValue is a log body as Weaver writes it: the Rust Debug form of the
// OTLP value (StringValue("hello"), IntValue(3), ...); other kinds as
// their pdata string, under the same wrapper names.
func debugValue(v pcommon.Value) (string, bool) {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		s, _ := vocab.Bound(v.Str())
		return fmt.Sprintf("StringValue(%q)", s), true
	case pcommon.ValueTypeInt:
		return fmt.Sprintf("IntValue(%d)", v.Int()), true
	case pcommon.ValueTypeDouble:
		return fmt.Sprintf("DoubleValue(%v)", v.Double()), true
	case pcommon.ValueTypeBool:
		return fmt.Sprintf("BoolValue(%t)", v.Bool()), true
	case pcommon.ValueTypeBytes:
		return "BytesValue(" + v.AsString() + ")", true
	case pcommon.ValueTypeSlice:
		return "ArrayValue(" + v.AsString() + ")", true
	case pcommon.ValueTypeMap:
		return "KvlistValue(" + v.AsString() + ")", true
	case pcommon.ValueTypeEmpty:
	}
	return "", false
}

func optFloat(ok bool, v float64) *float64 {
	if !ok {
		return nil
	}
	return &v
}

// jsonFloat is v, or nil for what JSON cannot hold (NaN, ±Inf).
func jsonFloat(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

// attributes converts attributes as Weaver's OTLP conversion does, each
// string bounded by vocab.Bound and arrays by MaxWeaverArray.
func attributes(m pcommon.Map) []*WeaverAttribute {
	out := make([]*WeaverAttribute, 0, m.Len())
	for k, v := range m.All() {
		a := &WeaverAttribute{Name: clone(k), Value: value(v)}
		a.Type = inferType(a.Value)
		out = append(out, a)
	}
	return out
}

// value is Weaver's maybe_to_json: bytes, maps and empty values are null.
func value(v pcommon.Value) any {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return clone(v.Str())
	case pcommon.ValueTypeInt:
		return v.Int()
	case pcommon.ValueTypeDouble:
		return jsonFloat(v.Double())
	case pcommon.ValueTypeBool:
		return v.Bool()
	case pcommon.ValueTypeSlice:
		out := []any{}
		for i, e := range v.Slice().All() {
			if i == MaxWeaverArray {
				break
			}
			if x := value(e); x != nil {
				out = append(out, x)
			}
		}
		return out
	case pcommon.ValueTypeBytes, pcommon.ValueTypeMap, pcommon.ValueTypeEmpty:
	}
	return nil
}

// inferType is Weaver's SampleAttribute::infer_type: an array takes the
// type of its first element when every element has it, ints counting as
// doubles among doubles.
func inferType(v any) *string {
	t := ""
	switch x := v.(type) {
	case bool:
		t = "boolean"
	case int64:
		t = "int"
	case float64:
		t = "double"
	case string:
		t = "string"
	case []any:
		if len(x) == 0 {
			return nil
		}
		all := func(ok func(any) bool) bool { return !slices.ContainsFunc(x, func(e any) bool { return !ok(e) }) }
		is := func(e any) string {
			if p := inferType(e); p != nil {
				return *p
			}
			return ""
		}
		number := func(e any) bool { k := is(e); return k == "int" || k == "double" }
		switch first := is(x[0]); {
		case first == "boolean" && all(func(e any) bool { return is(e) == "boolean" }):
			t = "boolean[]"
		case first == "int" && all(func(e any) bool { return is(e) == "int" }):
			t = "int[]"
		case number(x[0]) && all(number):
			t = "double[]"
		case first == "string" && all(func(e any) bool { return is(e) == "string" }):
			t = "string[]"
		}
	}
	if t == "" {
		return nil
	}
	return &t
}

// emit writes a sample (streaming) or keeps it (report), and counts it.
func (ww *WeaverWriter) emit(s *WeaverSample) {
	ww.count(s)
	if ww.opts.Report {
		ww.samples = append(ww.samples, s)
		return
	}
	ww.write(s)
}

// Close writes the statistics (streaming) or the whole report, and
// returns the first write error.
func (ww *WeaverWriter) Close() error {
	ww.stats.finalize()
	if ww.opts.Report {
		ww.write(&WeaverReport{Statistics: ww.stats, Samples: nonNil(ww.samples)})
	} else {
		ww.write(ww.stats)
	}
	return ww.err
}

// Snapshot writes to w what Close would write now (the statistics so
// far, or the whole report so far), without closing: a listener's GET
// /report.
func (ww *WeaverWriter) Snapshot(w io.Writer) error {
	ww.stats.finalize()
	if ww.opts.Report {
		return ww.encode(w, &WeaverReport{Statistics: ww.stats, Samples: nonNil(ww.samples)})
	}
	return ww.encode(w, ww.stats)
}

func (ww *WeaverWriter) write(v any) {
	if ww.err != nil {
		return
	}
	ww.err = ww.encode(ww.w, v)
}

// encode writes one document, on one line (Lines) or indented.
func (ww *WeaverWriter) encode(w io.Writer, v any) error {
	var b []byte
	var err error
	if ww.opts.Lines {
		b, err = json.Marshal(v)
	} else {
		b, err = json.MarshalIndent(v, "", "  ")
	}
	if err == nil {
		_, err = w.Write(append(b, '\n'))
	}
	return err
}

// count adds a sample and its entities to the statistics, as Weaver's
// run_live_check does: every entity with its result, attributes and
// metric and event names to the coverage.
func (ww *WeaverWriter) count(s *WeaverSample) {
	st := ww.stats
	attrs := func(as []*WeaverAttribute) {
		for _, a := range as {
			st.entity(vocab.SampleAttribute, a.LiveCheckResult)
			if _, ok := st.SeenRegistryAttributes[a.Name]; ok {
				st.SeenRegistryAttributes[a.Name]++
			} else {
				st.SeenNonRegistryAttrs[a.Name]++
			}
		}
	}
	switch {
	case s.Resource != nil:
		attrs(s.Resource.Attributes)
		st.entity(vocab.SampleResource, s.Resource.LiveCheckResult)
	case s.InstrumentationScope != nil:
		attrs(s.InstrumentationScope.Attributes)
		st.entity(vocab.SampleScope, s.InstrumentationScope.LiveCheckResult)
	case s.Span != nil:
		attrs(s.Span.Attributes)
		for _, e := range s.Span.SpanEvents {
			attrs(e.Attributes)
			st.entity(vocab.SampleSpanEvent, e.LiveCheckResult)
		}
		for _, l := range s.Span.SpanLinks {
			attrs(l.Attributes)
			st.entity(vocab.SampleSpanLink, l.LiveCheckResult)
		}
		st.entity(vocab.SampleSpan, s.Span.LiveCheckResult)
	case s.Metric != nil:
		for _, p := range s.Metric.DataPoints {
			attrs(p.Attributes)
			st.entity(p.kind, p.LiveCheckResult)
		}
		st.entity(vocab.SampleMetric, s.Metric.LiveCheckResult)
		seen(st.SeenRegistryMetrics, st.SeenNonRegistryMetrics, s.Metric.Name)
	case s.Log != nil:
		attrs(s.Log.Attributes)
		st.entity(vocab.SampleLog, s.Log.LiveCheckResult)
		if s.Log.EventName != "" {
			seen(st.SeenRegistryEvents, st.SeenNonRegistryEvents, s.Log.EventName)
		}
	}
}

func seen(registered, other map[string]int, name string) {
	if _, ok := registered[name]; ok {
		registered[name]++
	} else {
		other[name]++
	}
}

func (st *WeaverStatistics) entity(kind vocab.SampleType, r *WeaverResult) {
	st.TotalEntities++
	st.TotalEntitiesByType[kind.String()]++
	if r == nil || len(r.AllAdvice) == 0 {
		st.NoAdviceCount++
		return
	}
	for i := range r.AllAdvice {
		f := &r.AllAdvice[i]
		st.TotalAdvisories++
		st.AdviceLevelCounts[f.Level]++
		st.AdviceTypeCounts[f.ID]++
		st.AdviceMessageCounts[f.Message]++
	}
	h, _ := vocab.ParseLevel(*r.HighestAdviceLevel)
	st.HighestAdviceLevelCounts[h.String()]++
	if !st.anyFinding || h < st.highest {
		st.highest = h
	}
	st.anyFinding = true
}

// finalize computes the registry coverage, as Weaver's finalize.
func (st *WeaverStatistics) finalize() {
	nonZero := func(m map[string]int) int {
		n := 0
		for v := range maps.Values(m) {
			if v > 0 {
				n++
			}
		}
		return n
	}
	total := len(st.SeenRegistryAttributes) + len(st.SeenRegistryMetrics) + len(st.SeenRegistryEvents)
	if total > 0 {
		st.RegistryCoverage = float32(nonZero(st.SeenRegistryAttributes)+nonZero(st.SeenRegistryMetrics)+
			nonZero(st.SeenRegistryEvents)) / float32(total)
	}
}

// tree indexes one sample's result slots: by sample type (span, metric,
// number_data_point, log, resource, ...) and, for attributes, by key.
type tree struct {
	nodes []node
}

type node struct {
	sampleType vocab.SampleType
	name       string // attribute key or sample name
	result     **WeaverResult
	attr       *WeaverAttribute // for attributes: the value findings' context
	metric     *WeaverMetric    // for metrics: the instrument and unit findings' context
}

func (t *tree) add(sampleType vocab.SampleType, name string, r **WeaverResult) {
	t.nodes = append(t.nodes, node{sampleType: sampleType, name: name, result: r})
}

func (t *tree) attrs(as []*WeaverAttribute) {
	for _, a := range as {
		t.nodes = append(t.nodes, node{sampleType: vocab.SampleAttribute, name: a.Name, result: &a.LiveCheckResult, attr: a})
	}
}

// attach places the engine's findings of one item walk in the sample: each
// on the first slot of its sample type (and key, for attributes) that does
// not hold that finding ID for that name yet; one without such a slot goes on the item
// itself, so that no finding is lost. Resource and scope findings were
// placed on the resource and scope samples.
func (ww *WeaverWriter) attach(s *WeaverSample, events []engine.FindingEvent) {
	t := &tree{}
	switch {
	case s.Span != nil:
		t.add(vocab.SampleSpan, s.Span.Name, &s.Span.LiveCheckResult)
		t.attrs(s.Span.Attributes)
		for _, e := range s.Span.SpanEvents {
			t.attrs(e.Attributes)
		}
		for _, l := range s.Span.SpanLinks {
			t.attrs(l.Attributes)
		}
	case s.Metric != nil:
		t.add(vocab.SampleMetric, s.Metric.Name, &s.Metric.LiveCheckResult)
		t.nodes[len(t.nodes)-1].metric = s.Metric
		for _, p := range s.Metric.DataPoints {
			t.add(p.kind, "", &p.LiveCheckResult) // Weaver: a data point has no sample name
			t.attrs(p.Attributes)
		}
	case s.Log != nil:
		t.add(vocab.SampleLog, s.Log.EventName, &s.Log.LiveCheckResult)
		t.attrs(s.Log.Attributes)
	}
	for i := range events {
		if events[i].SignalType != vocab.SignalResource.String() && events[i].SignalType != vocab.SignalNone.String() {
			ww.place(t, &events[i])
		}
	}
}

// place puts one finding in the tree. The engine applied the
// finding_level_overrides and finding_filters (engine.Options.Rules) before
// offering it: a filtered finding never arrives.
func (ww *WeaverWriter) place(t *tree, ev *engine.FindingEvent) {
	id := ev.FindingID()
	var target *node
	for i := range t.nodes {
		n := &t.nodes[i]
		if n.sampleType.String() != ev.SampleType || (n.sampleType == vocab.SampleAttribute && n.name != ev.Name) {
			continue
		}
		if *n.result == nil || !slices.ContainsFunc((*n.result).AllAdvice, func(f WeaverFinding) bool { return f.ID == id && f.about == ev.Name }) {
			target = n
			break
		}
	}
	if target == nil && len(t.nodes) > 0 {
		target = &t.nodes[0]
	}
	if target == nil {
		return
	}
	f := weaverFinding(ev)
	switch ev.Finding {
	case vocab.FindingDeprecated:
		ww.deprecation(&f, ev)
	case vocab.FindingEntityAssociationNotSatisfied:
		// Weaver's context names the candidate entities, not the signal
		// (type_advisor.rs, entity_association_not_satisfied).
		types := nonNil(ev.EntityTypes())
		f.Context = map[string]any{vocab.ContextEntityType.String(): types}
		f.Message = fmt.Sprintf("None of the associated entities [%s] were satisfied by the resource.", strings.Join(types, ", "))
	default:
		if ev.Entity != "" {
			f.Context[vocab.ContextEntityType.String()] = ev.Entity // type_advisor.rs, check_entity_resource_attributes
		}
	}
	target.context(&f)
	if target.metric != nil && ev.Finding == vocab.FindingUnexpectedInstrument {
		ww.unexpectedInstrument(&f, target.metric)
	}
	r := *target.result
	if r == nil {
		r = &WeaverResult{AllAdvice: []WeaverFinding{}}
		*target.result = r
	}
	r.AllAdvice = append(r.AllAdvice, f)
	h := f.level
	if r.HighestAdviceLevel != nil {
		if cur, _ := vocab.ParseLevel(*r.HighestAdviceLevel); cur < h {
			h = cur
		}
	}
	hs := h.String()
	r.HighestAdviceLevel = &hs
}

// context adds what Weaver's advisors put in a value finding's context
// from the sample: the attribute's value (undefined_enum_variant) or type
// (type_mismatch), the metric's instrument or unit.
func (n *node) context(f *WeaverFinding) {
	switch {
	case n.attr != nil && f.ID == vocab.FindingUndefinedEnumVariant.String():
		f.Context[vocab.ContextAttributeValue.String()] = n.attr.Value
	case n.attr != nil && f.ID == vocab.FindingTypeMismatch.String():
		f.Context[vocab.ContextAttributeType.String()] = n.attr.Type
	case n.metric != nil && f.ID == vocab.FindingUnitMismatch.String():
		f.Context[vocab.ContextUnit.String()] = n.metric.Unit
	}
}

// deprecation gives a deprecated finding Weaver's context and message
// (crates/weaver_live_check/src/advice/deprecated_advisor.rs at afa9700c):
// the deprecation's reason and note next to the name, and "Attribute
// 'http.method' is deprecated; reason = 'renamed', note = 'Replaced by
// `http.request.method`.'.".
func (ww *WeaverWriter) deprecation(f *WeaverFinding, ev *engine.FindingEvent) {
	metric, span := signalContext(&Example{SignalType: ev.SignalType, SignalName: ev.SignalName})
	r := ReplacementOf(ww.ix, ev.Subject, ev.Name, metric, span)
	if r == nil {
		return
	}
	f.Context[vocab.ContextDeprecationReason.String()] = r.Reason
	f.Context[vocab.ContextDeprecationNote.String()] = r.Note
	what := deprecatedWords[min(ev.Subject, vocab.SubjectSpan)]
	f.Message = fmt.Sprintf("%s '%s' is deprecated; reason = '%s', note = '%s'.", what, f.about, r.Reason, r.Note)
}

// unexpectedInstrument gives unexpected_instrument Weaver's context and
// message (crates/weaver_live_check/src/advice/type_advisor.rs at
// afa9700c): an instrument Weaver does not support (Summary, Unspecified:
// a metric without data) is "not supported", with the instrument alone;
// another names the registry's instrument as expected.
func (ww *WeaverWriter) unexpectedInstrument(f *WeaverFinding, m *WeaverMetric) {
	got, _ := vocab.ParseInstrument(m.Instrument)
	f.Context = map[string]any{vocab.ContextInstrument.String(): m.Instrument}
	if !got.Supported() {
		f.Message = fmt.Sprintf("Instrument '%s' is not supported", m.Instrument)
		return
	}
	if d := ww.ix.Metric(f.about); d != nil {
		f.Context[vocab.ContextExpected.String()] = d.Instrument
		f.Message = fmt.Sprintf("Instrument should be '%s', but found '%s'.", d.Instrument, m.Instrument)
	}
}

// deprecatedWords name a deprecated finding's subject as Weaver's message
// does.
var deprecatedWords = [vocab.NumSubjects]string{
	vocab.SubjectKey: "Attribute", vocab.SubjectMetric: "Metric", vocab.SubjectEvent: "Event", vocab.SubjectSpan: "Span",
}

// subjectWords name a finding's subject in its message.
var subjectWords = [vocab.NumSubjects]string{
	vocab.SubjectKey: "attribute", vocab.SubjectMetric: "metric", vocab.SubjectEvent: "event", vocab.SubjectSpan: "span definition",
}

// weaverFinding is the engine's finding as Weaver's PolicyFinding. The
// context holds the key Weaver's advisors use for the subject; the message
// is otelgov's wording, not Weaver's.
func weaverFinding(ev *engine.FindingEvent) WeaverFinding {
	f := WeaverFinding{ID: ev.FindingID(), Level: ev.Level.String(), level: ev.Level, Context: map[string]any{}, about: ev.Name}
	f.Context[vocab.SubjectContextKey(ev.Subject).String()] = ev.Name
	f.Message = fmt.Sprintf("%s: %s `%s`", f.ID, subjectWords[min(ev.Subject, vocab.SubjectSpan)], ev.Name)
	if ev.SignalType != "" {
		st := ev.SignalType
		f.SignalType = &st
	}
	if ev.SignalName != "" {
		sn := ev.SignalName
		f.SignalName = &sn
	}
	return f
}
