package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/otelgov/otelcol-governance/checker"
	"github.com/otelgov/otelcol-governance/conformance"
	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/findingrules"
	"github.com/otelgov/otelcol-governance/vocab"
)

// engineFlags are the processor's mode keys as flags.
type engineFlags struct {
	deprecated    string
	unknown       string
	typeMismatch  string
	enumViolation string
	allowKeys     []string
	allowPrefixes []string
	include       []string // key=v1,v2
	overrides     []string // FINDING_ID=LEVEL
	profile       string   // findings profile; "" where not bound: weaver
	v2            bool     // Weaver's --v2
}

func (e *engineFlags) bindAllow(fs *pflag.FlagSet) {
	fs.StringArrayVar(&e.allowKeys, "allow-keys", nil, "keys not in the registry that count as allowed (repeatable)")
	fs.StringArrayVar(&e.allowPrefixes, "allow-prefixes", nil, `key prefixes that count as allowed, e.g. "acme." (repeatable)`)
	fs.StringArrayVar(&e.include, "include-resources", nil, `govern only resources with this attribute, e.g. "k8s.namespace.name=shop,cart" (repeatable; every key must match)`)
}

// bindLevelOverrides binds --profile and --level-override, the processor's
// findings::profile, findings::v2 and (unscoped) findings::finding_level_overrides.
func (e *engineFlags) bindLevelOverrides(fs *pflag.FlagSet) {
	fs.StringVar(&e.profile, "profile", vocab.ProfileWeaver.String(), `findings: "weaver" (exactly Weaver live-check's) or "extended" (adds v1 span matchers, unexpected_attribute on v1 groups, span events as events, service.name on resources); the processor's findings::profile`)
	fs.BoolVar(&e.v2, "v2", false, `check as Weaver's live-check --v2 does: the registry is read as Weaver's v2 schema, where a definition that states no stability is in development (not_stable); otherwise the same findings (default: [registry] v2 of .weaver.toml, else false; --v2=false overrides the file; the processor's findings::v2)`)
	fs.StringArrayVar(&e.overrides, "level-override", nil, `count a Weaver finding ID at another level, e.g. "missing_attribute=improvement" (repeatable; an unscoped entry of the processor's findings::finding_level_overrides, applied before the .weaver.toml's)`)
}

// bindModes binds the mode flags, with deprecated's default.
func (e *engineFlags) bindModes(fs *pflag.FlagSet, deprecated, usage string) {
	fs.StringVar(&e.deprecated, "deprecated", deprecated, usage)
	fs.StringVar(&e.unknown, "unknown", string(engine.UnknownKeep), "unknown keys: keep or drop")
	fs.StringVar(&e.typeMismatch, "type-mismatch", string(engine.TypeMismatchKeep), "values of the wrong type: keep, drop or coerce")
	fs.StringVar(&e.enumViolation, "enum-violation", string(engine.EnumViolationKeep), "values outside a closed enum: keep or drop")
}

