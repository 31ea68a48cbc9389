// Package infer proposes an organisation registry from the telemetry a team
// already sends: it accumulates evidence from pdata (attributes with their
// types, values and services; metrics, spans and events with their
// attribute sets and presence), with bounded memory, and proposes what the
// loaded registries do not define. Package regwrite writes the proposal.
//
// The evidence (Evidence) is a plain, JSON-serializable value that Merge
// combines: a recording, a listener and, later, a collector's bounded
// sketch each produce one, and the proposal is made from their merge.
package infer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// Defaults of Limits.
const (
	DefaultMaxAttributes      = 4096
	DefaultMaxGroups          = 512
	DefaultMaxGroupAttributes = registry.MaxGroupAttributes
	DefaultMaxServices        = 8
	// maxTypeServices bounds the services named per type of an attribute
	// (enough to say who sends which type in a conflict).
	maxTypeServices = 4
	// MaxExamples is Weaver infer's MAX_EXAMPLES (crates/weaver_infer/src/lib.rs).
	MaxExamples = 5
	// MaxValues bounds the distinct values kept exactly per attribute:
	// an enum is proposed only below it.
	MaxValues = 16
	// sketchK is the size of the distinct-value sketch (k minimum values).
	sketchK = 64
	// MaxInvalid bounds the distinct names that cannot be registry IDs
	// listed in the summary (the rest are counted).
	MaxInvalid = 100
	// maxInvalidTracked bounds the distinct invalid names an accumulator
	// remembers to count them (InvalidDistinct is a lower bound beyond).
	maxInvalidTracked = 4096
)

// Limits bound the evidence. Every quantity a client controls is capped;
// what does not fit is counted in Overflow. The zero value of a field
// means its default.
type Limits struct {
	// MaxAttributes is the distinct attribute keys tracked (default 4096).
	MaxAttributes int
	// MaxGroups is the distinct metrics, span names and event names
	// tracked, each (default 512).
	MaxGroups int
	// MaxGroupAttributes is the attributes tracked per metric, span or
	// event (default registry.MaxGroupAttributes, 128).
	MaxGroupAttributes int
	// MaxServices is the services listed per name (default 8).
	MaxServices int
}

func (l Limits) withDefaults() Limits {
	if l.MaxAttributes <= 0 {
		l.MaxAttributes = DefaultMaxAttributes
	}
	if l.MaxGroups <= 0 {
		l.MaxGroups = DefaultMaxGroups
	}
	if l.MaxGroupAttributes <= 0 {
		l.MaxGroupAttributes = DefaultMaxGroupAttributes
	}
	if l.MaxServices <= 0 {
		l.MaxServices = DefaultMaxServices
	}
	return l
}

// Bytes is an upper bound of the memory the evidence holds under l, in
// bytes: every name and value is at most vocab.MaxKeyLength bytes.
func (l Limits) Bytes() int64 {
	l = l.withDefaults()
	const s = vocab.MaxKeyLength + 16 // a bounded string and its header
	group := int64(3*s + l.MaxGroupAttributes*(s+8) + l.MaxServices*s + 128 + mapEntry)
	return l.AttributesBytes() + 3*int64(l.MaxGroups)*group
}

// AttributesBytes is the part of Bytes that the attributes and the
// invalid names take: all a collector's sketch holds (it has no groups).
func (l Limits) AttributesBytes() int64 {
	l = l.withDefaults()
	const s = vocab.MaxKeyLength + 16
	invalid := int64(MaxInvalid*(4*s+mapEntry) + maxInvalidTracked*(s+mapEntry))
	return int64(l.MaxAttributes)*attributeBytes(l) + invalid
}

// attributeBytes bounds one Attribute under l.
func attributeBytes(l Limits) int64 {
	const s = vocab.MaxKeyLength + 16 // a bounded string and its header
	return int64(s +                  // key
		8*sketchK + // sketch
		(MaxValues+1)*(s+16) + // exact values
		MaxExamples*(s+16) + // examples
		numTypes*(32+maxTypeServices*s) + // types and their services
		l.MaxServices*s + 128 + // services, counters
		MaxSignals*(s+8) + // signals (a collector's sketch)
		mapEntry)
}

// mapEntry is a generous cost of one map entry (key header, pointer,
// bucket share).
const mapEntry = 64

