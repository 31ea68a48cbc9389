// Package checker runs the governance engine over telemetry that is not in a
// collector pipeline (recorded files, an SDK under test) and reports the
// engine's own findings: Weaver live-check's finding IDs and levels (after
// level overrides), aggregated by the conformance report, per service and
// per finding ID, with the engine's example locations. It is the library
// behind otelgov check. It classifies nothing itself: the walk, the
// findings and their levels are the engine's, the aggregate is the
// conformance report's, and the examples are what the engine's FindingSink
// was offered during that same walk.
package checker

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/conformance"
	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// MaxExamples is how many example locations each finding ID keeps per
// service: the first ones the engine reported.
const MaxExamples = 3

// Options configure a Checker.
type Options struct {
	// Engine are the engine's options. The checker walks read-only; it sets
	// Findings, Report and Sink itself. Rules (finding_level_overrides and
	// finding_filters, scoped or not) are honoured.
	Engine engine.Options
	// Limits bound the conformance report.
	Limits conformance.Limits
}

// Example is one place where the engine reported a finding.
type Example struct {
	// Signal is the OTLP request it was in: traces, metrics or logs.
	Signal string `json:"signal"`
	// SignalType and SignalName are the engine's context (Weaver's
	// weaver.finding.signal.type and the span, metric or event name).
	SignalType string `json:"signal_type"`
	SignalName string `json:"signal_name,omitempty"`
	// Subject and Name are what the finding is about: an attribute key,
	// a metric name, an event name or a span definition.
	Subject string `json:"subject"`
	Name    string `json:"name"`
	// Input is where the request came from (file:line or file@byte).
	Input string `json:"input,omitempty"`
	// EntityTypes are, for entity_association_not_satisfied, the entity
	// types of the association no entity satisfied (Weaver's context
	// entity_type): names from the registry.
	EntityTypes []string `json:"entity_types,omitempty"`
}

// Finding is one finding ID in one service, as the conformance report
// aggregates it, with the engine's example locations. The text, markdown
// and junit renderers print it; --format json prints the report's document
// and the examples (JSONResult).
type Finding struct {
	ID    string
	Level string
	Count int64
	// Top are the names reported most often (conformance report).
	Top      []conformance.FindingName
	Examples []Example
	// Replacements are, for a deprecated finding, what to use instead of
	// each of its Top names and example names that the registry knows, in
	// that order.
	Replacements []NamedReplacement
	level        vocab.Level
}

// NamedReplacement is the replacement of one name a finding is about.
type NamedReplacement struct {
	Subject string // key, metric or event
	Name    string
	*Replacement
}

// Lvl returns the finding's level.
func (f *Finding) Lvl() vocab.Level { return f.level }

// ServiceResult is one service's findings, most serious first.
type ServiceResult struct {
	Service  string
	Findings []Finding
}

// Items counts what was checked.
type Items struct {
	Requests   int64 `json:"requests"`
	Spans      int64 `json:"spans"`
	DataPoints int64 `json:"data_points"`
	LogRecords int64 `json:"log_records"`
	// MetricsWithoutData are metrics without a data point: each is a
	// sample of its own (Weaver's, instrument Unspecified when it has no
	// data type), checked against the registry.
	MetricsWithoutData int64 `json:"metrics_without_data_points"`
}

// Checked is how many items were checked: spans, data points, log records
// and metrics without data points. A run that checked none fails closed.
func (it Items) Checked() int64 {
	return it.Spans + it.DataPoints + it.LogRecords + it.MetricsWithoutData
}

// MetricsWithoutData counts the metrics of md that have no data point: a
// misconfigured SDK's metric, with a name and a unit and no points. Weaver
// makes each a metric sample (src/registry/otlp/conversion.rs: no data is
// instrument Unspecified), so they are checked, and count as checked.
func MetricsWithoutData(md pmetric.Metrics) int64 {
	var n int64
	for _, rm := range md.ResourceMetrics().All() {
		for _, sm := range rm.ScopeMetrics().All() {
			for _, m := range sm.Metrics().All() {
				if pointCount(m) == 0 {
					n++
				}
			}
		}
	}
	return n
}

