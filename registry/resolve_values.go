package registry

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/otelgov/otelcol-governance/internal/registry/def"
	"github.com/otelgov/otelcol-governance/internal/registry/load"
)

// lossless reports whether every value of type from converts to type to
// without losing information: scalars to their string form, and a scalar to
// a one-element array of itself or of its string form.
func lossless(from, to Type) bool {
	if from == to {
		return true
	}
	scalar := from == TypeString || from == TypeInt || from == TypeDouble || from == TypeBoolean
	if !scalar {
		return false
	}
	switch to {
	case TypeString, TypeStringArray:
		return true
	case TypeIntArray:
		return from == TypeInt
	case TypeDoubleArray:
		return from == TypeDouble
	case TypeBooleanArray:
		return from == TypeBoolean
	default:
		return false
	}
}

// resolveMigrations checks every rule's value migration against the
// resolved attributes and attaches it to its key. The first rule for a key
// wins (user rules files come before the shipped one).
func (r *resolver) resolveMigrations() error {
	for _, rd := range r.in.rules {
		md := rd.Migration
		if md == nil {
			continue
		}
		w := where(rd.File, md.Line)
		fail := func(line int, format string, args ...any) error {
			return fmt.Errorf("%w: %s: rule for %q: %s", ErrInvalid, where(rd.File, line), rd.Key, fmt.Sprintf(format, args...))
		}
		a, ok := r.attrs[rd.Key]
		if !ok || a.Placeholder {
			return fail(md.Line, "value migrations need a key the registry defines")
		}
		if a.Template {
			return fail(md.Line, "value migrations cannot apply to a template")
		}
		if a.Migration != nil {
			continue
		}
		groups := 0
		if len(md.Values) > 0 || md.Convert != "" {
			groups++
		}
		for _, set := range []bool{md.Split != nil, md.Merge != nil, md.Move != ""} {
			if set {
				groups++
			}
		}
		if groups > 1 {
			return fail(md.Line, "use one of values/convert, split, merge and move per rule")
		}
		m := &Migration{Where: w}
		var err error
		switch {
		case md.Split != nil:
			m.Split, err = r.resolveSplit(a, md.Split, fail)
		case md.Merge != nil:
			m.Merge, err = r.resolveMerge(a, md.Merge, fail)
		case md.Move != "":
			if a.Type != TypeString {
				return fail(md.MoveLine, "move: %q is %s, only string values move", a.Key, a.Type.String())
			}
			m.Move, _ = def.ParseField(md.Move)
		default:
			err = r.resolveValues(a, md, m, fail)
		}
		if err != nil {
			return err
		}
		if m.Split != nil || m.Merge != nil || m.Move != FieldNone {
			if err := migratable(a, md.Line, fail); err != nil {
				return err
			}
		}
		if m.Merge != nil {
			for _, k := range m.Merge.Keys {
				if err := migratable(r.attrs[k], md.Line, fail); err != nil {
					return err
				}
			}
		}
		a.Migration = m
	}
	// A merge's other keys are counted by the walk as deprecated keys left
	// in place, and recounted as merged; they must not migrate themselves.
	for _, a := range r.attrs {
		if a.Migration == nil || a.Migration.Merge == nil {
			continue
		}
		for _, k := range a.Migration.Merge.Keys {
			if o := r.attrs[k]; k != a.Key && o.Migration != nil {
				return fmt.Errorf("%w: %s: rule for %q: merge: template key %q has a value migration of its own (%s)", ErrInvalid, a.Migration.Where, a.Key, k, o.Migration.Where)
			}
		}
	}
	return nil
}

// migratable checks that a split, merge or move can act on a: a deprecated
// key that is not renamed (the walk applies these where a deprecated key
// has no current name).
func migratable(a *Attribute, line int, fail failFunc) error {
	switch {
	case a.Deprecation.Reason == NotDeprecated:
		return fail(line, "%q is not deprecated; a split, merge or move applies to deprecated keys", a.Key)
	case a.Renamed():
		return fail(line, "%q is renamed; a split, merge or move needs a key that is not", a.Key)
	}
	return nil
}

type failFunc func(line int, format string, args ...any) error

