package queries

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/promql/parser"

	"github.com/otelgov/otelcol-governance/internal/manifestlint"
)

// Kind is what a name is.
type Kind string

const (
	KindAttribute Kind = "attribute" // an attribute key or label name
	KindMetric    Kind = "metric"    // a metric or series name
)

// hit is one deprecated name found in an expression: its spelling as
// written, where in the expression it first occurs, and the rewrite.
type hit struct {
	kind    Kind
	written string // as in the expression (http_method)
	rename  *Rename
	// replacement is the written form's rewrite ("" when not rewritable);
	// why says why not.
	replacement string
	why         string
	offsets     []int // of every occurrence in the expression, when rewritable
	first       int   // offset of the first occurrence (-1: unknown)
}

var labelValues = regexp.MustCompile(`^\s*label_values\(\s*(.*?)\s*,\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*$`)

// scanPromQL finds the deprecated names in a PromQL expression (Grafana
// variables allowed). The parser decides what is a metric and what a label;
// the token scan only locates them, and a rewrite is kept only when the
// rewritten expression parses to the expected tree.
func scanPromQL(expr string, n *Names) ([]hit, error) {
	expanded := manifestlint.ExpandGrafana(expr)
	var extraLabel string
	if m := labelValues.FindStringSubmatch(expanded); m != nil {
		expanded, extraLabel = m[1], m[2]
	}
	e, err := parser.NewParser(parser.Options{}).ParseExpr(expanded)
	if err != nil {
		return nil, fmt.Errorf("PromQL does not parse: %w", err)
	}
	metrics, labels := promNames(e)
	if extraLabel != "" {
		labels[extraLabel]++
	}
	toks := promTokens(expr)
	var hits []hit
	for name, count := range metrics {
		rs, suffix := n.PromMetric(name)
		if len(rs) == 0 {
			continue
		}
		h := hit{kind: KindMetric, written: name, rename: rs[0], first: -1}
		switch {
		case len(rs) > 1:
			h.why = "several deprecated metrics normalise to this name"
		case !rs[0].Rewritable:
			h.why = rs[0].Why
		case suffix == "" && name == rs[0].Old:
			h.replacement = rs[0].New
		default:
			h.replacement = PromMetricBase(rs[0].New) + suffix
		}
		hits = append(hits, locate(h, toks, count))
	}
	for name, count := range labels {
		rs := n.Label(name)
		if len(rs) == 0 {
			continue
		}
		h := hit{kind: KindAttribute, written: name, rename: rs[0], first: -1}
		switch {
		case len(rs) > 1:
			h.why = "several deprecated keys normalise to this label"
		case !rs[0].Rewritable:
			h.why = rs[0].Why
		case name == rs[0].Old:
			h.replacement = rs[0].New
		default:
			h.replacement = PromLabel(rs[0].New)
		}
		hits = append(hits, locate(h, toks, count))
	}
	if len(hits) == 0 {
		return nil, nil
	}
	// Check the rewrites together: the rewritten expression must parse to
	// the original tree with the names replaced.
	if out, ok := applyHits(expr, hits); ok {
		want := renameTree(expanded, hits)
		got, err := parser.NewParser(parser.Options{}).ParseExpr(strings.TrimSpace(firstSelector(manifestlint.ExpandGrafana(out))))
		if err != nil || want == "" || got.String() != want {
			for i := range hits {
				if hits[i].replacement != "" {
					hits[i].replacement, hits[i].offsets = "", nil
					hits[i].why = "the rewritten expression does not parse to the same query"
				}
			}
		}
	}
	return hits, nil
}

// firstSelector strips a label_values(selector, label) wrapper.
func firstSelector(s string) string {
	if m := labelValues.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return s
}

// renameTree is the expected String() of the rewritten expression.
func renameTree(expanded string, hits []hit) string {
	e, err := parser.NewParser(parser.Options{}).ParseExpr(expanded)
	if err != nil {
		return ""
	}
	repl := map[Kind]map[string]string{KindMetric: {}, KindAttribute: {}}
	for _, h := range hits {
		if h.replacement != "" {
			repl[h.kind][h.written] = h.replacement
		}
	}
	sub := func(k Kind, s string) string {
		if r, ok := repl[k][s]; ok {
			return r
		}
		return s
	}
	subAll := func(ls []string) {
		for i := range ls {
			ls[i] = sub(KindAttribute, ls[i])
		}
	}
	parser.Inspect(e, func(node parser.Node, _ []parser.Node) error {
		switch x := node.(type) {
		case *parser.VectorSelector:
			x.Name = sub(KindMetric, x.Name)
			for _, m := range x.LabelMatchers {
				if m.Name == model.MetricNameLabel {
					nm := *m
					nm.Value = sub(KindMetric, m.Value)
					*m = nm
					continue
				}
				m.Name = sub(KindAttribute, m.Name)
			}
		case *parser.AggregateExpr:
			subAll(x.Grouping)
		case *parser.BinaryExpr:
			if x.VectorMatching != nil {
				subAll(x.VectorMatching.MatchingLabels)
				subAll(x.VectorMatching.Include)
			}
		case *parser.Call:
			for _, i := range labelArgs(x) {
				if s, ok := x.Args[i].(*parser.StringLiteral); ok {
					s.Val = sub(KindAttribute, s.Val)
				}
			}
		}
		return nil
	})
	return e.String()
}

