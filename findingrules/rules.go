// Package findingrules holds Weaver live-check's finding modifier: the
// finding_level_overrides and finding_filters of a .weaver.toml
// ["live-check"] section, which the governance processor's findings block
// takes too. One parser reads them for every front-end (and the older
// ID=LEVEL overrides: otelgov's --level-override, the processor's
// deprecated findings::level_overrides), and the engine applies the
// compiled Rules to each finding it counts (engine.Options.Rules).
//
// The semantics are Weaver's FindingModifier
// (crates/weaver_live_check/src/finding_modifier.rs at afa9700c): the level
// overrides first, the first that matches wins; then the filters, which see
// the overridden level and drop the finding if any of them excludes it.
// A rule's scope (signal_type, sample_names) is ANDed; an unset scope
// matches every finding, and sample_names never matches a sample without a
// name (a data point, a resource).
package findingrules // import "github.com/otelgov/otelcol-governance/findingrules"

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/otelgov/otelcol-governance/vocab"
)

// Filter is one [[live-check.finding_filters]] (the processor's
// findings::finding_filters entry): it drops, within its scope, a finding
// whose ID is in Exclude, whose level is below MinLevel, or whose sample
// name matches ExcludeSamples.
type Filter struct {
	// Exclude drops the findings with these IDs. Default: none.
	Exclude []string `mapstructure:"exclude" toml:"exclude"`
	// MinLevel drops the findings less serious than this level (after the
	// level overrides): violation, improvement or information. Default ""
	// drops none by level.
	MinLevel string `mapstructure:"min_level" toml:"min_level"`
	// ExcludeSamples drops the findings on a sample whose name matches one
	// of these globs (* ? [...] {a,b}). Default: none.
	ExcludeSamples []string `mapstructure:"exclude_samples" toml:"exclude_samples"`
	// SignalType scopes the filter to one signal: span, metric, log,
	// resource or profile. Default "": every signal.
	SignalType string `mapstructure:"signal_type" toml:"signal_type"`
	// SampleNames scopes the filter to samples whose name matches one of
	// these globs. Default: every sample.
	SampleNames []string `mapstructure:"sample_names" toml:"sample_names"`
}

// LevelOverride is one [[live-check.finding_level_overrides]] (the
// processor's findings::finding_level_overrides entry): within its scope,
// a finding whose ID is in IDs is reported at Level.
type LevelOverride struct {
	// IDs are the finding IDs the override applies to. Unset (nil): every
	// ID; an empty list: none.
	IDs []string `mapstructure:"ids" toml:"ids"`
	// Level is the level given: violation, improvement or information.
	// Required.
	Level string `mapstructure:"level" toml:"level"`
	// SignalType scopes the override to one signal: span, metric, log,
	// resource or profile. Default "": every signal.
	SignalType string `mapstructure:"signal_type" toml:"signal_type"`
	// SampleNames scopes the override to samples whose name matches one
	// of these globs. Default: every sample.
	SampleNames []string `mapstructure:"sample_names" toml:"sample_names"`
}

// Errors of Compile and Override, wrapped with the key they are about.
var (
	ErrInvalidLevel      = errors.New("invalid level")
	ErrMissingLevel      = errors.New("missing (required)")
	ErrUnknownSignalType = errors.New("unknown signal type")
	ErrInvalidPattern    = errors.New("invalid sample name pattern")
	ErrUnknownID         = errors.New("unknown finding ID")
)

// SignalTypes are the signal types a scope may name: Weaver's SignalType
// (crates/weaver_live_check/src/generated/attributes.rs).
var SignalTypes = [...]string{"span", "resource", "metric", "log", "profile"}

// Sample is what a scope sees of a finding: the signal it belongs to
// (Weaver's weaver.finding.signal.type) and the name of the sample it is
// on (an attribute's key, a span's name, a metric's name, a log's event
// name); Named is false for samples without a name.
type Sample struct {
	SignalType string
	Name       string
	Named      bool
	// ID is the finding's ID when it is not built in (an advice policy's
	// own, vocab.Catalog): rules name such IDs as strings.
	ID string
}

