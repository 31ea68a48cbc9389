// Package regwrite writes registry YAML that both this repository's loader
// (registry.Load) and OpenTelemetry Weaver read: Weaver's v2 format
// (file_format: definition/2, as Weaver's registry infer writes it) by
// default, or v1 (groups:). It is the one writer of registry YAML in the
// repository.
//
// Writing is incremental and safe: the definitions are merged into the
// directory's registry file through yaml.v3 nodes, so that what a person
// wrote (briefs, notes, stability, requirement levels, order, comments) is
// kept as it is and only new definitions are appended; the result is
// staged in a temporary directory, checked, and renamed into place, so a
// failed run leaves the old registry untouched.
package regwrite

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/registry"
)

// Format is a registry file format.
type Format uint8

const (
	// V2 is Weaver's file_format: definition/2 (the default).
	V2 Format = iota
	// V1 is the semantic conventions' groups: format.
	V1
)

func (f Format) String() string {
	if f == V1 {
		return "v1"
	}
	return "v2"
}

// FileName is the file the writer adds definitions to, as Weaver's infer
// names it.
const FileName = "registry.yaml"

// v2FileFormat is the loader's and Weaver's v2 marker.
const v2FileFormat = "definition/2"

// Model is what to add.
type Model struct {
	Attributes []Attribute
	Metrics    []Metric
	Spans      []Span
	Events     []Event
}

// Empty reports whether m adds nothing.
func (m *Model) Empty() bool {
	return len(m.Attributes)+len(m.Metrics)+len(m.Spans)+len(m.Events) == 0
}

// Attribute is an attribute definition.
type Attribute struct {
	Key string
	// Type is a Weaver type name (string, int, double, boolean, string[],
	// ...); ignored when Members is set (an enum).
	Type      string
	Members   []Member
	Examples  []any
	Brief     string
	Note      string
	Stability string // "" writes development
	// RenamedTo makes it a deprecated attribute renamed to that key.
	RenamedTo string
	// Deprecated, without RenamedTo, makes it deprecated with reason
	// uncategorized and this note.
	Deprecated string
}

// Member is an enum member.
type Member struct {
	ID    string
	Value any // string or int64
}

// Ref is a group's reference to an attribute.
type Ref struct {
	Key              string
	RequirementLevel string // "" leaves it unstated (recommended)
}

// Metric is a metric definition.
type Metric struct {
	Name, Instrument, Unit, Brief, Note, Stability string
	Attributes                                     []Ref
}

// Span is a span definition; Type is its ID, NameNote says how it is named.
type Span struct {
	Type, Kind, NameNote, Brief, Note, Stability string
	Attributes                                   []Ref
}

// Event is an event definition.
type Event struct {
	Name, Brief, Note, Stability string
	Attributes                   []Ref
}

// Options configure Write.
type Options struct {
	// Format of a new file (default V2). An existing file keeps its own;
	// asking for the other is an error.
	Format Format
	// Check, when set, is called with the staged directory (the whole
	// registry as it will be) before anything is renamed; an error
	// aborts the write. Callers load it with registry.Load.
	Check func(staged string) error
}

// Result says what Write did.
type Result struct {
	// File is the registry file written ("" when nothing was added).
	File string
	// Added lists what was appended, as "attribute k", "metric m", ...
	Added []string
	// Kept lists what the file already defined and was left as written.
	Kept   []string
	Format Format
}

// ErrNotRegistry is returned for an output directory that holds files but
// no registry: nothing is written to it. It is registry.ErrNotRegistry,
// the one rule for what counts as a registry, which registry.Load applies
// to the model files themselves (YAML of another shape).
var ErrNotRegistry = registry.ErrNotRegistry

