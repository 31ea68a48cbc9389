package manifestlint

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	"go.yaml.in/yaml/v3"
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

// grafanaVars are Grafana's built-in interval variables, replaced by a
// duration before parsing; any other $variable becomes a match-all regex.
var (
	grafanaInterval    = regexp.MustCompile(`\$\{?__(rate_interval|interval|range)\}?`)
	grafanaVar         = regexp.MustCompile(`\$\{?[A-Za-z_][A-Za-z0-9_]*(:[a-z]+)?\}?`)
	literalAlternation = regexp.MustCompile(`^[A-Za-z0-9_.|]+$`)
	labelValuesFn      = regexp.MustCompile(`^\s*label_values\(\s*(.*?)\s*,\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*$`)
)

// ExpandGrafana substitutes Grafana's template variables so that the
// expression parses as PromQL.
func ExpandGrafana(expr string) string {
	expr = grafanaInterval.ReplaceAllString(expr, "5m")
	return grafanaVar.ReplaceAllString(expr, ".*")
}

// Check returns one message per reference to something that does not exist.
func (c PromQLCheck) Check(expr string) []string {
	expanded := ExpandGrafana(expr)
	// Grafana's label_values(selector, label) variable query.
	if m := labelValuesFn.FindStringSubmatch(expanded); m != nil {
		errs := c.Check(m[1])
		sel, err := parseExpr(m[1])
		if err == nil {
			errs = append(errs, c.checkLabels(metricsOf(sel), []string{m[2]}, "label_values")...)
		}
		return errs
	}
	e, err := parseExpr(expanded)
	if err != nil {
		return []string{fmt.Sprintf("does not parse: %v", err)}
	}
	var errs []string
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
	groups := listAt(doc, "spec", "groups")
	if groups == nil {
		groups = listAt(doc, "groups")
	}
	for _, g := range groups {
		gm, _ := g.(map[string]any)
		for _, r := range listAt(gm, "rules") {
			rm, _ := r.(map[string]any)
			expr := str(rm, "expr")
			name := str(rm, "alert")
			if rec := str(rm, "record"); rec != "" {
				name = rec
				ls := map[string]bool{}
				if e, err := parseExpr(expr); err == nil {
					if a, ok := e.(*parser.AggregateExpr); ok && !a.Without {
						for _, l := range a.Grouping {
							ls[l] = true
						}
					}
				}
				recorded[rec] = ls
			}
			exprs[str(gm, "name")+"/"+name] = expr
		}
	}
	return exprs, recorded
}

// DashboardExprs returns every PromQL expression of a Grafana dashboard:
// panel targets (rows' nested panels included) and query variables.
func DashboardExprs(data []byte) (map[string]string, error) {
	var d struct {
		Panels     []json.RawMessage `json:"panels"`
		Templating struct {
			List []struct {
				Name  string `json:"name"`
				Type  string `json:"type"`
				Query any    `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	out := map[string]string{}
	type panel struct {
		Title   string            `json:"title"`
		Panels  []json.RawMessage `json:"panels"`
		Targets []struct {
			RefID string `json:"refId"`
			Expr  string `json:"expr"`
		} `json:"targets"`
	}
	var walk func([]json.RawMessage) error
	walk = func(raw []json.RawMessage) error {
		for _, r := range raw {
			var p panel
			if err := json.Unmarshal(r, &p); err != nil {
				return fmt.Errorf("dashboard panel: %w", err)
			}
			for _, t := range p.Targets {
				if t.Expr != "" {
					out["panel "+p.Title+"/"+t.RefID] = t.Expr
				}
			}
			if err := walk(p.Panels); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(d.Panels); err != nil {
		return nil, err
	}
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		switch q := v.Query.(type) {
		case string:
			out["variable "+v.Name] = q
		case map[string]any:
			if s, ok := q["query"].(string); ok {
				out["variable "+v.Name] = s
			}
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
