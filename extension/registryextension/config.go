package registryextension // import "github.com/otelgov/otelcol-governance/extension/registryextension"

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configoptional"

	"github.com/otelgov/otelcol-governance/infer"
	"github.com/otelgov/otelcol-governance/policy"
	"github.com/otelgov/otelcol-governance/registry"
)

// Sentinel errors returned by Validate; tests match them with errors.Is.
var (
	errRegistryPath  = errors.New("registry path not found")
	errRegistryLoad  = errors.New("registry does not load")
	errNegative      = errors.New("must not be negative")
	errOutOfRange    = errors.New("out of range")
	errPollTooShort  = errors.New("poll interval too short")
	errEmptyEndpoint = errors.New("endpoint must not be empty")
	errPolicy        = errors.New("policy does not load")
)

// Limits checked by Validate.
const (
	minPollInterval = 100 * time.Millisecond
	maxTopKeys      = 100
	maxMaxServices  = 100_000
)

// Config is the configuration of the governance_registry extension.
type Config struct {
	// SemconvDir is a semantic-conventions checkout (a directory with
	// model/, and schemas/ when present) that replaces the embedded
	// release, watched for changes. Default: "" (the embedded semantic
	// conventions v1.44.0).
	SemconvDir string `mapstructure:"semconv_dir"`

	// OrgRegistries are organisation registry directories, manifest files or
	// model files, loaded on top of the semantic conventions and watched
	// for changes. Default: empty (the embedded registry only).
	OrgRegistries []string `mapstructure:"org_registries"`

	// RulesFiles are extra context-rule files, watched for changes.
	// Default: empty.
	RulesFiles []string `mapstructure:"rules_files"`

	// Policies are directories of Weaver's Rego advice policies (package
	// live_check_advice, *.rego), compiled against the registry, watched
	// and reloaded with it, and evaluated by the processors that use this
	// extension (their findings::policy_budget_per_second applies). A
	// policy that does not compile fails validation and, later, the
	// reload: the last good registry and policies stay in force. Default:
	// empty (none).
	Policies []string `mapstructure:"policies"`

	// AdviceData is Weaver's advice_data (--advice-data): a glob pattern
	// of JSON and YAML files added to the policies' data, each nested by
	// its path relative to the pattern's base directory (schemas/**/*.json
	// puts schemas/user.json at data.user), before the preprocessor's
	// result. The base is watched and reloaded with the registry. Needs
	// policies. Default: "" (none).
	AdviceData string `mapstructure:"advice_data"`

	// AdvicePreprocessor is Weaver's advice_preprocessor
	// (--advice-preprocessor): a jq program run once per registry load on
	// Weaver's live-checker document, whose result (an object) replaces
	// Weaver's default data; watched and reloaded with the registry.
	// Needs policies. Default: "" (Weaver's default data).
	AdvicePreprocessor string `mapstructure:"advice_preprocessor"`

	// PollInterval is how often the registry files are checked for a change
	// of content. Default: 10s. Zero disables reloading: the registry loaded
	// at start stays in force. Otherwise at least 100ms.
	PollInterval time.Duration `mapstructure:"poll_interval"`

	// HTTP is the endpoint serving /registry, /registry/attributes/{key} and
	// /conformance. Default: localhost:13180. `enabled: false` turns the
	// endpoint off; the registry and the report still work for processors.
	HTTP configoptional.Optional[confighttp.ServerConfig] `mapstructure:"http"`

	// Report bounds the conformance report.
	Report ReportConfig `mapstructure:"report"`

	// Candidate is a shadow registry: loaded beside the registry in force,
	// watched and reloaded like it (poll_interval), and compared with it
	// (registry/change) on every load of either side. The governance
	// processors that use this extension evaluate it read-only on a sample
	// of their batches (their shadow section) and count on :8888 what it
	// would change; it never changes data. A candidate that does not load
	// is reported (log, processor_governance_shadow_candidate) and
	// evaluated nowhere; the collector starts and runs as without it.
	// Promotion is a config change: move its sources to the top-level
	// keys. Default: absent (no candidate, no cost).
	Candidate configoptional.Optional[CandidateConfig] `mapstructure:"candidate"`

	// Infer keeps the inference sketch served at GET /infer/evidence for
	// `otelgov registry infer --from`. Default: off.
	Infer InferConfig `mapstructure:"infer"`

	// validated is the registry Validate resolved, for Start to take over
	// (`otelcol` validates the configuration right before it starts the
	// components, so the registry is resolved once per start). Validate
	// writes it and Start reads it, one after the other on the collector's
	// start goroutine: no lock.
	validated *validatedRegistry

	// prevent unkeyed literal initialization
	_ struct{}
}

// validatedRegistry is an index with the fingerprint of the files it was
// loaded from, taken before loading: Start uses the index only while the
// files still have that fingerprint.
type validatedRegistry struct {
	ix  *registry.Index
	pol *policy.Set
	sum [sha256.Size]byte
}

