package registry

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/otelgov/otelcol-governance/internal/registry/load"
)

// Sources says what Load reads. The semantic conventions come from the
// embedded default or a checkout (not both); organisation registries and
// rules files are added on top.
//
// Its YAML is the governance processor's registry section (the keys
// embedded, semconv_dir, org_registries, rules_files), as otelgov upgrade
// plan writes it.
type Sources struct {
	Embedded      bool     `yaml:"embedded"`                 // start from the embedded default
	SemconvDir    string   `yaml:"semconv_dir,omitempty"`    // a semconv checkout root (has model/ and optionally schemas/)
	OrgRegistries []string `yaml:"org_registries,omitempty"` // each a registry_manifest.yaml path or a directory holding one (or plain YAML files)
	RulesFiles    []string `yaml:"rules_files,omitempty"`    // extra context-rule files
	// SkipShippedRules leaves out registry/rules/semconv.yaml. The shipped
	// rules are written for semconv v1.44.0 and are applied by default
	// whenever Embedded or SemconvDir is set; on another release a rule or
	// matcher that names what the release lacks is left out, with a
	// warning (Index.Warnings).
	SkipShippedRules bool `yaml:"-"`
}

var (
	defaultOnce  sync.Once
	defaultIndex *Index
	errDefault   error
)

// Default returns the index built from the embedded semantic conventions
// v1.44.0, its schema-file renames and the shipped rules. It is built once
// and cached.
func Default() (*Index, error) {
	defaultOnce.Do(func() {
		defaultIndex, errDefault = Load(Sources{Embedded: true})
	})
	return defaultIndex, errDefault
}

// semconvName names the semantic-conventions layer in messages.
const semconvName = "semconv"

// Load reads, resolves and indexes src. It is all-or-nothing: on error no
// index is returned.
func Load(src Sources) (*Index, error) {
	if src.Embedded && src.SemconvDir != "" {
		return nil, fmt.Errorf("%w: embedded and semconv_dir are mutually exclusive", ErrSources)
	}
	if !src.Embedded && src.SemconvDir == "" && len(src.OrgRegistries) == 0 {
		return nil, fmt.Errorf("%w: %w", ErrSources, errNoSource)
	}
	in := &input{}
	haveSemconv := false
	switch {
	case src.Embedded:
		d := embeddedDefs()
		in.layers = append(in.layers, layer{name: semconvName, defs: d, embedded: true})
		in.schema, in.schemaURL, in.schemaFile = d, d.SchemaURL, d.SchemaFile
		haveSemconv = true
	case src.SemconvDir != "":
		d, err := load.LoadSemconv(src.SemconvDir)
		if err != nil {
			return nil, err
		}
		for i := range d.Attributes {
			d.Attributes[i].File = filepath.Join(src.SemconvDir, d.Attributes[i].File)
		}
		for i := range d.Metrics {
			d.Metrics[i].File = filepath.Join(src.SemconvDir, d.Metrics[i].File)
		}
		for i, w := range d.Warnings {
			d.Warnings[i] = filepath.Join(src.SemconvDir, w)
		}
		in.layers = append(in.layers, layer{name: semconvName, defs: d})
		in.schema, in.schemaURL, in.schemaFile = d, d.SchemaURL, d.SchemaFile
		haveSemconv = true
	}
	orgURL := false
	// The semantic conventions in force, before a manifest names the schema.
	inForce, inForceFrom := in.schemaURL, ""
	switch {
	case src.Embedded:
		inForceFrom = "the embedded release"
	case src.SemconvDir != "":
		inForceFrom = "semconv_dir " + src.SemconvDir
	}
	for _, p := range src.OrgRegistries {
		reg, err := load.LoadOrgRegistry(p)
		if err != nil {
			return nil, fmt.Errorf("organisation registry %s: %w", p, err)
		}
		for _, rd := range reg.Remote {
			if w := remoteWarning(rd, inForce, inForceFrom); w != "" {
				in.warnings = append(in.warnings, w)
			}
		}
		for i, dd := range reg.Deps {
			in.layers = append(in.layers, layer{name: fmt.Sprintf("%s dependency %d", p, i), defs: dd})
		}
		name := p
		if reg.Manifest != nil {
			name = reg.Manifest.Name
			// The first manifest declaring schema_base_url names the schema.
			if u := reg.Manifest.SchemaURL(); u != "" && !orgURL {
				in.schemaURL, orgURL = u, true
			}
		}
		in.layers = append(in.layers, layer{name: name, defs: reg.Defs})
	}
	for _, p := range src.RulesFiles {
		rules, matchers, err := load.LoadRulesFile(p)
		if err != nil {
			return nil, err
		}
		in.rules = append(in.rules, rules...)
		in.matchers = append(in.matchers, matchers...)
	}
	for _, l := range in.layers {
		in.warnings = append(in.warnings, l.defs.Warnings...)
	}
	if haveSemconv && !src.SkipShippedRules {
		rules, matchers, err := load.ParseRules(shippedRulesName, shippedRules)
		if err != nil {
			return nil, fmt.Errorf("shipped rules: %w", err)
		}
		in.rules = append(in.rules, rules...)
		in.matchers = append(in.matchers, matchers...)
		return resolveShipped(in, len(rules)+len(matchers))
	}
	return resolve(in)
}