// renameTargets returns the distinct targets a key renames to.
func renameTargets(a *Attribute) []*Attribute {
	var out []*Attribute
	for _, rr := range a.rename.rules {
		if rr.target != nil && !slices.Contains(out, rr.target) {
			out = append(out, rr.target)
		}
	}
	return out
}

func (r *resolver) resolveValues(a *Attribute, md *def.Migration, m *Migration, fail failFunc) error {
	targets := renameTargets(a)
	if md.ConvertTo != "" {
		return r.resolveConvertTo(a, md, m, fail)
	}
	if md.Convert != "" {
		if len(targets) == 0 {
			return fail(md.ConvertLine, "convert: %q is not renamed; convert applies with a rename", a.Key)
		}
		typ, _ := def.ParseType(md.Convert)
		for _, t := range targets {
			if t.Type != typ {
				return fail(md.ConvertLine, "convert: %s, but target %q is %s", md.Convert, t.Key, t.Type.String())
			}
		}
		if !lossless(a.Type, typ) {
			return fail(md.ConvertLine, "convert: from %s to %s can lose data", a.Type.String(), md.Convert)
		}
		m.Convert = typ
	}
	if len(md.Values) == 0 {
		return nil
	}
	if len(targets) == 0 {
		if a.EnumStrings == nil {
			return fail(md.Line, "values: %q is not renamed and not a string enum; values apply with a rename or to enum members", a.Key)
		}
		targets = []*Attribute{a} // values in place
	}
	for _, t := range targets {
		if t.Type != TypeString {
			return fail(md.Line, "values: target %q is %s; values map to strings", t.Key, t.Type.String())
		}
	}
	for _, e := range md.Values {
		switch a.Type {
		case TypeString:
			if !a.AllowsString(e.From) {
				return fail(e.Line, "values: %q is not a member of %q", e.From, a.Key)
			}
			if m.Values == nil {
				m.Values = map[string]string{}
			}
			m.Values[e.From] = e.To
		case TypeInt:
			n, err := strconv.ParseInt(e.From, 10, 64)
			if err != nil {
				return fail(e.Line, "values: %q is not an int, and %q is an int attribute", e.From, a.Key)
			}
			if !a.AllowsInt(n) {
				return fail(e.Line, "values: %d is not a member of %q", n, a.Key)
			}
			if m.IntValues == nil {
				m.IntValues = map[int64]string{}
			}
			m.IntValues[n] = e.To
		default:
			return fail(e.Line, "values: %q is %s; values map string or int values", a.Key, a.Type.String())
		}
		for _, t := range targets {
			if !t.AllowsString(e.To) {
				return fail(e.Line, "values: %q -> %q: %q is not a member of the target enum %q", e.From, e.To, e.To, t.Key)
			}
		}
	}
	return nil
}

// resolveConvertTo checks convert: {to, type}: a deprecated key that is not
// renamed moves to `to`, a known attribute or a key under a template, with
// its value converted losslessly to the target's type.
func (r *resolver) resolveConvertTo(a *Attribute, md *def.Migration, m *Migration, fail failFunc) error {
	if len(md.Values) > 0 {
		return fail(md.ConvertLine, "convert: {to, type} cannot be combined with values")
	}
	if err := migratable(a, md.ConvertLine, fail); err != nil {
		return err
	}
	typ, _ := def.ParseType(md.Convert)
	t, ok := r.attrs[md.ConvertTo]
	switch {
	case ok && !t.Placeholder && !t.Template:
	default:
		t = r.templateOf(md.ConvertTo)
		if t == nil {
			return fail(md.ConvertLine, "convert: target %q is not a known attribute or a key under a template", md.ConvertTo)
		}
	}
	if t.Type != typ {
		return fail(md.ConvertLine, "convert: %s, but target %q is %s", md.Convert, md.ConvertTo, t.Type.String())
	}
	if !lossless(a.Type, typ) {
		return fail(md.ConvertLine, "convert: from %s to %s can lose data", a.Type.String(), md.Convert)
	}
	if load.ValidKey(md.ConvertTo) != nil || md.ConvertTo == a.Key {
		return fail(md.ConvertLine, "convert: invalid target %q", md.ConvertTo)
	}
	m.Convert, m.ConvertTo = typ, md.ConvertTo
	return nil
}

