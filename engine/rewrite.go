package engine

import (
	"math"
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelgov/otelcol-governance/registry"
)

type opKind uint8

const (
	opDrop opKind = iota
	opRename
	opCopy
	opCoerce
)

// op is one queued change to an attribute map.
type op struct {
	kind   opKind
	key    string // the key as found in the map
	target string // rename and copy: the current key
	val    coerced
	// Value migrations (values.go).
	mig  *registry.Migration
	conv registry.Type // opRenameValue: convert to this type
	out  Outcome       // opRenameValue: the outcome of a successful rename
}

// coerced is a value converted to its declared type.
type coerced struct {
	typ pcommon.ValueType
	s   string
	i   int64
	f   float64
	b   bool
}

func (c coerced) set(v pcommon.Value) {
	switch c.typ {
	case pcommon.ValueTypeStr:
		v.SetStr(c.s)
	case pcommon.ValueTypeInt:
		v.SetInt(c.i)
	case pcommon.ValueTypeDouble:
		v.SetDouble(c.f)
	case pcommon.ValueTypeBool:
		v.SetBool(c.b)
	case pcommon.ValueTypeEmpty, pcommon.ValueTypeMap, pcommon.ValueTypeSlice, pcommon.ValueTypeBytes:
	}
}

// apply performs the queued changes on m. Coercions and drops are matched to
// their entries by position, in one pass each, so a huge map costs linear
// time; both passes keep the map order the scan saw. Renames and copies come
// last because they reorder the map.
func (w *Walker) apply(m pcommon.Map) {
	if w.nCoerce > 0 {
		j := w.next(0, opCoerce)
		for k, v := range m.All() {
			if j < len(w.ops) && w.ops[j].key == k {
				w.ops[j].val.set(v)
				j = w.next(j+1, opCoerce)
			}
		}
	}
	if w.nDrop > 0 {
		j := w.next(0, opDrop)
		m.RemoveIf(func(k string, _ pcommon.Value) bool {
			if j < len(w.ops) && w.ops[j].key == k {
				j = w.next(j+1, opDrop)
				return true
			}
			return false
		})
	}
	if w.nMove > 0 {
		for i := range w.ops {
			o := &w.ops[i]
			switch o.kind {
			case opRename:
				w.rename(m, o.key, o.target)
			case opCopy:
				w.copy(m, o.key, o.target)
			case opRenameValue, opSplit, opMerge, opMove, opCopyValue:
				w.applyValue(m, o)
			case opDrop, opCoerce:
			}
		}
	}
}

// next returns the index of the first op of kind at or after i.
func (w *Walker) next(i int, kind opKind) int {
	for i < len(w.ops) && w.ops[i].kind != kind {
		i++
	}
	return i
}

// queue adds one change for the current map.
func (w *Walker) queue(o op) {
	switch o.kind {
	case opDrop:
		w.nDrop++
	case opCoerce:
		w.nCoerce++
	case opRename, opCopy, opRenameValue, opSplit, opMerge, opMove, opCopyValue:
		w.nMove++
	}
	w.ops = append(w.ops, o)
}

// rename moves the value of oldKey to newKey.
//
// Collision policy: if newKey is already present, its value wins and oldKey is
// removed. Equal values make this a plain deduplication (renamed); different
// values are counted as conflict. Nothing is ever overwritten. With several
// old keys for one new key, the first in map order provides the value.
//
// pdata has no in-place key rename. The value moves to the walker's scratch
// value, Remove takes the old entry out (swapping the last entry into the
// hole), and GetOrPutEmpty either finds the current key or appends it into
// the capacity just freed. Nothing is allocated, and the map is scanned about
// twice: once to the old key (Get, then Remove from the same place), once in
// full (GetOrPutEmpty).
func (w *Walker) rename(m pcommon.Map, oldKey, newKey string) {
	old, ok := m.Get(oldKey)
	if !ok {
		return
	}
	old.MoveTo(w.scratch)
	m.Remove(oldKey)
	dst, exists := m.GetOrPutEmpty(newKey)
	if !exists {
		w.scratch.MoveTo(dst)
		w.count(OutcomeRenamed)
		return
	}
	if dst.Equal(w.scratch) {
		w.count(OutcomeRenamed)
	} else {
		w.count(OutcomeConflict)
	}
	// Let go of the dropped value.
	w.empty.MoveTo(w.scratch)
}

