package registry

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// This file holds the value migrations of rules files in file_format
// otelgov.rules/2: what a key's value becomes, not only its name.
//
//	- key: db.system               # renamed by the registry to db.system.name
//	  values: {mssql: microsoft.sql_server}
//	- key: rpc.jsonrpc.error_code
//	  renames: [{to: rpc.response.status_code}]
//	  convert: string              # lossless: int -> string
//	- key: http.target
//	  split: {separator: "?", into: [url.path, url.query]}
//	- key: http.flavor
//	  split:
//	    cases:
//	      "1.1": {network.protocol.name: http, network.protocol.version: "1.1"}
//	- key: code.function
//	  merge: {to: code.function.name, template: "{code.namespace}.{code.function}"}
//	- key: event.name
//	  move: event_name             # log records only
//	- key: rpc.jsonrpc.error_message
//	  move: status_message         # spans with status Error only

// Field is a field of a telemetry item that a move can fill.
type Field uint8

const (
	// FieldNone: no move.
	FieldNone Field = iota
	// FieldEventName is LogRecord.EventName.
	FieldEventName
	// FieldStatusMessage is a span's status description; a move fills it
	// only on spans whose status code is Error (the description is
	// meaningless otherwise).
	FieldStatusMessage
)

// Migration is the resolved value migration of one key. Exactly one of the
// groups is set: Values and/or Convert (applied when the key is renamed, or
// in place for Values on a key that is not renamed), Split, Merge or Move.
// Treat it as read-only.
type Migration struct {
	// Values maps a string value to its new value; IntValues an int value.
	// The new values are registry constants, so applying one allocates
	// nothing.
	Values    map[string]string
	IntValues map[int64]string
	// Convert is the type the value is converted to on rename; TypeUnknown
	// for none. Only lossless conversions load.
	Convert Type
	// ConvertTo is the key a deprecated key that is not renamed is moved to
	// with its value converted (convert: {to, type}); it may name a key
	// under a template, such as http.request.header.content-length.
	ConvertTo string
	Split     *Split
	Merge     *Merge
	Move      Field
	// Where is the rule's file:line.
	Where string
}

// Split turns one string value into several attributes: cut at the first
// Separator into Into[0] and Into[1] (the second only when the separator
// occurs), or, with Cases, look the whole value up; values without a case
// are kept.
type Split struct {
	Separator string
	Into      []string
	Cases     map[string][]Assign
}

// Assign is one attribute a split case sets.
type Assign struct {
	Key   string
	Value string
}

// Merge fills To from a template over several string attributes; it applies
// only when every key of the template is present.
type Merge struct {
	To    string
	Parts []MergePart
	// Keys are the attributes the template reads, in template order; the
	// rule's own key is one of them. All are removed after the merge.
	Keys []string
}

// MergePart is a literal or the value of Key.
type MergePart struct {
	Key     string
	Literal string
}

// migrationDef is a rule's value migration as written.
type migrationDef struct {
	Line      int
	Values    []valueEntry
	Convert   string
	ConvertTo string
	Split     *splitDef
	Merge     *mergeDef
	Move      string
	// lines of the fields, for messages
	convertLine, moveLine int
}

type valueEntry struct {
	From, To string
	Line     int
}

type splitDef struct {
	Separator string
	Into      []string
	Cases     []splitCase
	Line      int
}

type splitCase struct {
	Value string
	Set   []Assign
	Line  int
}

type mergeDef struct {
	To, Template string
	Line         int
}

// parseMigrationField decodes one value-migration field of a rule.
func parseMigrationField(f yfile, key string, k, v *yaml.Node, rd *ruleDef) error {
	if rd.Migration == nil {
		rd.Migration = &migrationDef{Line: k.Line}
	}
	md := rd.Migration
	switch key {
	case "values":
		return f.fields(v, key, func(from string, fk, fv *yaml.Node) error {
			to, err := f.str(fv, key)
			if err != nil {
				return err
			}
			if to == "" {
				return f.errf(fk, key, "value %q maps to an empty value", from)
			}
			md.Values = append(md.Values, valueEntry{From: from, To: to, Line: fk.Line})
			return nil
		})
	case "convert":
		var s string
		var err error
		if v.Kind == yaml.MappingNode {
			err = f.fields(v, key, func(fk string, kn, fv *yaml.Node) error {
				var err error
				switch fk {
				case "to":
					md.ConvertTo, err = f.str(fv, fk)
				case "type":
					s, err = f.str(fv, fk)
				default:
					err = f.errf(kn, fk, "unknown field")
				}
				return err
			})
			if err == nil && md.ConvertTo == "" {
				err = f.errf(v, key, "convert: {to, type} needs to")
			}
		} else {
			s, err = f.str(v, key)
		}
		if err != nil {
			return err
		}
		if t, ok := ParseType(s); !ok || t == TypeAny {
			return f.errf(v, key, "unknown type %q", s)
		}
		md.Convert, md.convertLine = s, v.Line
		return nil
	case "split":
		sd := &splitDef{Line: k.Line}
		md.Split = sd
		return f.fields(v, key, func(fk string, kn, fv *yaml.Node) error {
			var err error
			switch fk {
			case "separator":
				sd.Separator, err = f.str(fv, fk)
			case "into":
				sd.Into, err = f.strList(fv, fk)
			case "cases":
				err = f.fields(fv, fk, func(val string, cn, cv *yaml.Node) error {
					c := splitCase{Value: val, Line: cn.Line}
					err := f.fields(cv, "cases."+val, func(ak string, _, av *yaml.Node) error {
						s, err := f.str(av, ak)
						c.Set = append(c.Set, Assign{Key: ak, Value: s})
						return err
					})
					sd.Cases = append(sd.Cases, c)
					return err
				})
			default:
				err = f.errf(kn, fk, "unknown field")
			}
			return err
		})
	case "merge":
		mg := &mergeDef{Line: k.Line}
		md.Merge = mg
		return f.fields(v, key, func(fk string, kn, fv *yaml.Node) error {
			var err error
			switch fk {
			case "to":
				mg.To, err = f.str(fv, fk)
			case "template":
				mg.Template, err = f.str(fv, fk)
			default:
				err = f.errf(kn, fk, "unknown field")
			}
			return err
		})
	case "move":
		s, err := f.str(v, key)
		if err != nil {
			return err
		}
		if _, ok := ParseField(s); !ok {
			return f.errf(v, key, "unknown field %q, want event_name or status_message", s)
		}
		md.Move, md.moveLine = s, v.Line
		return nil
	}
	return f.errf(k, key, "unknown field")
}

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
				return fail(md.moveLine, "move: %q is %s, only string values move", a.Key, a.Type.String())
			}
			m.Move, _ = ParseField(md.Move)
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

