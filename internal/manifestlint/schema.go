package manifestlint

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// RuleSchema: an object does not conform to its CustomResourceDefinition's
// openAPIV3Schema. The API server prunes unknown fields of a structural
// schema without a word, so an unknown field is reported here.
const RuleSchema Rule = "schema"

// Schemas holds the openAPIV3Schema of CRD versions, by "group/version Kind".
type Schemas map[string]map[string]any

// LoadCRDs reads every CustomResourceDefinition in the YAML files of dir.
func LoadCRDs(dir string) (Schemas, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	s := Schemas{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", f, err)
		}
		objs, err := DecodeBytes(data, f)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			if o.Kind() != "CustomResourceDefinition" {
				continue
			}
			group := str(o.Doc, "spec", "group")
			kind := str(o.Doc, "spec", "names", "kind")
			for _, v := range listAt(o.Doc, "spec", "versions") {
				vm, _ := v.(map[string]any)
				schema := mapAt(vm, "schema", "openAPIV3Schema")
				if schema != nil {
					s[group+"/"+str(vm, "name")+" "+kind] = schema
				}
			}
		}
	}
	if len(s) == 0 {
		return nil, fmt.Errorf("no CustomResourceDefinition with a schema in %s", dir)
	}
	return s, nil
}

// Covers reports whether s has a schema for o.
func (s Schemas) Covers(o Object) bool {
	_, ok := s[o.APIVersion()+" "+o.Kind()]
	return ok
}

// Validate checks every object that s has a schema for; others are ignored.
func (s Schemas) Validate(objs []Object) []Finding {
	var out []Finding
	for _, o := range objs {
		schema, ok := s[o.APIVersion()+" "+o.Kind()]
		if !ok {
			continue
		}
		var errs []string
		// apiVersion, kind and metadata are the API server's, not the CRD's.
		for k, v := range o.Doc {
			if k == "apiVersion" || k == "kind" || k == "metadata" {
				continue
			}
			sub, _ := mapAt(schema, "properties")[k].(map[string]any)
			if sub == nil {
				errs = append(errs, fmt.Sprintf("%s: unknown field", k))
				continue
			}
			validateValue(sub, v, k, &errs)
		}
		for _, r := range listAt(schema, "required") {
			if _, ok := o.Doc[fmt.Sprint(r)]; !ok {
				errs = append(errs, fmt.Sprintf("%s: required", r))
			}
		}
		sort.Strings(errs)
		for _, e := range errs {
			out = append(out, Finding{Rule: RuleSchema, Object: o.Ref(), Message: e})
		}
	}
	return out
}

// validateValue is a structural check of v against an OpenAPI v3 schema as
// CRDs use it: type, properties, additionalProperties, required, items,
// enum, and the x-kubernetes extensions that relax them.
func validateValue(schema map[string]any, v any, path string, errs *[]string) {
	if v == nil {
		if b, _ := schema["nullable"].(bool); !b {
			*errs = append(*errs, fmt.Sprintf("%s: null is not allowed", path))
		}
		return
	}
	if b, _ := schema["x-kubernetes-int-or-string"].(bool); b {
		switch v.(type) {
		case int, int64, uint64, string:
			return
		}
		*errs = append(*errs, fmt.Sprintf("%s: want integer or string, got %T", path, v))
		return
	}
	if enum := listAt(schema, "enum"); len(enum) > 0 {
		ok := false
		for _, e := range enum {
			if fmt.Sprint(e) == fmt.Sprint(v) {
				ok = true
			}
		}
		if !ok {
			*errs = append(*errs, fmt.Sprintf("%s: %v is not one of %v", path, v, enum))
		}
	}
	typ, _ := schema["type"].(string)
	preserve, _ := schema["x-kubernetes-preserve-unknown-fields"].(bool)
	switch typ {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			*errs = append(*errs, fmt.Sprintf("%s: want object, got %T", path, v))
			return
		}
		props := mapAt(schema, "properties")
		addl := schema["additionalProperties"]
		for k, child := range m {
			p := path + "." + k
			if sub, ok := props[k].(map[string]any); ok {
				validateValue(sub, child, p, errs)
				continue
			}
			switch a := addl.(type) {
			case map[string]any:
				validateValue(a, child, p, errs)
			case bool:
				if !a && !preserve {
					*errs = append(*errs, fmt.Sprintf("%s: unknown field", p))
				}
			default:
				if !preserve && len(props) > 0 {
					*errs = append(*errs, fmt.Sprintf("%s: unknown field (the API server would prune it silently)", p))
				}
			}
		}
		for _, r := range listAt(schema, "required") {
			if _, ok := m[fmt.Sprint(r)]; !ok {
				*errs = append(*errs, fmt.Sprintf("%s.%s: required", path, r))
			}
		}
	case "array":
		l, ok := v.([]any)
		if !ok {
			*errs = append(*errs, fmt.Sprintf("%s: want array, got %T", path, v))
			return
		}
		if items := mapAt(schema, "items"); items != nil {
			for i, child := range l {
				validateValue(items, child, fmt.Sprintf("%s[%d]", path, i), errs)
			}
		}
	case "string":
		if _, ok := v.(string); !ok {
			*errs = append(*errs, fmt.Sprintf("%s: want string, got %T (quote it)", path, v))
		}
	case "integer":
		switch v.(type) {
		case int, int64, uint64:
		default:
			*errs = append(*errs, fmt.Sprintf("%s: want integer, got %T", path, v))
		}
	case "number":
		switch v.(type) {
		case int, int64, uint64, float64:
		default:
			*errs = append(*errs, fmt.Sprintf("%s: want number, got %T", path, v))
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			*errs = append(*errs, fmt.Sprintf("%s: want boolean, got %T", path, v))
		}
	case "":
		// untyped: anything goes
	default:
		if !strings.HasPrefix(typ, "x-") {
			*errs = append(*errs, fmt.Sprintf("%s: schema type %q not understood", path, typ))
		}
	}
}
