package load

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/internal/registry/def"
)

// The two model dialects found in semantic-conventions v1.44.0:
//
//   - v1: a top-level `groups:` list; each group (attribute_group, span,
//     metric, event, entity) has `attributes:` whose items either define an
//     attribute (`id:` + `type:`) or reference one (`ref:`). Metric groups
//     carry metric_name, instrument, unit, stability and deprecated.
//   - v2: `file_format: definition/2` with top-level `attributes:` (items
//     `key:` + `type:`), `metrics:` (items `name:`), and groups, spans and
//     refinements whose attributes are only `ref:` / `ref_group:`.
const v2FileFormat = "definition/2"

// ModelFiles lists the model files below dir as LoadOrgRegistry reads
// them (see modelFiles).
func ModelFiles(dir string) ([]string, error) { return modelFiles(dir) }

// modelFiles lists the model files below dir, sorted: every *.yaml and *.yml
// file except the manifests (registry_manifest.yaml, and Weaver's
// manifest.yaml that a semantic-conventions model/ holds), hidden entries
// and the directories in skip.
func modelFiles(dir string, skip ...string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != dir && strings.HasPrefix(d.Name(), ".") {
			// Hidden entries are not registry files. In particular a
			// Kubernetes ConfigMap volume holds its files twice: as
			// symlinks in the mount and in the kubelet's "..<timestamp>"
			// directory behind "..data".
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() && path != dir {
			for _, s := range skip {
				if filepath.Clean(s) == filepath.Clean(path) {
					return filepath.SkipDir
				}
			}
		}
		if d.IsDir() || !isYAML(path) || filepath.Base(path) == manifestName || filepath.Base(path) == modelManifestName {
			return nil
		}
		files = append(files, path)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading model directory %s: %w", dir, err)
	}
	sort.Strings(files)
	return files, nil
}

