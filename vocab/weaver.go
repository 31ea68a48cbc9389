package vocab

// Weaver's words: the sample types, signal types, metric instruments and
// finding context keys of Weaver live-check's samples and findings
// (open-telemetry/weaver afa9700c, crates/weaver_live_check/src/lib.rs and
// sample_metric.rs), spelled as Weaver serializes them. The engine's
// findings, the checker's Weaver report, the Rego input document of advice
// policies and the conformance suite all name them through these tables.

// SampleType is a Weaver sample type: the snake_case tag of its Sample
// (and SampleRef) enum, the key under input.sample in a Rego policy and
// weaver.finding.sample.type.
type SampleType uint8

// The sample types.
const (
	SampleResource SampleType = iota
	SampleAttribute
	SampleSpan
	SampleSpanEvent
	SampleSpanLink
	SampleMetric
	SampleNumberDataPoint
	SampleHistogramDataPoint
	SampleExponentialHistogramDataPoint
	SampleExemplar
	SampleLog
	// SampleScope is an instrumentation scope (Weaver's
	// input.sample.instrumentation_scope).
	SampleScope
	NumSampleTypes
)

var sampleTypeNames = [NumSampleTypes]string{
	SampleResource:                      "resource",
	SampleAttribute:                     "attribute",
	SampleSpan:                          "span",
	SampleSpanEvent:                     "span_event",
	SampleSpanLink:                      "span_link",
	SampleMetric:                        "metric",
	SampleNumberDataPoint:               "number_data_point",
	SampleHistogramDataPoint:            "histogram_data_point",
	SampleExponentialHistogramDataPoint: "exponential_histogram_data_point",
	SampleExemplar:                      "exemplar",
	SampleLog:                           "log",
	SampleScope:                         "instrumentation_scope",
}

// String is Weaver's name of the sample type ("number_data_point").
func (t SampleType) String() string { return name(sampleTypeNames[:], t) }

// ParseSampleType returns the sample type named s.
func ParseSampleType(s string) (SampleType, bool) { return parse[SampleType](sampleTypeNames[:], s) }

// SignalType is Weaver's signal type of a sample (Sample::signal_type):
// weaver.finding.signal.type and a finding's signal_type. SignalNone is
// a sample that is no signal (a scope, a bare attribute): Weaver's None.
type SignalType uint8

// The signal types.
const (
	SignalNone SignalType = iota
	SignalSpan
	SignalMetric
	SignalLog
	SignalResource
	NumSignalTypes
)

var signalTypeNames = [NumSignalTypes]string{
	SignalNone:     "",
	SignalSpan:     "span",
	SignalMetric:   "metric",
	SignalLog:      "log",
	SignalResource: "resource",
}

// String is Weaver's name of the signal type; "" for SignalNone.
func (t SignalType) String() string { return name(signalTypeNames[:], t) }

// ParseSignalType returns the signal type named s ("span", "metric", "log",
// "resource"); "" is not accepted.
func ParseSignalType(s string) (SignalType, bool) { return parse[SignalType](signalTypeNames[:], s) }

// Instrument is a metric's instrument as Weaver's OTLP conversion names it
// (SampleInstrument, src/registry/otlp/conversion.rs otlp_data_to_instrument):
// a supported instrument in the registry's spelling (counter, updowncounter,
// gauge, histogram), or Weaver's Unsupported name of an OTLP type it has no
// instrument for: "Summary", and "Unspecified" for a metric without data.
// Weaver serializes SampleInstrument untagged, so those strings are what a
// report and a policy's input.sample.metric.instrument hold.
type Instrument uint8

// The instruments.
const (
	InstrumentUnspecified   Instrument = iota // no data (pdata MetricTypeEmpty)
	InstrumentCounter                         // monotonic sum
	InstrumentUpDownCounter                   // non-monotonic sum
	InstrumentGauge
	InstrumentHistogram // histogram or exponential histogram
	InstrumentSummary
	NumInstruments
)

var instrumentNames = [NumInstruments]string{
	InstrumentUnspecified:   "Unspecified",
	InstrumentCounter:       "counter",
	InstrumentUpDownCounter: "updowncounter",
	InstrumentGauge:         "gauge",
	InstrumentHistogram:     "histogram",
	InstrumentSummary:       "Summary",
}

// String is the instrument as Weaver serializes it ("counter", "Summary").
func (i Instrument) String() string { return name(instrumentNames[:], i) }

// ParseInstrument returns the instrument named s, in Weaver's spelling.
func ParseInstrument(s string) (Instrument, bool) { return parse[Instrument](instrumentNames[:], s) }

// Supported reports whether the registry can declare the instrument (a
// registry's counter, updowncounter, gauge or histogram).
func (i Instrument) Supported() bool { return i >= InstrumentCounter && i <= InstrumentHistogram }

// ContextKey is a key of a Weaver finding's context (the *_ADVICE_CONTEXT_KEY
// constants of crates/weaver_live_check/src/lib.rs), plus span_definition,
// otelgov's key for the findings about a span definition (extended
// profile), which Weaver does not have.
type ContextKey uint8

// The context keys.
const (
	ContextAttributeKey ContextKey = iota
	ContextAttributeValue
	ContextAttributeType
	ContextDeprecationReason
	ContextDeprecationNote
	ContextStability
	ContextUnit
	ContextInstrument
	ContextExpected
	ContextEventName
	ContextMetricName
	ContextEntityType
	ContextSpanDefinition
	NumContextKeys
)

var contextKeyNames = [NumContextKeys]string{
	ContextAttributeKey:      "attribute_key",
	ContextAttributeValue:    "attribute_value",
	ContextAttributeType:     "attribute_type",
	ContextDeprecationReason: "deprecation_reason",
	ContextDeprecationNote:   "deprecation_note",
	ContextStability:         "stability",
	ContextUnit:              "unit",
	ContextInstrument:        "instrument",
	ContextExpected:          "expected",
	ContextEventName:         "event_name",
	ContextMetricName:        "metric_name",
	ContextEntityType:        "entity_type",
	ContextSpanDefinition:    "span_definition",
}

// String is the context key ("attribute_key").
func (k ContextKey) String() string { return name(contextKeyNames[:], k) }

// ParseContextKey returns the context key named s.
func ParseContextKey(s string) (ContextKey, bool) { return parse[ContextKey](contextKeyNames[:], s) }

// SubjectContextKey is the context key that names a finding's subject: the
// attribute key, metric name, event name or span definition.
func SubjectContextKey(s Subject) ContextKey {
	switch s {
	case SubjectKey:
		return ContextAttributeKey
	case SubjectMetric:
		return ContextMetricName
	case SubjectEvent:
		return ContextEventName
	case SubjectSpan, NumSubjects:
	}
	return ContextSpanDefinition
}