func (r *resolver) resolveValues(a *Attribute, md *migrationDef, m *Migration, fail failFunc) error {
	targets := renameTargets(a)
	if md.ConvertTo != "" {
		return r.resolveConvertTo(a, md, m, fail)
	}
	if md.Convert != "" {
		if len(targets) == 0 {
			return fail(md.convertLine, "convert: %q is not renamed; convert applies with a rename", a.Key)
		}
		typ, _ := ParseType(md.Convert)
		for _, t := range targets {
			if t.Type != typ {
				return fail(md.convertLine, "convert: %s, but target %q is %s", md.Convert, t.Key, t.Type.String())
			}
		}
		if !lossless(a.Type, typ) {
			return fail(md.convertLine, "convert: from %s to %s can lose data", a.Type.String(), md.Convert)
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
func (r *resolver) resolveConvertTo(a *Attribute, md *migrationDef, m *Migration, fail failFunc) error {
	if len(md.Values) > 0 {
		return fail(md.convertLine, "convert: {to, type} cannot be combined with values")
	}
	if err := migratable(a, md.convertLine, fail); err != nil {
		return err
	}
	typ, _ := ParseType(md.Convert)
	t, ok := r.attrs[md.ConvertTo]
	switch {
	case ok && !t.Placeholder && !t.Template:
	default:
		t = r.templateOf(md.ConvertTo)
		if t == nil {
			return fail(md.convertLine, "convert: target %q is not a known attribute or a key under a template", md.ConvertTo)
		}
	}
	if t.Type != typ {
		return fail(md.convertLine, "convert: %s, but target %q is %s", md.Convert, md.ConvertTo, t.Type.String())
	}
	if !lossless(a.Type, typ) {
		return fail(md.convertLine, "convert: from %s to %s can lose data", a.Type.String(), md.Convert)
	}
	if validKey(md.ConvertTo) != nil || md.ConvertTo == a.Key {
		return fail(md.convertLine, "convert: invalid target %q", md.ConvertTo)
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

func (r *resolver) resolveSplit(a *Attribute, sd *splitDef, fail failFunc) (*Split, error) {
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

func (r *resolver) resolveMerge(a *Attribute, mg *mergeDef, fail failFunc) (*Merge, error) {
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

// appendValuesCanonical adds a's deprecated members and migration to the
// canonical form the digest is computed over.
func appendValuesCanonical(b []byte, a *Attribute) []byte {
	for _, m := range a.DeprecatedMembers {
		b = fmt.Appendf(b, "  member %q %d %q %q\n", m.Value, m.Reason, m.RenamedTo, m.Note)
	}
	m := a.Migration
	if m == nil {
		return b
	}
	b = append(b, "  migration"...)
	for _, k := range sortedKeys(m.Values) {
		b = fmt.Appendf(b, " %q=%q", k, m.Values[k])
	}
	ints := make([]int64, 0, len(m.IntValues))
	for n := range m.IntValues {
		ints = append(ints, n)
	}
	slices.Sort(ints)
	for _, n := range ints {
		b = fmt.Appendf(b, " %d=%q", n, m.IntValues[n])
	}
	b = fmt.Appendf(b, " convert=%d %q move=%d", m.Convert, m.ConvertTo, m.Move)
	if s := m.Split; s != nil {
		b = fmt.Appendf(b, " split %q %q", s.Separator, s.Into)
		for _, k := range sortedKeys(s.Cases) {
			b = fmt.Appendf(b, " %q=%q", k, s.Cases[k])
		}
	}
	if g := m.Merge; g != nil {
		b = fmt.Appendf(b, " merge %q %q", g.To, g.Parts)
	}
	return append(b, '\n')
}