// templateOf returns the longest template whose key is a '.'-bounded proper
// prefix of key, or nil.
func (r *resolver) templateOf(key string) *Attribute {
	var best *Attribute
	for _, a := range r.attrs {
		if a.Template && !a.Placeholder && strings.HasPrefix(key, a.Key+".") && (best == nil || len(a.Key) > len(best.Key)) {
			best = a
		}
	}
	return best
}

// knownTarget returns the attribute a split or merge writes, or an error.
func (r *resolver) knownTarget(key string, line int, what string, fail failFunc) (*Attribute, error) {
	t, ok := r.attrs[key]
	switch {
	case !ok || t.Placeholder:
		return nil, fail(line, "%s: target %q is not a known attribute", what, key)
	case t.Template:
		return nil, fail(line, "%s: target %q is a template", what, key)
	case t.Type != TypeString:
		return nil, fail(line, "%s: target %q is %s; only string targets", what, key, t.Type.String())
	}
	return t, nil
}

func (r *resolver) resolveSplit(a *Attribute, sd *def.Split, fail failFunc) (*Split, error) {
	s := &Split{Separator: sd.Separator}
	if a.Type != TypeString {
		return nil, fail(sd.Line, "split: %q is %s; only string values split", a.Key, a.Type.String())
	}
	switch {
	case len(sd.Cases) > 0 && (sd.Separator != "" || len(sd.Into) > 0):
		return nil, fail(sd.Line, "split: use either separator and into, or cases")
	case len(sd.Cases) > 0:
		s.Cases = make(map[string][]Assign, len(sd.Cases))
		for _, c := range sd.Cases {
			if !a.AllowsString(c.Value) {
				return nil, fail(c.Line, "split: case %q is not a member of %q", c.Value, a.Key)
			}
			if len(c.Set) == 0 {
				return nil, fail(c.Line, "split: case %q sets nothing", c.Value)
			}
			for _, as := range c.Set {
				t, err := r.knownTarget(as.Key, c.Line, "split", fail)
				if err != nil {
					return nil, err
				}
				if !t.AllowsString(as.Value) {
					return nil, fail(c.Line, "split: case %q: %q is not a member of the target enum %q", c.Value, as.Value, t.Key)
				}
			}
			s.Cases[c.Value] = c.Set
		}
	default:
		if sd.Separator == "" || len(sd.Into) != 2 {
			return nil, fail(sd.Line, "split: needs a separator and two keys in into, or cases")
		}
		for _, k := range sd.Into {
			if _, err := r.knownTarget(k, sd.Line, "split", fail); err != nil {
				return nil, err
			}
		}
		if sd.Into[0] == sd.Into[1] {
			return nil, fail(sd.Line, "split: into names %q twice", sd.Into[0])
		}
		s.Into = sd.Into
	}
	return s, nil
}

func (r *resolver) resolveMerge(a *Attribute, mg *def.Merge, fail failFunc) (*Merge, error) {
	if _, err := r.knownTarget(mg.To, mg.Line, "merge", fail); err != nil {
		return nil, err
	}
	out := &Merge{To: mg.To}
	rest := mg.Template
	for rest != "" {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			out.Parts = append(out.Parts, MergePart{Literal: rest})
			break
		}
		if i > 0 {
			out.Parts = append(out.Parts, MergePart{Literal: rest[:i]})
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return nil, fail(mg.Line, "merge: template %q has an unclosed {", mg.Template)
		}
		k := rest[i+1 : i+j]
		src, ok := r.attrs[k]
		if !ok || src.Placeholder || src.Template {
			return nil, fail(mg.Line, "merge: template key %q is not a known attribute", k)
		}
		if src.Type != TypeString {
			return nil, fail(mg.Line, "merge: template key %q is %s; only strings merge", k, src.Type.String())
		}
		if slices.Contains(out.Keys, k) {
			return nil, fail(mg.Line, "merge: template names %q twice", k)
		}
		if k == mg.To {
			return nil, fail(mg.Line, "merge: template reads its own target %q", k)
		}
		out.Parts = append(out.Parts, MergePart{Key: k})
		out.Keys = append(out.Keys, k)
		rest = rest[i+j+1:]
	}
	if !slices.Contains(out.Keys, a.Key) {
		return nil, fail(mg.Line, "merge: template %q does not read the rule's key %q", mg.Template, a.Key)
	}
	return out, nil
}