// options validates the modes like the processor's Validate.
func (e *engineFlags) options() (engine.Options, error) {
	o := engine.Options{
		Deprecated:    engine.DeprecatedMode(e.deprecated),
		Unknown:       engine.UnknownMode(e.unknown),
		TypeMismatch:  engine.TypeMismatchMode(e.typeMismatch),
		EnumViolation: engine.EnumViolationMode(e.enumViolation),
		AllowKeys:     e.allowKeys,
		AllowPrefixes: e.allowPrefixes,
		V2:            e.v2,
	}
	if o.Deprecated == "" {
		o.Deprecated = engine.DeprecatedOff
	}
	if o.Unknown == "" {
		o.Unknown = engine.UnknownKeep
	}
	if o.TypeMismatch == "" {
		o.TypeMismatch = engine.TypeMismatchKeep
	}
	if o.EnumViolation == "" {
		o.EnumViolation = engine.EnumViolationKeep
	}
	switch o.Deprecated {
	case engine.DeprecatedRename, engine.DeprecatedCopy, engine.DeprecatedOff:
	default:
		return o, badInput(fmt.Errorf("--deprecated: invalid mode %q: want rename, copy or off", o.Deprecated))
	}
	switch o.Unknown {
	case engine.UnknownKeep, engine.UnknownDrop:
	default:
		return o, badInput(fmt.Errorf("--unknown: invalid mode %q: want keep or drop", o.Unknown))
	}
	switch o.TypeMismatch {
	case engine.TypeMismatchKeep, engine.TypeMismatchDrop, engine.TypeMismatchCoerce:
	default:
		return o, badInput(fmt.Errorf("--type-mismatch: invalid mode %q: want keep, drop or coerce", o.TypeMismatch))
	}
	switch o.EnumViolation {
	case engine.EnumViolationKeep, engine.EnumViolationDrop:
	default:
		return o, badInput(fmt.Errorf("--enum-violation: invalid mode %q: want keep or drop", o.EnumViolation))
	}
	for _, kv := range e.include {
		k, vs, ok := strings.Cut(kv, "=")
		if !ok || k == "" || vs == "" {
			return o, badInput(fmt.Errorf("--include-resources: want key=value[,value...], got %q", kv))
		}
		if o.IncludeResources == nil {
			o.IncludeResources = map[string][]string{}
		}
		o.IncludeResources[k] = append(o.IncludeResources[k], strings.Split(vs, ",")...)
	}
	if e.profile != "" {
		p, ok := vocab.ParseProfile(e.profile)
		if !ok {
			return o, badInput(fmt.Errorf("--profile: unknown profile %q: want weaver or extended", e.profile))
		}
		o.Profile = p
	}
	if _, err := e.levelOverrides(); err != nil {
		return o, err
	}
	for _, k := range append(append([]string{}, o.AllowKeys...), o.AllowPrefixes...) {
		if k == "" {
			return o, badInput(fmt.Errorf("--allow-keys/--allow-prefixes: entries must not be empty"))
		}
	}
	return o, nil
}

// levelOverrides parses --level-override ID=LEVEL as unscoped
// finding_level_overrides, in the order given.
func (e *engineFlags) levelOverrides() ([]findingrules.LevelOverride, error) {
	out := make([]findingrules.LevelOverride, 0, len(e.overrides))
	for _, kv := range e.overrides {
		o, err := findingrules.ParseOverride("--level-override", kv)
		if err != nil {
			return nil, badInput(err)
		}
		out = append(out, o)
	}
	return out, nil
}

// reportFlags select the output and the failing level.
type reportFlags struct {
	format      string
	failOn      string
	maxServices int
	topKeys     int
}

func (r *reportFlags) bind(fs *pflag.FlagSet) {
	fs.StringVar(&r.format, "format", checker.FormatText, "output: text, json (the /conformance document), junit, markdown, weaver (the JSON of weaver registry live-check --format json) or weaver-jsonl (its --format jsonl)")
	fs.StringVar(&r.failOn, "fail-on", "violation", "exit 1 on a finding whose level (Weaver's, after --level-override) is at or above: violation, improvement, information or none")
	fs.IntVar(&r.maxServices, "max-services", 1000, "services listed separately in the report; later ones count under _other")
	fs.IntVar(&r.topKeys, "top-keys", 100, "names listed per service and finding ID (and unknown and deprecated keys) in the report")
}

func (r *reportFlags) parse() (checker.FailOn, conformance.Limits, error) {
	if !checker.ValidFormat(r.format) {
		return checker.FailOn{}, conformance.Limits{}, badInput(fmt.Errorf("--format: unknown format %q: want text, json, junit, markdown, weaver or weaver-jsonl", r.format))
	}
	l, err := checker.ParseFailOn(r.failOn)
	if err != nil {
		return checker.FailOn{}, conformance.Limits{}, badInput(fmt.Errorf("--fail-on: %w", err))
	}
	if r.maxServices < 0 || r.topKeys < 0 {
		return checker.FailOn{}, conformance.Limits{}, badInput(fmt.Errorf("--max-services and --top-keys must not be negative"))
	}
	return l, conformance.Limits{MaxServices: r.maxServices, TopKeys: r.topKeys}, nil
}

// parseKind parses --signal: traces, metrics, logs, or "" (detected).
func parseKind(s string) (vocab.Kind, error) {
	if s == "" {
		return vocab.KindUnknown, nil
	}
	k, ok := vocab.ParseKind(s)
	if !ok {
		return vocab.KindUnknown, fmt.Errorf("unknown signal %q: want traces, metrics or logs", s)
	}
	return k, nil
}
