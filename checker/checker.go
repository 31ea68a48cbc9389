// Package checker runs the governance engine over telemetry that is not in a
// collector pipeline (recorded files, an SDK under test) and turns what the
// engine counted into findings: per service, per finding ID and key, with
// counts, levels and example locations. It is the library behind otelgov
// check; the walk and the verdicts are the engine's, the aggregate is the
// conformance report's.
package checker

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/conformance"
	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/registry"
)

// Bounds of the findings.
const (
	// MaxExamples is how many example locations a finding keeps.
	MaxExamples = 3
	// maxFindings bounds the distinct (service, ID, key) findings; later
	// keys are counted under OtherKeys.
	maxFindings = 10000
	// OtherKeys is the key of a finding that counts keys beyond the bound.
	OtherKeys = "(other keys)"

	serviceMissing = "_missing"
	serviceOther   = "_other"
)

// Options configure a Checker.
type Options struct {
	// Engine are the engine's options. The checker walks read-only, so the
	// modes only matter for what counts as allowed.
	Engine engine.Options
	// Limits bound the conformance report.
	Limits conformance.Limits
}

// Location is where a finding was seen.
type Location struct {
	Signal string `json:"signal"` // traces, metrics, logs
	// Where is the registry location: resource, scope, span, span_event,
	// span_link, data_point, log.
	Where string `json:"where"`
	// Name is the span, metric or event name, or the log's event name; ""
	// for resource and scope attributes and unnamed log records.
	Name string `json:"name,omitempty"`
	// Input is where the item came from (file:line), set by the caller.
	Input string `json:"input,omitempty"`
	// Key and Type name the attribute and its value type, for findings
	// without a key (type_mismatch, undefined_enum_variant).
	Key  string `json:"key,omitempty"`
	Type string `json:"type,omitempty"`
}

// Finding is one finding ID for one key (or none) in one service.
type Finding struct {
	ID       string     `json:"id"`
	Level    string     `json:"level"`
	Key      string     `json:"key,omitempty"`
	Count    int64      `json:"count"`
	Examples []Location `json:"examples,omitempty"`
	level    Level
}

// Lvl returns the finding's level.
func (f *Finding) Lvl() Level { return f.level }

// ServiceResult is one service's findings, most serious first.
type ServiceResult struct {
	Service  string    `json:"service"`
	Findings []Finding `json:"findings"`
}

// Items counts what was checked.
type Items struct {
	Requests   int64 `json:"requests"`
	Spans      int64 `json:"spans"`
	DataPoints int64 `json:"data_points"`
	LogRecords int64 `json:"log_records"`
}

// Total is spans + data points + log records.
func (i Items) Total() int64 { return i.Spans + i.DataPoints + i.LogRecords }

// Result is the outcome of a check.
type Result struct {
	Services []ServiceResult
	Items    Items
	// Document is the conformance report, the /conformance JSON schema.
	Document conformance.Document
}

// Worst is the highest level among the findings (LevelNone when clean).
func (r *Result) Worst() Level {
	w := LevelNone
	for _, s := range r.Services {
		for i := range s.Findings {
			w = max(w, s.Findings[i].level)
		}
	}
	return w
}

// Fails reports whether a finding is at or above failOn. LevelNone never
// fails.
func (r *Result) Fails(failOn Level) bool {
	return failOn != LevelNone && r.Worst() >= failOn
}

type findingKey struct {
	service, id, key string
}

// Checker accumulates findings over many batches. It is safe for concurrent
// use.
type Checker struct {
	e      *engine.Engine
	ix     *registry.Index
	report *conformance.Report

	mu          sync.Mutex
	findings    map[findingKey]*Finding
	services    map[string]struct{} // services with their own findings
	maxServices int
	items       Items
	input       string
}

// New returns a checker of telemetry against ix.
func New(ix *registry.Index, opts Options) *Checker {
	eo := opts.Engine
	eo.Report = true
	eo.Services = nil
	return &Checker{
		e:           engine.New(eo),
		ix:          ix,
		report:      conformance.New(opts.Limits, time.Now()),
		findings:    make(map[findingKey]*Finding),
		services:    make(map[string]struct{}),
		maxServices: opts.Limits.MaxServices,
	}
}

