// Package queries finds deprecated attribute and metric names where telemetry
// is read rather than written: PromQL in Prometheus rule files,
// PrometheusRule manifests and Grafana dashboards, the alert templates and
// legends that name labels, and OTTL statements and attribute keys in
// collector configs; queryfile finds them in the files.
// Names are matched in their OTel form (http.method) and in the forms
// Prometheus stores them in after the OTLP translation
// (github.com/prometheus/otlptranslator, with the strategies Prometheus 3 and
// the collector's exporters use, and the older translators' forms). PromQL
// is parsed with the Prometheus parser. Rewrites are applied in place, byte
// for byte, only where they keep what the query selects; each read also gets
// its form for an upgrade's transition window (both.go), which reads the old
// or the new name.
package queries // import "github.com/otelgov/otelcol-governance/queries"

import (
	"slices"
	"strings"

	"github.com/prometheus/otlptranslator"

	"github.com/otelgov/otelcol-governance/registry"
)

// Rename is what the registry says about one deprecated name.
type Rename struct {
	// Old is the deprecated name in OTel form.
	Old string
	// New is the single current name in OTel form; "" when there is none
	// or when it depends on the context (see Current).
	New string
	// Current lists every current name, when the registry renames the key
	// differently by context (span kind, metric).
	Current []string
	// Rewritable: the rename is the same in every context and, for
	// metrics, keeps instrument and unit, so a query can be rewritten.
	Rewritable bool
	// Why explains a rename that is not rewritable.
	Why string
	// Migration is the key's value migration (nil: values keep); OldEnum
	// the old key's enum members (nil: no enum).
	Migration *registry.Migration
	OldEnum   []string
}

// Names indexes the deprecated attribute keys and metric names of a registry
// in OTel and Prometheus form.
type Names struct {
	ix *registry.Index
	// deprecated holds every key deprecated or renamed in some context
	// (metric-scoped placeholders such as direction included).
	deprecated map[string]bool
	attrs      map[string]*Rename  // OTel key -> rename in every context
	promAttrs  map[string][]string // Prometheus label -> deprecated OTel keys written so
	templates  []templateLabel     // deprecated template keys, longest first
	metrics    map[string]*Rename  // OTel metric name -> rename
	series     map[string][]form   // Prometheus series name -> forms of deprecated metrics
	current    map[string][]string // Prometheus series name -> current OTel metric names
}

// templateLabel is a deprecated template key (k8s.pod.labels) in OTel and
// Prometheus form.
type templateLabel struct {
	attr       *registry.Attribute
	key, label string // "k8s.pod.labels.", "k8s_pod_labels_"
}

// strategy is how an OTel metric name became a Prometheus series name.
type strategy uint8

const (
	// underscoreSuffixes: Prometheus 3's default for OTLP and the
	// collector's Prometheus exporters (UnderscoreEscapingWithSuffixes).
	underscoreSuffixes strategy = iota
	// underscoreNoSuffixes: add_metric_suffixes: false.
	underscoreNoSuffixes
	// utf8Suffixes: NoUTF8EscapingWithSuffixes.
	utf8Suffixes
	// untranslated: NoTranslation, the OTel name itself.
	untranslated
	// legacy: the translators before otlptranslator (unit word appended
	// even when the name holds it, _total on every counter).
	legacy
	numStrategies
)

var strategyNames = [...]string{
	underscoreSuffixes:   "UnderscoreEscapingWithSuffixes",
	underscoreNoSuffixes: "UnderscoreEscapingWithoutSuffixes",
	utf8Suffixes:         "NoUTF8EscapingWithSuffixes",
	untranslated:         "NoTranslation",
	legacy:               "legacy",
}

// String returns the strategy's name.
func (s strategy) String() string { return strategyNames[s] }

var translatorStrategies = [...]otlptranslator.TranslationStrategyOption{
	underscoreSuffixes:   otlptranslator.UnderscoreEscapingWithSuffixes,
	underscoreNoSuffixes: otlptranslator.UnderscoreEscapingWithoutSuffixes,
	utf8Suffixes:         otlptranslator.NoUTF8EscapingWithSuffixes,
	untranslated:         otlptranslator.NoTranslation,
}

