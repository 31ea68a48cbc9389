package queries

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/promql/parser"

	"github.com/otelgov/otelcol-governance/queryfile"
	"github.com/otelgov/otelcol-governance/registry"
)

// Kind is what a name is.
type Kind string

const (
	KindAttribute Kind = "attribute" // an attribute key or label name
	KindMetric    Kind = "metric"    // a metric or series name
)

// edit replaces old at off (in the text being scanned) with repl; what
// says what the bytes are, name the deprecated name it migrates.
type edit struct {
	off        int
	old, repl  string
	what, name string
}

// What a rewrite replaces (Rewrite.What).
const (
	RewriteMetric     = "metric"      // a metric or series name
	RewriteLabel      = "label"       // a label name in PromQL or an alert template
	RewriteValue      = "label value" // a compared value migrated with its label
	RewriteAttribute  = "attribute"   // an attribute key in an OTTL path
	RewriteTransition = "transition"  // --both's (old or new)
	RewriteCollapse   = "collapse"    // a transition back to its new branch
)

func whatName(k Kind) string {
	if k == KindMetric {
		return RewriteMetric
	}
	return RewriteLabel
}

// hit is one deprecated name found in a query: its spelling as written,
// where it first occurs, and the rewrite of every occurrence.
type hit struct {
	kind    Kind
	written string
	rename  *Rename
	// replacement is the written form's rewrite ("" when not rewritable or
	// when the occurrences are rewritten differently); why says why not.
	replacement string
	current     string // the current name to show
	why         string
	rewritable  bool
	edits       []edit // every occurrence (and migrated value), when rewritable
	first       int    // offset of the first occurrence (-1: unknown)
	window      Window // the query's window form
}

// matcher is a label matcher's operator and value as written.
type matcher struct {
	op     string // =, !=, =~, !~
	value  string // unquoted
	raw    string // between the quotes, as written
	valOff int    // of raw in the written expression; -1: does not map
	quote  byte
}

// site is one occurrence of a name in an expression.
type site struct {
	kind    Kind
	written string
	off     int      // in the written expression; -1: does not map
	metrics []string // labels: OTel names of the metrics in scope
	m       *matcher // label matchers
	created bool     // set by label_replace or label_join in this expression
	// decided
	repl     string
	newValue string // the matcher's value after migration
	newRaw   string // written form of newValue ("" unchanged)
}

// expected is a site's name and value after the rewrite, for the check.
func (s *site) expected() (string, string) {
	name, val := s.written, ""
	if s.repl != "" {
		name = s.repl
	}
	if s.m != nil {
		val = s.m.value
		if s.newRaw != "" {
			val = s.newValue
		}
	}
	return name, val
}

func (s *site) actual() (string, string) {
	if s.m != nil {
		return s.written, s.m.value
	}
	return s.written, ""
}

// scanPromQL finds the deprecated names in a PromQL expression (Grafana
// variables allowed) and the rewrites that keep what it selects.
func scanPromQL(expr string, n *Names) ([]hit, error) {
	hits, sites, _, err := analyze(expr, n)
	if err == nil && len(hits) > 0 {
		verify(expr, hits, sites, n)
	}
	return hits, err
}

