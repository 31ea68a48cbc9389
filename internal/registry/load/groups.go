package load

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/internal/registry/def"
)

// This file loads the group definitions of the model: which attributes
// belong to each metric, event, span and entity, at which requirement level,
// and which groups they inherit from. Resolution (groups.go) turns
// them into the Index's Group tables.

// parseRequirementLevel decodes `requirement_level:`: a scalar or a mapping
// whose single key is the level and whose value is the condition text.
func parseRequirementLevel(f yfile, v *yaml.Node) (def.RequirementLevel, error) {
	name := ""
	if v.Kind == yaml.MappingNode {
		err := f.fields(v, "requirement_level", func(key string, _, _ *yaml.Node) error {
			if name == "" {
				name = key
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	} else {
		s, err := f.str(v, "requirement_level")
		if err != nil {
			return 0, err
		}
		name = s
	}
	if name == "" {
		return def.RequirementRecommended, nil
	}
	if l, ok := def.ParseRequirementLevel(name); ok {
		return l, nil
	}
	return 0, f.errf(v, "requirement_level", "unknown requirement level %q", name)
}

// parseSpanKind decodes span_kind (v1) or kind (v2).
func parseSpanKind(f yfile, v *yaml.Node, key string) (def.SpanKind, error) {
	s, err := f.str(v, key)
	if err != nil {
		return 0, err
	}
	k, ok := def.ParseSpanKind(strings.ToLower(s))
	if !ok {
		return 0, f.errf(v, key, "unknown span kind %q", s)
	}
	return k, nil
}

// v2Group decodes one item of a v2 section (attribute_groups, spans,
// events, entities, metrics and the refinements) into a group.
func v2Group(f yfile, section string, n *yaml.Node, out *def.Defs) error {
	g := def.Group{File: f.name, Line: n.Line}
	var attrs *yaml.Node
	var id, typ, name, ref string
	err := f.fields(n, section, func(key string, _, v *yaml.Node) error {
		var err error
		switch key {
		case "id":
			id, err = f.str(v, key)
		case "type":
			if v.Kind == yaml.ScalarNode {
				typ, err = f.str(v, key)
			}
		case "name":
			if v.Kind == yaml.ScalarNode {
				name, err = f.str(v, key)
			}
		case "ref":
			ref, err = f.str(v, key)
		case "kind":
			g.SpanKind, err = parseSpanKind(f, v, key)
			g.HasKind = true
		case "stability", "deprecated", "entity_associations":
			err = parseGroupStatus(f, key, v, &g)
		case "attributes", "identity", "description":
			if key == "attributes" {
				attrs = v
			} else {
				err = f.items(v, key, func(_ int, a *yaml.Node) error {
					return parseGroupAttr(f, a, &g)
				})
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	switch section {
	case "attribute_groups":
		g.ID, g.Type = id, def.GroupAttributes
	case "spans":
		g.ID, g.Type = "span."+typ, def.GroupSpan
	case "events":
		g.ID, g.Type, g.Name = "event."+name, def.GroupEvent, name
	case "entities":
		g.ID, g.Type, g.Name = "entity."+typ, def.GroupEntity, typ
	case "metrics":
		g.ID, g.Type, g.Name = "metric."+name, def.GroupMetric, name
	case "span_refinements":
		g.ID, g.Type = id, def.GroupSpan
		g.Parents = append(g.Parents, "span."+ref)
	case "metric_refinements":
		// A refinement of a metric adds attributes for one use; the data
		// carries the refined metric's name, which keeps its definition.
		g.ID, g.Type = id, ""
		g.Parents = append(g.Parents, "metric."+ref)
	case "event_refinements":
		g.ID, g.Type = id, ""
		g.Parents = append(g.Parents, "event."+ref)
	}
	if g.ID == "" || strings.HasSuffix(g.ID, ".") {
		return nil
	}
	if err := f.items(attrs, "attributes", func(_ int, a *yaml.Node) error {
		return parseGroupAttr(f, a, &g)
	}); err != nil {
		return err
	}
	out.Groups = append(out.Groups, g)
	return nil
}

// parseGroupAttr records one attributes item of a group: a `ref:` or a
// definition with its requirement level, or a v2 `ref_group:`. Definitions
// and refs themselves are collected by parseAttribute.
func parseGroupAttr(f yfile, a *yaml.Node, g *def.Group) error {
	var key, refGroup string
	level := def.RequirementRecommended
	hasLevel := false
	err := f.fields(a, "attributes[]", func(k string, _, v *yaml.Node) error {
		var err error
		switch k {
		case "ref", "id", "key":
			if v.Kind == yaml.ScalarNode && key == "" {
				key, err = f.str(v, k)
			}
		case "ref_group":
			refGroup, err = f.str(v, k)
		case "requirement_level":
			level, err = parseRequirementLevel(f, v)
			hasLevel = true
		}
		return err
	})
	if err != nil {
		return err
	}
	if refGroup != "" {
		g.Parents = append(g.Parents, refGroup)
	}
	if key != "" {
		g.Attrs = append(g.Attrs, def.GroupAttr{Key: key, Level: level, HasLevel: hasLevel})
	}
	return nil
}

// v1Group builds the group of a v1 `groups:` item; attrs is its attributes
// list.
func v1Group(f yfile, g *yaml.Node, attrs *yaml.Node, out *def.Defs) error {
	gd := def.Group{File: f.name, Line: g.Line}
	var typ string
	err := f.fields(g, "groups[]", func(key string, _, v *yaml.Node) error {
		var err error
		switch key {
		case "id":
			gd.ID, err = f.str(v, key)
		case "type":
			typ, err = f.str(v, key)
		case "extends":
			var p string
			p, err = f.str(v, key)
			gd.Parents = append(gd.Parents, p)
		case "span_kind":
			gd.SpanKind, err = parseSpanKind(f, v, key)
			gd.HasKind = true
		case "stability", "deprecated", "entity_associations":
			err = parseGroupStatus(f, key, v, &gd)
		case "metric_name":
			gd.Name, err = f.str(v, key)
		case "name":
			if gd.Name == "" && v.Kind == yaml.ScalarNode {
				gd.Name, err = f.str(v, key)
			}
		}
		return err
	})
	if err != nil || gd.ID == "" {
		return err
	}
	switch typ {
	case def.GroupSpan, def.GroupMetric, def.GroupEvent, def.GroupEntity, def.GroupAttributes:
		gd.Type = typ
	default:
		gd.Type = ""
	}
	if err := f.items(attrs, "attributes", func(_ int, a *yaml.Node) error {
		return parseGroupAttr(f, a, &gd)
	}); err != nil {
		return err
	}
	out.Groups = append(out.Groups, gd)
	return nil
}

// parseGroupStatus decodes the keys both dialects spell alike on a group:
// stability, deprecated (either form) and entity_associations.
func parseGroupStatus(f yfile, key string, v *yaml.Node, g *def.Group) error {
	var err error
	switch key {
	case "stability":
		g.Stability, err = parseStability(f, v)
	case "deprecated":
		g.Deprecation, err = parseDeprecation(f, v)
	case "entity_associations":
		g.Entities, err = parseEntityAssociations(f, v, key)
	}
	return err
}

// parseEntityAssociations decodes entity_associations: a list whose items
// are an entity name, or a map with one_of or all_of holding such a list.
func parseEntityAssociations(f yfile, v *yaml.Node, key string) ([]def.EntityAssociation, error) {
	var out []def.EntityAssociation
	err := f.items(v, key, func(_ int, n *yaml.Node) error {
		if n.Kind == yaml.ScalarNode {
			name, err := f.str(n, key)
			if err != nil {
				return err
			}
			out = append(out, def.EntityAssociation{Entity: name})
			return nil
		}
		var a def.EntityAssociation
		err := f.fields(n, key, func(k string, _, cv *yaml.Node) error {
			var err error
			switch k {
			case "one_of":
				a.OneOf, err = parseEntityAssociations(f, cv, key+".one_of")
			case "all_of":
				a.AllOf, err = parseEntityAssociations(f, cv, key+".all_of")
			default:
				err = f.errf(cv, key, "unknown entity association %q, want one_of or all_of", k)
			}
			return err
		})
		if err != nil {
			return err
		}
		if a.OneOf == nil && a.AllOf == nil {
			return f.errf(n, key, "entity association without an entity, one_of or all_of")
		}
		out = append(out, a)
		return nil
	})
	return out, err
}
