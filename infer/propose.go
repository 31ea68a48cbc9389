package infer

import (
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/registry/regwrite"
)

// Defaults of Options.
const (
	// DefaultEnumMinRatio: an enum needs each distinct value seen this
	// many times on average.
	DefaultEnumMinRatio = 10
	// DefaultHighCardinality: a metric attribute with more distinct
	// values (estimated) gets a warning.
	DefaultHighCardinality = 100
)

// Options tune the proposal. The zero value of a field means its default.
type Options struct {
	// EnumMinRatio is the occurrences per distinct value an enum needs
	// (default 10): values are few relative to how often they are seen.
	EnumMinRatio int
	// HighCardinality is the estimated distinct values above which a
	// metric attribute is warned about (default 100).
	HighCardinality float64
	// NoExamples leaves example values out of the proposal (they come
	// from the telemetry and may hold personal data). Default false:
	// examples are proposed, as Weaver's infer writes them.
	NoExamples bool
	// Own reports the names the registry being written already defines,
	// by kind: "attribute" (a key), KindMetric (a name), KindSpan (a span
	// type) and KindEvent (a name). Refs may point to its attributes
	// (refs to other registries' names, the semantic conventions, are
	// left out of the written groups), and its metrics, spans and events
	// are proposed again so that the writer adds the refs they lack.
	Own func(kind, name string) bool
}

func (o Options) withDefaults() Options {
	if o.EnumMinRatio <= 0 {
		o.EnumMinRatio = DefaultEnumMinRatio
	}
	if o.HighCardinality <= 0 {
		o.HighCardinality = DefaultHighCardinality
	}
	if o.Own == nil {
		o.Own = func(string, string) bool { return false }
	}
	return o
}

// Proposal is what the evidence proposes for the registry ix lacks.
type Proposal struct {
	Items      Items               `json:"items"`
	Attributes []ProposedAttribute `json:"attributes"`
	// Renames are near-misses of a registry name, proposed as deprecated
	// attributes renamed to it.
	Renames  []ProposedAttribute `json:"renames"`
	Metrics  []ProposedGroup     `json:"metrics"`
	Spans    []ProposedGroup     `json:"spans"`
	Events   []ProposedGroup     `json:"events"`
	Warnings []Warning           `json:"warnings"`
	// NameFindings are the findings of Weaver's default policy's naming
	// rules (as the engine implements them) on the proposed names.
	NameFindings []NameFinding `json:"name_findings"`
	// Defined counts the names seen that the loaded registries define
	// (not proposed).
	Defined  Defined  `json:"defined"`
	Overflow Overflow `json:"overflow"`
	// Skipped are the names that cannot be registry IDs as written:
	// not proposed, listed for the user to rename at the source.
	Skipped Skipped `json:"skipped"`
	// NearDuplicates are groups of proposed keys that spell one concept
	// differently (fooID, foo_id, param.fooID): candidates for one name.
	NearDuplicates [][]string `json:"near_duplicates"`
}

// Skipped counts the names that cannot be registry IDs as written.
type Skipped struct {
	// Occurrences of such names, and the distinct names (a lower bound
	// past 4096).
	Occurrences int64 `json:"occurrences"`
	Distinct    int64 `json:"distinct"`
	// Names lists the first MaxInvalid distinct names.
	Names []Invalid `json:"names"`
}

// Defined counts names seen that a loaded registry defines.
type Defined struct {
	Attributes int `json:"attributes"`
	Metrics    int `json:"metrics"`
	Spans      int `json:"spans"`
	Events     int `json:"events"`
}