// Traces checks a traces batch without changing it; input names where it
// came from (file:line) in example locations.
func (c *Checker) Traces(td ptrace.Traces, input string) {
	w := c.e.Walker(c.ix, true)
	w.Traces(td)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.input = input
	c.items.Requests++
	c.items.Spans += int64(td.SpanCount())
	need := c.add(w.Report())
	c.e.Release(w)
	if !need.empty() {
		c.traceExamples(td, need)
	}
}

// Metrics checks a metrics batch without changing it.
func (c *Checker) Metrics(md pmetric.Metrics, input string) {
	w := c.e.Walker(c.ix, true)
	w.Metrics(md)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.input = input
	c.items.Requests++
	c.items.DataPoints += int64(md.DataPointCount())
	need := c.add(w.Report())
	c.e.Release(w)
	c.metricNames(md)
	if !need.empty() {
		c.metricExamples(md, need)
	}
}

// Logs checks a logs batch without changing it.
func (c *Checker) Logs(ld plog.Logs, input string) {
	w := c.e.Walker(c.ix, true)
	w.Logs(ld)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.input = input
	c.items.Requests++
	c.items.LogRecords += int64(ld.LogRecordCount())
	need := c.add(w.Report())
	c.e.Release(w)
	if !need.empty() {
		c.logExamples(ld, need)
	}
}

// need are the findings of one batch that still want example locations:
// keyed findings by service then key, and value findings (type mismatch,
// enum violation) by service then outcome.
type need struct {
	keys   map[string]map[string]*Finding
	values map[string]map[engine.Outcome]*Finding
}

func (n *need) empty() bool { return len(n.keys) == 0 && len(n.values) == 0 }

func (n *need) wants(svc string) bool { return n.keys[svc] != nil || n.values[svc] != nil }

// add merges one batch's tally; it returns the findings that still want
// examples.
func (c *Checker) add(b *engine.Batch) *need {
	c.report.Add(b, time.Now())
	nd := &need{}
	for i := range b.Services {
		s := &b.Services[i]
		svc := c.service(s.Service)
		for o, n := range s.Outcomes {
			if n == 0 {
				continue
			}
			if id, level, ok := outcomeFinding(engine.Outcome(o)); ok {
				f := c.finding(svc, id, "", level)
				f.Count += n
				if len(f.Examples) < MaxExamples {
					if nd.values == nil {
						nd.values = map[string]map[engine.Outcome]*Finding{}
					}
					if nd.values[svc] == nil {
						nd.values[svc] = map[engine.Outcome]*Finding{}
					}
					nd.values[svc][engine.Outcome(o)] = f
				}
			}
		}
	}
	need := nd.keys
	for i := range b.Keys {
		k := &b.Keys[i]
		id, level, ok := keyFinding(k.Kind)
		if !ok || k.Service < 0 || k.Service >= len(b.Services) {
			continue
		}
		svc := c.service(b.Services[k.Service].Service)
		f := c.finding(svc, id, k.Key, level)
		f.Count += k.Count
		if len(f.Examples) < MaxExamples && f.Key != OtherKeys {
			if need == nil {
				need = map[string]map[string]*Finding{}
			}
			if need[svc] == nil {
				need[svc] = map[string]*Finding{}
			}
			need[svc][k.Key] = f
		}
	}
	nd.keys = need
	return nd
}

// service names a service's findings: "_missing" without service.name,
// "_other" beyond Limits.MaxServices, as the conformance report does.
func (c *Checker) service(s string) string {
	if s == "" {
		return serviceMissing
	}
	if _, ok := c.services[s]; ok {
		return s
	}
	if len(c.services) >= c.maxServices {
		return serviceOther
	}
	s = strings.Clone(s)
	c.services[s] = struct{}{}
	return s
}

// finding returns the finding of (service, id, key), adding it while under
// the bound.
func (c *Checker) finding(service, id, key string, level Level) *Finding {
	fk := findingKey{service, id, key}
	if f, ok := c.findings[fk]; ok {
		return f
	}
	if len(c.findings) >= maxFindings && key != "" && key != OtherKeys {
		return c.finding(service, id, OtherKeys, level)
	}
	fk = findingKey{strings.Clone(service), id, strings.Clone(key)}
	f := &Finding{ID: id, Level: level.String(), Key: fk.key, level: level}
	c.findings[fk] = f
	return f
}

