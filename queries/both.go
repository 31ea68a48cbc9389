package queries

import (
	"slices"
	"strings"

	"github.com/prometheus/prometheus/promql/parser"

	"github.com/otelgov/otelcol-governance/queryfile"
)

// transition is the --both rewrite of an expression, for the time when some
// services send old names and some new: every selector that reads
// deprecated names becomes (old or new), where the new branch reads the
// current names and migrated values and is relabelled back to the old label
// names, so that groupings, legends and $labels templates keep working on
// both. A selector under a range (x[5m]) is lifted with the function that
// reads the range: rate(old[5m]) or rate(new[5m]). The edits replace each
// lifted part; why says why there are none when the hits need them.
func transition(expr string, n *Names) (hits []hit, edits []edit, why string, err error) {
	hits, sites, p, err := analyze(expr, n)
	if err != nil || len(hits) == 0 {
		return hits, nil, "", err
	}
	for _, h := range hits {
		if !h.rewritable {
			return hits, nil, "not every old name in the expression can be rewritten: " + h.why, nil
		}
	}
	var relabel [][2]string // old label -> new label, as written
	for _, h := range hits {
		if h.kind == KindAttribute && h.replacement != "" && !slices.Contains(relabel, [2]string{h.written, h.replacement}) {
			relabel = append(relabel, [2]string{h.written, h.replacement})
		}
	}
	slices.SortFunc(relabel, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	type lift struct{ start, end int } // in the written expression
	var lifts []lift
	span := func(node parser.Node) (lift, bool) {
		s, e, ok := p.Span(node)
		return lift{s, e}, ok
	}
	parser.Inspect(p.Expr, func(node parser.Node, path []parser.Node) error {
		vs, ok := node.(*parser.VectorSelector)
		if !ok || why != "" {
			return nil
		}
		sel, ok := span(vs)
		if !ok {
			why = "a selector begins or ends with a Grafana variable"
			return nil
		}
		changed := false
		for _, s := range sites {
			if s.off >= sel.start && s.off < sel.end && (s.repl != "" || s.newRaw != "") {
				changed = true
			}
		}
		if !changed {
			return nil
		}
		l := sel
		if len(path) > 0 {
			if _, ok := path[len(path)-1].(*parser.MatrixSelector); ok {
				if len(path) < 2 {
					why = "a range selector outside a function"
					return nil
				}
				call, isCall := path[len(path)-2].(*parser.Call)
				if !isCall {
					why = "a range selector outside a function"
					return nil
				}
				if l, ok = span(call); !ok {
					why = "a function begins or ends with a Grafana variable"
					return nil
				}
			}
		}
		for _, o := range lifts {
			if l.start < o.end && o.start < l.end {
				why = "two selectors with old names under one function"
				return nil
			}
		}
		lifts = append(lifts, l)
		return nil
	})
	if why != "" {
		return hits, nil, why, nil
	}
	for _, l := range lifts {
		var inner []edit
		for _, h := range hits {
			for _, e := range h.edits {
				if e.off >= l.start && e.off+len(e.old) <= l.end {
					inner = append(inner, edit{off: e.off - l.start, old: e.old, repl: e.repl})
				}
			}
		}
		old := expr[l.start:l.end]
		newer, ok := applyEdits(old, inner)
		if !ok {
			return hits, nil, "the rewritten selector does not apply", nil
		}
		for _, r := range relabel {
			newer = `label_replace(label_replace(` + newer + `, "` + r[0] + `", "$1", "` + r[1] + `", "(.*)"), "` + r[1] + `", "", "` + r[1] + `", ".*")`
		}
		edits = append(edits, edit{off: l.start, old: old, repl: "(" + old + " or " + newer + ")", what: RewriteTransition})
	}
	out, ok := applyEdits(expr, slices.Clone(edits))
	if !ok {
		return hits, nil, "the rewrites overlap", nil
	}
	if _, err := queryfile.ParsePromQL(out); err != nil {
		return hits, nil, "the transition query does not parse: " + err.Error(), nil
	}
	return hits, edits, "", nil
}

// collapse finds the transitions --both wrote in an expression, (A or
// label_replace(...(B)...)) where B is A with the current names, and
// returns the edits that replace each with B.
func collapse(expr string, n *Names) []edit {
	p, err := queryfile.ParsePromQL(expr)
	if err != nil || p.Expr == nil {
		return nil
	}
	var edits []edit
	parser.Inspect(p.Expr, func(node parser.Node, _ []parser.Node) error {
		pe, ok := node.(*parser.ParenExpr)
		if !ok {
			return nil
		}
		be, ok := pe.Expr.(*parser.BinaryExpr)
		if !ok || be.Op != parser.LOR || be.VectorMatching == nil || len(be.VectorMatching.MatchingLabels) > 0 {
			return nil
		}
		rhs := be.RHS
		for {
			c, isCall := rhs.(*parser.Call)
			if !isCall || c.Func.Name != "label_replace" || len(c.Args) != 5 {
				break
			}
			rhs = c.Args[0]
		}
		if rhs == be.RHS {
			return nil
		}
		ps, pe2, ok1 := p.Span(pe)
		as, ae, ok2 := p.Span(be.LHS)
		bs, bend, ok3 := p.Span(rhs)
		if !ok1 || !ok2 || !ok3 {
			return nil
		}
		old, newer := expr[as:ae], expr[bs:bend]
		hits, err := scanPromQL(old, n)
		if err != nil || len(hits) == 0 {
			return nil
		}
		var es []edit
		for _, h := range hits {
			if !h.rewritable {
				return nil
			}
			es = append(es, h.edits...)
		}
		if got, ok := applyEdits(old, es); !ok || got != newer {
			return nil
		}
		for _, e := range edits {
			if ps < e.off+len(e.old) && e.off < pe2 {
				return nil
			}
		}
		edits = append(edits, edit{off: ps, old: expr[ps:pe2], repl: newer, what: RewriteCollapse})
		return nil
	})
	return edits
}