// ProposedAttribute is one attribute to add.
type ProposedAttribute struct {
	Key       string `json:"key"`
	Type      string `json:"type"`
	Enum      []any  `json:"enum,omitempty"`
	Examples  []any  `json:"examples,omitempty"`
	RenamedTo string `json:"renamed_to,omitempty"`
	// Namespace lists (up to three) registry or sent keys this key is a
	// namespace of (url for url.full): defined, it would make every one
	// of them illegal_namespace. It is proposed deprecated (no rename),
	// which the collector keeps and otel.rego does not count as a
	// namespace; Deprecated is the note written.
	Namespace  []string `json:"namespace_of,omitempty"`
	Deprecated string   `json:"deprecated,omitempty"`
	Where      []string `json:"where"`
	Services   []string `json:"services,omitempty"`
	Count      int64    `json:"count"`
	// Cardinality is the estimated distinct values.
	Cardinality float64 `json:"cardinality"`
	Why         string  `json:"why"`
}

// ProposedGroup is one metric, span or event to add.
type ProposedGroup struct {
	Kind string `json:"kind"`
	// Name is the metric or event name, or the span name.
	Name string `json:"name"`
	// Type is a span's registry type (an ID derived from its name).
	Type       string        `json:"type,omitempty"`
	Instrument string        `json:"instrument,omitempty"`
	SpanKind   string        `json:"span_kind,omitempty"`
	Unit       string        `json:"unit,omitempty"`
	Attributes []ProposedRef `json:"attributes"`
	Services   []string      `json:"services,omitempty"`
	Count      int64         `json:"count"`
	Why        string        `json:"why"`
}

// ProposedRef is an attribute of a proposed group with its requirement
// level and presence.
type ProposedRef struct {
	Key              string `json:"key"`
	RequirementLevel string `json:"requirement_level"`
	Present          int64  `json:"present"`
	// Written is false for a ref the registry file cannot hold (an
	// attribute another registry defines).
	Written bool `json:"written"`
}

// Warning kinds.
const (
	WarnTypeConflict     = "type_conflict"
	WarnHighCardinality  = "high_cardinality_metric_attribute"
	WarnVariantConflict  = "variant_conflict"
	WarnSpanTypeConflict = "span_type_conflict"
)

// Warning is something a reviewer must decide.
type Warning struct {
	Kind    string `json:"kind"`
	Name    string `json:"name"`
	Message string `json:"message"`
}

// NameFinding is one naming-rule finding on a proposed name.
type NameFinding struct {
	ID    string `json:"id"` // missing_namespace, invalid_format, illegal_namespace, extends_namespace
	Level string `json:"level"`
	Name  string `json:"name"`
	What  string `json:"what"` // attribute or metric
}

