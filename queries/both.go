package queries

import (
	"maps"
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
	edits, why = transitionOf(expr, hits, sites, p, true)
	return hits, edits, why, nil
}

// transitionOf is transition from an expression's analysis. check parses
// the result: each lifted node, wrapped in parentheses, is an instant vector
// that `or` and label_join take, and its new branch is the part of the
// rewrite verify parsed, so the parse is the last guard before writing, not
// needed to report the form.
func transitionOf(expr string, hits []hit, sites []site, p *queryfile.PromQL, check bool) (edits []edit, why string) {
	for _, h := range hits {
		if !h.rewritable {
			return nil, "not every old name in the expression can be rewritten: " + h.why
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
		return nil, why
	}
	// A label read outside every lifted selector (by, on, a legend) while
	// some selectors read no old name: those selectors get the label filled
	// from the new one where the series lacks it (see coalesce).
	if len(relabel) > 0 {
		outside := false
		for _, st := range sites {
			if st.kind != KindAttribute || st.repl == "" {
				continue
			}
			in := false
			for _, l := range lifts {
				in = in || (st.off >= l.start && st.off < l.end)
			}
			outside = outside || !in
		}
		var more []lift
		parser.Inspect(p.Expr, func(node parser.Node, path []parser.Node) error {
			vs, ok := node.(*parser.VectorSelector)
			if !ok || !outside || why != "" {
				return nil
			}
			l, ok := span(vs)
			if ok && len(path) > 0 {
				if _, isRange := path[len(path)-1].(*parser.MatrixSelector); isRange {
					call, isCall := nodeAt(path, 2).(*parser.Call)
					if !isCall {
						why = "a range selector outside a function"
						return nil
					}
					l, ok = span(call)
				}
			}
			if !ok {
				why = "a selector begins or ends with a Grafana variable"
				return nil
			}
			for _, o := range append(slices.Clone(lifts), more...) {
				if l.start < o.end && o.start < l.end {
					return nil // lifted already
				}
			}
			more = append(more, l)
			return nil
		})
		if why != "" {
			return nil, why
		}
		for _, l := range more {
			old := expr[l.start:l.end]
			edits = append(edits, edit{off: l.start, old: old, repl: coalesce(old, relabel), what: RewriteTransition})
		}
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
			return nil, "the rewritten selector does not apply"
		}
		for _, r := range relabel {
			newer = `label_replace(label_replace(` + newer + `, "` + r[0] + `", "$1", "` + r[1] + `", "(.*)"), "` + r[1] + `", "", "` + r[1] + `", ".*")`
		}
		edits = append(edits, edit{off: l.start, old: old, repl: "(" + old + " or " + newer + ")", what: RewriteTransition})
	}
	if len(edits) == 0 {
		return nil, "no selector reads the old names (a constant, vector()): write the window form by hand"
	}
	if !check {
		return edits, ""
	}
	out, ok := applyEdits(expr, slices.Clone(edits))
	if !ok {
		return nil, "the rewrites overlap"
	}
	if _, err := queryfile.ParsePromQL(out); err != nil {
		return nil, "the transition query does not parse: " + err.Error()
	}
	return edits, ""
}

// windowLabel is the temporary label of coalesce's form.
const windowLabel = "__otelgov_window"

// coalesce wraps an expression that reads no old name so that each old
// label is filled from its new label where a series lacks it: old or new,
// without reading a series twice. relabel pairs old and new labels as
// written.
func coalesce(x string, relabel [][2]string) string {
	for _, r := range relabel {
		x = `label_replace(label_replace(label_join(` + x + `, "` + windowLabel + `", ";", "` + r[0] + `", "` + r[1] + `"), "` +
			r[0] + `", "$1", "` + windowLabel + `", ";(.+)"), "` + windowLabel + `", "", "` + windowLabel + `", ".*")`
	}
	return x
}

// uncoalesce is the expression a coalesce form wraps, and the labels it
// fills (old -> new); ok is false for anything else.
func uncoalesce(c *parser.Call) (inner parser.Expr, moved map[string]string, ok bool) {
	str := func(e parser.Expr) string {
		if s, isStr := e.(*parser.StringLiteral); isStr {
			return s.Val
		}
		return "\x00"
	}
	is := func(e parser.Expr, fn string, args ...string) (*parser.Call, bool) {
		c, isCall := e.(*parser.Call)
		if !isCall || c.Func.Name != fn || len(c.Args) != len(args)+1 {
			return nil, false
		}
		for i, a := range args {
			if a != "*" && str(c.Args[i+1]) != a {
				return nil, false
			}
		}
		return c, true
	}
	var x parser.Expr = c
	moved = map[string]string{}
	for {
		outer, ok1 := is(x, "label_replace", windowLabel, "", windowLabel, ".*")
		if !ok1 {
			break
		}
		fill, ok2 := is(outer.Args[0], "label_replace", "*", "$1", windowLabel, ";(.+)")
		if !ok2 {
			return nil, nil, false
		}
		join, ok3 := is(fill.Args[0], "label_join", windowLabel, ";", str(fill.Args[1]), "*")
		if !ok3 {
			return nil, nil, false
		}
		moved[str(join.Args[3])] = str(join.Args[4])
		x = join.Args[0]
	}
	return x, moved, x != parser.Expr(c)
}

func nodeAt(path []parser.Node, back int) parser.Node {
	if len(path) < back {
		return nil
	}
	return path[len(path)-back]
}

// collapse finds the transitions --both wrote in an expression, (A or
// label_replace(...(B)...)) where B is A with the current names, and the
// coalesce forms around selectors that read no old name, and returns the
// edits that replace each with B (with the selector), and the labels that
// move to their new name with it (old -> new, as written).
func collapse(expr string, n *Names) ([]edit, map[string]string) {
	p, err := queryfile.ParsePromQL(expr)
	if err != nil || p.Expr == nil {
		return nil, nil
	}
	var edits []edit
	moved := map[string]string{}
	overlaps := func(s, e int) bool {
		for _, x := range edits {
			if s < x.off+len(x.old) && x.off < e {
				return true
			}
		}
		return false
	}
	parser.Inspect(p.Expr, func(node parser.Node, _ []parser.Node) error {
		if c, ok := node.(*parser.Call); ok {
			inner, labels, ok := uncoalesce(c)
			if !ok {
				return nil
			}
			cs, ce, ok1 := p.Span(c)
			is, ie, ok2 := p.Span(inner)
			if ok1 && ok2 && !overlaps(cs, ce) {
				edits = append(edits, edit{off: cs, old: expr[cs:ce], repl: expr[is:ie], what: RewriteCollapse})
				maps.Copy(moved, labels)
			}
			return nil
		}
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
		labels := map[string]string{}
		for _, h := range hits {
			if !h.rewritable {
				return nil
			}
			es = append(es, h.edits...)
			if h.kind == KindAttribute && h.replacement != "" {
				labels[h.written] = h.replacement
			}
		}
		if got, ok := applyEdits(old, es); !ok || got != newer {
			return nil
		}
		if overlaps(ps, pe2) {
			return nil
		}
		edits = append(edits, edit{off: ps, old: expr[ps:pe2], repl: newer, what: RewriteCollapse})
		maps.Copy(moved, labels)
		return nil
	})
	return edits, moved
}