// analyze finds the sites of an expression and decides each one's rewrite.
func analyze(expr string, n *Names) ([]hit, []site, *queryfile.PromQL, error) {
	p, err := queryfile.ParsePromQL(expr)
	if err != nil {
		return unparsed(expr, n), nil, nil, err
	}
	sites := promSites(p, n)
	var hits []hit
	byName := map[[2]string]int{}
	for i := range sites {
		s := &sites[i]
		var h hit
		switch s.kind {
		case KindMetric:
			r, cur, ok := n.SeriesRename(s.written)
			if !ok {
				continue
			}
			h = hit{kind: KindMetric, written: s.written, rename: r, current: cur, why: r.Why}
			if r.Rewritable && cur != "" {
				h.rewritable, s.repl = true, cur
			}
		case KindAttribute:
			r, ok := n.Label(s.written, s.metrics)
			if !ok {
				continue
			}
			h = hit{kind: KindAttribute, written: s.written, rename: r, why: r.Why}
			if r.New != "" {
				h.current = WrittenLabel(r.New, s.written)
			}
			switch {
			case !r.Rewritable:
			case s.created:
				h.why = "the expression also sets this label (label_replace or label_join)"
			default:
				h.rewritable, s.repl = true, h.current
				if s.m != nil {
					if why := migrateMatcher(r, s); why != "" {
						h.rewritable, s.repl, h.why = false, "", why
					}
				}
			}
		}
		h.first = s.off
		if h.rewritable {
			if s.off < 0 {
				h.rewritable, h.why = false, "the name is written with a Grafana variable"
			} else {
				h.edits = append(h.edits, edit{off: s.off, old: s.written, repl: s.repl, what: whatName(s.kind), name: s.written})
			}
			if s.newRaw != "" {
				if s.m.valOff < 0 {
					h.rewritable, h.why = false, "the value is written with a Grafana variable and its values migrate"
				} else {
					h.edits = append(h.edits, edit{off: s.m.valOff, old: s.m.raw, repl: s.newRaw, what: RewriteValue, name: s.written})
				}
			}
		}
		key := [2]string{string(h.kind), h.written}
		if k, ok := byName[key]; ok {
			prev := &hits[k]
			switch {
			case !prev.rewritable:
			case !h.rewritable:
				prev.rewritable, prev.edits, prev.why, prev.replacement = false, nil, h.why, ""
			default:
				prev.edits = append(prev.edits, h.edits...)
				if prev.replacement != s.repl {
					prev.replacement = ""
				}
			}
			continue
		}
		if h.rewritable {
			h.replacement = s.repl
		} else {
			h.edits = nil
		}
		byName[key] = len(hits)
		hits = append(hits, h)
	}
	// A name is rewritten everywhere in the expression or nowhere.
	for i := range hits {
		if !hits[i].rewritable {
			for j := range sites {
				if sites[j].kind == hits[i].kind && sites[j].written == hits[i].written {
					sites[j].repl, sites[j].newRaw = "", ""
				}
			}
		}
	}
	return hits, sites, p, nil
}

// unparsed reports the names of an expression that does not parse, from
// its tokens alone: metric names and labels renamed in every context (a
// metric-scoped rename needs the metric, which only the parse tells).
// Nothing is rewritten.
func unparsed(expr string, n *Names) []hit {
	var hits []hit
	seen := map[string]bool{}
	for _, t := range lex(expr, 0, len(expr)) {
		if t.punct || seen[t.text] {
			continue
		}
		var h hit
		if r, cur, ok := n.SeriesRename(t.text); ok && t.quote == 0 {
			h = hit{kind: KindMetric, written: t.text, rename: r, current: cur}
		} else if r, ok := n.Label(t.text, nil); ok {
			h = hit{kind: KindAttribute, written: t.text, rename: r}
			if r.New != "" {
				h.current = WrittenLabel(r.New, t.text)
			}
		} else {
			continue
		}
		seen[t.text] = true
		h.first, h.why = t.off, "the expression does not parse; rewrite it by hand"
		hits = append(hits, h)
	}
	return hits
}

// verify checks the rewrites together: the rewritten expression must parse
// to the same sites with the names and values replaced.
func verify(expr string, hits []hit, sites []site, n *Names) {
	var edits []edit
	for _, h := range hits {
		if h.rewritable {
			edits = append(edits, h.edits...)
		}
	}
	if len(edits) == 0 {
		return
	}
	out, ok := applyEdits(expr, edits)
	good := false
	if ok {
		if p, err := queryfile.ParsePromQL(out); err == nil {
			got := promSites(p, n)
			good = len(got) == len(sites)
			for i := 0; good && i < len(got); i++ {
				wn, wv := sites[i].expected()
				gn, gv := got[i].actual()
				good = wn == gn && wv == gv && got[i].kind == sites[i].kind
			}
		}
	}
	if !good {
		for i := range hits {
			if hits[i].rewritable {
				hits[i].rewritable, hits[i].edits = false, nil
				hits[i].why = "the rewritten expression does not parse to the same query"
			}
		}
	}
}

