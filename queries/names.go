// Package queries finds deprecated attribute and metric names where telemetry
// is read rather than written: PromQL in Prometheus rule files,
// PrometheusRule manifests and Grafana dashboards (also embedded in
// ConfigMaps), and OTTL statements and attribute keys in collector configs
// and OpenTelemetryCollector resources. Names are matched in their OTel form
// (http.method) and in the form Prometheus sees after the remote-write
// exporter or the Prometheus receiver normalised them (http_method;
// http_server_duration_milliseconds_bucket). PromQL is parsed with the
// Prometheus parser. Rewrites are applied in place, byte for byte, only where
// they are unambiguous.
package queries // import "github.com/otelgov/otelcol-governance/queries"

import (
	"slices"
	"strings"

	"github.com/otelgov/otelcol-governance/extension/registryextension/registryapi"
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
}

// Names indexes the deprecated attribute keys and metric names of a registry
// in OTel and Prometheus form.
type Names struct {
	attrs       map[string]*Rename   // OTel key -> rename
	promAttrs   map[string][]*Rename // Prometheus label -> renames of the keys normalised to it
	metrics     map[string]*Rename   // OTel metric name -> rename
	promMetrics map[string][]*Rename // normalised base name -> renames
	promUnit    map[string]string    // OTel metric name -> Prometheus unit suffix ("" none)
}

// NewNames indexes ix.
func NewNames(ix *registry.Index) *Names {
	n := &Names{
		attrs:       map[string]*Rename{},
		promAttrs:   map[string][]*Rename{},
		metrics:     map[string]*Rename{},
		promMetrics: map[string][]*Rename{},
		promUnit:    map[string]string{},
	}
	current := map[string]bool{} // Prometheus forms of non-deprecated keys
	for _, a := range ix.Attributes() {
		if a.Template {
			continue
		}
		if a.Deprecation.Reason == registry.NotDeprecated && !a.Placeholder {
			current[PromLabel(a.Key)] = true
			continue
		}
		r := attrRename(ix, a.Key)
		if r == nil {
			continue
		}
		n.attrs[a.Key] = r
	}
	for k, r := range n.attrs {
		p := PromLabel(k)
		if current[p] {
			continue // also the Prometheus form of a current key: not a finding
		}
		n.promAttrs[p] = append(n.promAttrs[p], r)
	}
	currentMetrics := map[string]bool{}
	for _, m := range ix.Metrics() {
		n.promUnit[m.Name] = promUnit(m.Unit)
		if m.RenamedTo == "" && m.Deprecation.Reason == registry.NotDeprecated {
			currentMetrics[PromMetricBase(m.Name)] = true
			continue
		}
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
		n.metrics[m.Name] = r
	}
	for name, r := range n.metrics {
		b := PromMetricBase(name)
		if currentMetrics[b] {
			continue
		}
		n.promMetrics[b] = append(n.promMetrics[b], r)
	}
	return n
}

// attrRename builds the rename of a deprecated key from its current names in
// every context, as the extension's /registry/attributes/{key} lists them.
func attrRename(ix *registry.Index, key string) *Rename {
	info := registryapi.Describe(ix, 0, key, "", "")
	r := &Rename{Old: key}
	all := true
	for _, cn := range info.CurrentNames {
		if !cn.Renamed {
			all = false
			continue
		}
		if !slices.Contains(r.Current, cn.Name) {
			r.Current = append(r.Current, cn.Name)
		}
	}
	slices.Sort(r.Current)
	switch {
	case len(r.Current) == 1 && all:
		r.New = r.Current[0]
		r.Rewritable = true
	case len(r.Current) == 0:
		if info.Deprecated == nil {
			return nil // a placeholder without a rename
		}
		r.Why = "no current name"
		if info.Deprecated.Note != "" {
			r.Why = strings.TrimSpace(info.Deprecated.Note)
		}
	default:
		r.Why = "the current name depends on the context: " + strings.Join(r.Current, ", ")
	}
	return r
}

// Attribute returns the rename of an attribute key in OTel form.
func (n *Names) Attribute(key string) *Rename { return n.attrs[key] }