func pointCount(m pmetric.Metric) int {
	switch m.Type() {
	case pmetric.MetricTypeSum:
		return m.Sum().DataPoints().Len()
	case pmetric.MetricTypeGauge:
		return m.Gauge().DataPoints().Len()
	case pmetric.MetricTypeHistogram:
		return m.Histogram().DataPoints().Len()
	case pmetric.MetricTypeExponentialHistogram:
		return m.ExponentialHistogram().DataPoints().Len()
	case pmetric.MetricTypeSummary:
		return m.Summary().DataPoints().Len()
	case pmetric.MetricTypeEmpty:
	}
	return 0
}

// Result is the outcome of a check.
type Result struct {
	Services []ServiceResult
	Items    Items
	// Document is the conformance report, the /conformance JSON schema.
	Document conformance.Document
}

// Fails reports whether a finding is at or above failOn.
func (r *Result) Fails(failOn FailOn) bool {
	for _, s := range r.Services {
		for i := range s.Findings {
			if failOn.Fails(s.Findings[i].level) {
				return true
			}
		}
	}
	return false
}

// Checker accumulates findings over many batches. It is safe for concurrent
// use; batches are walked one at a time.
type Checker struct {
	e      *engine.Engine
	ix     *registry.Index
	report *conformance.Report
	sink   *sink

	mu       sync.Mutex
	items    Items
	examples map[exampleKey][]Example // by report service entry and finding
}

type exampleKey struct {
	service string // the conformance report's entry (_missing, _other, ...)
	id      string // the finding's ID (a policy's own, or Weaver's)
}

// New returns a checker of telemetry against ix.
func New(ix *registry.Index, opts Options) *Checker {
	s := &sink{}
	eo := opts.Engine
	eo.Findings, eo.Detail, eo.Sink = true, true, s
	eo.Services = nil
	return &Checker{
		e:        engine.New(eo),
		ix:       ix,
		report:   conformance.New(opts.Limits, time.Now()),
		sink:     s,
		examples: make(map[exampleKey][]Example),
	}
}

// Level is the engine's level of f, after overrides.
func (c *Checker) Level(f vocab.Finding) vocab.Level { return c.e.Level(f) }

// Traces checks a traces batch without changing it; input names where it
// came from (file:line) in example locations.
func (c *Checker) Traces(td ptrace.Traces, input string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items.Spans += int64(td.SpanCount())
	c.walk("traces", input, func(w *engine.Walker) { w.Traces(td) })
}

// Metrics checks a metrics batch without changing it.
func (c *Checker) Metrics(md pmetric.Metrics, input string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items.DataPoints += int64(md.DataPointCount())
	c.items.MetricsWithoutData += MetricsWithoutData(md)
	c.walk("metrics", input, func(w *engine.Walker) { w.Metrics(md) })
}

// Logs checks a logs batch without changing it.
func (c *Checker) Logs(ld plog.Logs, input string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items.LogRecords += int64(ld.LogRecordCount())
	c.walk("logs", input, func(w *engine.Walker) { w.Logs(ld) })
}

// walk runs the engine over one batch, adds its tally to the report and
// keeps the sink's examples under the report's service entries. Called
// with c.mu held.
func (c *Checker) walk(signal, input string, run func(*engine.Walker)) {
	c.items.Requests++
	c.sink.begin(signal, input)
	w := c.e.Walker(c.ix, true)
	run(w)
	c.report.Add(w.Batch(), time.Now())
	c.e.Release(w)
	for i := range c.sink.batch {
		ex := &c.sink.batch[i]
		k := exampleKey{service: c.report.Entry(ex.service), id: ex.id}
		l := c.examples[k]
		if len(l) < MaxExamples && !slices.ContainsFunc(l, func(e Example) bool { return e.Name == ex.Name }) {
			c.examples[k] = append(l, ex.Example)
		}
	}
	c.sink.end()
}

