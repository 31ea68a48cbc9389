package queries

import (
	"maps"
	"slices"
	"strconv"
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
	type lift struct {
		start, end int // in the written expression
		sel        *lift
		matched    []string // relabelled labels the selector has matchers on
	}
	var lifts []lift
	span := func(node parser.Node) (lift, bool) {
		s, e, ok := p.Span(node)
		return lift{start: s, end: e}, ok
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
		var matched []string
		for _, s := range sites {
			if s.off >= sel.start && s.off < sel.end && (s.repl != "" || s.newRaw != "") {
				changed = true
				if s.kind == KindAttribute && s.m != nil && !slices.Contains(matched, s.written) {
					matched = append(matched, s.written)
				}
			}
		}
		if !changed {
			return nil
		}
		l := sel
		l.sel, l.matched = &sel, matched
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
				l.sel, l.matched = &sel, matched
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
		form, ok := liftForm(old, l.sel.start-l.start, l.sel.end-l.start, inner, l.matched, relabel, true)
		if !ok {
			return nil, "the rewritten selector does not apply"
		}
		edits = append(edits, edit{off: l.start, old: old, repl: form, what: RewriteTransition})
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

// liftForm is the (old or new) form of a lifted part (a selector, or the
// function over its range): inner are the rewrite's edits in it, the
// selector lies at [selStart, selEnd), matched are the relabelled labels it
// has matchers on. guarded (false only to recognise the previous release's
// form) adds the guards. The branches split the series: the old one takes those
// that carry the old labels it matches on, the new one those that carry no
// old label (the collector copies a name to both during the window), so
// that no series is read twice and none is lost; the new branch is
// relabelled back to the old label names; both drop the new labels.
func liftForm(old string, selStart, selEnd int, inner []edit, matched []string, relabel [][2]string, guarded bool) (string, bool) {
	var guardsA, guardsB []string
	for _, r := range relabel {
		if !guarded {
			break
		}
		if slices.Contains(matched, r[0]) {
			guardsA = append(guardsA, matcherName(r[0])+`!=""`)
		}
		guardsB = append(guardsB, matcherName(r[0])+`=""`)
	}
	a := old
	if len(guardsB) > 0 {
		g, ok := guardPlace(old, selStart, selEnd)
		if !ok {
			return "", false
		}
		if e, any := g.edit(guardsA); any {
			a = old[:e.off] + e.repl + old[e.off:]
		}
		e, _ := g.edit(guardsB)
		inner = append(slices.Clone(inner), e)
		// The copied series keep the shape they had before the upgrade:
		// without the new labels (a `without` or `on` sees no extra label).
		for _, r := range relabel {
			a = `label_replace(` + a + `, "` + r[1] + `", "", "` + r[1] + `", ".*")`
		}
	}
	newer, ok := applyEdits(old, inner)
	if !ok {
		return "", false
	}
	// label_replace(label_replace(newer, old, "$1", new, "(.*)"), new, "", new, ".*") per label.
	var b strings.Builder
	b.WriteString("(" + a + " or ")
	b.WriteString(strings.Repeat("label_replace(label_replace(", len(relabel)))
	b.WriteString(newer)
	for _, r := range relabel {
		b.WriteString(`, "` + r[0] + `", "$1", "` + r[1] + `", "(.*)"), "` + r[1] + `", "", "` + r[1] + `", ".*")`)
	}
	b.WriteString(")")
	return b.String(), true
}

// matcherName is a label as a matcher writes it: quoted unless it is a
// classic label name.
func matcherName(l string) string {
	for i := 0; i < len(l); i++ {
		if c := l[i]; c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return strconv.Quote(l)
		}
	}
	return l
}

// guardAt is where guardEdit adds matchers to the selector at
// text[start:end]: the offset, and whether a separating ", " or new braces
// are needed; ok is false when the selector has no place for them.
type guardAt struct {
	off           int
	comma, braces bool
}

func guardPlace(text string, start, end int) (guardAt, bool) {
	toks := lex(text, start, end)
	open := -1
	for i, t := range toks {
		switch {
		case t.punct && t.text == "{":
			open = i
		case t.punct && t.text == "}" && open >= 0:
			return guardAt{off: t.off, comma: i != open+1 && (!toks[i-1].punct || toks[i-1].text != ",")}, true
		}
	}
	if open >= 0 || len(toks) == 0 || toks[0].punct || toks[0].quote != 0 {
		return guardAt{}, false
	}
	return guardAt{off: toks[0].off + len(toks[0].text), braces: true}, true
}

// edit is the edit that adds matchers at g; none when there are none.
func (g guardAt) edit(matchers []string) (edit, bool) {
	if len(matchers) == 0 {
		return edit{}, false
	}
	add := strings.Join(matchers, ", ")
	switch {
	case g.braces:
		add = "{" + add + "}"
	case g.comma:
		add = ", " + add
	}
	return edit{off: g.off, repl: add}, true
}

// windowLabel is the temporary label of coalesce's form.
const windowLabel = "__otelgov_window"

// coalesce wraps an expression that reads no old name so that each old
// label is filled from its new label where a series lacks it, and the new
// label is dropped: old or new, without reading a series twice, in the
// shape the series had before the upgrade (as the (old or new) form's new
// branch). relabel pairs old and new labels as written.
func coalesce(x string, relabel [][2]string) string {
	for _, r := range relabel {
		x = `label_replace(label_replace(label_replace(label_join(` + x + `, "` + windowLabel + `", ";", "` + r[0] + `", "` + r[1] + `"), "` +
			r[0] + `", "$1", "` + windowLabel + `", ";(.+)"), "` + windowLabel + `", "", "` + windowLabel + `", ".*"), "` +
			r[1] + `", "", "` + r[1] + `", ".*")`
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
		drop, ok0 := is(x, "label_replace", "*", "", "*", ".*")
		if !ok0 || str(drop.Args[1]) != str(drop.Args[3]) {
			break
		}
		outer, ok1 := is(drop.Args[0], "label_replace", windowLabel, "", windowLabel, ".*")
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
		if str(join.Args[4]) != str(drop.Args[1]) {
			return nil, nil, false
		}
		moved[str(join.Args[3])] = str(join.Args[4])
		x = join.Args[0]
	}
	return x, moved, x != parser.Expr(c)
}

// unguarded are the texts the old branch a may have had before liftForm
// added its guards: a itself and a without each form of the guards.
func unguarded(a string, relabel [][2]string) []string {
	out := []string{a}
	var gs []string
	for _, r := range relabel {
		gs = append(gs, matcherName(r[0])+`!=""`)
	}
	// liftForm adds the guards of the labels a matches on, in relabel's
	// order: every ordered subset is a candidate (relabel is short).
	for mask := 1; mask < 1<<len(gs) && len(gs) <= 4; mask++ {
		var sub []string
		for i, g := range gs {
			if mask&(1<<i) != 0 {
				sub = append(sub, g)
			}
		}
		add := strings.Join(sub, ", ")
		for _, form := range []string{"{" + add + "}", ", " + add, add} {
			if i := strings.LastIndex(a, form); i >= 0 {
				out = append(out, a[:i]+a[i+len(form):])
			}
		}
	}
	return out
}

// lifted checks that form is liftForm's form of a, and returns a's
// rewrite (the new branch, as --write writes it) and the labels it moves.
func lifted(a, form string, relabel [][2]string, n *Names) (string, map[string]string, bool) {
	hits, sites, p, err := analyze(a, n)
	if err != nil || len(hits) == 0 {
		return "", nil, false
	}
	var inner []edit
	labels := map[string]string{}
	for _, h := range hits {
		if !h.rewritable {
			return "", nil, false
		}
		inner = append(inner, h.edits...)
		if h.kind == KindAttribute && h.replacement != "" {
			labels[h.written] = h.replacement
		}
	}
	var sel *parser.VectorSelector
	parser.Inspect(p.Expr, func(node parser.Node, _ []parser.Node) error {
		if vs, ok := node.(*parser.VectorSelector); ok && sel == nil {
			sel = vs
		}
		return nil
	})
	if sel == nil {
		return "", nil, false
	}
	ss, se, ok := p.Span(sel)
	if !ok {
		return "", nil, false
	}
	var matched []string
	for _, st := range sites {
		if st.kind == KindAttribute && st.m != nil && st.off >= ss && st.off < se && st.repl != "" && !slices.Contains(matched, st.written) {
			matched = append(matched, st.written)
		}
	}
	got, ok := liftForm(a, ss, se, inner, matched, relabel, true)
	if ok && got != form {
		// The previous release's form, without the guards: folded back too.
		got, ok = liftForm(a, ss, se, inner, matched, relabel, false)
	}
	if !ok || got != form {
		return "", nil, false
	}
	newer, ok := applyEdits(a, inner)
	return newer, labels, ok
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
		var relabel [][2]string
		rhs := be.RHS
		for { // label_replace(label_replace(X, old, "$1", new, "(.*)"), new, "", new, ".*")
			c, isCall := rhs.(*parser.Call)
			if !isCall || c.Func.Name != "label_replace" || len(c.Args) != 5 {
				break
			}
			in, isIn := c.Args[0].(*parser.Call)
			if !isIn || in.Func.Name != "label_replace" || len(in.Args) != 5 {
				break
			}
			o, ok1 := in.Args[1].(*parser.StringLiteral)
			nw, ok2 := in.Args[3].(*parser.StringLiteral)
			if !ok1 || !ok2 {
				break
			}
			relabel = append(relabel, [2]string{o.Val, nw.Val})
			rhs = in.Args[0]
		}
		if rhs == be.RHS {
			return nil
		}
		slices.SortFunc(relabel, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
		relabel = slices.Compact(relabel)
		lhs := be.LHS
		for { // label_replace(A, new, "", new, ".*"): the new labels dropped
			c, isCall := lhs.(*parser.Call)
			if !isCall || c.Func.Name != "label_replace" || len(c.Args) != 5 {
				break
			}
			d, ok1 := c.Args[1].(*parser.StringLiteral)
			e, ok2 := c.Args[2].(*parser.StringLiteral)
			sl, ok3 := c.Args[3].(*parser.StringLiteral)
			if !ok1 || !ok2 || !ok3 || e.Val != "" || d.Val != sl.Val {
				break
			}
			lhs = c.Args[0]
		}
		ps, pe2, ok1 := p.Span(pe)
		as, ae, ok2 := p.Span(lhs)
		if !ok1 || !ok2 || overlaps(ps, pe2) {
			return nil
		}
		// The old branch as written before --both: without the guards
		// liftForm added; its form must be this transition, byte for byte.
		for _, a := range unguarded(expr[as:ae], relabel) {
			if newer, labels, ok := lifted(a, expr[ps:pe2], relabel, n); ok {
				edits = append(edits, edit{off: ps, old: expr[ps:pe2], repl: newer, what: RewriteCollapse})
				maps.Copy(moved, labels)
				return nil
			}
		}
		return nil
	})
	return edits, moved
}
