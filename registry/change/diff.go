package change

import (
	"errors"
	"reflect"
	"slices"
	"strconv"

	"github.com/otelgov/otelcol-governance/registry"
)

// Diff compares two resolved registries and returns every change from old
// to new, sorted. Both must be non-nil. The warnings of loading each
// (registry.Index.Warnings) are in Set.Old and Set.New, for the caller to
// show.
func Diff(old, new *registry.Index) (*Set, error) {
	if old == nil || new == nil {
		return nil, errors.New("change: diff of a nil registry")
	}
	d := &differ{old: old, new: new, set: &Set{Old: sideOf(old), New: sideOf(new)}}
	d.attributes()
	d.metrics()
	d.groups()
	d.set.sort()
	return d.set, nil
}

type differ struct {
	old, new *registry.Index
	set      *Set
}

func (d *differ) add(c Change) { d.set.Changes = append(d.set.Changes, c) }

// defined reports whether a is a definition (not nil, not a placeholder).
func defined(a *registry.Attribute) bool { return a != nil && !a.Placeholder }

func attrMap(ix *registry.Index) map[string]*registry.Attribute {
	m := map[string]*registry.Attribute{}
	for _, a := range ix.Attributes() {
		m[a.Key] = a
	}
	return m
}

func unionKeys[V any](a, b map[string]V) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func (d *differ) attributes() {
	olds, news := attrMap(d.old), attrMap(d.new)
	ctxs := sampleContexts(olds, news)
	// pairs are the (old current name, new current name) pairs whose
	// definitions are compared field by field, each once.
	pairs := map[[2]string]bool{}
	for _, k := range unionKeys(olds, news) {
		oa, na := olds[k], news[k]
		switch {
		case !defined(oa) && defined(na):
			d.add(Change{
				Kind: AttributeAdded, Item: ItemAttribute, Name: k, NewValue: typeName(na),
				Deprecation: na.Deprecation, Migratable: true, Source: na.Source,
			})
		case defined(oa) && !defined(na):
			c := Change{
				Kind: AttributeRemoved, Item: ItemAttribute, Name: k, OldValue: typeName(oa),
				OldDeprecation: oa.Deprecation, Source: oa.Source,
				Why: "the new registry does not define the key",
			}
			if na.Renamed() {
				c.Why = "the new registry does not define the key; it renames it where a schema or rules file says so"
			}
			d.add(c)
		}
		d.migrations(k, oa, na)
		renamed := d.renames(k, oa, na, ctxs, pairs)
		if defined(oa) && defined(na) && oa.Deprecation != na.Deprecation {
			if renamed >= 0 {
				// The rename carries the declared deprecations.
				c := &d.set.Changes[renamed]
				c.OldDeprecation, c.Deprecation = oa.Deprecation, na.Deprecation
			} else {
				d.add(deprecation(ItemAttribute, k, oa.Deprecation, na.Deprecation, na.Renamed(), na.Source))
			}
		}
	}
	for _, p := range sortedPairs(pairs) {
		d.attributeFields(p[0], p[1], olds[p[0]], news[p[1]], news[p[0]])
	}
}

// deprecation is the change of an item that exists on both sides and
// whose declared deprecation changes, when no rename of it changes: the
// item is obsoleted or uncategorized anew, or only the declaration
// changes (renamedAnyway: the processor renames it on the new side all
// the same).
func deprecation(item Item, name string, od, nd registry.Deprecation, renamedAnyway bool, source string) Change {
	c := Change{
		Kind: DeprecationChanged, Item: item, Name: name,
		OldValue: reasonName(od), NewValue: reasonName(nd),
		OldDeprecation: od, Deprecation: nd, Migratable: true, Source: source,
	}
	if renamedAnyway || nd.Reason == registry.NotDeprecated || nd.Reason == registry.DeprecatedRenamed {
		return c
	}
	c.Migratable = false
	c.Why = "deprecated without a replacement"
	switch {
	case nd.Reason == registry.DeprecatedObsoleted && od.Reason != registry.DeprecatedObsoleted:
		c.Kind = Lifecycle(item, OpObsoleted)
	case nd.Reason != registry.DeprecatedObsoleted && (od.Reason == registry.NotDeprecated || od.Reason == registry.DeprecatedRenamed || od.Reason == registry.DeprecatedObsoleted):
		c.Kind = Lifecycle(item, OpUncategorized)
	default:
		c.Migratable, c.Why = true, ""
	}
	return c
}

func reasonName(d registry.Deprecation) string {
	if d.Reason == registry.NotDeprecated {
		return ""
	}
	return d.Reason.String()
}

func typeName(a *registry.Attribute) string {
	if a == nil || a.Placeholder {
		return ""
	}
	if a.Template {
		return "template[" + a.Type.String() + "]"
	}
	return a.Type.String()
}

// members returns an enum's member values (ints in decimal).
func members(a *registry.Attribute) []string {
	if a == nil {
		return nil
	}
	if a.EnumInts != nil {
		out := make([]string, len(a.EnumInts))
		for i, n := range a.EnumInts {
			out[i] = strconv.FormatInt(n, 10)
		}
		return out
	}
	return a.EnumStrings
}

