package governanceprocessor // import "github.com/otelgov/otelcol-governance/processor/governanceprocessor"

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/component"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/findingrules"
	"github.com/otelgov/otelcol-governance/policy"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// Sentinel errors returned by Validate; tests match them with errors.Is.
var (
	errInvalidMode      = errors.New("invalid mode")
	errRegistryPath     = errors.New("registry path not found")
	errRegistryLoad     = errors.New("registry does not load")
	errNoRegistry       = errors.New("no registry source")
	errNegativeLimit    = errors.New("must not be negative")
	errEmptyAllow       = errors.New("allow entries must not be empty")
	errEmptyClosedEnum  = errors.New("entries must not be empty")
	errEmptyIncludeList = errors.New("needs at least one value")
	errExtensionSources = errors.New("cannot be combined with semconv_dir, org_registries or rules_files")
	errNeedsFindings    = errors.New("needs findings::enabled")
	errUnknownProfile   = errors.New("unknown findings profile")
	errNotPositive      = errors.New("must be positive")
	errPoliciesOwned    = errors.New("cannot be combined with registry::extension")
	errNotDeprecated    = errors.New("not a deprecated attribute key or metric name of the registry")
	errTooManyNames     = errors.New("too many names")
	errOutOfRange       = errors.New("out of range")
)