// ReportConfig bounds the memory of the conformance report.
type ReportConfig struct {
	// MaxServices is how many distinct service.name values get their own
	// entry; later services are counted under "_other". Default: 100.
	// Zero counts every service under "_other".
	MaxServices int `mapstructure:"max_services"`

	// TopKeys is how many unknown and how many deprecated keys are listed
	// per service, the most frequent first (space-saving sketch). Default:
	// 10. Zero lists none; the outcome counts are still kept. At most 100.
	TopKeys int `mapstructure:"top_keys"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// InferConfig is the inference sketch: a bounded record of the attribute
// keys the registry in force does not know (per key: types, a
// distinct-value estimate, occurrences, where and on which metrics and
// spans, which services send it), fed from the processors' per-batch
// tallies and served as infer.Evidence JSON.
type InferConfig struct {
	// Enabled turns the sketch and GET /infer/evidence on. Default: false
	// (off: the processors track nothing more and the endpoint answers
	// 404). Needs http.
	Enabled bool `mapstructure:"enabled"`

	// Examples keeps up to five example values per key, and the exact
	// values behind enum proposals, each at most 256 bytes of valid
	// UTF-8 (the report's rule for client strings). They come from
	// production telemetry and may hold secrets or personal data.
	// Default: false (no value leaves the collector; the distinct-value
	// estimate is kept from hashes).
	Examples bool `mapstructure:"examples"`

	// MaxAttributes is how many distinct unknown keys the sketch tracks;
	// later keys are counted, not listed. It bounds the sketch's memory
	// (about 20 KiB per key at most). Default: 4096. At most 100000.
	MaxAttributes int `mapstructure:"max_attributes"`

	// MaxServices is how many services are named per key; later ones are
	// counted. Default: 8. At most 100.
	MaxServices int `mapstructure:"max_services"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// Limits of InferConfig checked by Validate.
const (
	maxInferAttributes = 100_000
	maxInferServices   = infer.MaxSketchServices
)

var errInferNeedsHTTP = errors.New("needs the http endpoint")

// Validate checks the sketch's bounds.
func (c *InferConfig) Validate() error {
	return errors.Join(
		inRange("max_attributes", c.MaxAttributes, 1, maxInferAttributes),
		inRange("max_services", c.MaxServices, 1, maxInferServices))
}

// inRange is the error of a bound key outside lo..hi; nil inside.
func inRange(key string, v, lo, hi int) error {
	if v < lo || v > hi {
		return fmt.Errorf("%s: %w: %d, want %d to %d", key, errOutOfRange, v, lo, hi)
	}
	return nil
}

var _ component.Config = (*Config)(nil)

// Validate checks the options, that every registry path exists, and that
// the registry loads, so that `otelcol validate` catches a bad registry.
func (cfg *Config) Validate() error {
	var errs []error
	if cfg.PollInterval < 0 {
		errs = append(errs, fmt.Errorf("poll_interval: %w, got %s", errNegative, cfg.PollInterval))
	} else if cfg.PollInterval > 0 && cfg.PollInterval < minPollInterval {
		errs = append(errs, fmt.Errorf("poll_interval: %w: %s, want 0 (off) or at least %s", errPollTooShort, cfg.PollInterval, minPollInterval))
	}
	if h := cfg.HTTP.Get(); h != nil && strings.TrimSpace(h.NetAddr.Endpoint) == "" {
		errs = append(errs, fmt.Errorf("http: %w", errEmptyEndpoint))
	}
	if cfg.Infer.Enabled && cfg.HTTP.Get() == nil {
		errs = append(errs, fmt.Errorf("infer: enabled: %w (it serves GET /infer/evidence): turn http on or infer off", errInferNeedsHTTP))
	}
	check := func(key, p string) bool {
		if strings.TrimSpace(p) == "" {
			errs = append(errs, fmt.Errorf("%s: %w: empty path", key, errRegistryPath))
			return false
		}
		if _, err := os.Stat(p); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w: %w", key, errRegistryPath, err))
			return false
		}
		return true
	}
	pathsOK := checkSources(check, "", cfg.SemconvDir, cfg.OrgRegistries, cfg.RulesFiles)
	for i, p := range cfg.Policies {
		pathsOK = check(fmt.Sprintf("policies[%d]", i), p) && pathsOK
	}
	if c := cfg.Candidate.Get(); c != nil {
		// The candidate is not loaded here: one that does not load is
		// reported at run time and changes nothing, so it must not stop
		// the collector.
		checkSources(check, "candidate::", c.SemconvDir, c.OrgRegistries, c.RulesFiles)
	}
	cfg.validated = nil
	if pathsOK {
		_, sum, ferr := fingerprint(cfg.watched())
		ix, pol, err := cfg.load()
		switch {
		case err != nil:
			errs = append(errs, err)
		case ferr == nil:
			cfg.validated = &validatedRegistry{ix: ix, pol: pol, sum: sum}
		}
	}
	return errors.Join(errs...)
}

