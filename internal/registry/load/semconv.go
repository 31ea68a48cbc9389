package load

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/internal/registry/def"
)

// LoadSemconv loads a semantic-conventions checkout: model/ (required) and
// the newest schema file in schemas/ (optional). File names are relative to
// root.
func LoadSemconv(root string) (*def.Defs, error) {
	model := filepath.Join(root, "model")
	if st, err := os.Stat(model); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%w: semconv_dir %s has no model directory", ErrSources, root)
	}
	d, err := loadModelDir(model, true)
	if err != nil {
		// Definitions name files relative to root (the embedded default is
		// the same wherever it was generated); an error names the file a
		// person opens.
		var pe *posError
		if errors.As(err, &pe) && !filepath.IsAbs(pe.File) {
			pe.File = filepath.Join(model, pe.File)
		}
		return nil, err
	}
	for i := range d.Warnings {
		d.Warnings[i] = "model/" + d.Warnings[i]
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

// ErrSources is returned when Sources is contradictory or empty.
var ErrSources = errors.New("invalid registry sources")
