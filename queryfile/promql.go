package queryfile

import (
	"regexp"
	"strings"

	"github.com/prometheus/prometheus/promql/parser"
)

// PromQL is a parsed expression as written in a dashboard or rule: Grafana
// variables and macros substituted so that it parses, with a map back.
type PromQL struct {
	// Expr is the parse of Text.
	Expr parser.Expr
	// Text is what was parsed: the written expression with Grafana's
	// variables substituted, the inner selector of label_values().
	Text string
	// LabelValues is the label of Grafana's label_values(selector, label)
	// (the whole query when there is no selector); Expr is then the
	// selector, nil without one. LabelValuesOff is its offset in the
	// written expression (-1: written with a variable).
	LabelValues    string
	LabelValuesOff int
	orig           []int // Text offset -> written offset, -1 inside a substitution
}

// Orig maps an offset in Text to the written expression; ok is false inside
// a substituted variable.
func (p *PromQL) Orig(off int) (int, bool) {
	if off == len(p.orig) && off > 0 && p.orig[off-1] >= 0 {
		return p.orig[off-1] + 1, true
	}
	if off < 0 || off >= len(p.orig) || p.orig[off] < 0 {
		return 0, false
	}
	return p.orig[off], true
}

// Span is the range a node of Expr covers in the written expression; ok is
// false when it begins or ends inside a substituted variable.
func (p *PromQL) Span(node parser.Node) (start, end int, ok bool) {
	pr := node.PositionRange()
	s, ok1 := p.Orig(int(pr.Start))
	e, ok2 := p.Orig(int(pr.End) - 1)
	return s, e + 1, ok1 && ok2 && e >= s
}

var (
	labelValuesFn = regexp.MustCompile(`^\s*label_values\(\s*(?:(.*?)\s*,\s*)?([A-Za-z_][A-Za-z0-9_.]*)\s*\)\s*$`)
	queryResultFn = regexp.MustCompile(`^\s*query_result\((.*)\)\s*$`)
	grafanaOther  = regexp.MustCompile(`^\s*(label_names|metrics)\(`)
)

// ErrNotPromQL is returned for a Grafana variable query that holds no
// PromQL (label_names(), metrics(regex)).
var ErrNotPromQL = parseError("not a PromQL expression")

type parseError string

func (e parseError) Error() string { return string(e) }

// ParsePromQL parses an expression as written, Grafana variables allowed.
// A variable is replaced by a value of the type its place needs: ".*" in a
// string, a duration in a range or subquery, a number for the macros that
// are numbers ($__interval_ms, $__range_s, $__range_ms) and an identifier
// elsewhere (a number when that does not parse).
func ParsePromQL(expr string) (*PromQL, error) {
	if grafanaOther.MatchString(expr) {
		return nil, ErrNotPromQL
	}
	var err error
	for _, mode := range []byte{'i', 'n'} {
		text, orig := expand(expr, mode)
		p := &PromQL{Text: text, orig: orig}
		if m := labelValuesFn.FindStringSubmatchIndex(text); m != nil {
			p.LabelValues, p.LabelValuesOff = text[m[4]:m[5]], -1
			if orig[m[4]] >= 0 && (m[5] == len(orig) || orig[m[5]-1]-orig[m[4]] == m[5]-m[4]-1) {
				p.LabelValuesOff = orig[m[4]]
			}
			if m[2] < 0 {
				return p, nil
			}
			p.Text, p.orig = text[m[2]:m[3]], orig[m[2]:m[3]]
		} else if m := queryResultFn.FindStringSubmatchIndex(text); m != nil {
			p.Text, p.orig = text[m[2]:m[3]], orig[m[2]:m[3]]
		}
		p.Expr, err = parser.NewParser(parser.Options{}).ParseExpr(p.Text)
		if err == nil {
			return p, nil
		}
	}
	return nil, err
}

// grafanaNumbers are the macros that stand for a number.
var grafanaNumbers = map[string]bool{
	"__interval_ms": true, "__range_s": true, "__range_ms": true, "__rate_interval_ms": true,
	"__from": true, "__to": true,
}

// grafanaDurations are the macros that stand for a duration.
var grafanaDurations = map[string]bool{"__interval": true, "__rate_interval": true, "__range": true, "__auto": true}

// expand substitutes Grafana variables ($v, ${v}, ${v:fmt}, [[v]]) in one
// pass; mode 'i' puts an identifier where the place is not known, 'n' a
// number.
func expand(s string, mode byte) (string, []int) {
	var b strings.Builder
	orig := make([]int, 0, len(s))
	put := func(text string, from int) {
		b.WriteString(text)
		for i := range len(text) {
			if from < 0 {
				orig = append(orig, -1)
			} else {
				orig = append(orig, from+i)
			}
		}
	}
	var quote byte
	brackets := 0
	for i := 0; i < len(s); {
		c := s[i]
		if quote != 0 {
			if c == '\\' && quote != '`' && i+1 < len(s) {
				put(s[i:i+2], i)
				i += 2
				continue
			}
			if c == quote {
				quote = 0
			}
		} else {
			switch c {
			case '"', '\'', '`':
				quote = c
			case '[':
				if i+1 < len(s) && s[i+1] == '[' {
					if end := strings.Index(s[i+2:], "]]"); end >= 0 && isName(s[i+2:i+2+end]) {
						put(substitute(s[i+2:i+2+end], quote, brackets, mode), -1)
						i += end + 4
						continue
					}
				}
				brackets++
			case ']':
				brackets = max(brackets-1, 0)
			}
		}
		if c == '$' {
			if name, n := variable(s[i:]); n > 0 {
				put(substitute(name, quote, brackets, mode), -1)
				i += n
				continue
			}
		}
		put(s[i:i+1], i)
		i++
	}
	return b.String(), orig
}

// variable reads a variable reference at the start of s: its name and
// length (0 when there is none).
func variable(s string) (string, int) {
	if len(s) < 2 {
		return "", 0
	}
	if s[1] == '{' {
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return "", 0
		}
		name, _, _ := strings.Cut(s[2:end], ":")
		if !isName(name) {
			return "", 0
		}
		return name, end + 1
	}
	j := 1
	for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || (j > 1 && s[j] >= '0' && s[j] <= '9')) {
		j++
	}
	if j == 1 {
		return "", 0
	}
	return s[1:j], j
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func substitute(name string, quote byte, brackets int, mode byte) string {
	switch {
	case quote != 0:
		return ".*"
	case brackets > 0:
		return "5m"
	case grafanaNumbers[name]:
		return "60"
	case grafanaDurations[name]:
		return "5m"
	case mode == 'n':
		return "1"
	}
	return "grafana_var"
}