// applyEdits applies non-overlapping edits to s.
func applyEdits(s string, edits []edit) (string, bool) {
	slices.SortFunc(edits, func(a, b edit) int { return a.off - b.off })
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, e := range edits {
		if e.off < last || e.off+len(e.old) > len(s) || s[e.off:e.off+len(e.old)] != e.old {
			return "", false
		}
		b.WriteString(s[last:e.off])
		b.WriteString(e.repl)
		last = e.off + len(e.old)
	}
	b.WriteString(s[last:])
	return b.String(), true
}

// regexMeta matches a regex metacharacter: an alternative of a matcher's
// regex is a literal value when it has none unescaped (see regexLiteral).
var regexMeta = regexp.MustCompile(`[\\.+*?()\[\]{}^$|]`)

// migrateMatcher migrates a renamed label's matcher value with the key's
// value migration; it returns why not when it cannot.
func migrateMatcher(r *Rename, s *site) string {
	mg := r.Migration
	if mg == nil {
		return ""
	}
	switch {
	case mg.Split != nil || mg.Merge != nil || mg.Move != registry.FieldNone || mg.ConvertTo != "":
		return "its values move to other keys (" + mg.Where + "); rewrite by hand"
	case mg.Convert == registry.TypeStringArray || mg.Convert == registry.TypeIntArray ||
		mg.Convert == registry.TypeDoubleArray || mg.Convert == registry.TypeBooleanArray:
		return "its values become arrays (" + mg.Where + "); rewrite by hand"
	case len(mg.Values) == 0 && len(mg.IntValues) == 0:
		return "" // same values (a lossless conversion is the same label value)
	}
	one := func(v string) (string, bool) {
		if to, ok := mg.Values[v]; ok {
			return to, to != v
		}
		if i, err := strconv.ParseInt(v, 10, 64); err == nil {
			if to, ok := mg.IntValues[i]; ok {
				return to, to != v
			}
		}
		return v, false
	}
	m := s.m
	if m.valOff < 0 {
		return "the value is written with a Grafana variable and the values of " + r.Old + " migrate (" + example(mg) + "); rewrite by hand"
	}
	// The old values the matcher selects, and their new values: the new
	// matcher must select exactly the migrated set, so every old value that
	// becomes one of the new values must be selected too.
	var olds []string
	regex := m.op == "=~" || m.op == "!~"
	if regex {
		for _, a := range strings.Split(m.value, "|") {
			lit, ok := regexLiteral(a)
			if !ok {
				return "a regex over values that migrate (" + example(mg) + "); rewrite by hand"
			}
			olds = append(olds, lit)
		}
	} else {
		olds = []string{m.value}
	}
	changed := false
	news := make([]string, len(olds))
	for i, v := range olds {
		var ch bool
		news[i], ch = one(v)
		changed = changed || ch
	}
	if !changed {
		return ""
	}
	for _, nv := range news {
		for _, pre := range preimage(mg, r.OldEnum, nv, one) {
			if !slices.Contains(olds, pre) {
				return "several old values become " + strconv.Quote(nv) + " (" + pre + " too); the rewritten matcher would select more; rewrite by hand"
			}
		}
	}
	nv := news[0]
	if regex {
		alts := strings.Split(m.value, "|")
		for i := range alts {
			if news[i] != olds[i] {
				alts[i] = regexp.QuoteMeta(news[i])
			}
		}
		nv = strings.Join(alts, "|")
	}
	raw, ok := quoteFor(nv, m.quote)
	if !ok {
		return "the migrated value cannot be written in this string"
	}
	s.newValue, s.newRaw = nv, raw
	return ""
}