// Where an attribute was seen (a bit set).
const (
	WhereResource uint8 = 1 << iota
	WhereScope
	WhereSpan
	WhereSpanEvent
	WhereSpanLink
	WhereDataPoint
	WhereLog
)

var whereNames = [...]string{"resource", "scope", "span", "span_event", "span_link", "data_point", "log"}

// WhereNames lists the locations in w.
func WhereNames(w uint8) []string {
	var out []string
	for i, n := range whereNames {
		if w&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// Attribute is the evidence about one attribute key.
type Attribute struct {
	Key   string `json:"key"`
	Count int64  `json:"count"` // occurrences
	Where uint8  `json:"where"` // WhereResource | ...
	// Types are the types seen (Weaver's names: string, int, double,
	// boolean, string[]...; "" for a value without one), each with its
	// count and the services that sent it.
	Types []TypeSeen `json:"types"`
	// Sketch holds the sketchK smallest distinct value hashes: the
	// cardinality estimate, mergeable across sources.
	Sketch []uint64 `json:"sketch"`
	// Values are the distinct scalar values seen, exactly, while there
	// are at most MaxValues (nil once there are more: ValuesOverflow).
	Values         []Value `json:"values,omitempty"`
	ValuesOverflow bool    `json:"values_overflow,omitempty"`
	// LastNew is Count when the last new distinct value was seen: values
	// are stable when it is early.
	LastNew int64 `json:"last_new"`
	// Examples are up to MaxExamples distinct values of the first type
	// seen, as Weaver's infer keeps them, each bounded by vocab.Bound.
	Examples []any    `json:"examples,omitempty"`
	Services []string `json:"services,omitempty"`
	// ServicesOverflow counts occurrences from services beyond MaxServices.
	ServicesOverflow int64 `json:"services_overflow,omitempty"`
	// Signals are the metrics ("metric NAME") the key was seen on, at
	// most MaxSignals (a collector's sketch; a recording lists them in
	// the groups instead); SignalsOverflow counts the others.
	Signals         []string `json:"signals,omitempty"`
	SignalsOverflow int64    `json:"signals_overflow,omitempty"`
}

// TypeSeen is one type of an attribute's values.
type TypeSeen struct {
	Type             string   `json:"type"`
	Count            int64    `json:"count"`
	Services         []string `json:"services,omitempty"`
	ServicesOverflow int64    `json:"services_overflow,omitempty"`
}

// Value is one distinct value with its count.
type Value struct {
	Value any   `json:"value"` // string or int64
	Count int64 `json:"count"`
}

// Kinds of groups.
const (
	KindMetric = "metric"
	KindSpan   = "span"
	KindEvent  = "event"
)

// Group is the evidence about one metric, span name or event name.
type Group struct {
	Kind  string `json:"kind"`
	Name  string `json:"name"`
	Count int64  `json:"count"` // data points, spans or log records and span events
	// Instruments (metrics) or span kinds (spans) seen, with counts.
	Variants []Variant `json:"variants,omitempty"`
	Unit     string    `json:"unit,omitempty"`
	// Attributes are the keys seen on the group's items, each with the
	// items that had it (presence).
	Attributes         []Presence `json:"attributes,omitempty"`
	AttributesOverflow int64      `json:"attributes_overflow,omitempty"`
	Services           []string   `json:"services,omitempty"`
	ServicesOverflow   int64      `json:"services_overflow,omitempty"`
	// SpanEvent: an event seen as a span event (not only as a log record).
	SpanEvent bool `json:"span_event,omitempty"`
}

// Variant is an instrument or span kind with its count.
type Variant struct {
	Name  string `json:"name"`
	Count int64  `json:"count"`
}

// Presence is a key with the items of a group that had it.
type Presence struct {
	Key   string `json:"key"`
	Count int64  `json:"count"`
}

// Overflow counts what the limits left out.
type Overflow struct {
	Attributes int64 `json:"attributes"` // occurrences of keys beyond MaxAttributes
	Metrics    int64 `json:"metrics"`
	Spans      int64 `json:"spans"`
	Events     int64 `json:"events"`
	// Summaries are metrics of a type Weaver infers no instrument for.
	Summaries int64 `json:"summaries"`
}

// Invalid is a name that cannot be a registry ID, where it was first seen.
type Invalid struct {
	What   string `json:"what"` // attribute, metric, event, span
	Name   string `json:"name"` // bounded by vocab.Bound
	Reason string `json:"reason"`
	Input  string `json:"input"`
}

// Items counts what was read.
type Items struct {
	Spans      int64 `json:"spans"`
	DataPoints int64 `json:"data_points"`
	LogRecords int64 `json:"log_records"`
}

// Evidence is what the telemetry showed, bounded by Limits.
type Evidence struct {
	Items      Items                 `json:"items"`
	Attributes map[string]*Attribute `json:"attributes"`
	Metrics    map[string]*Group     `json:"metrics"`
	Spans      map[string]*Group     `json:"spans"`
	Events     map[string]*Group     `json:"events"`
	Overflow   Overflow              `json:"overflow"`
	// Invalid lists the distinct names that cannot be registry IDs (at
	// most MaxInvalid), skipped: not proposed, but never a reason to
	// refuse the rest.
	Invalid []Invalid `json:"invalid,omitempty"`
	// InvalidCount counts every occurrence of an invalid name, listed or
	// not; InvalidDistinct the distinct invalid names (a lower bound past
	// 4096).
	InvalidCount    int64 `json:"invalid_count,omitempty"`
	InvalidDistinct int64 `json:"invalid_distinct,omitempty"`
}

// Accumulator gathers Evidence from pdata. It is not safe for concurrent
// use.
type Accumulator struct {
	lim     Limits
	ev      Evidence
	service string
	input   string
	invalid map[string]bool
	// filed is AddUnknowns' scratch.
	filed [][numValueTypes]int64
}

// New returns an empty Accumulator bounded by lim.
func New(lim Limits) *Accumulator {
	return &Accumulator{
		lim: lim.withDefaults(),
		ev: Evidence{
			Attributes: map[string]*Attribute{},
			Metrics:    map[string]*Group{},
			Spans:      map[string]*Group{},
			Events:     map[string]*Group{},
		},
		invalid: map[string]bool{},
	}
}

// Evidence returns the evidence so far (shared, not a copy).
func (a *Accumulator) Evidence() *Evidence { return &a.ev }

// Limits returns the limits in effect.
func (a *Accumulator) Limits() Limits { return a.lim }

// Empty reports whether no span, data point or log record was read.
func (a *Accumulator) Empty() bool {
	i := a.ev.Items
	return i.Spans+i.DataPoints+i.LogRecords == 0
}

func (a *Accumulator) resource(res pcommon.Resource) {
	a.service = ""
	if v, ok := res.Attributes().Get("service.name"); ok && v.Type() == pcommon.ValueTypeStr {
		a.service, _ = vocab.Bound(v.Str())
		a.service = strings.Clone(a.service)
	}
	a.attrs(res.Attributes(), WhereResource, nil)
}

// Traces adds a traces request; input names it in messages (file:line).
func (a *Accumulator) Traces(td ptrace.Traces, input string) {
	a.input = input
	for _, rs := range td.ResourceSpans().All() {
		a.resource(rs.Resource())
		for _, ss := range rs.ScopeSpans().All() {
			a.attrs(ss.Scope().Attributes(), WhereScope, nil)
			for _, sp := range ss.Spans().All() {
				a.ev.Items.Spans++
				g := a.group(a.ev.Spans, KindSpan, sp.Name(), &a.ev.Overflow.Spans)
				if g != nil {
					g.Count++
					variant(g, spanKindName(sp.Kind()), 1)
				}
				a.attrs(sp.Attributes(), WhereSpan, g)
				for _, e := range sp.Events().All() {
					eg := a.group(a.ev.Events, KindEvent, e.Name(), &a.ev.Overflow.Events)
					if eg != nil {
						eg.Count++
						eg.SpanEvent = true
					}
					a.attrs(e.Attributes(), WhereSpanEvent, eg)
				}
				for _, l := range sp.Links().All() {
					a.attrs(l.Attributes(), WhereSpanLink, nil)
				}
			}
		}
	}
}

// Logs adds a logs request. A log record with an event name is an event
// (Weaver's infer ignores the attributes of the others; they are kept
// here, since the engine checks them).
func (a *Accumulator) Logs(ld plog.Logs, input string) {
	a.input = input
	for _, rl := range ld.ResourceLogs().All() {
		a.resource(rl.Resource())
		for _, sl := range rl.ScopeLogs().All() {
			a.attrs(sl.Scope().Attributes(), WhereScope, nil)
			for _, lr := range sl.LogRecords().All() {
				a.ev.Items.LogRecords++
				var g *Group
				if n := lr.EventName(); n != "" {
					if g = a.group(a.ev.Events, KindEvent, n, &a.ev.Overflow.Events); g != nil {
						g.Count++
					}
				}
				a.attrs(lr.Attributes(), WhereLog, g)
			}
		}
	}
}

// Metrics adds a metrics request.
func (a *Accumulator) Metrics(md pmetric.Metrics, input string) {
	a.input = input
	for _, rm := range md.ResourceMetrics().All() {
		a.resource(rm.Resource())
		for _, sm := range rm.ScopeMetrics().All() {
			a.attrs(sm.Scope().Attributes(), WhereScope, nil)
			for _, m := range sm.Metrics().All() {
				a.metric(m)
			}
		}
	}
}

func (a *Accumulator) metric(m pmetric.Metric) {
	i := engine.InstrumentOf(m)
	inst := i.String()
	var g *Group
	if !i.Supported() {
		a.ev.Overflow.Summaries++
	} else if g = a.group(a.ev.Metrics, KindMetric, m.Name(), &a.ev.Overflow.Metrics); g != nil {
		if len(g.Variants) == 0 {
			g.Unit = bounded(m.Unit()) // the first unit seen, as Weaver's
		}
	}
	point := func(attrs pcommon.Map, exs pmetric.ExemplarSlice) {
		a.ev.Items.DataPoints++
		if g != nil {
			g.Count++
			variant(g, inst, 1)
		}
		a.attrs(attrs, WhereDataPoint, g)
		for _, ex := range exs.All() {
			a.attrs(ex.FilteredAttributes(), WhereDataPoint, nil)
		}
	}
	switch m.Type() {
	case pmetric.MetricTypeSum:
		for _, dp := range m.Sum().DataPoints().All() {
			point(dp.Attributes(), dp.Exemplars())
		}
	case pmetric.MetricTypeGauge:
		for _, dp := range m.Gauge().DataPoints().All() {
			point(dp.Attributes(), dp.Exemplars())
		}
	case pmetric.MetricTypeHistogram:
		for _, dp := range m.Histogram().DataPoints().All() {
			point(dp.Attributes(), dp.Exemplars())
		}
	case pmetric.MetricTypeExponentialHistogram:
		for _, dp := range m.ExponentialHistogram().DataPoints().All() {
			point(dp.Attributes(), dp.Exemplars())
		}
	case pmetric.MetricTypeSummary:
		for _, dp := range m.Summary().DataPoints().All() {
			a.ev.Items.DataPoints++
			a.attrs(dp.Attributes(), WhereDataPoint, nil)
		}
	case pmetric.MetricTypeEmpty:
	}
}

func spanKindName(k ptrace.SpanKind) string {
	switch k {
	case ptrace.SpanKindServer:
		return "server"
	case ptrace.SpanKindClient:
		return "client"
	case ptrace.SpanKindProducer:
		return "producer"
	case ptrace.SpanKindConsumer:
		return "consumer"
	case ptrace.SpanKindInternal, ptrace.SpanKindUnspecified:
	}
	// Weaver's span_kind_from_otlp_kind: anything else is internal.
	return "internal"
}

// variant counts n items of variant name (at most five exist).
func variant(g *Group, name string, n int64) {
	for i := range g.Variants {
		if g.Variants[i].Name == name {
			g.Variants[i].Count += n
			return
		}
	}
	g.Variants = append(g.Variants, Variant{Name: name, Count: n})
}

// bounded is vocab.Bound, copied out of the batch.
func bounded(s string) string {
	b, _ := vocab.Bound(s)
	return strings.Clone(b)
}

// checkName records name as invalid when it cannot be a registry ID, and
// reports whether it can.
func (a *Accumulator) checkName(what, name string) bool {
	reason := ""
	switch {
	case name == "":
		reason = "empty"
	case len(name) > vocab.MaxKeyLength:
		reason = "longer than 256 bytes"
	case !utf8.ValidString(name):
		reason = "not valid UTF-8"
	case what == KindSpan:
		// A span name becomes a type (SpanType, derived when the name
		// has no letter or digit); any text will do.
	default:
		if err := registry.ValidKey(name); err != nil {
			reason = err.Error()
		} else if strings.IndexFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
			reason = "attribute key must not contain control characters"
		}
		if what != "attribute" {
			// The registry's rule is worded for keys: name what it is.
			reason = strings.Replace(reason, "attribute key", what+" name", 1)
		}
	}
	if reason == "" {
		return true
	}
	a.ev.InvalidCount++
	id := what + "\x00" + name
	if a.invalid[id] {
		return false
	}
	if len(a.invalid) < maxInvalidTracked {
		a.invalid[strings.Clone(id)] = true
		a.ev.InvalidDistinct++
	}
	if len(a.ev.Invalid) < MaxInvalid {
		a.ev.Invalid = append(a.ev.Invalid, Invalid{What: what, Name: bounded(name), Reason: reason, Input: a.input})
	}
	return false
}

// group finds or adds the group name of kind in m and adds the service;
// nil when name is invalid or m is full (counted in over). The caller
// counts the items.
func (a *Accumulator) group(m map[string]*Group, kind, name string, over *int64) *Group {
	g := m[name]
	if g == nil {
		if !a.checkName(kind, name) {
			return nil
		}
		if len(m) >= a.lim.MaxGroups {
			*over++
			return nil
		}
		g = &Group{Kind: kind, Name: strings.Clone(name)}
		m[g.Name] = g
	}
	g.Services, g.ServicesOverflow = addService(g.Services, g.ServicesOverflow, a.service, a.lim.MaxServices)
	return g
}

func addService(list []string, over int64, s string, limit int) ([]string, int64) {
	if s == "" || slices.Contains(list, s) {
		return list, over
	}
	if len(list) >= limit {
		return list, over + 1
	}
	return append(list, s), over
}

// attrs adds every attribute of m seen at where, and their presence on g.
func (a *Accumulator) attrs(m pcommon.Map, where uint8, g *Group) {
	for k, v := range m.All() {
		a.attr(k, v, where)
		if g != nil {
			presence(g, k, a.lim.MaxGroupAttributes)
		}
	}
}

func presence(g *Group, k string, limit int) {
	for i := range g.Attributes {
		if g.Attributes[i].Key == k {
			g.Attributes[i].Count++
			return
		}
	}
	if len(g.Attributes) >= limit {
		g.AttributesOverflow++
		return
	}
	g.Attributes = append(g.Attributes, Presence{Key: strings.Clone(k), Count: 1})
}

func (a *Accumulator) attr(k string, v pcommon.Value, where uint8) {
	at := a.ev.Attributes[k]
	if at == nil {
		if !a.checkName("attribute", k) {
			return
		}
		if len(a.ev.Attributes) >= a.lim.MaxAttributes {
			a.ev.Overflow.Attributes++
			return
		}
		at = &Attribute{Key: strings.Clone(k)}
		a.ev.Attributes[at.Key] = at
	}
	at.Count++
	at.Where |= where
	at.Services, at.ServicesOverflow = addService(at.Services, at.ServicesOverflow, a.service, a.lim.MaxServices)
	t := engine.InferredType(v)
	ts := typeSeen(at, t)
	ts.Count++
	ts.Services, ts.ServicesOverflow = addService(ts.Services, ts.ServicesOverflow, a.service, maxTypeServices)
	scalar := engine.Scalar(v)
	h := hashValue(v)
	if sketchAdd(at, h) {
		at.LastNew = at.Count
	}
	switch x := scalar.(type) {
	case string:
		addValue(at, x, 1)
	case int64:
		addValue(at, x, 1)
	}
	if scalar != nil {
		addExample(at, scalar)
	}
}

// typeSeen finds or adds t in at.Types (at most numTypes entries).
func typeSeen(at *Attribute, t string) *TypeSeen {
	for i := range at.Types {
		if at.Types[i].Type == t {
			return &at.Types[i]
		}
	}
	at.Types = append(at.Types, TypeSeen{Type: t})
	return &at.Types[len(at.Types)-1]
}

// numTypes bounds the type names engine.InferredType returns.
const numTypes = 9

// addValue counts x n times among the exact distinct values while they
// fit.
func addValue[T string | int64](at *Attribute, x T, n int64) {
	if at.ValuesOverflow {
		return
	}
	for i := range at.Values {
		if y, ok := at.Values[i].Value.(T); ok && y == x {
			at.Values[i].Count += n
			return
		}
	}
	if len(at.Values) >= MaxValues {
		at.Values, at.ValuesOverflow = nil, true
		return
	}
	var v any = x
	if s, ok := v.(string); ok {
		v = bounded(s)
	}
	at.Values = append(at.Values, Value{Value: v, Count: n})
}

// addExample keeps x as Weaver's add_example does: values of the first
// type seen only, distinct, at most MaxExamples; strings bounded by
// vocab.Bound (the report's rule for every client-sent string).
func addExample(at *Attribute, x any) {
	if len(at.Examples) >= MaxExamples {
		return
	}
	if s, ok := x.(string); ok {
		x = bounded(s)
	}
	if f, ok := x.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
		return
	}
	if len(at.Examples) > 0 && !sameKind(at.Examples[0], x) {
		return
	}
	if slices.Contains(at.Examples, x) {
		return
	}
	at.Examples = append(at.Examples, x)
}