// find looks up the first entries of two keys in one pass over m.
func find(m pcommon.Map, oldKey, newKey string) (old, cur pcommon.Value, hasOld, hasCur bool) {
	for k, v := range m.All() {
		switch {
		case !hasOld && k == oldKey:
			old, hasOld = v, true
		case !hasCur && k == newKey:
			cur, hasCur = v, true
		}
		if hasOld && hasCur {
			break
		}
	}
	return old, cur, hasOld, hasCur
}

// copy adds newKey with a copy of oldKey's value and keeps oldKey. An existing
// newKey is kept: equal values count as copied, different ones as conflict.
// Unlike rename, copy allocates: the map grows and the value is duplicated.
func (w *Walker) copy(m pcommon.Map, oldKey, newKey string) {
	old, cur, hasOld, hasCur := find(m, oldKey, newKey)
	if !hasOld {
		return
	}
	if hasCur {
		if cur.Equal(old) {
			w.count(OutcomeCopied)
		} else {
			w.count(OutcomeConflict)
		}
		return
	}
	dst := m.PutEmpty(newKey)
	// PutEmpty may have moved the entries; look the old value up again.
	if old, ok := m.Get(oldKey); ok {
		old.CopyTo(dst)
	}
	w.count(OutcomeCopied)
}

// maxExactInt is the largest magnitude a float64 holds exactly.
const maxExactInt = 1 << 53

// coerce converts v to the declared type when no information is lost:
// canonical decimal strings to int, "true"/"false" to bool, strings that
// round-trip to double, int to double within 2^53, and int, double or bool to
// string.
func coerce(v pcommon.Value, want registry.Type) (coerced, bool) {
	switch want {
	case registry.TypeInt:
		if v.Type() == pcommon.ValueTypeStr && canonicalInt(v.Str()) {
			if i, err := strconv.ParseInt(v.Str(), 10, 64); err == nil {
				return coerced{typ: pcommon.ValueTypeInt, i: i}, true
			}
		}
	case registry.TypeDouble:
		switch v.Type() {
		case pcommon.ValueTypeInt:
			if i := v.Int(); i <= maxExactInt && i >= -maxExactInt {
				return coerced{typ: pcommon.ValueTypeDouble, f: float64(i)}, true
			}
		case pcommon.ValueTypeStr:
			s := v.Str()
			f, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				break
			}
			var buf [32]byte
			if string(strconv.AppendFloat(buf[:0], f, 'g', -1, 64)) == s {
				return coerced{typ: pcommon.ValueTypeDouble, f: f}, true
			}
		default:
		}
	case registry.TypeBoolean:
		if v.Type() == pcommon.ValueTypeStr {
			switch v.Str() {
			case "true":
				return coerced{typ: pcommon.ValueTypeBool, b: true}, true
			case "false":
				return coerced{typ: pcommon.ValueTypeBool}, true
			}
		}
	case registry.TypeString:
		switch v.Type() {
		case pcommon.ValueTypeInt, pcommon.ValueTypeDouble, pcommon.ValueTypeBool:
			return coerced{typ: pcommon.ValueTypeStr, s: v.AsString()}, true
		default:
		}
	default:
	}
	return coerced{}, false
}

// canonicalInt reports whether s is a decimal integer as strconv.FormatInt
// writes it: no sign but '-', no leading zeros, no "-0".
func canonicalInt(s string) bool {
	if s == "" || s == "-" {
		return false
	}
	d := s
	if d[0] == '-' {
		d = d[1:]
		if d == "0" {
			return false
		}
	}
	if len(d) > 1 && d[0] == '0' {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}