// config is the configuration of the governance processor.
type config struct {
	// Registry says which semantic-convention registries are in force.
	// Default: the embedded semantic conventions and shipped context rules.
	Registry registryConfig `mapstructure:"registry"`

	// Deprecated is what happens to deprecated attribute keys and metric
	// names that have a current name: rename, copy or off. Default: rename.
	// The zero value "" is invalid.
	Deprecated engine.DeprecatedMode `mapstructure:"deprecated"`

	// DeprecatedNames gives single deprecated names their own mode, which
	// replaces Deprecated for them: a map from a deprecated attribute key
	// or metric name (the old name) to rename, copy or off. Its use is an
	// upgrade's transition window (otelgov upgrade plan writes it): copy
	// exactly the names the new registry renames, so that consumers reading
	// the old names keep working, and rename the rest. Each name must be
	// one the registry deprecates (checked when the processor loads its own
	// registry; with registry::extension a name the registry does not
	// deprecate never matches). The listed names are also counted per
	// service (processor_governance_service_deprecated_names), at most
	// max_deprecated_names of them. Default: empty (every deprecated name
	// follows Deprecated).
	DeprecatedNames map[string]engine.DeprecatedMode `mapstructure:"deprecated_names"`

	// Unknown is what happens to keys the registry does not define and that
	// Allow does not list: keep or drop. Default: keep. The zero value "" is
	// invalid.
	Unknown engine.UnknownMode `mapstructure:"unknown"`

	// Allow lists extra keys and key prefixes that count as allowed rather
	// than unknown. Default: empty.
	Allow allowConfig `mapstructure:"allow"`

	// TypeMismatch is what happens to a value of the wrong type: keep, drop
	// or coerce. Default: keep. The zero value "" is invalid.
	TypeMismatch engine.TypeMismatchMode `mapstructure:"type_mismatch"`

	// EnumViolation is what happens to a value outside a closed enum (one
	// listed in ClosedEnums): keep or drop. Default: keep. The zero value ""
	// is invalid. Enums not listed in ClosedEnums are open: a value outside
	// their members is counted undefined_enum_variant and never dropped,
	// whatever EnumViolation says.
	EnumViolation engine.EnumViolationMode `mapstructure:"enum_violation"`

	// ClosedEnums lists the enum attributes whose members are the only
	// allowed values; only these can be an enum_violation and only these are
	// dropped by enum_violation: drop. Default: empty (every enum is open,
	// as in the semantic conventions).
	ClosedEnums []string `mapstructure:"closed_enums"`

	// IncludeResources restricts the processor to resources whose attributes
	// match: every key listed must be present with one of the listed string
	// values. Other resources pass through untouched and uncounted.
	// Default: empty, which governs all telemetry.
	IncludeResources map[string][]string `mapstructure:"include_resources"`

	// ServiceLimit bounds the number of distinct service.name values in the
	// per-service conformance metric; later services are counted under
	// "_other". Default: 100. Zero counts every service under "_other".
	ServiceLimit int `mapstructure:"service_limit"`

	// Findings configures the signal conformance checks, which report Weaver
	// live-check findings. Default: enabled, Weaver's levels, nothing
	// dropped.
	Findings findingsConfig `mapstructure:"findings"`

	// Shadow samples the batches on which the registry extension's
	// candidate registry (its candidate section) is evaluated, read-only.
	// It applies only with registry::extension and a candidate there;
	// otherwise nothing is sampled and nothing costs.
	Shadow shadowConfig `mapstructure:"shadow"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// shadowConfig bounds the candidate registry's evaluation.
type shadowConfig struct {
	// SampleEvery evaluates the candidate on one batch in SampleEvery
	// (per pipeline signal). Default: 100. 1 evaluates every batch, within
	// max_batches_per_second. At least 1.
	SampleEvery int `mapstructure:"sample_every"`

	// MaxBatchesPerSecond caps the sampled batches per second (per
	// pipeline signal; a token bucket with a burst of the same size).
	// Default: 10. At least 1, at most 10000.
	MaxBatchesPerSecond int `mapstructure:"max_batches_per_second"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// maxShadowPerSecond bounds shadow::max_batches_per_second.
const maxShadowPerSecond = 10_000

// validate checks the sample's bounds; config.Validate calls it, so that
// every line of a joined error names its full key.
func (s *shadowConfig) validate() []error {
	var errs []error
	if s.SampleEvery < 1 {
		errs = append(errs, fmt.Errorf("shadow::sample_every: %w, got %d", errNotPositive, s.SampleEvery))
	}
	if s.MaxBatchesPerSecond < 1 || s.MaxBatchesPerSecond > maxShadowPerSecond {
		errs = append(errs, fmt.Errorf("shadow::max_batches_per_second: %w: %d, want 1 to %d", errOutOfRange, s.MaxBatchesPerSecond, maxShadowPerSecond))
	}
	return errs
}

// findingsConfig configures the signal conformance checks.
type findingsConfig struct {
	// Enabled checks every metric, log event, matched span and resource
	// against its registry definition and counts Weaver live-check
	// findings. Default: true. False leaves only the per-attribute outcomes.
	Enabled bool `mapstructure:"enabled"`

	// Profile chooses the findings: "weaver" reports exactly what Weaver's
	// live-check reports for the same registry and telemetry; "extended"
	// adds this processor's extensions (span definitions selected by v1
	// span matchers, unexpected_attribute on v1 groups, span events checked
	// as events, service.name required on resources). Default: "weaver".
	// drop_unexpected_attributes guards in either profile.
	Profile string `mapstructure:"profile"`

	// FindingLevelOverrides are Weaver's [[live-check.finding_level_overrides]]
	// (same keys: ids, level, signal_type, sample_names): within its scope,
	// a finding whose ID is listed is counted at level. Applied in order,
	// before the filters; the first that matches wins. Default: none
	// (Weaver's levels).
	FindingLevelOverrides []findingrules.LevelOverride `mapstructure:"finding_level_overrides"`

	// FindingFilters are Weaver's [[live-check.finding_filters]] (same
	// keys: exclude, min_level, exclude_samples, signal_type,
	// sample_names): a finding a filter drops is neither counted on :8888
	// nor reported nor logged. Default: none (every finding kept).
	FindingFilters []findingrules.Filter `mapstructure:"finding_filters"`

	// LevelOverrides maps Weaver finding IDs to a level.
	//
	// Deprecated: use finding_level_overrides (each entry is one
	// {ids: [ID], level: LEVEL}, applied after those). Still read for one
	// release, with a warning at start. With policies (Policies, or a
	// registry extension's), IDs may be the policies' own. Default: empty.
	LevelOverrides map[string]string `mapstructure:"level_overrides"`

	// V2 checks as Weaver's live-check with --v2 (at afa9700c): the
	// registry is read as Weaver's v2 schema, in which a definition that
	// states no stability is in development, so its attributes, metrics
	// and events get not_stable. Every other finding is the same in both
	// modes, and the semantic conventions state every stability: only a
	// registry that leaves stability out sees a difference. Default: false
	// (Weaver's default).
	V2 bool `mapstructure:"v2"`

	// DropUnexpectedAttributes removes data-point attributes that are not
	// part of a registry metric's attribute set (unexpected_attribute), a
	// guard against cardinality bombs such as user.id on
	// http.server.request.duration. Metrics the registry does not define
	// keep their attributes. Drops are counted with reason unexpected.
	// Default: false (only counted).
	DropUnexpectedAttributes bool `mapstructure:"drop_unexpected_attributes"`

	// Policies are directories of Weaver's Rego advice policies (package
	// live_check_advice, *.rego), evaluated on every sample next to the
	// built-in findings; their findings carry the policies' own IDs
	// (processor_governance_policy_findings). With registry::extension,
	// the extension's policies apply and this must be empty. A policy that
	// does not compile fails validation, naming its file and line.
	// Default: empty (none).
	Policies []string `mapstructure:"policies"`

	// AdviceData is Weaver's advice_data (--advice-data): a glob pattern
	// of JSON and YAML files added to the policies' data, each nested by
	// its path relative to the pattern's base directory (schemas/**/*.json
	// puts schemas/user.json at data.user), before the preprocessor's
	// result. Read when the processor is created; a file that does not
	// parse fails validation, naming the file and line. Needs policies.
	// Default: "" (none).
	AdviceData string `mapstructure:"advice_data"`

	// AdvicePreprocessor is Weaver's advice_preprocessor
	// (--advice-preprocessor): a jq program run once per registry load on
	// Weaver's live-checker document, whose result (an object) replaces
	// Weaver's default data. One that does not compile fails validation,
	// naming the file, line and column; a run is bounded (10s, 64 MiB of
	// result). Needs policies. Default: "" (Weaver's default data).
	AdvicePreprocessor string `mapstructure:"advice_preprocessor"`

	// PolicyBudgetPerSecond bounds the evaluations of value-dependent
	// policies (those that read values) per second, per pipeline signal;
	// the samples beyond it are skipped for them and counted
	// (processor_governance_policy_budget_skips). Value-free policies are
	// memoized and not budgeted. Default: 1000. Must be positive.
	PolicyBudgetPerSecond int `mapstructure:"policy_budget_per_second"`

	// Logs emits a rate-limited sample of the findings as OTLP log records
	// named weaver.live_check.finding, with Weaver's weaver.finding.*
	// attributes, into the logs pipelines this processor is in. Default:
	// disabled.
	Logs findingLogsConfig `mapstructure:"logs"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// findingLogsConfig configures findings as log records.
type findingLogsConfig struct {
	// Enabled turns the records on. Default: false.
	Enabled bool `mapstructure:"enabled"`
	// MaxPerSecond bounds the records per second over the traces, metrics
	// and logs pipelines of this processor, and the records waiting for the
	// next logs batch. Default: 100. Must be positive when enabled.
	MaxPerSecond int `mapstructure:"max_per_second"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// Validate checks finding IDs and levels.
func (f *findingsConfig) Validate() error {
	var errs []error
	if _, ok := vocab.ParseProfile(f.Profile); !ok {
		errs = append(errs, fmt.Errorf("profile: %w %q, want weaver or extended", errUnknownProfile, f.Profile))
	}
	if _, err := f.rules(); err != nil {
		errs = append(errs, err)
	}
	if f.DropUnexpectedAttributes && !f.Enabled {
		errs = append(errs, fmt.Errorf("drop_unexpected_attributes: %w", errNeedsFindings))
	}
	if f.Logs.Enabled && !f.Enabled {
		errs = append(errs, fmt.Errorf("logs::enabled: %w", errNeedsFindings))
	}
	if f.Logs.Enabled && f.Logs.MaxPerSecond <= 0 {
		errs = append(errs, fmt.Errorf("logs::max_per_second: %w, got %d", errNotPositive, f.Logs.MaxPerSecond))
	}
	if len(f.Policies) > 0 && !f.Enabled {
		errs = append(errs, fmt.Errorf("policies: %w", errNeedsFindings))
	}
	if f.PolicyBudgetPerSecond <= 0 {
		errs = append(errs, fmt.Errorf("policy_budget_per_second: %w, got %d", errNotPositive, f.PolicyBudgetPerSecond))
	}
	if err := checkPolicies(f.policySources()); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// profile returns the validated profile.
func (f *findingsConfig) profile() vocab.Profile {
	p, _ := vocab.ParseProfile(f.Profile)
	return p
}

// rules compiles finding_level_overrides, then the deprecated
// level_overrides, and finding_filters. An ID that is not built in is
// listed by UnknownIDs: Config.Validate refuses it unless policies, which
// may report it, apply.
func (f *findingsConfig) rules() (*findingrules.Rules, error) {
	old, err := findingrules.OverridesOf("level_overrides", f.LevelOverrides)
	if err != nil {
		return nil, err
	}
	overrides := append(slices.Clip(f.FindingLevelOverrides), old...)
	r, err := findingrules.Compile(f.FindingFilters, overrides)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// registryConfig says where the registry comes from: the processor's own
// sources, or a governance_registry extension.
type registryConfig struct {
	// Extension is the ID of a governance_registry extension that supplies
	// the registry, reloads it when its files change, and receives this
	// processor's conformance report. Every processor naming the same
	// extension shares its registry. The processor's own sources must then
	// be left at their defaults. Default: unset (the processor loads its own
	// registry once, at start).
	Extension *component.ID `mapstructure:"extension"`

	// Embedded loads the semantic conventions and context rules compiled into
	// the binary. Default: true. False requires SemconvDir or OrgRegistries.
	Embedded bool `mapstructure:"embedded"`

	// SemconvDir is a semantic-conventions checkout (holding model/ and
	// optionally schemas/) that replaces the embedded conventions; Embedded
	// is then ignored. Default: "" (none).
	SemconvDir string `mapstructure:"semconv_dir"`

	// OrgRegistries are organisation registry directories or manifest files
	// loaded on top of the semantic conventions. Default: empty.
	OrgRegistries []string `mapstructure:"org_registries"`

	// RulesFiles are extra context-rule files. Default: empty.
	RulesFiles []string `mapstructure:"rules_files"`

	// validated is the registry Validate resolved, which load returns
	// (`otelcol` validates the configuration right before it creates the
	// components, so the registry is resolved once per start). Validate
	// writes it before the factory reads it, on the collector's start
	// goroutine: no lock.
	validated *registry.Index

	// prevent unkeyed literal initialization
	_ struct{}
}

// allowConfig lists keys that are not in the registry but are accepted.
type allowConfig struct {
	// Keys are exact attribute keys. Default: empty.
	Keys []string `mapstructure:"keys"`
	// Prefixes are key prefixes, matched as plain string prefixes, so write
	// the trailing dot yourself ("acme."). Default: empty.
	Prefixes []string `mapstructure:"prefixes"`

	// prevent unkeyed literal initialization
	_ struct{}
}

var _ component.Config = (*config)(nil)

// Validate checks the top-level options. The collector validates the nested
// sections (registry, allow) through their own Validate methods.
func (cfg *config) Validate() error {
	var errs []error
	switch cfg.Deprecated {
	case engine.DeprecatedRename, engine.DeprecatedCopy, engine.DeprecatedOff:
	default:
		errs = append(errs, fmt.Errorf("deprecated: %w %q, want rename, copy or off", errInvalidMode, cfg.Deprecated))
	}
	errs = append(errs, cfg.validateDeprecatedNames()...)
	switch cfg.Unknown {
	case engine.UnknownKeep, engine.UnknownDrop:
	default:
		errs = append(errs, fmt.Errorf("unknown: %w %q, want keep or drop", errInvalidMode, cfg.Unknown))
	}
	switch cfg.TypeMismatch {
	case engine.TypeMismatchKeep, engine.TypeMismatchDrop, engine.TypeMismatchCoerce:
	default:
		errs = append(errs, fmt.Errorf("type_mismatch: %w %q, want keep, drop or coerce", errInvalidMode, cfg.TypeMismatch))
	}
	switch cfg.EnumViolation {
	case engine.EnumViolationKeep, engine.EnumViolationDrop:
	default:
		errs = append(errs, fmt.Errorf("enum_violation: %w %q, want keep or drop", errInvalidMode, cfg.EnumViolation))
	}
	for i, k := range cfg.ClosedEnums {
		if strings.TrimSpace(k) == "" {
			errs = append(errs, fmt.Errorf("closed_enums[%d]: %w", i, errEmptyClosedEnum))
		}
	}
	if cfg.ServiceLimit < 0 {
		errs = append(errs, fmt.Errorf("service_limit: %w, got %d", errNegativeLimit, cfg.ServiceLimit))
	}
	errs = append(errs, cfg.Shadow.validate()...)
	for k, vs := range cfg.IncludeResources {
		if len(vs) == 0 {
			errs = append(errs, fmt.Errorf("include_resources: %q: %w", k, errEmptyIncludeList))
		}
	}
	policies := len(cfg.Findings.Policies) > 0 || cfg.Registry.Extension != nil
	if !policies {
		// Without policies no finding of another ID can be counted.
		var unknown []string
		for _, id := range slices.Sorted(maps.Keys(cfg.Findings.LevelOverrides)) {
			if findingrules.PolicyID(id) {
				unknown = append(unknown, fmt.Sprintf("level_overrides: %q", id))
			}
		}
		if r, err := findingrules.Compile(cfg.Findings.FindingFilters, cfg.Findings.FindingLevelOverrides); err == nil {
			unknown = append(unknown, r.UnknownIDs()...)
		}
		if len(unknown) > 0 {
			errs = append(errs, fmt.Errorf("findings: %s: %w (not built in, and no policies)", strings.Join(unknown, ", "), findingrules.ErrUnknownID))
		}
	}
	if cfg.Registry.Extension != nil {
		for key, set := range map[string]bool{
			policy.KeyPolicies: len(cfg.Findings.Policies) > 0, policy.KeyData: cfg.Findings.AdviceData != "",
			policy.KeyPreprocessor: cfg.Findings.AdvicePreprocessor != "",
		} {
			if set {
				errs = append(errs, fmt.Errorf("findings::%s: %w: the extension %q owns the policies and their inputs (its %s key)", key, errPoliciesOwned, cfg.Registry.Extension.String(), key))
			}
		}
	}
	return errors.Join(errs...)
}

// maxDeprecatedNames bounds deprecated_names, and with it the series of
// processor_governance_service_deprecated_names per service.
const maxDeprecatedNames = 1024

// validateDeprecatedNames checks deprecated_names: valid modes, at most
// maxDeprecatedNames names, and each one the registry deprecates (when the
// processor loads its own registry and it loads; otherwise the registry
// section reports why not).
func (cfg *config) validateDeprecatedNames() []error {
	if len(cfg.DeprecatedNames) == 0 {
		return nil
	}
	var errs []error
	if len(cfg.DeprecatedNames) > maxDeprecatedNames {
		errs = append(errs, fmt.Errorf("deprecated_names: %w: %d, at most %d", errTooManyNames, len(cfg.DeprecatedNames), maxDeprecatedNames))
	}
	var ix *registry.Index
	if cfg.Registry.Extension == nil {
		ix, _ = cfg.Registry.resolve()
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.DeprecatedNames)) {
		switch m := cfg.DeprecatedNames[name]; m {
		case engine.DeprecatedRename, engine.DeprecatedCopy, engine.DeprecatedOff:
		default:
			errs = append(errs, fmt.Errorf("deprecated_names: %q: %w %q, want rename, copy or off", name, errInvalidMode, m))
		}
		if ix != nil && !deprecatedIn(ix, name) {
			errs = append(errs, fmt.Errorf("deprecated_names: %q: %w", name, errNotDeprecated))
		}
	}
	return errs
}

// deprecatedIn reports whether ix deprecates name, as an attribute key
// (renamed in some context, or deprecated) or as a metric name.
func deprecatedIn(ix *registry.Index, name string) bool {
	if a := ix.Lookup(name); a != nil && !a.Template && (a.Renamed() || a.Deprecation.Reason != registry.NotDeprecated) {
		return true
	}
	m := ix.Metric(name)
	return m != nil && (m.RenamedTo != "" || m.Deprecation.Reason != registry.NotDeprecated)
}

// Validate rejects empty allow entries: an empty prefix would allow everything.
func (a *allowConfig) Validate() error {
	for i, k := range a.Keys {
		if k == "" {
			return fmt.Errorf("keys[%d]: %w", i, errEmptyAllow)
		}
	}
	for i, p := range a.Prefixes {
		if p == "" {
			return fmt.Errorf("prefixes[%d]: %w", i, errEmptyAllow)
		}
	}
	return nil
}

// Validate checks that every path exists and that the registry loads. With
// an extension, the extension's own Validate checks its sources.
func (r *registryConfig) Validate() error {
	if r.Extension != nil {
		if r.SemconvDir != "" || len(r.OrgRegistries) > 0 || len(r.RulesFiles) > 0 {
			return fmt.Errorf("extension: %w: the extension %q owns the registry sources", errExtensionSources, r.Extension.String())
		}
		return nil
	}
	if !r.Embedded && r.SemconvDir == "" && len(r.OrgRegistries) == 0 {
		return fmt.Errorf("%w: set embedded, semconv_dir or org_registries", errNoRegistry)
	}
	var errs []error
	check := func(key, p string) {
		if strings.TrimSpace(p) == "" {
			errs = append(errs, fmt.Errorf("%s: %w: empty path", key, errRegistryPath))
			return
		}
		if _, err := os.Stat(p); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w: %w", key, errRegistryPath, err))
		}
	}
	if r.SemconvDir != "" {
		check("semconv_dir", r.SemconvDir)
	}
	for i, p := range r.OrgRegistries {
		check(fmt.Sprintf("org_registries[%d]", i), p)
	}
	for i, p := range r.RulesFiles {
		check(fmt.Sprintf("rules_files[%d]", i), p)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	r.validated = nil
	ix, err := r.resolve()
	if err != nil {
		return fmt.Errorf("%w: %w", errRegistryLoad, err)
	}
	r.validated = ix
	return nil
}

// load returns the index Validate resolved, or resolves the sources when
// Validate did not run (a configuration built in code).
func (r *registryConfig) load() (*registry.Index, error) {
	if r.validated != nil {
		return r.validated, nil
	}
	return r.resolve()
}

// resolve resolves the configured sources into one index.
func (r *registryConfig) resolve() (*registry.Index, error) {
	if r.Embedded && r.SemconvDir == "" && len(r.OrgRegistries) == 0 && len(r.RulesFiles) == 0 {
		return registry.Default()
	}
	return registry.Load(registry.Sources{
		Embedded:      r.Embedded && r.SemconvDir == "",
		SemconvDir:    r.SemconvDir,
		OrgRegistries: r.OrgRegistries,
		RulesFiles:    r.RulesFiles,
	})
}

// engineOptions are the engine's options for this configuration.
func (cfg *config) engineOptions() engine.Options {
	rules, _ := cfg.Findings.rules() // validated
	return engine.Options{
		Deprecated:       cfg.Deprecated,
		DeprecatedNames:  cfg.DeprecatedNames,
		Unknown:          cfg.Unknown,
		TypeMismatch:     cfg.TypeMismatch,
		EnumViolation:    cfg.EnumViolation,
		AllowKeys:        cfg.Allow.Keys,
		AllowPrefixes:    cfg.Allow.Prefixes,
		IncludeResources: cfg.IncludeResources,
		Detail:           cfg.Registry.Extension != nil || len(cfg.DeprecatedNames) > 0,
		ClosedEnums:      cfg.ClosedEnums,
		Findings:         cfg.Findings.Enabled,
		Rules:            rules,
		Profile:          cfg.Findings.profile(),
		V2:               cfg.Findings.V2,
		DropUnexpected:   cfg.Findings.Enabled && cfg.Findings.DropUnexpectedAttributes,
	}
}

// mutates reports whether the configuration can change telemetry.
func (cfg *config) mutates() bool {
	o := cfg.engineOptions()
	// Finding records are appended to the logs batches.
	return o.Mutates() || (cfg.Findings.Enabled && cfg.Findings.Logs.Enabled)
}