// promNames counts the metric names and label names an expression reads.
func promNames(e parser.Expr) (metrics, labels map[string]int) {
	metrics, labels = map[string]int{}, map[string]int{}
	parser.Inspect(e, func(node parser.Node, _ []parser.Node) error {
		switch x := node.(type) {
		case *parser.VectorSelector:
			if x.Name != "" {
				metrics[x.Name]++
			}
			for _, m := range x.LabelMatchers {
				if m.Name == model.MetricNameLabel {
					if x.Name == "" {
						metrics[m.Value]++
					}
					continue
				}
				labels[m.Name]++
			}
		case *parser.AggregateExpr:
			for _, l := range x.Grouping {
				labels[l]++
			}
		case *parser.BinaryExpr:
			if x.VectorMatching != nil {
				for _, l := range x.VectorMatching.MatchingLabels {
					labels[l]++
				}
				for _, l := range x.VectorMatching.Include {
					labels[l]++
				}
			}
		case *parser.Call:
			for _, i := range labelArgs(x) {
				if s, ok := x.Args[i].(*parser.StringLiteral); ok {
					labels[s.Val]++
				}
			}
		}
		return nil
	})
	return metrics, labels
}

// labelArgs are the argument positions that name labels.
func labelArgs(c *parser.Call) []int {
	switch c.Func.Name {
	case "label_replace":
		return []int{1, 3}
	case "label_join":
		out := []int{1}
		for i := 3; i < len(c.Args); i++ {
			out = append(out, i)
		}
		return out
	}
	return nil
}

// token is an identifier or a string literal's content in an expression.
type token struct {
	text   string
	off    int // of the text (inside the quotes for strings)
	quoted bool
}

// promTokens splits an expression into identifiers and string literals; it
// only locates names the parser found, it decides nothing.
func promTokens(s string) []token {
	var out []token
	isIdent := func(c byte) bool {
		return c == '_' || c == ':' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < len(s) && s[j] != c {
				if s[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			if j > len(s) {
				j = len(s)
			}
			out = append(out, token{text: s[i+1 : j], off: i + 1, quoted: true})
			i = j + 1
		case c == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '$':
			// Grafana variable: skip it whole.
			i++
			for i < len(s) && (isIdent(s[i]) || s[i] == '{' || s[i] == '}') {
				i++
			}
		case isIdent(c):
			j := i
			for j < len(s) && isIdent(s[j]) {
				j++
			}
			out = append(out, token{text: s[i:j], off: i})
			i = j
		default:
			i++
		}
	}
	return out
}

// locate finds h's occurrences among the tokens. A rewrite is kept only when
// the tokens hold exactly as many occurrences as the parser found names.
func locate(h hit, toks []token, parsed int) hit {
	var offs []int
	for _, t := range toks {
		if t.text == h.written {
			offs = append(offs, t.off)
		}
	}
	if len(offs) > 0 {
		h.first = offs[0]
	}
	if h.replacement != "" {
		if len(offs) != parsed {
			h.replacement = ""
			h.why = "the name also occurs as a value or in another role"
		} else {
			h.offsets = offs
		}
	}
	return h
}

// applyHits rewrites expr; ok is false when there is nothing to rewrite.
func applyHits(expr string, hits []hit) (string, bool) {
	type edit struct {
		off       int
		old, repl string
	}
	var edits []edit
	for _, h := range hits {
		for _, o := range h.offsets {
			edits = append(edits, edit{o, h.written, h.replacement})
		}
	}
	if len(edits) == 0 {
		return expr, false
	}
	var b strings.Builder
	last := 0
	for len(edits) > 0 {
		m := 0
		for i := range edits {
			if edits[i].off < edits[m].off {
				m = i
			}
		}
		e := edits[m]
		edits = append(edits[:m], edits[m+1:]...)
		b.WriteString(expr[last:e.off])
		b.WriteString(e.repl)
		last = e.off + len(e.old)
	}
	b.WriteString(expr[last:])
	return b.String(), true
}
