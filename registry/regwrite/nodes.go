package regwrite

import (
	"strconv"

	"go.yaml.in/yaml/v3"
)

// The yaml.v3 node edits: find an item, append an item. Existing nodes are
// never modified, only sequences appended to, so that their content,
// order and comments stay as written.

// get returns the value of key in mapping m, or nil.
func get(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func str(v string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
	if v == "" {
		n.Style = yaml.SingleQuotedStyle
	}
	return n
}

func scalar(v any) *yaml.Node {
	switch x := v.(type) {
	case string:
		return str(x)
	case int64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(x, 10)}
	case int:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(x)}
	case float64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: strconv.FormatFloat(x, 'g', -1, 64)}
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(x)}
	}
	return str("")
}

// setScalar appends key: v to mapping m.
func setScalar(m *yaml.Node, key, v string) { set(m, key, str(v)) }

func set(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, str(key), v)
}

func mapping() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode} }

func seq() *yaml.Node { return &yaml.Node{Kind: yaml.SequenceNode} }

// section returns the sequence under key in root, appending an empty one
// when missing.
func section(root *yaml.Node, key string) *yaml.Node {
	if s := get(root, key); s != nil && s.Kind == yaml.SequenceNode {
		return s
	}
	s := seq()
	if v := get(root, key); v != nil {
		// key: (null) or key: [] -- replace the empty value in place.
		*v = *s
		return v
	}
	set(root, key, s)
	return s
}

// find returns the item of sequence s whose field is value.
func find(s *yaml.Node, field, value string) *yaml.Node {
	if s == nil {
		return nil
	}
	for _, it := range s.Content {
		if v := get(it, field); v != nil && v.Kind == yaml.ScalarNode && v.Value == value {
			return it
		}
	}
	return nil
}

// examples is Weaver's Examples: one value as a scalar, more as a list.
func examples(xs []any) *yaml.Node {
	if len(xs) == 1 {
		return scalar(xs[0])
	}
	s := seq()
	s.Style = yaml.FlowStyle
	for _, x := range xs {
		s.Content = append(s.Content, scalar(x))
	}
	return s
}

func typeNode(a *Attribute) *yaml.Node {
	if len(a.Members) == 0 {
		return str(a.Type)
	}
	t := mapping()
	mem := seq()
	for _, m := range a.Members {
		n := mapping()
		setScalar(n, "id", m.ID)
		set(n, "value", scalar(m.Value))
		setScalar(n, "brief", "")
		setScalar(n, "stability", "development")
		mem.Content = append(mem.Content, n)
	}
	set(t, "members", mem)
	return t
}

func stability(s string) string {
	if s == "" {
		return "development"
	}
	return s
}

// common appends brief, note, stability (Weaver's CommonFields order).
func common(n *yaml.Node, brief, note, stab string) {
	setScalar(n, "brief", brief)
	if note != "" {
		setScalar(n, "note", note)
	}
	setScalar(n, "stability", stability(stab))
}

func deprecated(n *yaml.Node, renamedTo, note string) {
	d := mapping()
	switch {
	case renamedTo != "":
		setScalar(d, "reason", "renamed")
		setScalar(d, "renamed_to", renamedTo)
	case note != "":
		setScalar(d, "reason", "uncategorized")
		setScalar(d, "note", note)
	default:
		return
	}
	set(n, "deprecated", d)
}

// attributeNode is an attribute definition; idField is "key" (v2) or
// "id" (v1).
func attributeNode(a *Attribute, idField string) *yaml.Node {
	n := mapping()
	setScalar(n, idField, a.Key)
	set(n, "type", typeNode(a))
	if len(a.Examples) > 0 {
		set(n, "examples", examples(a.Examples))
	}
	common(n, a.Brief, a.Note, a.Stability)
	deprecated(n, a.RenamedTo, a.Deprecated)
	return n
}

func refsNode(refs []Ref) *yaml.Node {
	s := seq()
	for _, r := range refs {
		s.Content = append(s.Content, refNode(r))
	}
	return s
}

func refNode(r Ref) *yaml.Node {
	n := mapping()
	setScalar(n, "ref", r.Key)
	if r.RequirementLevel != "" {
		setScalar(n, "requirement_level", r.RequirementLevel)
	}
	return n
}

// addRefs appends to group g's attributes the refs it lacks; it returns
// their keys.
func addRefs(g *yaml.Node, refs []Ref) []string {
	var added []string
	var s *yaml.Node
	for _, r := range refs {
		if s == nil {
			s = section(g, "attributes")
		}
		if find(s, "ref", r.Key) != nil || find(s, "id", r.Key) != nil || find(s, "key", r.Key) != nil {
			continue
		}
		s.Content = append(s.Content, refNode(r))
		added = append(added, r.Key)
	}
	return added
}