// CandidateConfig names the sources of a candidate registry, as the
// top-level keys name those of the registry in force (without policies).
type CandidateConfig struct {
	// SemconvDir is a semantic-conventions checkout (a directory with
	// model/, and schemas/ when present) that replaces the embedded
	// release, e.g. a newer release or an unreleased main. Default: ""
	// (the embedded semantic conventions, as in force).
	SemconvDir string `mapstructure:"semconv_dir"`

	// OrgRegistries are organisation registries loaded on top, as the
	// top-level org_registries. Default: empty.
	OrgRegistries []string `mapstructure:"org_registries"`

	// RulesFiles are extra context-rule files, as the top-level
	// rules_files. Default: empty.
	RulesFiles []string `mapstructure:"rules_files"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// checkSources checks the paths of loadSources' sources with check, each
// named by its key under prefix ("candidate::": Config.Validate checks the
// candidate itself, so that every line of a joined error names its full
// key), and reports whether all passed.
func checkSources(check func(key, p string) bool, prefix, semconvDir string, orgs, rules []string) bool {
	ok := true
	if semconvDir != "" {
		ok = check(prefix+"semconv_dir", semconvDir)
	}
	for i, p := range orgs {
		ok = check(fmt.Sprintf("%sorg_registries[%d]", prefix, i), p) && ok
	}
	for i, p := range rules {
		ok = check(fmt.Sprintf("%srules_files[%d]", prefix, i), p) && ok
	}
	return ok
}

// watched lists the candidate's paths, fingerprinted for reloads.
func (c *CandidateConfig) watched() []string {
	return watchedSources(c.SemconvDir, c.OrgRegistries, c.RulesFiles)
}

// load resolves the candidate.
func (c *CandidateConfig) load() (*registry.Index, error) {
	ix, err := loadSources(c.SemconvDir, c.OrgRegistries, c.RulesFiles)
	if err != nil {
		return nil, fmt.Errorf("candidate: %w", err)
	}
	return ix, nil
}

// loadSources resolves a registry from the semantic conventions (semconvDir,
// or the embedded release when ""), org registries and rules files: the
// top-level keys and the candidate's alike.
func loadSources(semconvDir string, orgs, rules []string) (*registry.Index, error) {
	if semconvDir == "" && len(orgs) == 0 && len(rules) == 0 {
		ix, err := registry.Default()
		if err != nil {
			return nil, fmt.Errorf("%w: load registry: %w", errRegistryLoad, err)
		}
		return ix, nil
	}
	ix, err := registry.Load(registry.Sources{
		Embedded:      semconvDir == "",
		SemconvDir:    semconvDir,
		OrgRegistries: orgs,
		RulesFiles:    rules,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: load registry: %w", errRegistryLoad, err)
	}
	return ix, nil
}

// watchedSources lists the paths of loadSources' sources.
func watchedSources(semconvDir string, orgs, rules []string) []string {
	out := append(append([]string(nil), orgs...), rules...)
	if semconvDir != "" {
		out = append(out, semconvDir)
	}
	return out
}

// Validate checks the report bounds.
func (r *ReportConfig) Validate() error {
	return errors.Join(
		inRange("max_services", r.MaxServices, 0, maxMaxServices),
		inRange("top_keys", r.TopKeys, 0, maxTopKeys))
}

// takeValidated returns the index Validate resolved if the files still have
// the fingerprint sum, and forgets it either way (a reload must not find it).
func (cfg *Config) takeValidated(sum [sha256.Size]byte) (*registry.Index, *policy.Set) {
	v := cfg.validated
	cfg.validated = nil
	if v == nil || v.sum != sum {
		return nil, nil
	}
	return v.ix, v.pol
}

// load resolves the configured sources into one index, and compiles the
// policies against it (nil without policies).
func (cfg *Config) load() (*registry.Index, *policy.Set, error) {
	ix, err := loadSources(cfg.SemconvDir, cfg.OrgRegistries, cfg.RulesFiles)
	if err != nil {
		return nil, nil, err
	}
	pol, err := cfg.policySources().Load(ix, policy.Options{Timeout: policy.CollectorTimeout})
	if err != nil {
		if b := boundError(err); b != err.Error() {
			return nil, nil, fmt.Errorf("%w: %s", errPolicy, b)
		}
		return nil, nil, fmt.Errorf("%w: %w", errPolicy, err)
	}
	return ix, pol, nil
}

// policySources are policies, advice_data and advice_preprocessor.
func (cfg *Config) policySources() *policy.Sources {
	return &policy.Sources{Dirs: cfg.Policies, Data: cfg.AdviceData, Preprocessor: cfg.AdvicePreprocessor}
}

// maxErrorBytes bounds a policy error in a log, a status or /registry.
const maxErrorBytes = 1024

// boundError is err's text, at most maxErrorBytes (a policy set with many
// errors lists each with its file:line).
func boundError(err error) string {
	s := err.Error()
	if len(s) > maxErrorBytes {
		i := maxErrorBytes
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = s[:i] + " …"
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// watched lists every path whose content is fingerprinted for reloads.
func (cfg *Config) watched() []string {
	return append(watchedSources(cfg.SemconvDir, cfg.OrgRegistries, cfg.RulesFiles), cfg.policySources().Watched()...)
}