// Rules are compiled filters and overrides; nil means none. They are
// read-only once compiled and safe for concurrent use.
type Rules struct {
	overrides []override
	filters   []filter
	scoped    bool
	unknown   []string
}

type idSet struct {
	any bool
	in  [vocab.NumFindings]bool
	// other are the IDs that are not built in: an advice policy's own.
	other []string
}

func (s *idSet) has(f vocab.Finding, id string) bool {
	if f < vocab.NumFindings {
		return s.any || s.in[f]
	}
	return s.any || slices.Contains(s.other, id)
}

type scope struct {
	signal string
	names  *glob
}

func (sc *scope) matches(s *Sample) bool {
	if sc.signal != "" && s.SignalType != sc.signal {
		return false
	}
	return sc.names == nil || s.Named && sc.names.match(s.Name)
}

type override struct {
	scope
	ids   idSet
	level vocab.Level
}

type filter struct {
	scope
	exclude        idSet
	minLevel       vocab.Level
	hasMin         bool
	excludeSamples *glob
}

// Compile validates and compiles the rules, in Weaver's order. It returns
// nil when there are none, and an error naming the key and index
// (finding_filters[1].min_level) of a bad level, signal type or glob.
// An ID otelgov does not report is not an error (Weaver takes any ID, a
// custom policy's): it never matches, and UnknownIDs lists it.
func Compile(filters []Filter, overrides []LevelOverride) (*Rules, error) {
	if len(filters) == 0 && len(overrides) == 0 {
		return nil, nil //nolint:nilnil // no rules
	}
	r := &Rules{}
	for i := range overrides {
		o := &overrides[i]
		key := fmt.Sprintf("finding_level_overrides[%d]", i)
		if o.Level == "" {
			return nil, fmt.Errorf("%s.level: %w", key, ErrMissingLevel)
		}
		lv, err := parseLevel(key+".level", o.Level)
		if err != nil {
			return nil, err
		}
		sc, err := compileScope(key, o.SignalType, o.SampleNames)
		if err != nil {
			return nil, err
		}
		c := override{scope: sc, level: lv}
		c.ids = r.ids(key+".ids", o.IDs, o.IDs == nil)
		r.overrides = append(r.overrides, c)
	}
	for i := range filters {
		f := &filters[i]
		key := fmt.Sprintf("finding_filters[%d]", i)
		sc, err := compileScope(key, f.SignalType, f.SampleNames)
		if err != nil {
			return nil, err
		}
		c := filter{scope: sc, exclude: r.ids(key+".exclude", f.Exclude, false)}
		if f.MinLevel != "" {
			if c.minLevel, err = parseLevel(key+".min_level", f.MinLevel); err != nil {
				return nil, err
			}
			c.hasMin = true
		}
		if c.excludeSamples, err = compileGlobs(f.ExcludeSamples); err != nil {
			return nil, fmt.Errorf("%s.exclude_samples: %w", key, err)
		}
		if c.excludeSamples != nil {
			r.scoped = true
		}
		r.filters = append(r.filters, c)
	}
	return r, nil
}

func (r *Rules) ids(key string, ids []string, anyID bool) idSet {
	s := idSet{any: anyID}
	for _, id := range ids {
		f, ok := vocab.ParseFinding(id)
		if !ok {
			r.unknown = append(r.unknown, fmt.Sprintf("%s: %q", key, id))
			s.other = append(s.other, id)
			continue
		}
		s.in[f] = true
	}
	return s
}

func compileScope(key, signal string, names []string) (scope, error) {
	if signal != "" && !slices.Contains(SignalTypes[:], signal) {
		return scope{}, fmt.Errorf("%s.signal_type: %w %q: want %s", key, ErrUnknownSignalType, signal, strings.Join(SignalTypes[:], ", "))
	}
	g, err := compileGlobs(names)
	if err != nil {
		return scope{}, fmt.Errorf("%s.sample_names: %w", key, err)
	}
	return scope{signal: signal, names: g}, nil
}