// remoteWarning is the warning for a manifest's remote dependency, which
// Load never downloads: the semantic conventions in force (schema URL
// inForce, loaded from from; from "" when none is loaded) stand in for it.
// "" when the dependency pins the release in force.
func remoteWarning(rd load.RemoteDependency, inForce, from string) string {
	pinned := rd.Version
	if pinned == "" {
		pinned = "of a release its path does not name"
	}
	at := fmt.Sprintf("%s:%d: dependency %q: registry_path %s pins semantic conventions %s, which otelgov and the collector do not download", rd.Manifest, rd.Line, rd.Name, rd.RegistryPath, pinned)
	if from == "" {
		return at + "; no semantic conventions are loaded (embedded: false, no semconv_dir): references to them resolve against nothing"
	}
	version := inForce[strings.LastIndexByte(inForce, '/')+1:]
	if version == "" {
		version = "of an unknown release"
	}
	if rd.Version != "" && strings.TrimPrefix(rd.Version, "v") == version {
		return ""
	}
	return at + ": the semantic conventions in force are " + version + " (" + from + "), not the pinned ones"
}

// shippedLine matches the position of a shipped rule in a resolver error.
var shippedLine = regexp.MustCompile(regexp.QuoteMeta(shippedRulesName) + `:(\d+):`)

// resolveShipped resolves in, whose rules and matchers end with the
// shipped ones (n of them). The shipped rules are written for the embedded
// release: where one names what the loaded release does not have (a span
// v1.40.0 lacks, a target it does not define), the resolver's error names
// the rule's line; that rule (or matcher) is left out with a warning and
// the rest resolved again. Errors elsewhere are returned as they are.
func resolveShipped(in *input, n int) (*Index, error) {
	for range n + 1 {
		ix, err := resolve(in)
		if err == nil {
			return ix, nil
		}
		msg := err.Error()
		m := shippedLine.FindStringSubmatchIndex(msg)
		if m == nil {
			return nil, err
		}
		line, _ := strconv.Atoi(msg[m[2]:m[3]])
		if !dropShipped(in, line) {
			return nil, err
		}
		in.warnings = append(in.warnings, fmt.Sprintf("%s:%d: shipped rule not applied to this release:%s", shippedRulesName, line, msg[m[1]:]))
	}
	return nil, fmt.Errorf("%w: %s: too many rules do not apply", ErrInvalid, shippedRulesName)
}

// dropShipped removes the shipped rule or matcher whose text holds line:
// the one starting last at or before it.
func dropShipped(in *input, line int) bool {
	ri, mi, best := -1, -1, 0
	for i, r := range in.rules {
		if r.File == shippedRulesName && r.Line <= line && r.Line > best {
			ri, best = i, r.Line
		}
	}
	for i, m := range in.matchers {
		if m.File == shippedRulesName && m.Line <= line && m.Line > best {
			ri, mi, best = -1, i, m.Line
		}
	}
	switch {
	case mi >= 0:
		in.matchers = slices.Delete(in.matchers, mi, mi+1)
	case ri >= 0:
		in.rules = slices.Delete(in.rules, ri, ri+1)
	default:
		return false
	}
	return true
}