// form is one way a metric's series is written.
type form struct {
	metric   string // OTel name
	strategy strategy
	suffix   string // series suffix after the translated name: _bucket, _count, _sum or ""
	guessed  bool   // a placeholder's form: its unit and type are unknown
}

var instrumentTypes = map[string]otlptranslator.MetricType{
	"counter":       otlptranslator.MetricTypeMonotonicCounter,
	"updowncounter": otlptranslator.MetricTypeNonMonotonicCounter,
	"gauge":         otlptranslator.MetricTypeGauge,
	"histogram":     otlptranslator.MetricTypeHistogram,
}

// seriesSuffixes are the series a histogram's translated name is the base of.
var seriesSuffixes = map[otlptranslator.MetricType][]string{
	otlptranslator.MetricTypeHistogram: {"", "_bucket", "_count", "_sum"},
	otlptranslator.MetricTypeSummary:   {"", "_count", "_sum"},
}

// translate is a metric's Prometheus name under a strategy.
func translate(m *registry.Metric, s strategy) string {
	typ := instrumentTypes[m.Instrument]
	if s == legacy {
		out := PromMetricBase(m.Name)
		if u := legacyUnit(m.Unit); u != "" {
			out += "_" + u
		}
		if typ == otlptranslator.MetricTypeMonotonicCounter {
			out += "_total"
		}
		return out
	}
	namer := otlptranslator.NewMetricNamer("", translatorStrategies[s])
	out, err := namer.Build(otlptranslator.Metric{Name: m.Name, Unit: m.Unit, Type: typ})
	if err != nil {
		return ""
	}
	return out
}

// Series are the series names of a metric under a strategy with their
// suffixes.
func series(m *registry.Metric, s strategy, emit func(name, suffix string)) {
	base := translate(m, s)
	if base == "" {
		return
	}
	sfx := seriesSuffixes[instrumentTypes[m.Instrument]]
	if len(sfx) == 0 {
		sfx = []string{""}
	}
	for _, x := range sfx {
		emit(base+x, x)
	}
}

// NewNames indexes ix.
func NewNames(ix *registry.Index) *Names {
	n := &Names{
		ix:         ix,
		deprecated: map[string]bool{},
		attrs:      map[string]*Rename{},
		promAttrs:  map[string][]string{},
		metrics:    map[string]*Rename{},
		series:     map[string][]form{},
		current:    map[string][]string{},
	}
	currentLabels := map[string]bool{}
	for _, a := range ix.Attributes() {
		if a.Deprecation.Reason == registry.NotDeprecated && !a.Placeholder {
			for _, l := range promLabels(a.Key) {
				currentLabels[l] = true
			}
			continue
		}
		if !a.Renamed() && a.Deprecation.Reason == registry.NotDeprecated {
			continue
		}
		if a.Template {
			n.templates = append(n.templates, templateLabel{attr: a, key: a.Key + ".", label: PromLabel(a.Key) + "_"})
			continue
		}
		n.deprecated[a.Key] = true
		if r := attrRename(a, a.Key, allContexts); r != nil {
			n.attrs[a.Key] = r
		}
	}
	slices.SortFunc(n.templates, func(a, b templateLabel) int { return len(b.key) - len(a.key) })
	for k := range n.deprecated {
		for _, l := range promLabels(k) {
			if !currentLabels[l] && l != k && !slices.Contains(n.promAttrs[l], k) {
				n.promAttrs[l] = append(n.promAttrs[l], k)
			}
		}
	}
	for _, m := range ix.Metrics() {
		if m.RenamedTo == "" && m.Deprecation.Reason == registry.NotDeprecated {
			for s := range numStrategies {
				series(m, s, func(name, _ string) {
					if !slices.Contains(n.current[name], m.Name) {
						n.current[name] = append(n.current[name], m.Name)
					}
				})
			}
			continue
		}
		n.metrics[m.Name] = metricRename(ix, m)
	}
	for _, m := range ix.Metrics() {
		if n.metrics[m.Name] == nil {
			continue
		}
		add := func(name string, f form) {
			if len(n.current[name]) > 0 {
				return // also a current metric's series: no finding
			}
			for _, g := range n.series[name] {
				if g.metric == f.metric {
					return // the first strategy that writes it wins
				}
			}
			n.series[name] = append(n.series[name], f)
		}
		if m.Placeholder || instrumentTypes[m.Instrument] == otlptranslator.MetricTypeUnknown {
			// Unit and type unknown: the name with any unit word and type suffix.
			base := PromMetricBase(m.Name)
			add(m.Name, form{metric: m.Name, strategy: untranslated, guessed: true})
			for _, b := range append([]string{base}, unitVariants(base)...) {
				for _, x := range []string{"", "_total", "_bucket", "_count", "_sum"} {
					add(b+x, form{metric: m.Name, strategy: underscoreSuffixes, suffix: x, guessed: true})
				}
			}
			continue
		}
		for s := range numStrategies {
			series(m, s, func(name, suffix string) {
				add(name, form{metric: m.Name, strategy: s, suffix: suffix})
			})
		}
	}
	return n
}

