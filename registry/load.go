package registry

import (
	"fmt"
	"path/filepath"
	"sync"

	"github.com/otelgov/otelcol-governance/internal/registry/load"
)

// Sources says what Load reads. The semantic conventions come from the
// embedded default or a checkout (not both); organisation registries and
// rules files are added on top.
type Sources struct {
	Embedded      bool     // start from the embedded default
	SemconvDir    string   // a semconv checkout root (has model/ and optionally schemas/)
	OrgRegistries []string // each a registry_manifest.yaml path or a directory holding one (or plain YAML files)
	RulesFiles    []string // extra context-rule files
	// SkipShippedRules leaves out registry/rules/semconv.yaml. The shipped
	// rules are written for semconv v1.44.0 and are applied by default
	// whenever Embedded or SemconvDir is set; skip them to load a semconv
	// checkout of another version.
	SkipShippedRules bool
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
		in.layers = append(in.layers, layer{name: semconvName, defs: d})
		in.schema, in.schemaURL, in.schemaFile = d, d.SchemaURL, d.SchemaFile
		haveSemconv = true
	}
	orgURL := false
	for _, p := range src.OrgRegistries {
		reg, err := load.LoadOrgRegistry(p)
		if err != nil {
			return nil, fmt.Errorf("organisation registry %s: %w", p, err)
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
	if haveSemconv && !src.SkipShippedRules {
		rules, matchers, err := load.ParseRules(shippedRulesName, shippedRules)
		if err != nil {
			return nil, fmt.Errorf("shipped rules: %w", err)
		}
		in.rules = append(in.rules, rules...)
		in.matchers = append(in.matchers, matchers...)
	}
	return resolve(in)
}