// Result renders what was checked so far.
func (c *Checker) Result() Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := Result{Items: c.items, Services: []ServiceResult{}}
	out.Document = c.report.Document(c.ix, 1, "", time.Now())
	for _, s := range out.Document.Services {
		sr := ServiceResult{Service: s.Service, Findings: []Finding{}}
		for id, fr := range s.Findings {
			l := fr.Severity()
			sr.Findings = append(sr.Findings, Finding{
				ID: id, Level: fr.Level, Count: fr.Count, Top: fr.Top, level: l,
				Examples: slices.Clone(c.examples[exampleKey{service: s.Service, id: id}]),
			})
		}
		for i := range sr.Findings {
			c.replacements(&sr.Findings[i])
		}
		slices.SortFunc(sr.Findings, func(a, b Finding) int {
			if x := cmp.Compare(a.level, b.level); x != 0 {
				return x // violation (0) first
			}
			return strings.Compare(a.ID, b.ID)
		})
		out.Services = append(out.Services, sr)
	}
	return out
}

// replacements fills f.Replacements when f is a deprecated finding: one per
// distinct name among its top names and examples.
func (c *Checker) replacements(f *Finding) {
	if f.ID != vocab.FindingDeprecated.String() {
		return
	}
	add := func(subject, name string) {
		subj, ok := vocab.ParseSubject(subject)
		if !ok || slices.ContainsFunc(f.Replacements, func(r NamedReplacement) bool { return r.Subject == subject && r.Name == name }) {
			return
		}
		// A key's renames may be scoped to a metric or a span name: the
		// first example of the key says where it was found.
		var metric, span string
		if i := slices.IndexFunc(f.Examples, func(e Example) bool { return e.Subject == subject && e.Name == name }); i >= 0 {
			metric, span = signalContext(&f.Examples[i])
		}
		if r := ReplacementOf(c.ix, subj, name, metric, span); r != nil {
			f.Replacements = append(f.Replacements, NamedReplacement{Subject: subject, Name: name, Replacement: r})
		}
	}
	for _, n := range f.Top {
		add(n.Subject, n.Name)
	}
	for _, ex := range f.Examples {
		add(ex.Subject, ex.Name)
	}
}

// signalContext is the metric or span name an example was found on.
func signalContext(e *Example) (metric, span string) {
	switch e.SignalType {
	case vocab.SignalMetric.String():
		return e.SignalName, ""
	case vocab.SignalSpan.String():
		return "", e.SignalName
	}
	return "", ""
}

// sink is the engine's FindingSink for the checker: it keeps, per batch,
// the first MaxExamples distinct names of each (service, finding), with
// copies of their strings. It accepts every finding, so that the engine
// never closes it for the rest of a batch; past the bound a finding costs
// one map lookup.
type sink struct {
	signal, input string
	seen          map[sinkKey]*sinkNames
	batch         []sinkExample
}

type sinkKey struct {
	service string
	finding vocab.Finding // one engine's numbering: fixed during a check
}

// sinkNames are the names kept for one (service, finding) in one batch.
type sinkNames struct {
	n     int
	names [MaxExamples]string
}

func (s *sinkNames) has(name string) bool {
	return slices.Contains(s.names[:s.n], name)
}

type sinkExample struct {
	service string // service.name as received
	id      string // the finding's ID
	Example
}

func (s *sink) begin(signal, input string) {
	s.signal, s.input = signal, input
	if s.seen == nil {
		s.seen = map[sinkKey]*sinkNames{}
	}
}

func (s *sink) end() {
	clear(s.seen)
	clear(s.batch)
	s.batch = s.batch[:0]
}

// Emit implements engine.FindingSink.
func (s *sink) Emit(ev *engine.FindingEvent) bool {
	k := sinkKey{service: ev.Service, finding: ev.Finding}
	sn := s.seen[k]
	if sn == nil {
		sn = &sinkNames{}
		k.service = strings.Clone(ev.Service)
		s.seen[k] = sn
	}
	if sn.n >= MaxExamples || sn.has(ev.Name) {
		return true
	}
	ex := Example{
		Signal:     s.signal,
		SignalType: ev.SignalType,
		SignalName: strings.Clone(ev.SignalName),
		Subject:    ev.Subject.String(),
		Name:       strings.Clone(ev.Name),
		Input:      s.input,
		// Registry names (the registry outlives the check).
		EntityTypes: ev.EntityTypes(),
	}
	sn.names[sn.n] = ex.Name
	sn.n++
	s.batch = append(s.batch, sinkExample{service: k.service, id: ev.FindingID(), Example: ex})
	return true
}