// unitVariants are base with each unit word appended.
func unitVariants(base string) []string {
	var out []string
	for _, w := range unitWords {
		out = append(out, base+"_"+w)
	}
	return out
}

func metricRename(ix *registry.Index, m *registry.Metric) *Rename {
	r := &Rename{Old: m.Name, New: m.RenamedTo}
	if r.New != "" {
		r.Current = []string{r.New}
	}
	t := ix.Metric(m.RenamedTo)
	switch {
	case m.RenamedTo == "":
		r.Why = "no current name"
		if m.Deprecation.Note != "" {
			r.Why = strings.TrimSpace(m.Deprecation.Note)
		}
	case m.Placeholder || t == nil || t.Placeholder:
		r.Why = "the registry does not define the old metric's instrument and unit; check the new unit before rewriting"
	case m.Unit != t.Unit || m.Instrument != t.Instrument:
		r.Why = "instrument or unit change (" + m.Instrument + " " + m.Unit + " -> " + t.Instrument + " " + t.Unit + ")"
	default:
		r.Rewritable = true
	}
	return r
}

// allContexts are the places a rename may depend on: every location, and
// for spans, span events and span links every span kind (the registry's
// lists, which its CurrentNames reads too).
var allContexts = func() []registry.Context {
	var out []registry.Context
	for _, l := range registry.Locations {
		switch l {
		case registry.LocationSpan, registry.LocationSpanEvent, registry.LocationSpanLink:
			for _, k := range registry.SpanKinds {
				out = append(out, registry.Context{Location: l, SpanKind: k})
			}
		case registry.LocationResource, registry.LocationScope, registry.LocationDataPoint, registry.LocationLog:
			out = append(out, registry.Context{Location: l})
		}
	}
	return out
}()

// attrRename is the rename of key (entry a) over the given contexts; nil
// when a is a placeholder that no context renames.
func attrRename(a *registry.Attribute, key string, ctxs []registry.Context) *Rename {
	r := &Rename{Old: key, Migration: a.Migration, OldEnum: a.EnumStrings}
	all := true
	for _, ctx := range ctxs {
		name, renamed := a.CurrentName(key, ctx)
		if !renamed {
			all = false
			continue
		}
		if !slices.Contains(r.Current, name) {
			r.Current = append(r.Current, name)
		}
	}
	slices.Sort(r.Current)
	switch {
	case len(r.Current) == 1 && all:
		r.New = r.Current[0]
		r.Rewritable = true
	case len(r.Current) == 0:
		if a.Deprecation.Reason == registry.NotDeprecated {
			return nil // a placeholder without a rename here
		}
		r.Why = "no current name"
		if a.Deprecation.Note != "" {
			r.Why = strings.TrimSpace(a.Deprecation.Note)
		}
	case len(r.Current) == 1:
		r.New = r.Current[0]
		r.Why = "renamed to " + r.New + " in some contexts only"
	default:
		r.Why = "the current name depends on the context: " + strings.Join(r.Current, ", ")
	}
	return r
}

