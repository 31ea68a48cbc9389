package checker

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/otelgov/otelcol-governance/vocab"
)

// FindingFilter is one of Weaver's [[live-check.finding_filters]]: it drops
// a finding in its scope whose ID is in Exclude, whose level is below
// MinLevel, or whose sample name matches ExcludeSamples.
type FindingFilter struct {
	Exclude        []string
	MinLevel       *vocab.Level
	SignalType     string   // scope: "" any
	ExcludeSamples []string // globs
	SampleNames    []string // scope: globs; empty any
}

// FindingLevelOverride is one of Weaver's
// [[live-check.finding_level_overrides]]: it sets the level of a finding in
// its scope whose ID is in IDs (any ID when IDs is nil).
type FindingLevelOverride struct {
	IDs         []string
	Level       vocab.Level
	SignalType  string
	SampleNames []string
}

// Modifier is Weaver's FindingModifier
// (crates/weaver_live_check/src/finding_modifier.rs): the level overrides
// first (the first that matches wins), then the filters, which see the
// overridden level.
type Modifier struct {
	overrides []compiledOverride
	filters   []compiledFilter
}

type compiledOverride struct {
	FindingLevelOverride
	names *glob
}

type compiledFilter struct {
	FindingFilter
	names, excludeSamples *glob
}

// NewModifier compiles the rules; it returns nil when there are none, and
// an error naming the bad glob pattern.
func NewModifier(filters []FindingFilter, overrides []FindingLevelOverride) (*Modifier, error) {
	if len(filters) == 0 && len(overrides) == 0 {
		return nil, nil //nolint:nilnil // no rules: no modifier
	}
	m := &Modifier{}
	for _, o := range overrides {
		g, err := compileGlobs(o.SampleNames)
		if err != nil {
			return nil, err
		}
		m.overrides = append(m.overrides, compiledOverride{FindingLevelOverride: o, names: g})
	}
	for _, f := range filters {
		g, err := compileGlobs(f.SampleNames)
		if err != nil {
			return nil, err
		}
		x, err := compileGlobs(f.ExcludeSamples)
		if err != nil {
			return nil, err
		}
		m.filters = append(m.filters, compiledFilter{FindingFilter: f, names: g, excludeSamples: x})
	}
	return m, nil
}

// Scoped reports whether a rule depends on the sample (signal_type,
// sample_names or exclude_samples): such rules need the per-sample
// findings of --format weaver, not the aggregate of the other formats.
func (m *Modifier) Scoped() bool {
	if m == nil {
		return false
	}
	for i := range m.overrides {
		if m.overrides[i].SignalType != "" || m.overrides[i].names != nil {
			return true
		}
	}
	for i := range m.filters {
		f := &m.filters[i]
		if f.SignalType != "" || f.names != nil || f.excludeSamples != nil {
			return true
		}
	}
	return false
}

// scope is Weaver's scope_matches: signal_type and sample_names, ANDed;
// an unset scope matches everything, a sample without a name matches no
// sample_names.
func scope(signalType string, names *glob, f *WeaverFinding) bool {
	if signalType != "" && (f.SignalType == nil || *f.SignalType != signalType) {
		return false
	}
	return names == nil || f.named && names.match(f.sampleName)
}

// Apply overrides f's level and reports whether the filters keep it.
func (m *Modifier) Apply(f *WeaverFinding) bool {
	for i := range m.overrides {
		o := &m.overrides[i]
		if scope(o.SignalType, o.names, f) && (o.IDs == nil || slices.Contains(o.IDs, f.ID)) {
			f.level, f.Level = o.Level, o.Level.String()
			break
		}
	}
	for i := range m.filters {
		c := &m.filters[i]
		if !scope(c.SignalType, c.names, f) {
			continue
		}
		if slices.Contains(c.Exclude, f.ID) ||
			c.MinLevel != nil && f.level > *c.MinLevel || // the engine orders levels most serious first
			c.excludeSamples != nil && f.named && c.excludeSamples.match(f.sampleName) {
			return false
		}
	}
	return true
}

// FilterResult applies unscoped rules (no signal_type, sample_names or
// exclude_samples) to an aggregate result: a finding ID relevelled or
// dropped in every service. It returns an error when a rule is scoped,
// since the aggregate cannot tell samples apart.
func (m *Modifier) FilterResult(r *Result) error {
	if m == nil {
		return nil
	}
	if m.Scoped() {
		return fmt.Errorf("finding_filters or finding_level_overrides with signal_type, sample_names or exclude_samples need the per-sample report: use --format weaver")
	}
	for si := range r.Services {
		s := &r.Services[si]
		kept := s.Findings[:0]
		for _, fd := range s.Findings {
			wf := WeaverFinding{ID: fd.ID, Level: fd.Level, level: fd.level}
			if !m.Apply(&wf) {
				if ds := r.Document.Services; si < len(ds) {
					delete(ds[si].Findings, fd.ID)
				}
				continue
			}
			fd.Level, fd.level = wf.Level, wf.level
			if ds := r.Document.Services; si < len(ds) {
				if e, ok := ds[si].Findings[fd.ID]; ok {
					e.Level = wf.Level
					ds[si].Findings[fd.ID] = e
				}
			}
			kept = append(kept, fd)
		}
		s.Findings = kept
	}
	return nil
}

// glob matches any of a list of glob patterns (globset's syntax as Weaver
// uses it: * and ? match any character, [...] a class, {a,b} alternatives).
type glob struct{ re *regexp.Regexp }

func (g *glob) match(s string) bool { return g.re.MatchString(s) }

func compileGlobs(patterns []string) (*glob, error) {
	if len(patterns) == 0 {
		return nil, nil //nolint:nilnil // no patterns: no scope
	}
	alts := make([]string, 0, len(patterns))
	for _, p := range patterns {
		re, err := globRegexp(p)
		if err != nil {
			return nil, fmt.Errorf("invalid sample name pattern %q: %w", p, err)
		}
		alts = append(alts, re)
	}
	re, err := regexp.Compile(`^(?:` + strings.Join(alts, "|") + `)$`)
	if err != nil {
		return nil, fmt.Errorf("invalid sample name patterns %q: %w", patterns, err)
	}
	return &glob{re: re}, nil
}

func globRegexp(p string) (string, error) {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '*':
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
