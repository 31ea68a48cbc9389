package queries

import "strings"

// scanOTTL finds deprecated names in the string literals of an OTTL
// statement or condition. A key in an attribute path
// (attributes["http.method"], resource.attributes[...]) is rewritten; the
// same string elsewhere (a function argument, a compared value) is only
// reported, since it may be a value rather than a key.
func scanOTTL(stmt string, n *Names) []hit {
	var hits []hit
	byName := map[string]int{} // written name -> index in hits
	for i := 0; i < len(stmt); i++ {
		if stmt[i] != '"' {
			continue
		}
		j := i + 1
		escaped := false
		for j < len(stmt) && stmt[j] != '"' {
			if stmt[j] == '\\' {
				escaped = true
				j++
			}
			j++
		}
		if j >= len(stmt) {
			break // unterminated: not OTTL we can read
		}
		lit := stmt[i+1 : j]
		path := attributePath(stmt[:i])
		i = j
		if escaped {
			continue
		}
		var h hit
		if r := n.Attribute(lit); r != nil {
			h = hit{kind: KindAttribute, written: lit, rename: r, first: -1, why: r.Why, current: r.New}
			if r.Rewritable && path {
				h.rewritable, h.replacement = true, r.New
			} else if r.Rewritable {
				h.why = "not an attribute path (a function argument or a value); check by hand"
			}
		} else if r := n.Metric(lit); r != nil {
			h = hit{kind: KindMetric, written: lit, rename: r, first: -1, why: r.Why, current: r.New}
			if r.Why == "" {
				h.why = "metric names in OTTL are compared values; check by hand"
			}
		} else {
			continue
		}
		off := i - len(lit)
		if k, ok := byName[lit]; ok {
			prev := &hits[k]
			if prev.rewritable && h.rewritable {
				prev.edits = append(prev.edits, edit{off: off, old: lit, repl: h.replacement, what: RewriteAttribute, name: lit})
			} else if prev.rewritable {
				// The same name both as a path key and elsewhere: rewrite none.
				prev.rewritable, prev.edits, prev.why, prev.replacement = false, nil, h.why, ""
			}
			continue
		}
		h.first = off
		if h.rewritable {
			h.edits = []edit{{off: off, old: lit, repl: h.replacement, what: RewriteAttribute, name: lit}}
		}
		byName[lit] = len(hits)
		hits = append(hits, h)
	}
	return hits
}

// attributePath reports whether the text before a string literal ends an
// attribute path's index: `attributes[`.
func attributePath(before string) bool {
	s := strings.TrimRight(before, " \t\n")
	s, ok := strings.CutSuffix(s, "[")
	if !ok {
		return false
	}
	return strings.HasSuffix(strings.TrimRight(s, " \t\n"), "attributes")
}
