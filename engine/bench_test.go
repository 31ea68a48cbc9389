package engine

import (
	"testing"

	"github.com/otelgov/otelcol-governance/engine/enginetest"
)

// BenchmarkRename measures the rename itself: four deprecated keys of a
// 13-attribute map are renamed and renamed back, eight renames per op, with
// no allocation and no timer juggling.
func BenchmarkRename(b *testing.B) {
	e, ix := newTestEngine(b, defaultOptions())
	w := e.Walker(ix, false)
	defer e.Release(w)
	td := enginetest.WireTraces(enginetest.GenTraces(1, enginetest.MixDeprecated))
	m := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes()
	pairs := [][2]string{
		{"http.method", "http.request.method"},
		{"http.status_code", "http.response.status_code"},
		{"net.host.name", "server.address"},
		{"net.host.port", "server.port"},
	}
	b.ReportAllocs()
	clock := enginetest.StartCPU()
	for b.Loop() {
		for _, p := range pairs {
			w.rename(m, p[0], p[1])
		}
		for _, p := range pairs {
			w.rename(m, p[1], p[0])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/8, "ns/rename")
	b.ReportMetric(float64(clock.Since().Nanoseconds())/float64(b.N)/8, "cpu-ns/rename")
	if m.Len() != enginetest.AttrsPerItem {
		b.Fatalf("map has %d entries", m.Len())
	}
}

// BenchmarkLookupOnly is the registry's share of the conforming walk: the
// same keys, only Index.Lookup. The difference to BenchmarkTraces/conformant
// is the engine's own cost per attribute.
func BenchmarkLookupOnly(b *testing.B) {
	_, ix := newTestEngine(b, defaultOptions())
	td := enginetest.WireTraces(enginetest.GenTraces(100, enginetest.MixConformant))
	var keys []string
	for _, s := range td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().All() {
		for k := range s.Attributes().All() {
			keys = append(keys, k)
		}
	}
	found := 0
	clock := enginetest.StartCPU()
	b.ReportAllocs()
	for b.Loop() {
		for _, k := range keys {
			if ix.Lookup(k) != nil {
				found++
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(keys)), "ns/attribute")
	clock.Report(b, float64(len(keys)))
	if found == 0 {
		b.Fatal("no key found")
	}
}

// BenchmarkSignalChecks is the cost of the signal conformance checks per
// item: the same conforming batch (100 spans, data points or log records of
// 13 attributes) walked with Findings off, on, and on with the report.
func BenchmarkSignalChecks(b *testing.B) {
	type signal struct {
		name string
		walk func(w *Walker)
	}
	td := enginetest.WireTraces(enginetest.GenTraces(100, enginetest.MixConformant))
	md := enginetest.WireMetrics(enginetest.GenMetrics(100, enginetest.MixConformant))
	ld := enginetest.WireLogs(enginetest.GenLogs(100, enginetest.MixConformant))
	signals := []signal{
		{"traces", func(w *Walker) { w.Traces(td) }},
		{"metrics", func(w *Walker) { w.Metrics(md) }},
		{"logs", func(w *Walker) { w.Logs(ld) }},
	}
	for _, s := range signals {
		for _, mode := range []string{"off", "on", "on_report"} {
			b.Run(s.name+"/"+mode, func(b *testing.B) {
				opts := defaultOptions()
				opts.Findings = mode != "off"
				opts.Report = mode == "on_report"
				e, ix := newTestEngine(b, opts)
				b.ReportAllocs()
				clock := enginetest.StartCPU()
				for b.Loop() {
					w := e.Walker(ix, true)
					s.walk(w)
					_ = w.Report()
					e.Release(w)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100, "ns/item")
				b.ReportMetric(float64(clock.Since().Nanoseconds())/float64(b.N)/100, "cpu-ns/item")
			})
		}
	}
}