// Propose turns the evidence into a proposal against ix, the loaded
// registries (including the one being written). It is deterministic:
// every list is sorted.
func Propose(ev *Evidence, ix *registry.Index, opts Options) *Proposal {
	o := opts.withDefaults()
	p := &Proposal{
		Items: ev.Items, Overflow: ev.Overflow,
		Skipped:        Skipped{Occurrences: ev.InvalidCount, Distinct: ev.InvalidDistinct, Names: slices.Clone(ev.Invalid)},
		NearDuplicates: [][]string{},
	}
	if p.Skipped.Names == nil {
		p.Skipped.Names = []Invalid{}
	}
	near := newNearMisses(ix)
	under := namespaces(ix, ev)
	for _, k := range slices.Sorted(maps.Keys(ev.Attributes)) {
		at := ev.Attributes[k]
		if a := ix.Lookup(k); a != nil && !a.Placeholder {
			p.Defined.Attributes++
			p.warnHighCardinality(ev, at, o)
			continue
		}
		pa := proposeAttribute(at, o, p)
		if to := near.match(k); to != "" {
			pa.RenamedTo = to
			pa.Enum = nil
			pa.Why = fmt.Sprintf("near-miss of registry attribute %s (same words, other separators or case): proposed deprecated, renamed to it; %s", to, pa.Why)
			p.Renames = append(p.Renames, pa)
			continue
		}
		if keys := under[k]; len(keys) > 0 {
			pa.Namespace, pa.Enum = keys, nil
			pa.Deprecated = fmt.Sprintf("illegal_namespace: %s is a namespace of %s; defined as it is, each of those would be illegal_namespace. Rename it at the source (for example to a key of its own namespace).", k, strings.Join(keys, ", "))
			pa.Why = fmt.Sprintf("illegal_namespace: a namespace of %s: proposed deprecated (kept by the collector, not a namespace for otel.rego, so they stay conformant); rename it at the source; %s", strings.Join(keys, ", "), pa.Why)
		}
		p.Attributes = append(p.Attributes, pa)
		p.warnHighCardinality(ev, at, o)
	}
	p.NearDuplicates = nearDuplicates(p.Attributes)
	proposed := make(map[string]bool, len(p.Attributes)+len(p.Renames))
	for _, a := range p.Attributes {
		proposed[a.Key] = true
	}
	for _, a := range p.Renames {
		proposed[a.Key] = true
	}
	own := func(k string) bool { return proposed[k] || o.Own("attribute", k) }
	for _, n := range slices.Sorted(maps.Keys(ev.Metrics)) {
		g := ev.Metrics[n]
		if d := ix.MetricGroup(n); d != nil && !d.Metric.Placeholder && !o.Own(KindMetric, n) {
			p.Defined.Metrics++
			continue
		}
		pg := proposeGroup(g, own, p)
		pg.Instrument = pg.variant
		pg.Unit = g.Unit
		pg.Why = fmt.Sprintf("metric seen on %d data point(s) as %s", g.Count, variantText(g))
		p.Metrics = append(p.Metrics, pg.ProposedGroup)
	}
	types := map[string]string{}
	for _, n := range slices.Sorted(maps.Keys(ev.Spans)) {
		g := ev.Spans[n]
		t := SpanType(n)
		if ix.SpanGroup("span."+t) != nil && !o.Own(KindSpan, t) {
			p.Defined.Spans++
			continue
		}
		if other, dup := types[t]; dup {
			p.Warnings = append(p.Warnings, Warning{
				Kind: WarnSpanTypeConflict, Name: n,
				Message: fmt.Sprintf("span name %q gives span type %s, as %q does: only the first is proposed", n, t, other),
			})
			continue
		}
		types[t] = n
		pg := proposeGroup(g, own, p)
		pg.Type, pg.SpanKind = t, pg.variant
		pg.Why = fmt.Sprintf("span seen %d time(s) as %s", g.Count, variantText(g))
		p.Spans = append(p.Spans, pg.ProposedGroup)
	}
	slices.SortFunc(p.Spans, func(a, b ProposedGroup) int { return strings.Compare(a.Type, b.Type) })
	for _, n := range slices.Sorted(maps.Keys(ev.Events)) {
		g := ev.Events[n]
		if ix.EventGroup(n) != nil && !o.Own(KindEvent, n) {
			p.Defined.Events++
			continue
		}
		pg := proposeGroup(g, own, p)
		src := "log records"
		if g.SpanEvent {
			src = "log records or span events"
		}
		pg.Why = fmt.Sprintf("event seen on %d %s", g.Count, src)
		p.Events = append(p.Events, pg.ProposedGroup)
	}
	p.NameFindings = nameFindings(ix, p)
	return p
}

