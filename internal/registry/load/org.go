package load

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/internal/registry/def"
)

// manifestName is the Weaver registry manifest file name.
const manifestName = "registry_manifest.yaml"

// Manifest is the part of a Weaver registry_manifest.yaml this package uses.
type Manifest struct {
	Name           string
	SemconvVersion string // semconv_version (or version)
	SchemaBaseURL  string // schema_base_url (or repository_url)
	Dependencies   []dependency
	File           string
}

type dependency struct {
	Name         string
	RegistryPath string
	Line         int
}

func parseManifest(name string, data []byte) (*Manifest, error) {
	f := yfile{name: name}
	root, err := f.parse(data)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, f.errf(nil, "", "empty registry manifest")
	}
	m := &Manifest{File: name}
	err = f.fields(root, "", func(key string, _, v *yaml.Node) error {
		var err error
		switch key {
		case "name":
			m.Name, err = f.str(v, key)
		case "semconv_version", "version":
			m.SemconvVersion, err = f.str(v, key)
		case "schema_base_url", "repository_url":
			m.SchemaBaseURL, err = f.str(v, key)
		case "dependencies":
			err = f.items(v, key, func(_ int, d *yaml.Node) error {
				dep := dependency{Line: d.Line}
				err := f.fields(d, "dependencies[]", func(k string, _, dv *yaml.Node) error {
					var err error
					switch k {
					case "name":
						dep.Name, err = f.str(dv, k)
					case "registry_path":
						dep.RegistryPath, err = f.str(dv, k)
					}
					return err
				})
				if err != nil {
					return err
				}
				if dep.RegistryPath == "" {
					return f.errf(d, "registry_path", "dependency %q without registry_path", dep.Name)
				}
				m.Dependencies = append(m.Dependencies, dep)
				return nil
			})
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if m.Name == "" {
		return nil, f.errf(root, "name", "registry manifest without name")
	}
	return m, nil
}

// SchemaURL is the manifest's schema URL: schema_base_url + semconv_version.
func (m *Manifest) SchemaURL() string {
	if m.SchemaBaseURL == "" {
		return ""
	}
	if m.SemconvVersion == "" {
		return m.SchemaBaseURL
	}
	return strings.TrimSuffix(m.SchemaBaseURL, "/") + "/" + strings.TrimPrefix(m.SemconvVersion, "v")
}

// isRemote reports registry paths Weaver would download (URLs, archives).
func isRemote(p string) bool {
	return strings.Contains(p, "://")
}

// ErrNoRegistryFile is returned for an organisation registry path that holds
// no registry file: no *.yaml or *.yml model file outside hidden entries.
// Pointing at the kubelet's hidden "..data" directory of a ConfigMap volume,
// or at an empty directory, is an error, not an empty registry.
var ErrNoRegistryFile = errors.New("no registry file (*.yaml or *.yml; hidden entries such as ..data are skipped)")

// OrgRegistry is one loaded organisation registry.
type OrgRegistry struct {
	Manifest *Manifest // nil for a plain directory or file of YAML
	Defs     *def.Defs
	// Deps are the definitions of local dependencies (registry_path), each
	// treated as its own registry for conflict checks.
	Deps []*def.Defs
	// Remote are the dependencies Weaver would download (a URL, an
	// archive): never loaded; the semantic conventions come from
	// Sources.Embedded or SemconvDir instead.
	Remote []RemoteDependency
}

// RemoteDependency is a manifest dependency on a remote registry.
type RemoteDependency struct {
	Manifest     string // the manifest's path
	Line         int
	Name         string
	RegistryPath string
	// Version is the release the path pins (v1.26.0.zip: 1.26.0); "" when
	// the path names none.
	Version string
}

// remoteVersion finds the release a remote registry_path pins:
// …/v1.26.0.zip[model], …/semantic-conventions-1.26.0.tar.gz.
var remoteVersion = regexp.MustCompile(`v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+?)?)\.(?:zip|tar\.gz|tgz)(?:\[|$)`)

// LoadOrgRegistry loads a registry_manifest.yaml, a directory holding one,
// a directory of plain model YAML, or a single model YAML file.
func LoadOrgRegistry(path string) (*OrgRegistry, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("organisation registry: %w", err)
	}
	var dir, manifestPath string
	switch {
	case st.IsDir():
		dir = path
		if _, err := os.Stat(filepath.Join(dir, manifestName)); err == nil {
			manifestPath = filepath.Join(dir, manifestName)
		}
	case filepath.Base(path) == manifestName:
		dir, manifestPath = filepath.Dir(path), path
	default:
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("organisation registry: %w", err)
		}
		d := &def.Defs{}
		if err := ParseModelFile(path, data, d); err != nil {
			return nil, err
		}
		return &OrgRegistry{Defs: d}, nil
	}
	reg := &OrgRegistry{}
	var depDirs []string
	nFiles := 0
	if manifestPath != "" {
		data, err := os.ReadFile(manifestPath)
		if err != nil {
			return nil, fmt.Errorf("organisation registry manifest: %w", err)
		}
		if reg.Manifest, err = parseManifest(manifestPath, data); err != nil {
			return nil, err
		}
		for _, dep := range reg.Manifest.Dependencies {
			if isRemote(dep.RegistryPath) {
				// Offline by design: the semantic conventions a remote
				// dependency names come from Sources.Embedded/SemconvDir;
				// the caller warns where the versions differ.
				rd := RemoteDependency{Manifest: manifestPath, Line: dep.Line, Name: dep.Name, RegistryPath: dep.RegistryPath}
				if m := remoteVersion.FindStringSubmatch(dep.RegistryPath); m != nil {
					rd.Version = m[1]
				}
				reg.Remote = append(reg.Remote, rd)
				continue
			}
			p := dep.RegistryPath
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			depDirs = append(depDirs, p)
			files, err := modelFiles(p)
			if err == nil && len(files) == 0 {
				err = fmt.Errorf("%w in %s", ErrNoRegistryFile, p)
			}
			if err != nil {
				return nil, fmt.Errorf("%s:%d: dependency %q: %w", manifestPath, dep.Line, dep.Name, err)
			}
			nFiles += len(files)
			dd, err := loadModelFiles(p, false, files)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: dependency %q: %w", manifestPath, dep.Line, dep.Name, err)
			}
			reg.Deps = append(reg.Deps, dd)
		}
	}
	files, err := modelFiles(dir, depDirs...)
	if err != nil {
		return nil, err
	}
	if nFiles+len(files) == 0 {
		// A path that loads nothing is a mistake, never an empty
		// organisation layer: its keys would silently stay unknown.
		// (Load names the path.)
		return nil, ErrNoRegistryFile
	}
	if reg.Defs, err = loadModelFiles(dir, false, files); err != nil {
		return nil, err
	}
	return reg, nil
}