// Attribute returns the rename of an attribute key in OTel form (template
// keys included: k8s.pod.labels.app), in every context.
func (n *Names) Attribute(key string) *Rename {
	if r := n.attrs[key]; r != nil {
		return r
	}
	for _, t := range n.templates {
		if strings.HasPrefix(key, t.key) && len(key) > len(t.key) {
			return attrRename(t.attr, key, allContexts)
		}
	}
	return nil
}

// Label returns the rename of a Prometheus label on series of the given
// metrics (OTel names; a name the registry does not define stands for a
// metric no scoped rename applies to). ok is false when the label is no
// deprecated name there. Only data-point contexts decide: a key renamed on
// some metrics only (direction, state) is a finding only on them.
func (n *Names) Label(label string, metrics []string) (r *Rename, ok bool) {
	keys := n.labelKeys(label)
	switch len(keys) {
	case 0:
		return nil, false
	case 1:
	default:
		return &Rename{Old: keys[0], Why: "several deprecated keys normalise to this label: " + strings.Join(keys, ", ")}, true
	}
	key := keys[0]
	a := n.ix.Lookup(key)
	if a == nil {
		return nil, false
	}
	if len(metrics) == 0 {
		metrics = []string{""}
	}
	ctxs := make([]registry.Context, 0, len(metrics))
	for _, m := range metrics {
		ctxs = append(ctxs, registry.Context{Location: registry.LocationDataPoint, MetricName: m})
	}
	r = attrRename(a, key, ctxs)
	if r == nil || len(r.Current) == 0 {
		all := n.attrs[key] // every context, data points without a metric
		if all == nil || (len(all.Current) == 0 && a.Renamed()) {
			// Renamed on other metrics only (direction, state): on these
			// metrics it is no deprecated name.
			return nil, false
		}
		return all, true
	}
	if !r.Rewritable && len(r.Current) == 1 {
		var kept []string
		for _, m := range metrics {
			if a.Target(registry.Context{Location: registry.LocationDataPoint, MetricName: m}) == nil {
				kept = append(kept, m)
			}
		}
		r.Why = "renamed to " + r.New + " on some of the expression's metrics only (kept on " + strings.Join(kept, ", ") + ")"
	}
	return r, true
}

// labelKeys are the deprecated OTel keys a label may be written for.
func (n *Names) labelKeys(label string) []string {
	if n.deprecated[label] {
		return []string{label}
	}
	if ks := n.promAttrs[label]; len(ks) > 0 {
		return ks
	}
	for _, t := range n.templates {
		if strings.HasPrefix(label, t.label) && len(label) > len(t.label) {
			return []string{t.attr.Key + "." + label[len(t.label):]}
		}
		if strings.HasPrefix(label, t.key) && len(label) > len(t.key) {
			return []string{label}
		}
	}
	return nil
}

// WrittenLabel is an OTel key written as the label old was: OTel form
// stays OTel form.
func WrittenLabel(key, old string) string {
	if strings.ContainsAny(old, ".-/") {
		return key
	}
	return PromLabel(key)
}

// Metric returns the rename of a metric name in OTel form.
func (n *Names) Metric(name string) *Rename { return n.metrics[name] }

// MetricsOf returns the OTel names a series name may stand for: deprecated
// and current metrics, and the current names of deprecated ones; the series
// name itself when the registry knows none.
func (n *Names) MetricsOf(series string) []string {
	var out []string
	for _, f := range n.series[series] {
		out = append(out, f.metric)
		if r := n.metrics[f.metric]; r != nil && r.New != "" {
			out = append(out, r.New)
		}
	}
	out = append(out, n.current[series]...)
	if len(out) == 0 {
		out = append(out, series)
	}
	return out
}