// proposeAttribute is the attribute the evidence at supports.
func proposeAttribute(at *Attribute, o Options, p *Proposal) ProposedAttribute {
	pa := ProposedAttribute{
		Key: at.Key, Where: WhereNames(at.Where), Services: at.Services,
		Count: at.Count, Cardinality: at.Cardinality(),
	}
	var why []string
	pa.Type = chooseType(at)
	if len(at.Types) > 1 {
		var parts []string
		for _, t := range at.Types {
			name := t.Type
			if name == "" {
				name = "no type"
			}
			parts = append(parts, fmt.Sprintf("%s %d time(s) from %s", name, t.Count, servicesText(t.Services, t.ServicesOverflow)))
		}
		p.Warnings = append(p.Warnings, Warning{
			Kind: WarnTypeConflict, Name: at.Key,
			Message: fmt.Sprintf("sent as %s: proposed %s", strings.Join(parts, "; "), pa.Type),
		})
		why = append(why, "type conflict (see warnings)")
	}
	if pa.Type == "" {
		pa.Type = "string" // Weaver's default (attribute_spec_from_sample)
		why = append(why, "no value with a type: string, as Weaver's infer")
	}
	for _, x := range at.Examples {
		if !o.NoExamples && exampleFits(x, pa.Type) {
			pa.Examples = append(pa.Examples, x)
		}
	}
	if enum, reason := enumOf(at, pa.Type, o); enum != nil {
		if no := notEnum(at, pa.Type); no != "" {
			why = append(why, no)
		} else {
			pa.Enum = enum
			why = append(why, reason)
		}
	}
	why = append(why, fmt.Sprintf("seen %d time(s) on %s, ~%.0f distinct value(s)", at.Count, strings.Join(pa.Where, ", "), pa.Cardinality))
	if len(at.Signals) > 0 {
		why = append(why, "on "+strings.Join(at.Signals, ", ")+overflowText(at.SignalsOverflow))
	}
	pa.Why = strings.Join(why, "; ")
	return pa
}

// chooseType is the type seen most often ("" when none has a type); ints
// and doubles together are double, which accepts both.
func chooseType(at *Attribute) string {
	best, n := "", int64(0)
	has := map[string]bool{}
	for _, t := range at.Types {
		has[t.Type] = true
		if t.Type != "" && t.Count > n {
			best, n = t.Type, t.Count
		}
	}
	if (best == "int" || best == "double") && has["int"] && has["double"] {
		return "double"
	}
	if (best == "int[]" || best == "double[]") && has["int[]"] && has["double[]"] {
		return "double[]"
	}
	return best
}

func exampleFits(x any, typ string) bool {
	switch x.(type) {
	case string:
		return typ == "string"
	case int64:
		return typ == "int" || typ == "double"
	case float64:
		return typ == "double"
	case bool:
		return typ == "boolean"
	}
	return false
}