// mergeV2 appends m's new definitions to a definition/2 document.
func mergeV2(doc *yaml.Node, m *Model, res *Result) {
	root := doc.Content[0]
	for i := range m.Attributes {
		a := &m.Attributes[i]
		s := section(root, "attributes")
		if find(s, "key", a.Key) != nil {
			res.Kept = append(res.Kept, "attribute "+a.Key)
			continue
		}
		s.Content = append(s.Content, attributeNode(a, "key"))
		res.Added = append(res.Added, "attribute "+a.Key)
	}
	// v2 groups: the section, the field naming the item, the item's own
	// fields before its attributes (Weaver's field order).
	group := func(sec, idField, id, what string, refs []Ref, head func(n *yaml.Node), brief, note, stab string) {
		s := section(root, sec)
		if g := find(s, idField, id); g != nil {
			keep(res, g, what, refs)
			return
		}
		n := mapping()
		setScalar(n, idField, id)
		head(n)
		if len(refs) > 0 {
			set(n, "attributes", refsNode(refs))
		}
		common(n, brief, note, stab)
		s.Content = append(s.Content, n)
		res.Added = append(res.Added, what)
	}
	for _, x := range m.Metrics {
		group("metrics", "name", x.Name, "metric "+x.Name, x.Attributes, func(n *yaml.Node) {
			setScalar(n, "instrument", x.Instrument)
			setScalar(n, "unit", x.Unit)
		}, x.Brief, x.Note, x.Stability)
	}
	for _, x := range m.Spans {
		group("spans", "type", x.Type, "span "+x.Type, x.Attributes, func(n *yaml.Node) {
			setScalar(n, "kind", x.Kind)
			name := mapping()
			setScalar(name, "note", x.NameNote)
			set(n, "name", name)
		}, x.Brief, x.Note, x.Stability)
	}
	for _, x := range m.Events {
		group("events", "name", x.Name, "event "+x.Name, x.Attributes, func(*yaml.Node) {}, x.Brief, x.Note, x.Stability)
	}
}

// keep leaves the existing group g as written, only appending the refs it
// lacks.
func keep(res *Result, g *yaml.Node, what string, refs []Ref) {
	res.Kept = append(res.Kept, what)
	for _, k := range addRefs(g, refs) {
		res.Added = append(res.Added, "ref "+k+" on "+what)
	}
}

// inferredGroup is the v1 attribute group new attributes go to.
const inferredGroup = "registry.inferred"

// mergeV1 appends m's new definitions to a groups: document.
func mergeV1(doc *yaml.Node, m *Model, res *Result) {
	root := doc.Content[0]
	groups := section(root, "groups")
	defined := func(key string) bool {
		for _, g := range groups.Content {
			if find(get(g, "attributes"), "id", key) != nil {
				return true
			}
		}
		return false
	}
	var reg *yaml.Node
	for i := range m.Attributes {
		a := &m.Attributes[i]
		if defined(a.Key) {
			res.Kept = append(res.Kept, "attribute "+a.Key)
			continue
		}
		if reg == nil {
			if reg = find(groups, "id", inferredGroup); reg == nil {
				reg = mapping()
				setScalar(reg, "id", inferredGroup)
				setScalar(reg, "type", "attribute_group")
				setScalar(reg, "brief", "Attributes inferred from telemetry by otelgov registry infer.")
				setScalar(reg, "stability", "development")
				groups.Content = append(groups.Content, reg)
			}
		}
		s := section(reg, "attributes")
		s.Content = append(s.Content, attributeNode(a, "id"))
		res.Added = append(res.Added, "attribute "+a.Key)
	}
	group := func(id, typ, what string, refs []Ref, fields func(n *yaml.Node), brief, note, stab string) {
		if g := find(groups, "id", id); g != nil {
			keep(res, g, what, refs)
			return
		}
		n := mapping()
		setScalar(n, "id", id)
		setScalar(n, "type", typ)
		fields(n)
		common(n, brief, note, stab)
		if len(refs) > 0 {
			set(n, "attributes", refsNode(refs))
		}
		groups.Content = append(groups.Content, n)
		res.Added = append(res.Added, what)
	}
	for _, x := range m.Metrics {
		group("metric."+x.Name, "metric", "metric "+x.Name, x.Attributes, func(n *yaml.Node) {
			setScalar(n, "metric_name", x.Name)
			setScalar(n, "instrument", x.Instrument)
			setScalar(n, "unit", x.Unit)
		}, x.Brief, x.Note, x.Stability)
	}
	for _, x := range m.Spans {
		group("span."+x.Type, "span", "span "+x.Type, x.Attributes, func(n *yaml.Node) {
			setScalar(n, "span_kind", x.Kind)
		}, x.Brief, noteOr(x.Note, x.NameNote), x.Stability)
	}
	for _, x := range m.Events {
		group("event."+x.Name, "event", "event "+x.Name, x.Attributes, func(n *yaml.Node) {
			setScalar(n, "name", x.Name)
		}, x.Brief, x.Note, x.Stability)
	}
}

// noteOr is the v1 span's note: v1 has no name.note, so the span name
// goes to the note.
func noteOr(note, name string) string {
	if note != "" || name == "" {
		return note
	}
	return "Span name: " + name
}

// items is the sequence n's items (none when n is not a sequence).
func items(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}