// metricNames records deprecated metric names: the registry's verdict on the
// name, as the engine's metric-name check reads it.
func (c *Checker) metricNames(md pmetric.Metrics) {
	rms := md.ResourceMetrics()
	for i := 0; i < rms.Len(); i++ {
		rm := rms.At(i)
		if !c.e.Governs(rm.Resource().Attributes()) {
			continue
		}
		svc := c.service(serviceOf(rm.Resource().Attributes()))
		sms := rm.ScopeMetrics()
		for j := 0; j < sms.Len(); j++ {
			ms := sms.At(j).Metrics()
			for k := 0; k < ms.Len(); k++ {
				m := ms.At(k)
				d := c.ix.Metric(m.Name())
				if d == nil || (d.RenamedTo == "" && d.Deprecation.Reason == registry.NotDeprecated) {
					continue
				}
				id, level := metricFinding()
				f := c.finding(svc, id, m.Name(), level)
				f.Count++
				if len(f.Examples) < MaxExamples {
					f.Examples = append(f.Examples, c.loc("metrics", registry.LocationDataPoint, m.Name()))
				}
			}
		}
	}
}

func serviceOf(attrs pcommon.Map) string {
	if v, ok := attrs.Get("service.name"); ok && v.Type() == pcommon.ValueTypeStr {
		return v.Str()
	}
	return ""
}

func (c *Checker) loc(signal string, where registry.Location, name string) Location {
	return Location{Signal: signal, Where: where.String(), Name: strings.Clone(name), Input: c.input}
}

// examples adds an example to every finding of svc that attrs shows (its
// key, or a value the engine's Verdict gives that outcome), and drops
// satisfied findings from need.
func (c *Checker) examples(need *need, svc string, attrs pcommon.Map, mk func() Location) {
	keys, values := need.keys[svc], need.values[svc]
	if len(keys) == 0 && len(values) == 0 {
		return
	}
	for k, v := range attrs.All() {
		if f, ok := keys[k]; ok {
			f.Examples = append(f.Examples, mk())
			delete(keys, k)
			continue
		}
		if len(values) == 0 {
			continue
		}
		a := c.ix.Lookup(k)
		if a == nil || a.Placeholder || a.Deprecation.Reason != registry.NotDeprecated {
			continue
		}
		o := engine.Verdict(a, v)
		f, ok := values[o]
		if !ok {
			continue
		}
		l := mk()
		l.Key, l.Type = strings.Clone(k), v.Type().String()
		f.Examples = append(f.Examples, l)
		if len(f.Examples) >= MaxExamples {
			delete(values, o)
		}
	}
	if len(keys) == 0 {
		delete(need.keys, svc)
	}
	if len(values) == 0 {
		delete(need.values, svc)
	}
}

func (c *Checker) traceExamples(td ptrace.Traces, need *need) {
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len() && !need.empty(); i++ {
		rs := rss.At(i)
		if !c.e.Governs(rs.Resource().Attributes()) {
			continue
		}
		svc := c.service(serviceOf(rs.Resource().Attributes()))
		c.examples(need, svc, rs.Resource().Attributes(), func() Location { return c.loc("traces", registry.LocationResource, "") })
		sss := rs.ScopeSpans()
		for j := 0; j < sss.Len() && !need.empty(); j++ {
			c.examples(need, svc, sss.At(j).Scope().Attributes(), func() Location { return c.loc("traces", registry.LocationScope, "") })
			spans := sss.At(j).Spans()
			for k := 0; k < spans.Len() && need.wants(svc); k++ {
				s := spans.At(k)
				c.examples(need, svc, s.Attributes(), func() Location { return c.loc("traces", registry.LocationSpan, s.Name()) })
				for e := 0; e < s.Events().Len(); e++ {
					ev := s.Events().At(e)
					c.examples(need, svc, ev.Attributes(), func() Location { return c.loc("traces", registry.LocationSpanEvent, s.Name()+"/"+ev.Name()) })
				}
				for l := 0; l < s.Links().Len(); l++ {
					c.examples(need, svc, s.Links().At(l).Attributes(), func() Location { return c.loc("traces", registry.LocationSpanLink, s.Name()) })
				}
			}
		}
	}
}

