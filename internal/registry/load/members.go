package load

import (
	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/internal/registry/def"
)

// memberNode is one enum member as read, before deprecations are resolved.
type memberNode struct {
	node, id, value, dep *yaml.Node
}

// parseDeprecatedMembers records the deprecated members of d's enum. A
// renamed_to must name the id of another member of the same enum.
func parseDeprecatedMembers(f yfile, members []memberNode, d *def.Attr) error {
	valueOf := make(map[string]string, len(members))
	for _, m := range members {
		if m.id != nil && m.id.Kind == yaml.ScalarNode {
			valueOf[m.id.Value] = m.value.Value
		}
	}
	for _, m := range members {
		if m.dep == nil {
			continue
		}
		dep, err := parseDeprecation(f, m.dep)
		if err != nil {
			return err
		}
		dm := def.DeprecatedMember{Value: m.value.Value, Reason: dep.Reason, Note: dep.Note}
		if dep.RenamedTo != "" {
			to, ok := valueOf[dep.RenamedTo]
			if !ok {
				return f.errf(m.dep, d.Key, "member %q: renamed_to %q is not the id of a member", m.value.Value, dep.RenamedTo)
			}
			dm.RenamedTo = to
		}
		d.DeprecatedMembers = append(d.DeprecatedMembers, dm)
	}
	return nil
}