func sameKind(a, b any) bool {
	switch a.(type) {
	case string:
		_, ok := b.(string)
		return ok
	case int64:
		_, ok := b.(int64)
		return ok
	case float64:
		_, ok := b.(float64)
		return ok
	case bool:
		_, ok := b.(bool)
		return ok
	}
	return false
}

// Clone returns a deep copy of ev: a reader (the collector's
// GET /infer/evidence) encodes the copy at its own pace while the
// accumulator keeps taking batches. Values and examples are scalars
// (string, int64, float64, bool), shared safely.
func (ev *Evidence) Clone() *Evidence {
	out := *ev
	out.Attributes = make(map[string]*Attribute, len(ev.Attributes))
	for k, at := range ev.Attributes {
		c := *at
		c.Types = slices.Clone(at.Types)
		for i := range c.Types {
			c.Types[i].Services = slices.Clone(c.Types[i].Services)
		}
		c.Sketch = slices.Clone(at.Sketch)
		c.Values = slices.Clone(at.Values)
		c.Examples = slices.Clone(at.Examples)
		c.Services = slices.Clone(at.Services)
		c.Signals = slices.Clone(at.Signals)
		out.Attributes[k] = &c
	}
	out.Metrics = cloneGroups(ev.Metrics)
	out.Spans = cloneGroups(ev.Spans)
	out.Events = cloneGroups(ev.Events)
	out.Invalid = slices.Clone(ev.Invalid)
	return &out
}