func (c *Checker) metricExamples(md pmetric.Metrics, need *need) {
	rms := md.ResourceMetrics()
	for i := 0; i < rms.Len() && !need.empty(); i++ {
		rm := rms.At(i)
		if !c.e.Governs(rm.Resource().Attributes()) {
			continue
		}
		svc := c.service(serviceOf(rm.Resource().Attributes()))
		c.examples(need, svc, rm.Resource().Attributes(), func() Location { return c.loc("metrics", registry.LocationResource, "") })
		sms := rm.ScopeMetrics()
		for j := 0; j < sms.Len() && !need.empty(); j++ {
			c.examples(need, svc, sms.At(j).Scope().Attributes(), func() Location { return c.loc("metrics", registry.LocationScope, "") })
			ms := sms.At(j).Metrics()
			for k := 0; k < ms.Len() && need.wants(svc); k++ {
				m := ms.At(k)
				mk := func() Location { return c.loc("metrics", registry.LocationDataPoint, m.Name()) }
				forEachPointAttrs(m, func(attrs pcommon.Map) { c.examples(need, svc, attrs, mk) })
			}
		}
	}
}

func forEachPointAttrs(m pmetric.Metric, f func(pcommon.Map)) {
	switch m.Type() {
	case pmetric.MetricTypeGauge:
		for i := 0; i < m.Gauge().DataPoints().Len(); i++ {
			f(m.Gauge().DataPoints().At(i).Attributes())
		}
	case pmetric.MetricTypeSum:
		for i := 0; i < m.Sum().DataPoints().Len(); i++ {
			f(m.Sum().DataPoints().At(i).Attributes())
		}
	case pmetric.MetricTypeHistogram:
		for i := 0; i < m.Histogram().DataPoints().Len(); i++ {
			f(m.Histogram().DataPoints().At(i).Attributes())
		}
	case pmetric.MetricTypeExponentialHistogram:
		for i := 0; i < m.ExponentialHistogram().DataPoints().Len(); i++ {
			f(m.ExponentialHistogram().DataPoints().At(i).Attributes())
		}
	case pmetric.MetricTypeSummary:
		for i := 0; i < m.Summary().DataPoints().Len(); i++ {
			f(m.Summary().DataPoints().At(i).Attributes())
		}
	case pmetric.MetricTypeEmpty:
	}
}

func (c *Checker) logExamples(ld plog.Logs, need *need) {
	rls := ld.ResourceLogs()
	for i := 0; i < rls.Len() && !need.empty(); i++ {
		rl := rls.At(i)
		if !c.e.Governs(rl.Resource().Attributes()) {
			continue
		}
		svc := c.service(serviceOf(rl.Resource().Attributes()))
		c.examples(need, svc, rl.Resource().Attributes(), func() Location { return c.loc("logs", registry.LocationResource, "") })
		sls := rl.ScopeLogs()
		for j := 0; j < sls.Len() && !need.empty(); j++ {
			c.examples(need, svc, sls.At(j).Scope().Attributes(), func() Location { return c.loc("logs", registry.LocationScope, "") })
			lrs := sls.At(j).LogRecords()
			for k := 0; k < lrs.Len() && need.wants(svc); k++ {
				lr := lrs.At(k)
				c.examples(need, svc, lr.Attributes(), func() Location { return c.loc("logs", registry.LocationLog, lr.EventName()) })
			}
		}
	}
}

// Result renders what was checked so far.
func (c *Checker) Result() Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	by := map[string]*ServiceResult{}
	for fk, f := range c.findings {
		sr := by[fk.service]
		if sr == nil {
			sr = &ServiceResult{Service: fk.service}
			by[fk.service] = sr
		}
		cp := *f
		cp.Examples = slices.Clone(f.Examples)
		sr.Findings = append(sr.Findings, cp)
	}
	out := Result{Items: c.items, Services: []ServiceResult{}}
	out.Document = c.report.Document(c.ix, 1, "", time.Now())
	for _, s := range out.Document.Services {
		if by[s.Service] == nil {
			by[s.Service] = &ServiceResult{Service: s.Service, Findings: []Finding{}}
		}
	}
	for _, sr := range by {
		slices.SortFunc(sr.Findings, func(a, b Finding) int {
			if x := cmp.Compare(b.level, a.level); x != 0 {
				return x
			}
			if x := strings.Compare(a.ID, b.ID); x != 0 {
				return x
			}
			if x := cmp.Compare(b.Count, a.Count); x != 0 {
				return x
			}
			return strings.Compare(a.Key, b.Key)
		})
		out.Services = append(out.Services, *sr)
	}
	slices.SortFunc(out.Services, func(a, b ServiceResult) int { return strings.Compare(a.Service, b.Service) })
	return out
}
