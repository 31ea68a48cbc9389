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
		pr := node.PositionRange()
		s, ok1 := p.Orig(int(pr.Start))
		e, ok2 := p.Orig(int(pr.End) - 1)
		return lift{s, e + 1}, ok1 && ok2 && e >= s
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
					inner = append(inner, edit{e.off - l.start, e.old, e.repl})
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
		edits = append(edits, edit{l.start, old, "(" + old + " or " + newer + ")"})
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