func deprecatedMember(a *registry.Attribute, v string) *registry.DeprecatedMember {
	if a == nil {
		return nil
	}
	for i := range a.DeprecatedMembers {
		if a.DeprecatedMembers[i].Value == v {
			return &a.DeprecatedMembers[i]
		}
	}
	return nil
}

// valueMap returns the value map a rules file declares for key a (string
// and int values together), or nil.
func valueMap(a *registry.Attribute) map[string]string {
	if a == nil || a.Migration == nil || (a.Migration.Values == nil && a.Migration.IntValues == nil) {
		return nil
	}
	out := map[string]string{}
	for k, v := range a.Migration.Values {
		out[k] = v
	}
	for k, v := range a.Migration.IntValues {
		out[strconv.FormatInt(k, 10)] = v
	}
	return out
}

// attributeFields compares the old definition of oldName with the new
// definition of newName (its current name on the new side); src is the
// new side's entry for oldName, whose rules file may declare a value map.
func (d *differ) attributeFields(oldName, newName string, oa, na, src *registry.Attribute) {
	if !defined(oa) || !defined(na) {
		return
	}
	nn := ""
	if newName != oldName {
		nn = newName
	}
	vm := valueMap(src)
	if ot, nt := typeName(oa), typeName(na); ot != nt {
		c := Change{
			Kind: TypeChanged, Item: ItemAttribute, Name: oldName, NewName: nn,
			OldValue: ot, NewValue: nt, Values: vm, Source: na.Source,
		}
		c.Migratable, c.Why = convertible(oa, na, src)
		d.add(c)
	}
	if oldName == newName && oa.Stability != na.Stability {
		d.add(Change{
			Kind: StabilityChanged, Item: ItemAttribute, Name: oldName,
			OldValue: oa.Stability.String(), NewValue: na.Stability.String(), Migratable: true, Source: na.Source,
		})
	}
	om, nm := members(oa), members(na)
	if om == nil && nm == nil {
		return
	}
	for _, v := range om {
		if deprecatedMember(oa, v) != nil {
			continue // already deprecated: the old side's producers were told
		}
		c := Change{Item: ItemAttribute, Name: oldName, NewName: nn, Member: v, Source: na.Source}
		if to, ok := vm[v]; ok && newName != oldName {
			c.Kind, c.NewValue, c.Migratable = EnumMemberRenamed, to, true
			d.add(c)
			continue
		}
		if slices.Contains(nm, v) {
			dm := deprecatedMember(na, v)
			switch {
			case dm == nil:
				continue
			case dm.RenamedTo != "" && dm.RenamedTo != v:
				c.Kind, c.NewValue, c.Migratable = EnumMemberRenamed, dm.RenamedTo, true
			default:
				c.Kind, c.Why = EnumMemberObsoleted, "deprecated without a replacement"
			}
			d.add(c)
			continue
		}
		switch to, ok := vm[v]; {
		case ok:
			c.Kind, c.NewValue, c.Migratable = EnumMemberRenamed, to, true
		case nm == nil:
			continue // the new definition is not an enum: any value is allowed
		default:
			c.Kind, c.Why = EnumMemberRemoved, "no longer a member and no value map names it"
		}
		d.add(c)
	}
	if newName != oldName {
		return // the target's other members are not a change of oldName's
	}
	for _, v := range nm {
		if !slices.Contains(om, v) && deprecatedMember(na, v) == nil {
			d.add(Change{Kind: EnumMemberAdded, Item: ItemAttribute, Name: oldName, Member: v, Migratable: true, Source: na.Source})
		}
	}
}

// convertible says whether a value of oa's type reaches na's type without
// a person deciding: a rules file's conversion or value map, or a lossless
// widening the processor applies (scalar to string).
func convertible(oa, na, src *registry.Attribute) (bool, string) {
	if src != nil && src.Migration != nil {
		m := src.Migration
		if m.Convert == na.Type || (len(m.Values) > 0 || len(m.IntValues) > 0) && na.Type == registry.TypeString {
			return true, ""
		}
	}
	if na.Type == registry.TypeAny {
		return true, ""
	}
	return false, "no conversion from " + typeName(oa) + " to " + typeName(na) + " is declared"
}

// migrations adds the split and merge a rules file declares for k on the
// new side when the old side has not the same one.
func (d *differ) migrations(k string, oa, na *registry.Attribute) {
	if na == nil || na.Migration == nil {
		return
	}
	var om *registry.Migration
	if oa != nil {
		om = oa.Migration
	}
	if s := na.Migration.Split; s != nil && (om == nil || !reflect.DeepEqual(om.Split, s)) {
		d.add(Change{Kind: Split, Item: ItemAttribute, Name: k, Into: splitKeys(s), Migratable: true, Source: na.Migration.Where})
	}
	if m := na.Migration.Merge; m != nil && (om == nil || !reflect.DeepEqual(om.Merge, m)) {
		d.add(Change{
			Kind: Merge, Item: ItemAttribute, Name: k, NewName: m.To, Into: slices.Clone(m.Keys), Source: na.Migration.Where,
			Why: "a merge needs every part on the same item; a consumer reading a part alone loses it",
		})
	}
}

// splitKeys lists the keys a split fills, sorted.
func splitKeys(s *registry.Split) []string {
	keys := slices.Clone(s.Into)
	for _, as := range s.Cases {
		for _, a := range as {
			keys = append(keys, a.Key)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}
