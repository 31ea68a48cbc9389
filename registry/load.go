package registry

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"go.yaml.in/yaml/v3"
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

// ErrSources is returned when Sources is contradictory or empty.
var ErrSources = errors.New("invalid registry sources")

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
		d, err := loadSemconv(src.SemconvDir)
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
		reg, err := loadOrgRegistry(p)
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
			if u := reg.Manifest.schemaURL(); u != "" && !orgURL {
				in.schemaURL, orgURL = u, true
			}
		}
		in.layers = append(in.layers, layer{name: name, defs: reg.Defs})
	}
	for _, p := range src.RulesFiles {
		rules, matchers, err := loadRulesFile(p)
		if err != nil {
			return nil, err
		}
		in.rules = append(in.rules, rules...)
		in.matchers = append(in.matchers, matchers...)
	}
	if haveSemconv && !src.SkipShippedRules {
		rules, matchers, err := parseRulesFileAll(shippedRulesName, shippedRules)
		if err != nil {
			return nil, fmt.Errorf("shipped rules: %w", err)
		}
		in.rules = append(in.rules, rules...)
		in.matchers = append(in.matchers, matchers...)
	}
	return resolve(in)
}

// loadSemconv loads a semantic-conventions checkout: model/ (required) and
// the newest schema file in schemas/ (optional). File names are relative to
// root.
func loadSemconv(root string) (*defs, error) {
	model := filepath.Join(root, "model")
	if st, err := os.Stat(model); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%w: semconv_dir %s has no model directory", ErrSources, root)
	}
	d, err := loadModelDir(model, true)
	if err != nil {
		return nil, err
	}
	for i := range d.Attributes {
		d.Attributes[i].File = "model/" + d.Attributes[i].File
	}
	for i := range d.Metrics {
		d.Metrics[i].File = "model/" + d.Metrics[i].File
	}
	for i := range d.Refs {
		d.Refs[i].File = "model/" + d.Refs[i].File
	}
	for i := range d.Groups {
		d.Groups[i].File = "model/" + d.Groups[i].File
	}
	sf, err := latestSchemaFile(filepath.Join(root, "schemas"))
	if err != nil {
		return nil, err
	}
	if sf != "" {
		rel, _ := filepath.Rel(root, sf)
		if err := loadSchemaFile(sf, filepath.ToSlash(rel), d); err != nil {
			return nil, err
		}
	}
	if d.SchemaURL == "" {
		d.SchemaURL, err = manifestSchemaURL(model)
		if err != nil {
			return nil, err
		}
	}
	return d, nil
}

// manifestSchemaURL reads schema_url from the model's manifest.yaml, if any.
func manifestSchemaURL(model string) (string, error) {
	p := filepath.Join(model, "manifest.yaml")
	data, err := os.ReadFile(p)
	if err != nil {
		if os.IsNotExist(err) {
			return "", nil
		}
		return "", fmt.Errorf("reading model manifest: %w", err)
	}
	f := yfile{name: p}
	root, err := f.parse(data)
	if err != nil || root == nil {
		return "", err
	}
	url := ""
	err = f.fields(root, "", func(key string, _, v *yaml.Node) error {
		if key == "schema_url" {
			url, err = f.str(v, key)
			return err
		}
		return nil
	})
	return url, err
}