// Write adds m to the registry in dir (created when missing). See the
// package comment for the guarantees.
func Write(dir string, m *Model, o Options) (*Result, error) {
	if err := validate(m); err != nil {
		return nil, err
	}
	exists, err := IsRegistryDir(dir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, FileName)
	var old []byte
	if exists {
		old, err = os.ReadFile(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
	}
	doc, format, err := parse(path, old, o.Format)
	if err != nil {
		return nil, err
	}
	res := &Result{Format: format}
	if format == V1 {
		mergeV1(doc, m, res)
	} else {
		mergeV2(doc, m, res)
	}
	if len(res.Added) == 0 {
		return res, nil
	}
	out, err := encode(doc)
	if err != nil {
		return nil, err
	}
	res.File = path
	_, statErr := os.Stat(dir)
	return res, commit(dir, statErr == nil, out, o.Check)
}

// IsRegistryDir reports whether dir exists and holds a registry; a
// missing or empty directory is none (false, nil), and a directory with
// files but no registry file (*.yaml, *.yml) is ErrNotRegistry.
func IsRegistryDir(dir string) (bool, error) {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !st.IsDir() {
		return false, fmt.Errorf("%s: %w: not a directory", dir, ErrNotRegistry)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, err
	}
	if len(entries) == 0 {
		return false, nil
	}
	files, err := registry.ModelFiles(dir)
	if err != nil {
		return false, err
	}
	if len(files) == 0 {
		return false, fmt.Errorf("%s: %w: it holds files but no registry file (*.yaml, *.yml); give an empty or new directory, or an existing registry", dir, ErrNotRegistry)
	}
	return true, nil
}

// Groups lists the metrics, spans and events that dir's registry.yaml (the
// file Write merges into) defines, as "metric NAME", "span TYPE" and
// "event NAME": the groups a later Write adds the refs they lack to. A
// missing file defines none.
func Groups(dir string) (map[string]bool, error) {
	path := filepath.Join(dir, FileName)
	data, err := os.ReadFile(path) //nolint:gosec // the registry directory the user gave
	out := map[string]bool{}
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	var d yaml.Node
	if err := yaml.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if d.Kind != yaml.DocumentNode || len(d.Content) != 1 {
		return out, nil
	}
	root := d.Content[0]
	name := func(n *yaml.Node, field string) string {
		if v := get(n, field); v != nil && v.Kind == yaml.ScalarNode {
			return v.Value
		}
		return ""
	}
	add := func(kind, n string) {
		if n != "" {
			out[kind+" "+n] = true
		}
	}
	if get(root, "file_format") != nil {
		for _, it := range items(get(root, "metrics")) {
			add("metric", name(it, "name"))
		}
		for _, it := range items(get(root, "spans")) {
			add("span", name(it, "type"))
		}
		for _, it := range items(get(root, "events")) {
			add("event", name(it, "name"))
		}
		return out, nil
	}
	for _, g := range items(get(root, "groups")) {
		id := name(g, "id")
		switch name(g, "type") {
		case "metric":
			add("metric", name(g, "metric_name"))
		case "span":
			add("span", strings.TrimPrefix(id, "span."))
		case "event":
			if n := name(g, "name"); n != "" {
				add("event", n)
			} else {
				add("event", strings.TrimPrefix(id, "event."))
			}
		}
	}
	return out, nil
}

// validate refuses names the loader would reject, before anything is
// written.
func validate(m *Model) error {
	check := func(what, name string) error {
		if name == "" {
			return fmt.Errorf("%s with an empty name cannot be a registry ID", what)
		}
		if err := registry.ValidKey(name); err != nil {
			return fmt.Errorf("%s %q cannot be a registry ID: %w", what, name, err)
		}
		return nil
	}
	for _, a := range m.Attributes {
		if err := check("attribute", a.Key); err != nil {
			return err
		}
		if a.RenamedTo != "" {
			if err := check("renamed_to of "+a.Key, a.RenamedTo); err != nil {
				return err
			}
		}
	}
	for _, x := range m.Metrics {
		if err := check("metric", x.Name); err != nil {
			return err
		}
	}
	for _, x := range m.Spans {
		if err := check("span type", x.Type); err != nil {
			return err
		}
	}
	for _, x := range m.Events {
		if err := check("event", x.Name); err != nil {
			return err
		}
	}
	return nil
}

// parse reads the existing file (nil data: a new document in format f).
func parse(path string, data []byte, f Format) (*yaml.Node, Format, error) {
	root := &yaml.Node{Kind: yaml.MappingNode}
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}
	if len(bytes.TrimSpace(data)) == 0 {
		if f == V2 {
			setScalar(root, "file_format", v2FileFormat)
		}
		return doc, f, nil
	}
	var d yaml.Node
	if err := yaml.Unmarshal(data, &d); err != nil {
		return nil, f, fmt.Errorf("%s: %w", path, err)
	}
	if d.Kind != yaml.DocumentNode || len(d.Content) != 1 || d.Content[0].Kind != yaml.MappingNode {
		return nil, f, fmt.Errorf("%s: %w: not a YAML mapping", path, ErrNotRegistry)
	}
	got := V1
	if v := get(d.Content[0], "file_format"); v != nil {
		if v.Value != v2FileFormat {
			return nil, f, fmt.Errorf("%s:%d: file_format %q: want %q or none", path, v.Line, v.Value, v2FileFormat)
		}
		got = V2
	}
	if got != f {
		return nil, f, fmt.Errorf("%s is in the %s format, not %s: rerun with the file's format, or write to another directory", path, got, f)
	}
	return &d, got, nil
}

func encode(doc *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encoding the registry: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// commit stages the registry (a copy of dir with the new file) in a
// temporary directory beside dir, checks it, and renames it into place:
// the new directory itself when dir does not exist, else the new file
// into dir (an existing directory, empty or a registry).
func commit(dir string, exists bool, data []byte, check func(string) error) error {
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o750); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, ".regwrite-")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			_ = os.RemoveAll(tmp)
		}
	}()
	if exists {
		if err := copyTree(dir, tmp); err != nil {
			return fmt.Errorf("staging %s: %w", dir, err)
		}
	}
	staged := filepath.Join(tmp, FileName)
	if err := os.WriteFile(staged, data, 0o644); err != nil { //nolint:gosec // a registry is meant to be read
		return err
	}
	if check != nil {
		if err := check(tmp); err != nil {
			return fmt.Errorf("the written registry does not load, nothing changed in %s: %w", dir, err)
		}
	}
	if !exists {
		if err := os.Rename(tmp, dir); err != nil {
			return err
		}
		done = true
		return nil
	}
	// The file is renamed within dir, so that the replacement is atomic
	// even where dir is its own mount.
	f, err := os.CreateTemp(dir, ".registry.yaml-")
	if err != nil {
		return err
	}
	name := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr == nil && cerr == nil {
		_ = os.Chmod(name, 0o644) //nolint:gosec // as above
		werr = os.Rename(name, filepath.Join(dir, FileName))
	}
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(name)
		return err
	}
	return nil
}

// copyTree copies the files of src into dst (empty).
func copyTree(src, dst string) error {
	return os.CopyFS(dst, os.DirFS(src))
}