// SeriesRename is the rename of a Prometheus series name: the deprecated
// metric's rename and the series' current name, written the way the old
// one was (same strategy and series suffix); ok is false when the name is
// no deprecated metric's.
func (n *Names) SeriesRename(name string) (r *Rename, current string, ok bool) {
	fs := n.series[name]
	if len(fs) == 0 {
		if r := n.metrics[name]; r != nil {
			return r, r.New, true
		}
		return nil, "", false
	}
	f := fs[0]
	r = n.metrics[f.metric]
	if len(fs) > 1 {
		return &Rename{Old: f.metric, Why: "several deprecated metrics are written so: " + fs[0].metric + ", " + fs[1].metric}, "", true
	}
	if r.New == "" {
		return r, "", true
	}
	t := n.ix.Metric(r.New)
	if t == nil {
		return r, "", true
	}
	s := f.strategy
	if f.guessed && s != untranslated {
		s = underscoreSuffixes
	}
	if s == untranslated {
		return r, r.New, true
	}
	base := translate(t, s)
	if f.guessed {
		// The old unit is unknown: suggest the new metric's own series.
		if slices.Contains(seriesSuffixes[instrumentTypes[t.Instrument]], f.suffix) {
			return r, base + f.suffix, true
		}
		return r, base, true
	}
	return r, base + f.suffix, true
}

// PromLabel is a key as the Prometheus translator writes it as a label
// (UnderscoreEscaping): every character other than a letter, digit or
// underscore becomes "_", runs of "_" collapse, a leading digit gets a
// "key_" prefix.
func PromLabel(key string) string {
	namer := otlptranslator.LabelNamer{}
	out, err := namer.Build(key)
	if err != nil {
		return key
	}
	return out
}

// promLabels are every form a key is written in as a label: the
// translator's, the older translators' (multiple underscores kept) and the
// key itself (UTF-8 label names).
func promLabels(key string) []string {
	out := []string{PromLabel(key)}
	old := otlptranslator.LabelNamer{PreserveMultipleUnderscores: true}
	if l, err := old.Build(key); err == nil && l != out[0] {
		out = append(out, l)
	}
	if key != out[0] {
		out = append(out, key)
	}
	return out
}

// PromMetricBase is a metric name as the translators write it before the
// unit and type suffixes: runs of other characters than letters, digits and
// colons become one "_".
func PromMetricBase(name string) string {
	parts := strings.FieldsFunc(name, func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != ':'
	})
	return strings.Join(parts, "_")
}

// unitWords are the older translators' unit words (UCUM unit -> word).
var unitWords = map[string]string{
	"d": "days", "h": "hours", "min": "minutes", "s": "seconds", "ms": "milliseconds",
	"us": "microseconds", "ns": "nanoseconds", "By": "bytes", "KiBy": "kibibytes",
	"MiBy": "mebibytes", "GiBy": "gibibytes", "TiBy": "tibibytes", "KBy": "kilobytes",
	"MBy": "megabytes", "GBy": "gigabytes", "TBy": "terabytes", "m": "meters", "V": "volts",
	"A": "amperes", "J": "joules", "W": "watts", "g": "grams", "Cel": "celsius", "Hz": "hertz",
	"1": "ratio", "%": "percent",
}

// legacyUnit is the older translators' suffix for a unit ("" for
// annotations like {request}).
func legacyUnit(unit string) string {
	if unit == "" || strings.HasPrefix(unit, "{") {
		return ""
	}
	main, per, _ := strings.Cut(unit, "/")
	w := unitWords[main]
	if per != "" {
		pw := map[string]string{"s": "second", "m": "minute", "h": "hour", "d": "day"}[per]
		if pw == "" {
			return w
		}
		if w == "" {
			return "per_" + pw
		}
		return w + "_per_" + pw
	}
	return w
}

// SeriesName is a metric's Prometheus name under the translation
// Prometheus 3's OTLP receiver and the collector's Prometheus exporters use
// by default (UnderscoreEscapingWithSuffixes); "" when it has none.
func SeriesName(m *registry.Metric) string { return translate(m, underscoreSuffixes) }
