// Package manifestlint turns the platform team's GitOps review checklist into
// code. It reads Kubernetes manifests (the output of `kustomize build`, or
// plain YAML files) and reports the mistakes that otherwise fail silently in a
// cluster: an application that is not governed, a collector pipeline that
// bypasses the governance processor, a Service or ServiceMonitor whose
// selector matches nothing the OpenTelemetry Operator creates.
package manifestlint // import "github.com/otelgov/otelcol-governance/internal/manifestlint"

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Object is one Kubernetes object read from a manifest.
type Object struct {
	// Source is where the object was read from: "file.yaml#2" for the
	// third document of file.yaml.
	Source string
	// Doc is the decoded object.
	Doc map[string]any
}

// APIVersion, Kind, Name and Namespace read the object's identity.
func (o Object) APIVersion() string { return str(o.Doc, "apiVersion") }
func (o Object) Kind() string       { return str(o.Doc, "kind") }
func (o Object) Name() string       { return str(o.Doc, "metadata", "name") }
func (o Object) Namespace() string  { return str(o.Doc, "metadata", "namespace") }

// Ref names the object for messages: Kind/namespace/name (source).
func (o Object) Ref() string {
	ns := o.Namespace()
	if ns == "" {
		ns = "<no namespace>"
	}
	return fmt.Sprintf("%s %s/%s (%s)", o.Kind(), ns, o.Name(), o.Source)
}

// Decode reads every Kubernetes object in a multi-document YAML stream. Empty
// documents and documents without apiVersion and kind (such as a
// kustomization.yaml's siblings that are not objects) are skipped; a
// Kustomization itself is skipped too.
func Decode(r io.Reader, source string) ([]Object, error) {
	dec := yaml.NewDecoder(r)
	var objs []Object
	for i := 0; ; i++ {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", source, i, err)
		}
		if doc == nil {
			continue
		}
		o := Object{Source: fmt.Sprintf("%s#%d", source, i), Doc: doc}
		if o.APIVersion() == "" || o.Kind() == "" || o.Kind() == "Kustomization" {
			continue
		}
		objs = append(objs, o)
	}
}

// DecodeBytes is Decode on a byte slice.
func DecodeBytes(data []byte, source string) ([]Object, error) {
	return Decode(bytes.NewReader(data), source)
}

// LoadPaths reads every .yaml and .yml file under each path (a file or a
// directory, walked recursively), in lexical order. "-" reads standard input.
func LoadPaths(stdin io.Reader, paths ...string) ([]Object, error) {
	var objs []Object
	for _, p := range paths {
		if p == "-" {
			o, err := Decode(stdin, "<stdin>")
			if err != nil {
				return nil, err
			}
			objs = append(objs, o...)
			continue
		}
		var files []string
		err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			if ext := strings.ToLower(filepath.Ext(path)); ext == ".yaml" || ext == ".yml" {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		sort.Strings(files)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", f, err)
			}
			o, err := DecodeBytes(data, f)
			if err != nil {
				return nil, err
			}
			objs = append(objs, o...)
		}
	}
	return objs, nil
}

// lookup walks nested maps along keys; ok is false when a key is missing or a
// value on the way is not a map.
func lookup(m map[string]any, keys ...string) (any, bool) {
	var cur any = m
	for _, k := range keys {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = mm[k]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

func str(m map[string]any, keys ...string) string {
	v, _ := lookup(m, keys...)
	s, _ := v.(string)
	return s
}

func mapAt(m map[string]any, keys ...string) map[string]any {
	v, _ := lookup(m, keys...)
	mm, _ := v.(map[string]any)
	return mm
}

func listAt(m map[string]any, keys ...string) []any {
	v, _ := lookup(m, keys...)
	l, _ := v.([]any)
	return l
}

// stringMap converts a map of scalars to strings, the way Kubernetes reads
// labels and annotations.
func stringMap(m map[string]any) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = fmt.Sprint(v)
	}
	return out
}