// preimage lists the old values that become v: those the migration maps to
// it, and v itself when the migration keeps it and the old key can hold it
// (a member of its enum; any string when it is no enum; no string for an
// int key).
func preimage(mg *registry.Migration, enum []string, v string, one func(string) (string, bool)) []string {
	var out []string
	if got, _ := one(v); got == v && len(mg.IntValues) == 0 && (enum == nil || slices.Contains(enum, v)) {
		out = append(out, v)
	}
	for k, to := range mg.Values {
		if to == v {
			out = append(out, k)
		}
	}
	for k, to := range mg.IntValues {
		if to == v {
			out = append(out, strconv.FormatInt(k, 10))
		}
	}
	return out
}

// example shows a value migration's first entries.
func example(mg *registry.Migration) string {
	var out []string
	for k, v := range mg.Values {
		out = append(out, k+"→"+v)
	}
	for k, v := range mg.IntValues {
		out = append(out, strconv.FormatInt(k, 10)+"→"+v)
	}
	slices.Sort(out)
	if len(out) > 3 {
		out = append(out[:3], "…")
	}
	return strings.Join(out, ", ")
}

// regexLiteral is the value a regex alternative matches when it matches
// exactly one (metacharacters escaped); ok is false for a real pattern.
func regexLiteral(a string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(a); i++ {
		c := a[i]
		if c == '\\' && i+1 < len(a) && regexMeta.MatchString(a[i+1:i+2]) {
			b.WriteByte(a[i+1])
			i++
			continue
		}
		if regexMeta.MatchString(a[i : i+1]) {
			return "", false
		}
		b.WriteByte(c)
	}
	return b.String(), true
}

// quoteFor writes v as the content of a PromQL string with the given quote.
func quoteFor(v string, quote byte) (string, bool) {
	switch quote {
	case '`':
		return v, !strings.Contains(v, "`")
	case '\'':
		q := strconv.Quote(v)
		q = strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
		return strings.ReplaceAll(q, "'", `\'`), true
	default:
		q := strconv.Quote(v)
		return q[1 : len(q)-1], true
	}
}

