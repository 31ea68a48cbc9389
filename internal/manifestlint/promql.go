package manifestlint

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/queryfile"
)

// Exported describes what a collector's :8888 actually serves: each metric
// family name with the label names seen on its series.
type Exported map[string]map[string]bool

// PromQLCheck checks that PromQL expressions reference only what exists.
type PromQLCheck struct {
	// Exported is the scrape of a running collector.
	Exported Exported
	// TargetLabels are added by Prometheus at scrape time (job, instance,
	// pod, namespace ...), not by the collector.
	TargetLabels []string
	// Recorded are the names of recording rules, with their labels.
	Recorded Exported
	// Enums are the declared values of enum labels (outcome, signal ...):
	// a matcher on such a label must use declared values.
	Enums map[string][]string
}

// literalAlternation is a regex that only lists values: a|b|c.
var literalAlternation = regexp.MustCompile(`^[A-Za-z0-9_.|]+$`)

// Check returns one message per reference to something that does not exist.
func (c PromQLCheck) Check(expr string) []string {
	p, err := queryfile.ParsePromQL(expr)
	if err != nil {
		return []string{fmt.Sprintf("does not parse: %v", err)}
	}
	var errs []string
	if p.LabelValues != "" {
		if p.Expr == nil {
			return nil
		}
		// Grafana's label_values(selector, label): the selector must have it.
		errs = append(errs, c.checkLabels(metricsOf(p.Expr), []string{p.LabelValues}, "label_values")...)
	}
	e := p.Expr
	metrics := metricsOf(e)
	parser.Inspect(e, func(node parser.Node, _ []parser.Node) error {
		switch n := node.(type) {
		case *parser.VectorSelector:
			name := n.Name
			if name == "" {
				errs = append(errs, fmt.Sprintf("selector %s has no metric name", n))
				return nil
			}
			labelsOf, ok := c.lookup(name)
			if !ok {
				errs = append(errs, fmt.Sprintf("metric %s is not exported%s", name, c.suggest(name)))
				return nil
			}
			for _, m := range n.LabelMatchers {
				if m.Name == model.MetricNameLabel {
					continue
				}
				if !labelsOf[m.Name] && !c.isTargetLabel(m.Name) {
					errs = append(errs, fmt.Sprintf("metric %s has no label %s (it has: %s)", name, m.Name, keys(labelsOf)))
					continue
				}
				errs = append(errs, c.checkValues(name, m)...)
			}
		case *parser.AggregateExpr:
			if !n.Without {
				errs = append(errs, c.checkLabels(metrics, n.Grouping, "by")...)
			}
		case *parser.BinaryExpr:
			if n.VectorMatching != nil && n.VectorMatching.On {
				errs = append(errs, c.checkLabels(metrics, n.VectorMatching.MatchingLabels, "on")...)
			}
		}
		return nil
	})
	return dedupe(errs)
}

func (c PromQLCheck) lookup(name string) (map[string]bool, bool) {
	if l, ok := c.Exported[name]; ok {
		return l, true
	}
	l, ok := c.Recorded[name]
	return l, ok
}

func (c PromQLCheck) isTargetLabel(l string) bool {
	for _, t := range c.TargetLabels {
		if t == l {
			return true
		}
	}
	return false
}

// checkLabels: a grouping or matching label must be a label of at least one
// metric the expression reads, or a target label.
func (c PromQLCheck) checkLabels(metrics []string, names []string, clause string) []string {
	var errs []string
	for _, l := range names {
		if c.isTargetLabel(l) {
			continue
		}
		found := false
		for _, m := range metrics {
			if ls, ok := c.lookup(m); ok && ls[l] {
				found = true
			}
		}
		if !found {
			errs = append(errs, fmt.Sprintf("%s (%s): no metric in the expression (%s) has label %s", clause, l, strings.Join(metrics, ", "), l))
		}
	}
	return errs
}

// checkValues: the values an equality or literal-alternation matcher names
// must be declared values of an enum label.
func (c PromQLCheck) checkValues(metric string, m *labels.Matcher) []string {
	allowed, ok := c.Enums[m.Name]
	if !ok {
		return nil
	}
	var values []string
	switch m.Type {
	case labels.MatchEqual, labels.MatchNotEqual:
		values = []string{m.Value}
	case labels.MatchRegexp, labels.MatchNotRegexp:
		if !literalAlternation.MatchString(m.Value) {
			return nil // a real regex; only literal alternations are checked
		}
		values = strings.Split(m.Value, "|")
	}
	var errs []string
	for _, v := range values {
		found := false
		for _, a := range allowed {
			if a == v {
				found = true
			}
		}
		if !found {
			errs = append(errs, fmt.Sprintf("metric %s: %s=%q is not a declared value (%s)", metric, m.Name, v, strings.Join(allowed, ", ")))
		}
	}
	return errs
}

