// Package load reads registry, schema and rules files into definitions
// (internal/registry/def): the semantic-conventions model in both dialects,
// organisation registries (Weaver manifests and their local dependencies),
// schema files and rules files. Every error names the file and line.
package load

import (
	"errors"
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// ErrInvalid is wrapped by every error about bad registry, schema or rules
// input, so that callers can tell bad input from I/O failures with errors.Is.
var ErrInvalid = errors.New("invalid registry input")

// posError is a load error positioned in a file: "file:line: key: message".
type posError struct {
	File string
	Line int
	Key  string // YAML key or attribute key the error is about; may be empty
	Err  error
}

func (e *posError) Error() string {
	switch {
	case e.Key != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %s: %v", e.File, e.Line, e.Key, e.Err)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	case e.Key != "":
		return fmt.Sprintf("%s: %s: %v", e.File, e.Key, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

func (e *posError) Unwrap() []error { return []error{ErrInvalid, e.Err} }

// yfile is the decoding state for one YAML file: its name for error
// messages, and where warnings go (nil: dropped).
type yfile struct {
	name string
	warn *[]string
}

// warnf records input accepted with leniency, positioned like errf.
func (f yfile) warnf(n *yaml.Node, key, format string, args ...any) {
	if f.warn != nil {
		*f.warn = append(*f.warn, f.errf(n, key, format, args...).Error())
	}
}

func (f yfile) errf(n *yaml.Node, key, format string, args ...any) error {
	line := 0
	if n != nil {
		line = n.Line
	}
	return &posError{File: f.name, Line: line, Key: key, Err: fmt.Errorf(format, args...)}
}

// parse decodes data into a document node and returns its root mapping. An
// empty document yields a nil node and no error.
func (f yfile) parse(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		// yaml.v3 messages already carry "line N"; prefix the file.
		return nil, &posError{File: f.name, Err: err}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, f.errf(root, "", "top level must be a mapping")
	}
	return root, nil
}

// fields iterates a mapping node's key/value pairs. Aliases are resolved.
func (f yfile) fields(n *yaml.Node, what string, fn func(key string, k, v *yaml.Node) error) error {
	n = deref(n)
	if n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return f.errf(n, what, "must be a mapping")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return f.errf(k, what, "mapping keys must be scalars")
		}
		if err := fn(k.Value, k, v); err != nil {
			return err
		}
	}
	return nil
}

// items iterates a sequence node. A null node is an empty sequence.
func (f yfile) items(n *yaml.Node, what string, fn func(i int, v *yaml.Node) error) error {
	n = deref(n)
	if n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return f.errf(n, what, "must be a sequence")
	}
	for i, v := range n.Content {
		if err := fn(i, deref(v)); err != nil {
			return err
		}
	}
	return nil
}

func (f yfile) str(n *yaml.Node, what string) (string, error) {
	n = deref(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return "", f.errf(n, what, "must be a scalar")
	}
	if n.Tag == "!!null" {
		return "", nil
	}
	return n.Value, nil
}

func (f yfile) boolean(n *yaml.Node, what string) (bool, error) {
	s, err := f.str(n, what)
	if err != nil {
		return false, err
	}
	b, perr := strconv.ParseBool(s)
	if perr != nil {
		return false, f.errf(n, what, "must be true or false, got %q", s)
	}
	return b, nil
}

func (f yfile) strList(n *yaml.Node, what string) ([]string, error) {
	var out []string
	err := f.items(n, what, func(_ int, v *yaml.Node) error {
		s, err := f.str(v, what)
		if err != nil {
			return err
		}
		out = append(out, s)
		return nil
	})
	return out, err
}

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}