// promSites lists every metric and label name an expression reads, in a
// fixed order, with its offset in the written expression.
func promSites(p *queryfile.PromQL, n *Names) []site {
	var out []site
	orig := func(off int) int {
		if o, ok := p.Orig(off); ok {
			return o
		}
		return -1
	}
	if p.Expr == nil {
		if p.LabelValues != "" {
			out = append(out, site{kind: KindAttribute, written: p.LabelValues, off: p.LabelValuesOff})
		}
		return out
	}
	text := p.Text
	selMetrics := map[*parser.VectorSelector][]string{}
	created := map[string]bool{}
	parser.Inspect(p.Expr, func(node parser.Node, _ []parser.Node) error {
		if c, ok := node.(*parser.Call); ok && (c.Func.Name == "label_replace" || c.Func.Name == "label_join") && len(c.Args) > 1 {
			if s, ok := c.Args[1].(*parser.StringLiteral); ok {
				created[s.Val] = true
			}
		}
		return nil
	})
	metricsUnder := func(node parser.Node) []string {
		var ms []string
		parser.Inspect(node, func(x parser.Node, _ []parser.Node) error {
			if vs, ok := x.(*parser.VectorSelector); ok {
				for _, m := range selMetrics[vs] {
					if !slices.Contains(ms, m) {
						ms = append(ms, m)
					}
				}
			}
			return nil
		})
		return ms
	}
	label := func(t token, metrics []string, m *matcher) {
		out = append(out, site{kind: KindAttribute, written: t.text, off: orig(t.off), metrics: metrics, m: m, created: created[t.text]})
	}
	type selParts struct {
		names    []token
		matchers []selMatcher
	}
	sels := map[*parser.VectorSelector]selParts{}
	parser.Inspect(p.Expr, func(node parser.Node, _ []parser.Node) error {
		x, ok := node.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		pr := x.PositionRange()
		names, matchers := selectorParts(lex(text, int(pr.Start), int(pr.End)))
		var metrics []string
		for _, t := range names {
			metrics = append(metrics, n.MetricsOf(t.text)...)
		}
		for _, mt := range matchers {
			if mt.name.text == model.MetricNameLabel {
				for _, t := range nameAlternatives(mt) {
					names = append(names, t)
					metrics = append(metrics, n.MetricsOf(t.text)...)
				}
			}
		}
		selMetrics[x] = metrics
		sels[x] = selParts{names, matchers}
		return nil
	})
	parser.Inspect(p.Expr, func(node parser.Node, _ []parser.Node) error {
		switch x := node.(type) {
		case *parser.VectorSelector:
			sp := sels[x]
			metrics := selMetrics[x]
			for _, t := range sp.names {
				out = append(out, site{kind: KindMetric, written: t.text, off: orig(t.off)})
			}
			for _, mt := range sp.matchers {
				if mt.name.text == model.MetricNameLabel {
					continue
				}
				m := &matcher{op: mt.op, value: mt.value.text, raw: mt.value.raw, valOff: orig(mt.value.off), quote: mt.value.quote}
				if m.valOff >= 0 {
					if end := orig(mt.value.off + len(mt.value.raw)); end < 0 || end-m.valOff != len(m.raw) {
						m.valOff = -1
					}
				}
				label(mt.name, metrics, m)
			}
		case *parser.AggregateExpr:
			if len(x.Grouping) == 0 {
				return nil
			}
			pr := x.PositionRange()
			var skip []parser.Node
			if x.Expr != nil {
				skip = append(skip, x.Expr)
			}
			if x.Param != nil {
				skip = append(skip, x.Param)
			}
			metrics := metricsUnder(x.Expr)
			for _, t := range groupLabels(lexSkipping(text, int(pr.Start), int(pr.End), skip), "by", "without") {
				label(t, metrics, nil)
			}
		case *parser.BinaryExpr:
			if x.VectorMatching == nil || len(x.VectorMatching.MatchingLabels)+len(x.VectorMatching.Include) == 0 {
				return nil
			}
			metrics := metricsUnder(x)
			toks := lex(text, int(x.LHS.PositionRange().End), int(x.RHS.PositionRange().Start))
			for _, t := range groupLabels(toks, "on", "ignoring", "group_left", "group_right") {
				label(t, metrics, nil)
			}
		case *parser.Call:
			var args []int
			switch x.Func.Name {
			case "label_replace":
				args = []int{3}
			case "label_join":
				for i := 3; i < len(x.Args); i++ {
					args = append(args, i)
				}
			}
			if len(args) == 0 {
				return nil
			}
			metrics := metricsUnder(x.Args[0])
			for _, i := range args {
				if i >= len(x.Args) {
					continue
				}
				if s, ok := x.Args[i].(*parser.StringLiteral); ok && s.Val != "" {
					pr := s.PositionRange()
					toks := lex(text, int(pr.Start), int(pr.End))
					if len(toks) == 1 && toks[0].quote != 0 && toks[0].text == s.Val {
						t := toks[0]
						t.text = s.Val
						label(token{text: s.Val, off: t.off, quote: t.quote}, metrics, nil)
						out[len(out)-1].created = false
					}
				}
			}
		}
		return nil
	})
	if p.LabelValues != "" {
		out = append(out, site{kind: KindAttribute, written: p.LabelValues, off: p.LabelValuesOff, metrics: metricsUnder(p.Expr)})
	}
	return out
}

// nameAlternatives are the metric names a __name__ matcher lists: its value
// for =, each literal alternative for =~.
func nameAlternatives(mt selMatcher) []token {
	switch mt.op {
	case "=":
		return []token{mt.value}
	case "=~":
		var out []token
		off := 0
		for _, a := range strings.Split(mt.value.raw, "|") {
			if a != "" && isSeriesName(a) {
				out = append(out, token{text: a, off: mt.value.off + off})
			}
			off += len(a) + 1
		}
		return out
	}
	return nil
}

func isSeriesName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && c != ':' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}