// enumOf proposes an enum where the values are few and stable: at most
// MaxValues distinct (the cardinality estimate and the exact set agree),
// at least two, each seen EnumMinRatio times on average, and no new value
// in the second half of the occurrences.
func enumOf(at *Attribute, typ string, o Options) ([]any, string) {
	if (typ != "string" && typ != "int") || len(at.Types) != 1 || at.ValuesOverflow {
		return nil, ""
	}
	n := len(at.Values)
	if n < 2 || at.Cardinality() > MaxValues {
		return nil, ""
	}
	if at.Count < int64(o.EnumMinRatio*n) || at.LastNew*2 > at.Count {
		return nil, ""
	}
	vals := make([]any, 0, n)
	for _, v := range at.Values {
		vals = append(vals, v.Value)
	}
	slices.SortFunc(vals, func(a, b any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	return vals, fmt.Sprintf("enum: %d value(s) over %d occurrence(s), the last new one at occurrence %d", n, at.Count, at.LastNew)
}

func (p *Proposal) warnHighCardinality(ev *Evidence, at *Attribute, o Options) {
	if at.Where&WhereDataPoint == 0 || at.Cardinality() <= o.HighCardinality {
		return
	}
	var metrics []string
	for _, n := range slices.Sorted(maps.Keys(ev.Metrics)) {
		for _, pr := range ev.Metrics[n].Attributes {
			if pr.Key == at.Key {
				metrics = append(metrics, n)
				break
			}
		}
	}
	for _, sg := range at.Signals {
		if n, ok := strings.CutPrefix(sg, SignalMetric); ok && !slices.Contains(metrics, n) {
			metrics = append(metrics, n)
		}
	}
	p.Warnings = append(p.Warnings, Warning{
		Kind: WarnHighCardinality, Name: at.Key,
		Message: fmt.Sprintf("~%.0f distinct values on data points of %s: each value is a time series; consider dropping it from the metrics", at.Cardinality(), strings.Join(metrics, ", ")),
	})
}

type groupDraft struct {
	ProposedGroup
	variant string
}

// proposeGroup lists g's attributes with requirement levels from presence:
// required when every item had it, recommended otherwise.
func proposeGroup(g *Group, own func(string) bool, p *Proposal) groupDraft {
	d := groupDraft{ProposedGroup: ProposedGroup{Kind: g.Kind, Name: g.Name, Services: g.Services, Count: g.Count}}
	best := int64(-1)
	for _, v := range g.Variants {
		if v.Count > best || (v.Count == best && variantRank(v.Name) < variantRank(d.variant)) {
			d.variant, best = v.Name, v.Count
		}
	}
	if len(g.Variants) > 1 {
		p.Warnings = append(p.Warnings, Warning{
			Kind: WarnVariantConflict, Name: g.Name,
			Message: fmt.Sprintf("%s sent as %s: proposed %s", g.Kind, variantText(g), d.variant),
		})
	}
	for _, pr := range g.Attributes {
		lvl := "recommended"
		if pr.Count >= g.Count {
			lvl = "required"
		}
		d.Attributes = append(d.Attributes, ProposedRef{Key: pr.Key, RequirementLevel: lvl, Present: pr.Count, Written: own(pr.Key)})
	}
	slices.SortFunc(d.Attributes, func(a, b ProposedRef) int { return strings.Compare(a.Key, b.Key) })
	return d
}

// variantOrder breaks ties between variants seen equally often, the same
// way in every run: span kinds server, consumer, client, producer,
// internal (the side that handles the work first); instruments in
// Weaver's order.
var variantOrder = []string{
	"server", "consumer", "client", "producer", "internal",
	"counter", "updowncounter", "gauge", "histogram",
}

// variantRank is name's place in variantOrder; names outside it come
// after, in byte order.
func variantRank(name string) string {
	if i := slices.Index(variantOrder, name); i >= 0 {
		return fmt.Sprintf("%02d", i)
	}
	return "99" + name
}

func variantText(g *Group) string {
	parts := make([]string, 0, len(g.Variants))
	for _, v := range g.Variants {
		parts = append(parts, fmt.Sprintf("%s (%d)", v.Name, v.Count))
	}
	return strings.Join(parts, ", ")
}

func servicesText(s []string, over int64) string {
	if len(s) == 0 {
		return "no service.name"
	}
	return strings.Join(s, ", ") + overflowText(over)
}

// SpanType is the registry type of a span name: lower case, each run of
// characters other than letters, digits and '.' one '_', trimmed ("GET
// /users/{id}" is get_users_id). A name without a letter or digit gets a
// derived type: "/" (a root HTTP handler) is root, any other is span_
// and the 8 hex digits of the name's FNV-1a hash; the span name itself is
// kept in the definition (name.note).
func SpanType(name string) string {
	if t := spanType(name); t != "" {
		return t
	}
	if strings.Trim(name, "/ ") == "" && strings.Contains(name, "/") {
		return "root"
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	return fmt.Sprintf("span_%08x", h.Sum32())
}

func spanType(name string) string {
	var b strings.Builder
	sep := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.':
			if sep && b.Len() > 0 {
				b.WriteByte('_')
			}
			sep = false
			b.WriteRune(r)
		default:
			sep = true
		}
	}
	return strings.Trim(b.String(), "._")
}

// memberID is an enum member's id for value v.
func memberID(v any) string {
	s := spanType(fmt.Sprint(v))
	s = strings.ReplaceAll(s, ".", "_")
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		s = "value_" + s
	}
	return strings.TrimSuffix(s, "_")
}