func (c PromQLCheck) suggest(name string) string {
	for _, s := range []string{"_total", "_sum", "_count", "_bucket"} {
		if base, ok := strings.CutSuffix(name, s); ok {
			if _, exists := c.Exported[base]; exists {
				return fmt.Sprintf(" (%s is; counters on :8888 have no %s suffix)", base, s)
			}
		}
	}
	var close []string
	for n := range c.Exported {
		if strings.HasPrefix(n, "otelcol_processor_governance") && strings.HasPrefix(name, "otelcol_processor_governance") {
			close = append(close, n)
		}
	}
	if len(close) > 0 {
		sort.Strings(close)
		return " (exported: " + strings.Join(close, ", ") + ")"
	}
	return ""
}

func metricsOf(e parser.Node) []string {
	seen := map[string]bool{}
	parser.Inspect(e, func(node parser.Node, _ []parser.Node) error {
		if vs, ok := node.(*parser.VectorSelector); ok && vs.Name != "" {
			seen[vs.Name] = true
		}
		return nil
	})
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func keys(m map[string]bool) string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// RuleExprs returns the expressions of a PrometheusRule object (or a plain
// rule file with top-level groups), keyed by "group/alert-or-record", and the
// recording rules' names with the labels their expressions keep (the by
// clause of the outermost aggregation, when there is one).
func RuleExprs(doc map[string]any) (exprs map[string]string, recorded Exported) {
	exprs = map[string]string{}
	recorded = Exported{}
	data, err := yaml.Marshal(doc)
	if err != nil {
		return exprs, recorded
	}
	for _, q := range queryfile.Extract("rules.yaml", data).Queries {
		if q.Kind != queryfile.KindPromQL || q.Rule == 0 {
			continue
		}
		exprs[q.Name] = q.Text
		if q.Record == "" {
			continue
		}
		ls := map[string]bool{}
		if e, err := parseExpr(q.Text); err == nil {
			if a, ok := e.(*parser.AggregateExpr); ok && !a.Without {
				for _, l := range a.Grouping {
					ls[l] = true
				}
			}
		}
		recorded[q.Record] = ls
	}
	return exprs, recorded
}

// DashboardExprs returns every PromQL expression of a Grafana dashboard,
// keyed "panel title/refId", "variable name" or "variable name/definition":
// panel targets (rows' nested panels included) and query variables' queries
// and definitions (what Grafana's variable editor shows).
func DashboardExprs(data []byte) (map[string]string, error) {
	f := queryfile.Extract("dashboard.json", data)
	if f.Unreadable {
		return nil, fmt.Errorf("dashboard: %s", f.Notes[0].Message)
	}
	out := map[string]string{}
	for _, q := range f.Queries {
		if q.Kind == queryfile.KindPromQL {
			out[q.Name] = q.Text
		}
	}
	return out, nil
}

// parseExpr parses PromQL with the parser's default options.
func parseExpr(expr string) (parser.Expr, error) {
	return parser.NewParser(parser.Options{}).ParseExpr(expr)
}

// DeclaredTelemetry reads a component's metadata.yaml (mdatagen's input) and
// returns the metrics it declares, as they surface on :8888 (otelcol_ prefix,
// dots in attribute names as underscores), and the enum values of its
// attributes by label name.
func DeclaredTelemetry(metadata []byte) (Exported, map[string][]string, error) {
	var md struct {
		Attributes map[string]struct {
			Enum []string `yaml:"enum"`
		} `yaml:"attributes"`
		Telemetry struct {
			Metrics map[string]struct {
				Attributes []string `yaml:"attributes"`
			} `yaml:"metrics"`
		} `yaml:"telemetry"`
	}
	if err := yaml.Unmarshal(metadata, &md); err != nil {
		return nil, nil, fmt.Errorf("metadata.yaml: %w", err)
	}
	labelName := func(a string) string { return strings.ReplaceAll(a, ".", "_") }
	exported := Exported{}
	for name, m := range md.Telemetry.Metrics {
		ls := map[string]bool{}
		for _, a := range m.Attributes {
			ls[labelName(a)] = true
		}
		exported["otelcol_"+name] = ls
	}
	enums := map[string][]string{}
	for a, def := range md.Attributes {
		if len(def.Enum) > 0 {
			enums[labelName(a)] = def.Enum
		}
	}
	return exported, enums, nil
}
