package policy

import (
	"strings"

	"github.com/otelgov/otelcol-governance/registry"
)

// Data is the data document Weaver's default jq preprocessor
// (defaults/jq/advice.jq) derives from the registry, built from ix:
//   - attributes_set: every attribute key that is no template;
//   - deprecated_attributes_set: those of them that are deprecated;
//   - templates_set: the template keys;
//   - namespaces_to_check_set: every '.'-bounded proper prefix of an
//     attributes_set key;
//   - schema_url: the registry's schema URL;
//   - entities: the v2 entity view, by schema URL and entity type. The
//     registry reads semantic conventions as Weaver's v1 registry, which has
//     none: an empty object, as Weaver gives a v1 registry.
//
// Keys only known for their scoped renames (placeholders) are not the
// registry's attributes and are left out.
func Data(ix *registry.Index) map[string]any {
	attrs, deprecated, templates, namespaces := map[string]any{}, map[string]any{}, map[string]any{}, map[string]any{}
	for _, a := range ix.Attributes() {
		switch {
		case a.Placeholder:
			continue
		case a.Template:
			templates[a.Key] = true
			continue
		}
		attrs[a.Key] = true
		if a.Deprecation.Reason != registry.NotDeprecated {
			deprecated[a.Key] = true
		}
		for i := strings.IndexByte(a.Key, '.'); i >= 0; {
			namespaces[a.Key[:i]] = true
			j := strings.IndexByte(a.Key[i+1:], '.')
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	return map[string]any{
		"attributes_set":            attrs,
		"deprecated_attributes_set": deprecated,
		"templates_set":             templates,
		"namespaces_to_check_set":   namespaces,
		"schema_url":                ix.SchemaURL(),
		"entities":                  map[string]any{},
	}
}