// Label returns the renames of a Prometheus label name: the OTel-form key
// itself (UTF-8 label names) or the keys normalised to it.
func (n *Names) Label(label string) []*Rename {
	if r := n.attrs[label]; r != nil {
		return []*Rename{r}
	}
	return n.promAttrs[label]
}

// Metric returns the rename of a metric name in OTel form.
func (n *Names) Metric(name string) *Rename { return n.metrics[name] }

// PromMetric matches a Prometheus series name against the deprecated metric
// names: suffix is what follows the base name (unit, _total, _bucket ...).
func (n *Names) PromMetric(name string) (r []*Rename, suffix string) {
	if r := n.metrics[name]; r != nil {
		return []*Rename{r}, ""
	}
	for _, c := range promCandidates(name) {
		if rs := n.promMetrics[c]; len(rs) > 0 {
			return rs, name[len(c):]
		}
	}
	return nil, ""
}

// PromSeries is the series name a deprecated metric's written Prometheus
// name becomes under its current name: the current name's base, the current
// unit's word, and the written name's type suffix (_bucket, _total ...).
func (n *Names) PromSeries(r *Rename, written string) string {
	if r.New == "" {
		return ""
	}
	if written == r.Old {
		return r.New
	}
	out := PromMetricBase(r.New)
	if u := n.promUnit[r.New]; u != "" {
		out += "_" + u
	}
	for _, s := range typeSuffixes {
		if strings.HasSuffix(written, s) {
			if s != "_total" && strings.HasSuffix(strings.TrimSuffix(written, s), "_total") {
				out += "_total"
			}
			return out + s
		}
	}
	return out
}

// PromLabel is a key as the Prometheus translator writes it as a label:
// every character other than a letter, digit or underscore becomes "_", and
// a leading digit gets a "key_" prefix.
func PromLabel(key string) string {
	var b strings.Builder
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') {
			b.WriteByte(c)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		s = "key_" + s
	}
	return s
}

// PromMetricBase is a metric name as the Prometheus translator writes it,
// before the unit and type suffixes: runs of other characters than letters
// and digits become one "_".
func PromMetricBase(name string) string {
	parts := strings.FieldsFunc(name, func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != ':'
	})
	return strings.Join(parts, "_")
}

// typeSuffixes are appended by the translator (_total) and by Prometheus
// for histogram and summary series.
var typeSuffixes = []string{"_bucket", "_count", "_sum", "_created", "_total"}

// unitSuffixes are the translator's unit words (UCUM unit -> suffix).
var unitWords = map[string]string{
	"d": "days", "h": "hours", "min": "minutes", "s": "seconds", "ms": "milliseconds",
	"us": "microseconds", "ns": "nanoseconds", "By": "bytes", "KiBy": "kibibytes",
	"MiBy": "mebibytes", "GiBy": "gibibytes", "TiBy": "tibibytes", "KBy": "kilobytes",
	"MBy": "megabytes", "GBy": "gigabytes", "TBy": "terabytes", "m": "meters", "V": "volts",
	"A": "amperes", "J": "joules", "W": "watts", "g": "grams", "Cel": "celsius", "Hz": "hertz",
	"1": "ratio", "%": "percent",
}

// promUnit is the suffix a unit adds ("" for annotations like {request}).
func promUnit(unit string) string {
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

// promCandidates are the base names a series name may come from, longest
// first: without a type suffix, then also without a unit word.
func promCandidates(name string) []string {
	out := []string{name}
	bases := []string{name}
	for _, s := range typeSuffixes {
		if b, ok := strings.CutSuffix(name, s); ok {
			bases = append(bases, b)
			out = append(out, b)
			if b2, ok := strings.CutSuffix(b, "_total"); ok {
				bases = append(bases, b2)
				out = append(out, b2)
			}
		}
	}
	for _, b := range bases {
		for _, w := range unitWords {
			for _, suffix := range []string{"_" + w, "_" + w + "_per_second"} {
				if s, ok := strings.CutSuffix(b, suffix); ok && s != "" {
					out = append(out, s)
				}
			}
		}
	}
	return out
}