// loadModelFiles parses files, found below dir, into one def.Defs.
func loadModelFiles(dir string, rel bool, files []string) (*def.Defs, error) {
	out := &def.Defs{}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading model file: %w", err)
		}
		name := path
		if rel {
			if r, rerr := filepath.Rel(dir, path); rerr == nil {
				name = filepath.ToSlash(r)
			}
		}
		if err := ParseModelFile(name, data, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func isYAML(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".yaml" || ext == ".yml"
}

// ParseModelFile decodes one model file of either dialect into out.
func ParseModelFile(name string, data []byte, out *def.Defs) error {
	f := yfile{name: name, warn: &out.Warnings}
	root, err := f.parse(data)
	if err != nil || root == nil {
		return err
	}
	format := ""
	err = f.fields(root, "", func(key string, _, v *yaml.Node) error {
		if key == "file_format" {
			format, err = f.str(v, key)
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	switch format {
	case "":
		if err := modelShape(f, root); err != nil {
			return err
		}
		return parseV1(f, root, out)
	case v2FileFormat:
		return parseV2(f, root, out)
	}
	return f.errf(root, "file_format", "unsupported model file_format %q (want %q or none)", format, v2FileFormat)
}

// modelShape refuses a v1 model file (no file_format) that is YAML of
// another shape: a mapping without the model's groups: key (`foo: bar`).
// Loaded as it was, such a file added nothing and its directory passed for
// a registry.
func modelShape(f yfile, root *yaml.Node) error {
	root = deref(root)
	var keys []string
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i].Value
		if k == "groups" {
			return nil
		}
		keys = append(keys, k)
	}
	return f.errf(root, "", "%w: no groups: key (a v1 model file) and no file_format: %s (a v2 one); its top-level keys: %s", ErrNotRegistry, v2FileFormat, strings.Join(keys, ", "))
}

func parseV1(f yfile, root *yaml.Node, out *def.Defs) error {
	return f.fields(root, "", func(key string, _, v *yaml.Node) error {
		if key != "groups" {
			return nil
		}
		return f.items(v, "groups", func(_ int, g *yaml.Node) error {
			return parseV1Group(f, g, out)
		})
	})
}

func parseV1Group(f yfile, g *yaml.Node, out *def.Defs) error {
	var (
		groupType, metricName, instrument, unit string
		stability                               def.Stability
		dep                                     def.Deprecation
		attrs                                   *yaml.Node
	)
	err := f.fields(g, "groups[]", func(key string, _, v *yaml.Node) error {
		var err error
		switch key {
		case "type":
			groupType, err = f.str(v, key)
		case "metric_name":
			metricName, err = f.str(v, key)
		case "instrument":
			instrument, err = f.str(v, key)
		case "unit":
			unit, err = f.str(v, key)
		case "stability":
			stability, err = parseStability(f, v)
		case "deprecated":
			dep, err = parseDeprecation(f, v)
		case "attributes":
			attrs = v
		}
		return err
	})
	if err != nil {
		return err
	}
	if err := v1Group(f, g, attrs, out); err != nil {
		return err
	}
	if groupType == "metric" {
		if metricName == "" {
			return f.errf(g, "metric_name", "metric group without metric_name")
		}
		out.Metrics = append(out.Metrics, def.Metric{
			Name: metricName, Instrument: instrument, Unit: unit,
			Stability: stability, Deprecation: dep, File: f.name, Line: g.Line,
		})
	}
	return f.items(attrs, "attributes", func(_ int, a *yaml.Node) error {
		return parseAttribute(f, a, "id", out)
	})
}

func parseV2(f yfile, root *yaml.Node, out *def.Defs) error {
	return f.fields(root, "", func(key string, _, v *yaml.Node) error {
		switch key {
		case "attributes":
			return f.items(v, key, func(_ int, a *yaml.Node) error {
				return parseAttribute(f, a, "key", out)
			})
		case "metrics":
			return f.items(v, key, func(_ int, m *yaml.Node) error {
				if err := v2Group(f, key, m, out); err != nil {
					return err
				}
				return parseV2Metric(f, m, out)
			})
		case "attribute_groups", "spans", "events", "entities", "span_refinements", "metric_refinements", "event_refinements":
			// Only references live here; collect them for validation.
			return f.items(v, key, func(_ int, g *yaml.Node) error {
				if err := v2Group(f, key, g, out); err != nil {
					return err
				}
				return f.fields(g, key, func(k string, _, av *yaml.Node) error {
					if k != "attributes" {
						return nil
					}
					return f.items(av, k, func(_ int, a *yaml.Node) error {
						return parseAttribute(f, a, "key", out)
					})
				})
			})
		}
		return nil
	})
}

func parseV2Metric(f yfile, m *yaml.Node, out *def.Defs) error {
	md := def.Metric{File: f.name, Line: m.Line}
	var attrs *yaml.Node
	err := f.fields(m, "metrics[]", func(key string, _, v *yaml.Node) error {
		var err error
		switch key {
		case "name":
			md.Name, err = f.str(v, key)
		case "instrument":
			md.Instrument, err = f.str(v, key)
		case "unit":
			md.Unit, err = f.str(v, key)
		case "stability":
			md.Stability, err = parseStability(f, v)
		case "deprecated":
			md.Deprecation, err = parseDeprecation(f, v)
		case "attributes":
			attrs = v
		}
		return err
	})
	if err != nil {
		return err
	}
	if md.Name == "" {
		return f.errf(m, "name", "metric without name")
	}
	out.Metrics = append(out.Metrics, md)
	return f.items(attrs, "attributes", func(_ int, a *yaml.Node) error {
		return parseAttribute(f, a, "key", out)
	})
}

// parseAttribute handles one item of an `attributes:` list: a definition
// (idField is "id" in v1, "key" in v2) or a `ref:`; `ref_group:` is ignored.
func parseAttribute(f yfile, a *yaml.Node, idField string, out *def.Defs) error {
	var (
		d         = def.Attr{File: f.name, Line: a.Line}
		ref       string
		typeNode  *yaml.Node
		members   *yaml.Node
		hasID     bool
		stability *yaml.Node
		depNode   *yaml.Node
	)
	err := f.fields(a, "attributes[]", func(key string, _, v *yaml.Node) error {
		var err error
		switch key {
		case idField:
			d.Key, err = f.str(v, key)
			hasID = true
		case "ref":
			ref, err = f.str(v, key)
		case "type":
			typeNode = v
		case "members":
			members = v
		case "stability":
			stability = v
		case "deprecated":
			depNode = v
		}
		return err
	})
	if err != nil {
		return err
	}
	if !hasID {
		if ref != "" {
			out.Refs = append(out.Refs, def.AttrRef{Key: ref, File: f.name, Line: a.Line})
		}
		return nil
	}
	if d.Key == "" {
		return f.errf(a, idField, "attribute with empty %s", idField)
	}
	if err := ValidKey(d.Key); err != nil {
		return f.errf(a, d.Key, "%w", err)
	}
	if typeNode == nil {
		return f.errf(a, d.Key, "attribute without type")
	}
	if err := parseType(f, typeNode, members, &d); err != nil {
		return err
	}
	if stability != nil {
		if d.Stability, err = parseStability(f, stability); err != nil {
			return err
		}
	}
	if depNode != nil {
		if d.Deprecation, err = parseDeprecation(f, depNode); err != nil {
			return err
		}
	}
	out.Attributes = append(out.Attributes, d)
	return nil
}

// ValidKey rejects keys that could never be attribute names.
func ValidKey(k string) error {
	if strings.TrimSpace(k) != k || strings.ContainsAny(k, " \t\n") {
		return errors.New("attribute key must not contain whitespace")
	}
	if strings.HasPrefix(k, ".") || strings.HasSuffix(k, ".") || strings.Contains(k, "..") {
		return errors.New("attribute key has an empty '.'-separated segment")
	}
	return nil
}

// parseType decodes `type:`: a scalar type, template[<scalar>], or an enum
// (v1: a mapping with members; v2: `type: enum` plus sibling `members:`).
func parseType(f yfile, t, members *yaml.Node, d *def.Attr) error {
	if t.Kind == yaml.MappingNode {
		var mem *yaml.Node
		err := f.fields(t, "type", func(key string, _, v *yaml.Node) error {
			if key == "members" {
				mem = v
			}
			return nil
		})
		if err != nil {
			return err
		}
		if mem == nil {
			return f.errf(t, d.Key, "enum type without members")
		}
		return parseMembers(f, mem, d)
	}
	s, err := f.str(t, d.Key)
	if err != nil {
		return err
	}
	if s == "enum" {
		if members == nil {
			return f.errf(t, d.Key, "enum type without members")
		}
		return parseMembers(f, members, d)
	}
	if inner, ok := strings.CutPrefix(s, "template["); ok && strings.HasSuffix(inner, "]") {
		d.Template = true
		s = strings.TrimSuffix(inner, "]")
	}
	typ, ok := def.ParseType(s)
	if !ok {
		return f.errf(t, d.Key, "unknown attribute type %q", t.Value)
	}
	d.Type = typ
	return nil
}

// parseMembers decodes enum members. All values must be strings (a string
// enum) or all integers (an int enum).
func parseMembers(f yfile, mem *yaml.Node, d *def.Attr) error {
	var strs []string
	var ints []int64
	var members []memberNode
	err := f.items(mem, "members", func(_ int, m *yaml.Node) error {
		var val, id, dep *yaml.Node
		err := f.fields(m, "members[]", func(key string, _, v *yaml.Node) error {
			switch key {
			case "value":
				val = v
			case "id":
				id = v
			case "deprecated":
				dep = v
			}
			return nil
		})
		if err != nil {
			return err
		}
		if val == nil || val.Kind != yaml.ScalarNode {
			return f.errf(m, d.Key, "enum member without a scalar value")
		}
		members = append(members, memberNode{node: m, id: id, value: val, dep: dep})
		if val.Tag == "!!int" {
			n, perr := strconv.ParseInt(val.Value, 0, 64)
			if perr != nil {
				return f.errf(val, d.Key, "enum member value %q: %w", val.Value, perr)
			}
			ints = append(ints, n)
			return nil
		}
		strs = append(strs, val.Value)
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case len(strs) > 0 && len(ints) > 0:
		return f.errf(mem, d.Key, "enum mixes string and int member values")
	case len(ints) > 0:
		d.Type, d.EnumInts = def.TypeInt, ints
	case len(strs) > 0:
		d.Type, d.EnumStrings = def.TypeString, strs
	default:
		return f.errf(mem, d.Key, "enum without members")
	}
	return parseDeprecatedMembers(f, members, d)
}

func parseStability(f yfile, v *yaml.Node) (def.Stability, error) {
	s, err := f.str(v, "stability")
	if err != nil {
		return 0, err
	}
	if s == "" {
		return def.StabilityUnspecified, nil
	}
	if st, ok := def.ParseStability(s); ok {
		return st, nil
	}
	return 0, f.errf(v, "stability", "unknown stability %q", s)
}

// parseDeprecation decodes `deprecated:`, either the structured form
// {reason, renamed_to, note} or the legacy plain string (a note).
func parseDeprecation(f yfile, v *yaml.Node) (def.Deprecation, error) {
	var d def.Deprecation
	if v.Kind == yaml.ScalarNode {
		note, err := f.str(v, "deprecated")
		if err != nil {
			return d, err
		}
		return def.Deprecation{Reason: def.DeprecatedUnspecified, Note: strings.TrimSpace(note)}, nil
	}
	reason := ""
	err := f.fields(v, "deprecated", func(key string, _, fv *yaml.Node) error {
		var err error
		switch key {
		case "reason":
			reason, err = f.str(fv, "deprecated.reason")
		case "renamed_to":
			d.RenamedTo, err = f.str(fv, "deprecated.renamed_to")
		case "note":
			var note string
			note, err = f.str(fv, "deprecated.note")
			d.Note = strings.TrimSpace(note)
		}
		return err
	})
	if err != nil {
		return d, err
	}
	if reason == "" {
		reason = def.DeprecatedUnspecified.String()
	}
	var ok bool
	if d.Reason, ok = def.ParseDeprecationReason(reason); !ok {
		return d, f.errf(v, "deprecated.reason", "unknown deprecation reason %q", reason)
	}
	if d.Reason == def.DeprecatedRenamed && d.RenamedTo == "" {
		return d, f.errf(v, "deprecated.renamed_to", "reason renamed without renamed_to")
	}
	if d.Reason != def.DeprecatedRenamed && d.RenamedTo != "" {
		// Weaver reads the line and ignores renamed_to (its Deprecated has
		// no renamed_to but for renamed); semconv v1.40.0 has one.
		f.warnf(v, "deprecated.renamed_to", "renamed_to %q ignored: only valid with reason renamed, not %s", d.RenamedTo, d.Reason)
		d.RenamedTo = ""
	}
	return d, nil
}
