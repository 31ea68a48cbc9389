package load

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/internal/registry/def"
)

// LoadSemconv loads a semantic-conventions checkout: model/ (required) and
// the newest schema file in schemas/ (optional). File names are relative to
// root.
func LoadSemconv(root string) (*def.Defs, error) {
	model, files, err := semconvModelFiles(root)
	if err != nil {
		return nil, err
	}
	d, err := loadModelFiles(model, true, files)
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
	if err := semconvModel(d); err != nil {
		return nil, fmt.Errorf("%w: semconv_dir %s: %w (%d model file(s) read, e.g. %s)", ErrNotRegistry, root, err, len(files), files[0])
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
	// The model's own manifest names the release the model is (a checkout
	// of main: …/1.45.0-unreleased); the newest schema file names the
	// last release whose renames it lists (1.44.0), the name only where
	// the model has no manifest (releases before v1.41.0).
	u, err := manifestSchemaURL(model)
	if err != nil {
		return nil, err
	}
	if u != "" {
		d.SchemaURL = u
	}
	return d, nil
}

// manifestSchemaURL reads schema_url from the model's manifest.yaml, if any.
func manifestSchemaURL(model string) (string, error) {
	p := filepath.Join(model, modelManifestName)
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

// The semantic-conventions checkout's layout.
const (
	modelDirName = "model"
	// modelManifestName is Weaver's registry manifest inside model/
	// (schema_url, description, stability): not a model file.
	modelManifestName = "manifest.yaml"
)

// ErrNotRegistry is returned for a source that is not a registry: a
// semantic-conventions directory that does not exist, has no model/, or
// whose model defines no attribute or no group; a model file that is YAML
// of another shape. It is the one rule for what counts as a registry.
var ErrNotRegistry = errors.New("not a registry")

// semconvModelFiles is root's model/ and the model files below it: a
// checkout that is not a registry (no model/, no model file) is
// ErrNotRegistry.
func semconvModelFiles(root string) (model string, files []string, err error) {
	model = filepath.Join(root, modelDirName)
	if err := semconvDir(root, model); err != nil {
		return "", nil, err
	}
	if files, err = modelFiles(model); err != nil {
		return "", nil, err
	}
	if len(files) == 0 {
		return "", nil, fmt.Errorf("%w: semconv_dir %s: %s holds no model file (*.yaml, *.yml)", ErrNotRegistry, root, model)
	}
	return model, files, nil
}

// semconvDir checks that root is a directory holding model/.
func semconvDir(root, model string) error {
	st, err := os.Stat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: semconv_dir %s does not exist", ErrNotRegistry, root)
	case err != nil:
		return fmt.Errorf("%w: semconv_dir %s: %w", ErrNotRegistry, root, err)
	case !st.IsDir():
		return fmt.Errorf("%w: semconv_dir %s is not a directory", ErrNotRegistry, root)
	}
	if st, err := os.Stat(model); err != nil || !st.IsDir() {
		return fmt.Errorf("%w: semconv_dir %s has no model directory (a semantic-conventions checkout holds model/ and schemas/)", ErrNotRegistry, root)
	}
	return nil
}

// semconvModel says why the definitions of a semantic-conventions model
// are not semantic conventions: no attribute defined, or no group (an
// attribute group, span, metric, event or entity).
func semconvModel(d *def.Defs) error {
	switch {
	case len(d.Attributes) == 0:
		return errors.New("the model defines no attribute")
	case len(d.Groups) == 0:
		return errors.New("the model defines no attribute group, span, metric, event or entity")
	}
	return nil
}

// ErrSources is returned when Sources is contradictory or empty.
var ErrSources = errors.New("invalid registry sources")

// SemconvFiles lists the files LoadSemconv reads from root, relative to
// it with forward slashes, sorted: the model files, model/manifest.yaml
// when present, and the newest schema file. They are what a copy of the
// checkout needs to load the same (a Kubernetes volume, an image layer).
func SemconvFiles(root string) ([]string, error) {
	model, files, err := semconvModelFiles(root)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(model, modelManifestName)); err == nil {
		files = append(files, filepath.Join(model, modelManifestName))
	}
	sf, err := latestSchemaFile(filepath.Join(root, "schemas"))
	if err != nil {
		return nil, err
	}
	if sf != "" {
		files = append(files, sf)
	}
	out := make([]string, 0, len(files))
	for _, f := range files {
		rel, err := filepath.Rel(root, f)
		if err != nil {
			return nil, err
		}
		out = append(out, filepath.ToSlash(rel))
	}
	sort.Strings(out)
	return out, nil
}