func cloneGroups(m map[string]*Group) map[string]*Group {
	if m == nil {
		return nil
	}
	out := make(map[string]*Group, len(m))
	for k, g := range m {
		c := *g
		c.Variants = slices.Clone(g.Variants)
		c.Attributes = slices.Clone(g.Attributes)
		c.Services = slices.Clone(g.Services)
		out[k] = &c
	}
	return out
}

// DecodeEvidence reads evidence saved as JSON (registry infer
// --evidence-file, a collector's GET /infer/evidence): unknown fields
// refused, numbers exact (an int past 2^53 included).
func DecodeEvidence(r io.Reader) (*Evidence, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	dec.UseNumber()
	var ev Evidence
	if err := dec.Decode(&ev); err != nil {
		return nil, err
	}
	if ev.Attributes == nil {
		return nil, errors.New("no attributes object")
	}
	if err := ev.NormalizeNumbers(); err != nil {
		return nil, err
	}
	return &ev, nil
}

// NormalizeNumbers turns the json.Numbers of values and examples (decoded
// with json.Decoder.UseNumber) into int64, exactly, or float64.
func (ev *Evidence) NormalizeNumbers() error {
	conv := func(x any) (any, error) {
		n, ok := x.(json.Number)
		if !ok {
			return x, nil
		}
		if i, err := n.Int64(); err == nil {
			return i, nil
		}
		f, err := n.Float64()
		if err != nil {
			return nil, fmt.Errorf("the number %q: %w", n.String(), err)
		}
		return f, nil
	}
	for _, at := range ev.Attributes {
		if at == nil {
			continue
		}
		for i := range at.Values {
			v, err := conv(at.Values[i].Value)
			if err != nil {
				return fmt.Errorf("attribute %s: %w", shown(at.Key), err)
			}
			at.Values[i].Value = v
		}
		for i := range at.Examples {
			v, err := conv(at.Examples[i])
			if err != nil {
				return fmt.Errorf("attribute %s: %w", shown(at.Key), err)
			}
			at.Examples[i] = v
		}
	}
	return nil
}