func parseLevel(key, s string) (vocab.Level, error) {
	l, ok := vocab.ParseLevel(s)
	if !ok {
		return 0, fmt.Errorf("%s: %w %q: want violation, improvement or information", key, ErrInvalidLevel, s)
	}
	return l, nil
}

// UnknownIDs lists the IDs, with their keys, that name no built-in
// finding: rules on them match only an advice policy's findings of that ID
// (Sample.ID).
func (r *Rules) UnknownIDs() []string {
	if r == nil {
		return nil
	}
	return r.unknown
}

// Scoped reports whether a rule depends on the sample (signal_type,
// sample_names or exclude_samples): the engine then applies the rules per
// finding, with the finding's Sample; otherwise once per ID (Table).
func (r *Rules) Scoped() bool {
	if r == nil {
		return false
	}
	if r.scoped {
		return true
	}
	for i := range r.overrides {
		if r.overrides[i].signal != "" || r.overrides[i].names != nil {
			return true
		}
	}
	for i := range r.filters {
		if r.filters[i].signal != "" || r.filters[i].names != nil {
			return true
		}
	}
	return false
}

// Apply returns the level of finding f, reported at lv before the rules, on
// sample s, and whether the filters keep it.
func (r *Rules) Apply(f vocab.Finding, lv vocab.Level, s *Sample) (vocab.Level, bool) {
	for i := range r.overrides {
		o := &r.overrides[i]
		if o.ids.has(f, s.ID) && o.matches(s) {
			lv = o.level
			break
		}
	}
	for i := range r.filters {
		c := &r.filters[i]
		if !c.matches(s) {
			continue
		}
		if c.exclude.has(f, s.ID) ||
			c.hasMin && lv > c.minLevel || // levels are ordered most serious first
			c.excludeSamples != nil && s.Named && c.excludeSamples.match(s.Name) {
			return lv, false
		}
	}
	return lv, true
}

// Table applies rules without scope to every built-in ID at once: each
// one's level and whether it is kept, starting from vocab.DefaultLevel.
// It must not be used when Scoped.
func (r *Rules) Table() (levels [vocab.NumFindings]vocab.Level, keep [vocab.NumFindings]bool) {
	var none Sample
	for f := range vocab.NumFindings {
		levels[f], keep[f] = vocab.DefaultLevel(f), true
		if r != nil {
			levels[f], keep[f] = r.Apply(f, levels[f], &none)
		}
	}
	return levels, keep
}

// Override is an unscoped override of one ID: the older ID=LEVEL form
// (--level-override, the processor's deprecated findings::level_overrides).
// The ID must be one otelgov reports or one an advice policy may report
// (PolicyID; then listed by UnknownIDs, which a front-end without policies
// refuses); key names the setting in errors.
func Override(key, id, level string) (LevelOverride, error) {
	if _, ok := vocab.ParseFinding(id); !ok && !PolicyID(id) {
		return LevelOverride{}, fmt.Errorf("%s: %w %q", key, ErrUnknownID, id)
	}
	if _, err := parseLevel(key+"."+id, level); err != nil {
		return LevelOverride{}, err
	}
	return LevelOverride{IDs: []string{id}, Level: level}, nil
}

// PolicyID reports whether id can be an advice policy's own finding ID:
// not built in, Weaver's name format, at most vocab.MaxFindingIDLength
// bytes.
func PolicyID(id string) bool {
	_, builtin := vocab.ParseFinding(id)
	return !builtin && len(id) <= vocab.MaxFindingIDLength && vocab.ValidName(id)
}

// ParseOverride parses one ID=LEVEL override.
func ParseOverride(key, s string) (LevelOverride, error) {
	id, level, ok := strings.Cut(s, "=")
	if !ok {
		return LevelOverride{}, fmt.Errorf("%s: want FINDING_ID=LEVEL, got %q", key, s)
	}
	return Override(key, id, level)
}

// OverridesOf turns an ID -> level map (the processor's deprecated
// findings::level_overrides) into overrides, in ID order.
func OverridesOf(key string, m map[string]string) ([]LevelOverride, error) {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := make([]LevelOverride, 0, len(ids))
	for _, id := range ids {
		o, err := Override(key, id, m[id])
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}
