package queries

import (
	"strconv"
	"strings"

	"github.com/prometheus/prometheus/promql/parser"
)

// token is an identifier, a string literal or a punctuation mark in an
// expression; it only locates what the parser found, it decides nothing.
type token struct {
	text  string // identifier, unquoted string, or punctuation
	raw   string // a string's content between its quotes
	off   int    // of the text (inside the quotes for strings)
	quote byte   // 0 for identifiers and punctuation
	punct bool
}

func isIdentByte(c byte) bool {
	return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// lex splits s[start:end] into tokens.
func lex(s string, start, end int) []token {
	return lexSkipping(s, start, end, nil)
}

// lexSkipping is lex without the ranges of the skipped nodes.
func lexSkipping(s string, start, end int, skip []parser.Node) []token {
	var out []token
	end = min(end, len(s))
	for i := max(start, 0); i < end; {
		skipped := false
		for _, n := range skip {
			if pr := n.PositionRange(); i == int(pr.Start) && pr.End > pr.Start {
				i = int(pr.End)
				out = append(out, token{text: "\x00", punct: true}) // a sub-expression
				skipped = true
				break
			}
		}
		if skipped {
			continue
		}
		c := s[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < end && s[j] != c {
				if s[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			j = min(j, end)
			raw := s[i+1 : j]
			val := raw
			if c != '`' {
				if u, err := strconv.Unquote(`"` + strings.ReplaceAll(strings.ReplaceAll(raw, `\'`, `'`), `"`, `\"`) + `"`); err == nil {
					val = u
				}
			}
			out = append(out, token{text: val, raw: raw, off: i + 1, quote: c})
			i = j + 1
		case c == '#':
			for i < end && s[i] != '\n' {
				i++
			}
		case isIdentByte(c):
			j := i
			for j < end && isIdentByte(s[j]) {
				j++
			}
			out = append(out, token{text: s[i:j], off: i})
			i = j
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		default:
			if i+1 < end && (c == '!' || c == '=') && (s[i+1] == '=' || s[i+1] == '~') {
				out = append(out, token{text: s[i : i+2], off: i, punct: true})
				i += 2
				continue
			}
			out = append(out, token{text: s[i : i+1], off: i, punct: true})
			i++
		}
	}
	return out
}

// selMatcher is a label matcher's tokens.
type selMatcher struct {
	name  token
	op    string
	value token
}

// selectorParts reads a vector selector's tokens: metric names (the
// identifier, or a lone string inside the braces) and matchers.
func selectorParts(toks []token) (names []token, matchers []selMatcher) {
	i := 0
	if len(toks) > 0 && !toks[0].punct && toks[0].quote == 0 {
		names = append(names, toks[0])
		i = 1
	}
	if i >= len(toks) || toks[i].text != "{" || !toks[i].punct {
		return names, nil
	}
	for i++; i < len(toks); {
		t := toks[i]
		switch {
		case t.punct && t.text == "}":
			return names, matchers
		case t.punct:
			i++
		case i+2 < len(toks) && toks[i+1].punct && isOp(toks[i+1].text) && toks[i+2].quote != 0:
			matchers = append(matchers, selMatcher{name: t, op: toks[i+1].text, value: toks[i+2]})
			i += 3
		case t.quote != 0:
			names = append(names, t)
			i++
		default:
			i++
		}
	}
	return names, matchers
}

func isOp(s string) bool { return s == "=" || s == "!=" || s == "=~" || s == "!~" }

// groupLabels are the labels listed in parentheses after one of the
// keywords.
func groupLabels(toks []token, keywords ...string) []token {
	var out []token
	for i := 0; i < len(toks); i++ {
		kw := false
		for _, k := range keywords {
			if !toks[i].punct && toks[i].quote == 0 && strings.EqualFold(toks[i].text, k) {
				kw = true
			}
		}
		if !kw || i+1 >= len(toks) || toks[i+1].text != "(" {
			continue
		}
		for i += 2; i < len(toks) && toks[i].text != ")"; i++ {
			if !toks[i].punct {
				out = append(out, toks[i])
			}
		}
	}
	return out
}
