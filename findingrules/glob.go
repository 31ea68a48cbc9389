package findingrules

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// glob matches any of a list of glob patterns (globset's syntax as Weaver
// uses it: * and ? match any character, [...] a class, {a,b} alternatives).
// Literal patterns and literal prefixes followed by one final * (the usual
// "http.*") are matched by comparison; the others by one regular
// expression.
type glob struct {
	exact, prefixes []string
	re              *regexp.Regexp // nil when every pattern is simple
}

func (g *glob) match(s string) bool {
	for _, e := range g.exact {
		if s == e {
			return true
		}
	}
	for _, p := range g.prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return g.re != nil && g.re.MatchString(s)
}

// globMeta are the characters with a meaning in a pattern.
const globMeta = "*?[]{},\\"

func compileGlobs(patterns []string) (*glob, error) {
	if len(patterns) == 0 {
		return nil, nil //nolint:nilnil // no patterns: no scope
	}
	g := &glob{}
	alts := make([]string, 0, len(patterns))
	for _, p := range patterns {
		if !strings.ContainsAny(p, globMeta) {
			g.exact = append(g.exact, p)
			continue
		}
		if lit, ok := strings.CutSuffix(p, "*"); ok && !strings.ContainsAny(lit, globMeta) {
			g.prefixes = append(g.prefixes, lit)
			continue
		}
		re, err := globRegexp(p)
		if err != nil {
			return nil, fmt.Errorf("%w %q: %w", ErrInvalidPattern, p, err)
		}
		alts = append(alts, re)
	}
	if len(alts) == 0 {
		return g, nil
	}
	re, err := regexp.Compile(`^(?:` + strings.Join(alts, "|") + `)$`)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %w", ErrInvalidPattern, patterns, err)
	}
	g.re = re
	return g, nil
}

// Glob compiles one pattern of globset's syntax as Weaver uses it (*
// and ? match any character, / included; a ** component any number of
// directories; [...] a class; {a,b} alternatives) into a regular
// expression that matches a whole string.
func Glob(pattern string) (*regexp.Regexp, error) {
	re, err := globRegexp(pattern)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %w", ErrInvalidPattern, pattern, err)
	}
	return regexp.Compile(`^(?:` + re + `)$`)
}

func globRegexp(p string) (string, error) {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '*':
			// A ** that is a whole path component (globset's recursive
			// wildcard): **/ matches zero or more leading directories,
			// /**/ zero or more directories between.
			if strings.HasPrefix(p[i:], "**/") && (i == 0 || p[i-1] == '/') {
				b.WriteString("(?:.*/)?")
				i += 2
				continue
			}
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[':
			j := strings.IndexByte(p[i+1:], ']')
			if j < 0 {
				return "", fmt.Errorf("unclosed character class")
			}
			class := p[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j + 1
		case '{':
			depth++
			b.WriteString("(?:")
		case '}':
			if depth == 0 {
				return "", fmt.Errorf("unopened alternate group")
			}
			depth--
			b.WriteString(")")
		case ',':
			if depth > 0 {
				b.WriteString("|")
			} else {
				b.WriteString(",")
			}
		default:
			r, size := utf8.DecodeRuneInString(p[i:])
			b.WriteString(regexp.QuoteMeta(string(r)))
			i += size - 1
		}
	}
	if depth > 0 {
		return "", fmt.Errorf("unclosed alternate group")
	}
	return b.String(), nil
}
