package registryapi

import (
	"slices"
	"strconv"

	"github.com/otelgov/otelcol-governance/registry"
)

// deprecatedMembers lists a's deprecated enum members for the attribute
// endpoint; nil when it has none.
func deprecatedMembers(a *registry.Attribute) []DeprecatedMember {
	if len(a.DeprecatedMembers) == 0 {
		return nil
	}
	out := make([]DeprecatedMember, 0, len(a.DeprecatedMembers))
	for _, m := range a.DeprecatedMembers {
		out = append(out, DeprecatedMember{
			Value: m.Value, Reason: m.Reason.String(), RenamedTo: m.RenamedTo, Note: m.Note,
		})
	}
	return out
}

// valueMigration describes a's value migration; nil when it has none.
func valueMigration(a *registry.Attribute) *ValueMigration {
	m := a.Migration
	if m == nil {
		return nil
	}
	out := &ValueMigration{Where: m.Where}
	switch {
	case m.Split != nil:
		out.Operation = "split"
		out.Targets = slices.Clone(m.Split.Into)
		for _, set := range m.Split.Cases {
			for _, as := range set {
				if !slices.Contains(out.Targets, as.Key) {
					out.Targets = append(out.Targets, as.Key)
				}
			}
		}
		slices.Sort(out.Targets)
	case m.Merge != nil:
		out.Operation = "merge"
		out.Targets = []string{m.Merge.To}
	case m.Move != registry.FieldNone:
		out.Operation = "move"
		out.Targets = []string{m.Move.String()}
	case m.Values != nil || m.IntValues != nil:
		out.Operation = "values"
		out.Values = make(map[string]string, len(m.Values)+len(m.IntValues))
		for k, v := range m.Values {
			out.Values[k] = v
		}
		for k, v := range m.IntValues {
			out.Values[strconv.FormatInt(k, 10)] = v
		}
		if m.Convert != registry.TypeUnknown {
			out.Convert = m.Convert.String()
		}
	default:
		out.Operation = "convert"
		out.Convert = m.Convert.String()
		if m.ConvertTo != "" {
			out.Targets = []string{m.ConvertTo}
		}
	}
	return out
}
