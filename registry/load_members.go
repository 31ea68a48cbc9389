package registry

import (
	"go.yaml.in/yaml/v3"
)

// DeprecatedMember is one enum member the model marks deprecated, for
// example cloud.platform's azure_vm, renamed to azure.vm. The model's
// renamed_to names another member's id; RenamedTo holds that member's value,
// which is what telemetry carries.
type DeprecatedMember struct {
	// Value is the deprecated member's value; the decimal form for int enums.
	Value  string
	Reason DeprecationReason
	// RenamedTo is the value of the member it is renamed to; "" when the
	// model names none (obsoleted, uncategorized).
	RenamedTo string
	Note      string
}

// memberNode is one enum member as read, before deprecations are resolved.
type memberNode struct {
	node, id, value, dep *yaml.Node
}

// parseDeprecatedMembers records the deprecated members of d's enum. A
// renamed_to must name the id of another member of the same enum.
func parseDeprecatedMembers(f yfile, members []memberNode, d *attrDef) error {
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
		dm := DeprecatedMember{Value: m.value.Value, Reason: dep.Reason, Note: dep.Note}
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

// CurrentMember returns the value a deprecated member of a's string enum is
// renamed to, and true; false when v is not such a member or the rename is a
// no-op (two ids sharing one value). It does not allocate.
func (a *Attribute) CurrentMember(v string) (string, bool) {
	for i := range a.DeprecatedMembers {
		m := &a.DeprecatedMembers[i]
		if m.Value == v && m.RenamedTo != "" && m.RenamedTo != v {
			return m.RenamedTo, true
		}
	}
	return "", false
}