// Model is the proposal as registry definitions for regwrite: new
// attributes and renames (stability development, empty brief, as Weaver's
// infer writes them), metrics, spans and events with the refs the file can
// hold.
func (p *Proposal) Model() *regwrite.Model {
	m := &regwrite.Model{}
	for _, a := range append(slices.Clone(p.Attributes), p.Renames...) {
		ra := regwrite.Attribute{Key: a.Key, Type: a.Type, Examples: a.Examples, Stability: "development", RenamedTo: a.RenamedTo, Deprecated: a.Deprecated}
		used := map[string]int{}
		for _, v := range a.Enum {
			id := memberID(v)
			used[id]++
			if used[id] > 1 {
				id += "_" + strconv.Itoa(used[id])
			}
			ra.Members = append(ra.Members, regwrite.Member{ID: id, Value: v})
		}
		m.Attributes = append(m.Attributes, ra)
	}
	slices.SortFunc(m.Attributes, func(a, b regwrite.Attribute) int { return strings.Compare(a.Key, b.Key) })
	refs := func(g ProposedGroup) []regwrite.Ref {
		var out []regwrite.Ref
		for _, r := range g.Attributes {
			if r.Written {
				out = append(out, regwrite.Ref{Key: r.Key, RequirementLevel: r.RequirementLevel})
			}
		}
		return out
	}
	for _, g := range p.Metrics {
		m.Metrics = append(m.Metrics, regwrite.Metric{Name: g.Name, Instrument: g.Instrument, Unit: g.Unit, Stability: "development", Attributes: refs(g)})
	}
	for _, g := range p.Spans {
		m.Spans = append(m.Spans, regwrite.Span{Type: g.Type, Kind: g.SpanKind, NameNote: g.Name, Stability: "development", Attributes: refs(g)})
	}
	for _, g := range p.Events {
		m.Events = append(m.Events, regwrite.Event{Name: g.Name, Stability: "development", Attributes: refs(g)})
	}
	return m
}

// overflowText is " and N more" for n > 0.
func overflowText(n int64) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" and %d more", n)
}

// namespaces maps each namespace (a prefix ending before a '.') of a
// registry key or a key seen to up to three keys under it.
func namespaces(ix *registry.Index, ev *Evidence) map[string][]string {
	out := map[string][]string{}
	add := func(k string) {
		for i := strings.IndexByte(k, '.'); i > 0; {
			ns := k[:i]
			if l := out[ns]; len(l) < 3 && !slices.Contains(l, k) {
				out[ns] = append(l, k)
			}
			j := strings.IndexByte(k[i+1:], '.')
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	for _, a := range ix.Attributes() {
		if !a.Placeholder && !a.Template {
			add(a.Key)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(ev.Attributes)) {
		add(k)
	}
	return out
}

// nearDuplicates groups the proposed keys that spell one concept
// differently: the same words whatever the case and separators (fooID,
// foo_id, foo.id), or one's words ending the other's, two words at least
// (param.fooID). Each group is sorted, the groups by their first key.
func nearDuplicates(attrs []ProposedAttribute) [][]string {
	words := make([][]string, len(attrs))
	parent := make([]int, len(attrs))
	for i, a := range attrs {
		words[i] = strings.Split(normalize(a.Key), ".")
		parent[i] = i
	}
	root := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	suffix := func(a, b []string) bool { // a ends b
		return len(a) >= 2 && len(a) <= len(b) && slices.Equal(a, b[len(b)-len(a):])
	}
	for i := range attrs {
		for j := i + 1; j < len(attrs); j++ {
			if strings.Join(words[i], "") == strings.Join(words[j], "") || suffix(words[i], words[j]) || suffix(words[j], words[i]) {
				parent[root(i)] = root(j)
			}
		}
	}
	byRoot := map[int][]string{}
	for i, a := range attrs {
		byRoot[root(i)] = append(byRoot[root(i)], a.Key)
	}
	out := [][]string{}
	for _, g := range byRoot {
		if len(g) > 1 {
			slices.Sort(g)
			out = append(out, g)
		}
	}
	slices.SortFunc(out, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	return out
}
