package registry

// The Attribute's queries: what a key is renamed to in a context, and
// which values its enum allows. None allocates.

// Target returns the final (chain-collapsed) rename target of a in ctx, or
// nil if a keeps its name there. It does not allocate. Templates only rename
// to templates: for a key matched by template a, the new key is
// Target(ctx).Key + key[len(a.Key):] (e.g. container.labels.app ->
// container.label.app).
func (a *Attribute) Target(ctx Context) *Attribute {
	if a == nil {
		return nil
	}
	rs := &a.rename
	if rs.byMetric {
		var bloom uint64
		if ctx.Location == LocationDataPoint {
			bloom = metricBloom(ctx.MetricName)
		}
		for i := range rs.rules {
			r := &rs.rules[i]
			if r.scope.metrics != nil && rs.blooms[i]&bloom != bloom {
				continue // definitely not in the rule's metric list
			}
			if r.scope.matches(&ctx) {
				return r.target
			}
		}
		return nil
	}
	for i := range rs.rules {
		r := &rs.rules[i]
		if r.scope.matches(&ctx) {
			return r.target
		}
	}
	return nil
}

// RenamedKey is key's name once a (the entry that matched key) is renamed
// to t, a's Target in some context (not nil): a renamed template keeps the
// key's suffix (old.prefix.x -> new.prefix.x). The engine, otelgov explain
// and otelgov queries all name a rename through it.
func (a *Attribute) RenamedKey(key string, t *Attribute) string {
	if a.Template && t.Template && len(key) > len(a.Key) {
		return t.Key + key[len(a.Key):]
	}
	return t.Key
}

// CurrentName is key's name in ctx, and whether a rename applies there.
func (a *Attribute) CurrentName(key string, ctx Context) (string, bool) {
	t := a.Target(ctx)
	if t == nil {
		return key, false
	}
	return a.RenamedKey(key, t), true
}

// Renamed reports whether a has a rename target in at least one context.
func (a *Attribute) Renamed() bool {
	if a == nil {
		return false
	}
	for _, r := range a.rename.rules {
		if r.target != nil {
			return true
		}
	}
	return false
}

// Contextual reports whether a's rename target depends on the context.
func (a *Attribute) Contextual() bool {
	if a == nil || len(a.rename.rules) == 0 {
		return false
	}
	return len(a.rename.rules) > 1 || a.rename.rules[0].scope.locs != allLocations ||
		a.rename.rules[0].scope.kinds != allSpanKinds || a.rename.rules[0].scope.metrics != nil ||
		a.rename.rules[0].scope.spans != nil
}

// AllowsString reports enum membership of v; true when a is not a string enum.
func (a *Attribute) AllowsString(v string) bool {
	if a == nil || a.EnumStrings == nil {
		return true
	}
	for _, s := range a.EnumStrings {
		if s == v {
			return true
		}
	}
	return false
}

// AllowsInt reports enum membership of v; true when a is not an int enum.
func (a *Attribute) AllowsInt(v int64) bool {
	if a == nil || a.EnumInts == nil {
		return true
	}
	for _, n := range a.EnumInts {
		if n == v {
			return true
		}
	}
	return false
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

// Rename is one of an Attribute's resolved, chain-collapsed renames: in the
// contexts of Scope the key's current name is To ("" when it keeps its name
// there). Renames are tried in order; the first whose scope matches wins,
// as in Target.
type Rename struct {
	To    string
	Scope Scope
}

// Scope is the set of contexts a rename applies in: the product of its
// lists, where a nil list means any.
type Scope struct {
	Locations []Location
	SpanKinds []SpanKind
	Metrics   []string // data-point contexts of these metrics (and their current names)
	Spans     []string // spans of these names
}

// Any reports whether s is every context.
func (s Scope) Any() bool {
	return s.Locations == nil && s.SpanKinds == nil && s.Metrics == nil && s.Spans == nil
}

// Renames lists a's renames in the order Target tries them; nil when a is
// never renamed. It allocates: it is for tools, not the hot path.
func (a *Attribute) Renames() []Rename {
	if a == nil {
		return nil
	}
	out := make([]Rename, 0, len(a.rename.rules))
	for _, r := range a.rename.rules {
		rn := Rename{Scope: r.scope.public()}
		if r.target != nil {
			rn.To = r.target.Key
		}
		out = append(out, rn)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
