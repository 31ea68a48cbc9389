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

// ottlTransition is the --both form of an OTTL condition, or of a
// statement's where clause, that reads one old attribute key: the
// condition C reading the key at path P becomes
//
//	(P != nil and (C)) or (P == nil and (C'))
//
// where C' reads the new key: the old key where the data carries it, the
// new one elsewhere, so that a negation (!=) does not match data that
// carries only the new key. why says why there is none.
func ottlTransition(stmt string, hits []hit) (edits []edit, why string) {
	var inner []edit
	for _, h := range hits {
		if !h.rewritable {
			return nil, "not every old name in the statement can be rewritten: " + h.why
		}
		inner = append(inner, h.edits...)
	}
	if len(hits) != 1 {
		return nil, "several old names in one statement: write its window form by hand"
	}
	start, end := 0, len(stmt)
	if w, ok := whereClause(stmt); ok {
		start = w
	} else if ottlStatement(stmt) {
		return nil, "the statement's editor reads or writes the name in its arguments, and one statement cannot do both names: add a statement for the new name by hand (with where " + hits[0].written + " is nil)"
	}
	var path string
	for _, e := range inner {
		if e.off < start {
			return nil, "the statement's editor reads or writes the name in its arguments, and one statement cannot do both names: add a statement for the new name by hand"
		}
		p := pathBefore(stmt, e.off)
		if p == "" || (path != "" && p != path) {
			return nil, "the key is read through different paths: write the window form by hand"
		}
		path = p
	}
	for start < end && stmt[start] == ' ' {
		start++
	}
	for end > start && (stmt[end-1] == ' ' || stmt[end-1] == '\n') {
		end--
	}
	c := stmt[start:end]
	shifted := make([]edit, len(inner))
	for i, e := range inner {
		e.off -= start
		shifted[i] = e
	}
	cNew, ok := applyEdits(c, shifted)
	if !ok {
		return nil, "the rewrites overlap"
	}
	old := path + `["` + hits[0].written + `"]`
	repl := "(" + old + " != nil and (" + c + ")) or (" + old + " == nil and (" + cNew + "))"
	return []edit{{off: start, old: c, repl: repl, what: RewriteTransition}}, ""
}

// ottlStatement: the text is a statement (an editor call: editors are
// lower case), not a condition.
func ottlStatement(s string) bool {
	s = strings.TrimLeft(s, " \t\n")
	i := 0
	for i < len(s) && (s[i] == '_' || s[i] >= 'a' && s[i] <= 'z' || i > 0 && s[i] >= '0' && s[i] <= '9') {
		i++
	}
	return i > 0 && i < len(s) && s[i] == '('
}

// whereClause is the offset of a statement's condition after its top-level
// `where`.
func whereClause(s string) (int, bool) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		default:
			if depth == 0 && strings.HasPrefix(s[i:], "where") && i > 0 && (s[i-1] == ' ' || s[i-1] == ')') &&
				i+5 < len(s) && (s[i+5] == ' ' || s[i+5] == '(') {
				return i + 5, true
			}
		}
	}
	return 0, false
}

// pathBefore is the attribute path whose index holds the literal at off
// (its content's offset): `resource.attributes` of resource.attributes["k"].
func pathBefore(s string, off int) string {
	i := off - 1 // the opening quote
	if i < 0 || s[i] != '"' {
		return ""
	}
	i--
	for i >= 0 && s[i] == ' ' {
		i--
	}
	if i < 0 || s[i] != '[' {
		return ""
	}
	end := i
	for end > 0 && s[end-1] == ' ' {
		end--
	}
	start := end
	for start > 0 && (isIdentByte(s[start-1]) || s[start-1] == '.') {
		start--
	}
	return s[start:end]
}

// collapseOTTL finds the window forms ottlTransition wrote and returns the
// edits that replace each with its new branch.
func collapseOTTL(stmt string, n *Names) []edit {
	var edits []edit
	for i := 0; i < len(stmt); {
		j := strings.Index(stmt[i:], " != nil and (")
		if j < 0 {
			break
		}
		at := i + j
		i = at + 1
		// (P["old"] != nil and (C)) or (P["old"] == nil and (C'))
		open := strings.LastIndexByte(stmt[:at], '(')
		if open < 0 {
			continue
		}
		p := stmt[open+1 : at]
		cStart := at + len(" != nil and (")
		cEnd := matchParen(stmt, cStart-1)
		if cEnd < 0 || !strings.HasPrefix(stmt[cEnd:], ")) or ("+p+" == nil and (") {
			continue
		}
		nStart := cEnd + len(")) or ("+p+" == nil and (")
		nEnd := matchParen(stmt, nStart-1)
		if nEnd < 0 || !strings.HasPrefix(stmt[nEnd:], "))") {
			continue
		}
		c, cNew := stmt[cStart:cEnd], stmt[nStart:nEnd]
		hits := scanOTTL(c, n)
		var es []edit
		for _, h := range hits {
			if !h.rewritable {
				es = nil
				break
			}
			es = append(es, h.edits...)
		}
		if got, ok := applyEdits(c, es); len(es) == 0 || !ok || got != cNew {
			continue
		}
		end := nEnd + 2
		edits = append(edits, edit{off: open, old: stmt[open:end], repl: cNew, what: RewriteCollapse})
		i = end
	}
	return edits
}

// matchParen is the offset of the parenthesis that closes the one at open
// (strings skipped); -1 when there is none.
func matchParen(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}
