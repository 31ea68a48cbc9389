package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
)

// The digest: a SHA-256 over a canonical text form of everything the
// Index answers, so two indexes with the same digest behave the same.

// canonical writes the resolved content in a stable text form: one line per
// attribute, rename rule, metric and disagreement. File names are excluded.
func (ix *Index) canonical() []byte {
	b := make([]byte, 0, 256*1024)
	str := func(s string) { b = strconv.AppendQuote(b, s) }
	num := func(n int64) { b = strconv.AppendInt(b, n, 10) }
	b = append(b, "schema_url "...)
	str(ix.schemaURL)
	b = append(b, '\n')
	for _, a := range ix.attrs {
		b = append(b, "attr "...)
		str(a.Key)
		b = append(b, ' ')
		num(int64(a.Type))
		b = append(b, ' ')
		b = strconv.AppendBool(b, a.Template)
		b = append(b, ' ')
		num(int64(a.Stability))
		b = append(b, ' ')
		b = strconv.AppendBool(b, a.Placeholder)
		b = append(b, " s["...)
		for _, e := range a.EnumStrings {
			str(e)
			b = append(b, ',')
		}
		b = append(b, "] i["...)
		for _, e := range a.EnumInts {
			num(e)
			b = append(b, ',')
		}
		b = append(b, "] dep "...)
		num(int64(a.Deprecation.Reason))
		b = append(b, ' ')
		str(a.Deprecation.RenamedTo)
		b = append(b, ' ')
		str(a.Deprecation.Note)
		b = append(b, '\n')
		b = appendValuesCanonical(b, a)
		for _, rr := range a.rename.rules {
			b = append(b, "  rename "...)
			b = append(b, rr.scope.String()...)
			b = append(b, " -> "...)
			if rr.target != nil {
				b = append(b, rr.target.Key...)
			} else {
				b = append(b, '-')
			}
			b = append(b, '\n')
		}
	}
	for _, m := range ix.metricList {
		b = append(b, "metric "...)
		for _, f := range []string{m.Name, m.Instrument, m.Unit, m.Deprecation.RenamedTo, m.Deprecation.Note, m.RenamedTo} {
			str(f)
			b = append(b, ' ')
		}
		num(int64(m.Stability))
		b = append(b, ' ')
		num(int64(m.Deprecation.Reason))
		b = append(b, ' ')
		b = strconv.AppendBool(b, m.Placeholder)
		b = append(b, '\n')
	}
	b = ix.appendGroups(b)
	for _, d := range ix.disagreements {
		b = append(b, "disagreement"...)
		for _, f := range []string{d.Kind, d.Key, d.Registry, d.Schema, d.Resolution} {
			b = append(b, ' ')
			str(f)
		}
		b = append(b, '\n')
	}
	return b
}

func (ix *Index) computeDigest() string {
	sum := sha256.Sum256(ix.canonical())
	return hex.EncodeToString(sum[:])
}

// appendGroups writes the group definitions and matchers to the canonical
// form the digest is computed from.
func (ix *Index) appendGroups(b []byte) []byte {
	for _, s := range ix.groups.list {
		b = append(b, "signal "...) // the pre-rename spelling, kept so digests do not change
		b = append(b, s.Kind.String()...)
		b = append(b, ' ')
		b = strconv.AppendQuote(b, s.ID)
		b = append(b, ' ')
		b = strconv.AppendQuote(b, s.Name)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(s.SpanKind), 10)
		for _, a := range s.Attrs {
			b = append(b, ' ')
			b = append(b, a.Key...)
			b = append(b, '=')
			b = append(b, a.Level.String()...)
		}
		b = append(b, '\n')
	}
	for _, m := range ix.groups.matchers {
		b = append(b, "matcher "...)
		b = strconv.AppendQuote(b, m.Group.ID)
		b = append(b, ' ')
		b = strconv.AppendUint(b, uint64(m.Kinds), 10)
		b = append(b, ' ')
		b = strconv.AppendUint(b, m.Present, 16)
		b = append(b, ' ')
		b = strconv.AppendUint(b, m.Absent, 16)
		b = append(b, '\n')
	}
	return b
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
