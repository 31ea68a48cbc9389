package enginetest

import "go.opentelemetry.io/collector/pdata/pmetric"

// InstrumentMetrics is one metric of each pdata metric type, named for the
// instrument Weaver's OTLP conversion gives it (src/registry/otlp/
// conversion.rs at afa9700c): "a.summary", "a.metric.without.data",
// "a.counter", "an.updowncounter", "a.gauge", "a.histogram",
// "an.exponential.histogram". InstrumentNames maps each to Weaver's
// spelling.
func InstrumentMetrics() pmetric.Metrics {
	md := pmetric.NewMetrics()
	ms := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics()
	add := func(name string) pmetric.Metric { m := ms.AppendEmpty(); m.SetName(name); return m }
	add("a.summary").SetEmptySummary().DataPoints().AppendEmpty()
	add("a.metric.without.data")
	add("a.counter").SetEmptySum().SetIsMonotonic(true)
	add("an.updowncounter").SetEmptySum()
	add("a.gauge").SetEmptyGauge()
	add("a.histogram").SetEmptyHistogram()
	add("an.exponential.histogram").SetEmptyExponentialHistogram()
	return md
}

// InstrumentNames are the instruments of InstrumentMetrics' metrics, as
// Weaver serializes SampleInstrument (untagged: a supported instrument in
// the registry's lower case, an unsupported one by its OTLP type name).
var InstrumentNames = map[string]string{
	"a.summary": "Summary", "a.metric.without.data": "Unspecified", "a.counter": "counter",
	"an.updowncounter": "updowncounter", "a.gauge": "gauge", "a.histogram": "histogram",
	"an.exponential.histogram": "histogram",
}
