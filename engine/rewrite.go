package engine

import (
	"math"
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
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
	out  vocab.Outcome // opRenameValue: the outcome of a successful rename
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

// apply performs the changes ops (counted by kind in c) on m: the ones the
// walk queued (w.ops), or a shape memo entry's (memo.go), which are shared
// and only read; renameAt, when set, are the map positions of the renames'
// keys (a memo hit knows them). Coercions and drops are matched to their entries by
// position, in one pass each, so a huge map costs linear time; both passes
// keep the map order the scan saw. Renames and copies come last because
// they reorder the map.
func (w *Walker) apply(m pcommon.Map, ops []op, c *opCounts, renameAt []uint16) {
	if c.coerce > 0 {
		j := nextOp(ops, 0, opCoerce)
		for k, v := range m.All() {
			if j < len(ops) && ops[j].key == k {
				ops[j].val.set(v)
				j = nextOp(ops, j+1, opCoerce)
			}
		}
	}
	if c.drop > 0 {
		j := nextOp(ops, 0, opDrop)
		m.RemoveIf(func(k string, _ pcommon.Value) bool {
			if j < len(ops) && ops[j].key == k {
				j = nextOp(ops, j+1, opDrop)
				return true
			}
			return false
		})
	}
	if c.move > 0 {
		// Renames first, their values migrated or not, in one pass
		// (renameAll); then copies and the other value migrations, in
		// queue order.
		if c.rename > 0 {
			if c.drop > 0 {
				renameAt = nil // the drops moved the positions
			}
			w.renameAll(m, ops, c.move, renameAt)
		}
		for i := range ops {
			o := &ops[i]
			switch o.kind {
			case opCopy:
				w.copy(m, o.key, o.target)
			case opSplit, opMerge, opMove, opCopyValue:
				w.applyValue(m, o)
			case opRename, opRenameValue, opDrop, opCoerce:
			}
		}
	}
}

// nextOp returns the index of the first op of kind at or after i.
func nextOp(ops []op, i int, kind opKind) int {
	for i < len(ops) && ops[i].kind != kind {
		i++
	}
	return i
}

// nextRename returns the index of the first rename (opRename or
// opRenameValue) at or after i.
func nextRename(ops []op, i int) int {
	for i < len(ops) && !ops[i].kind.renames() {
		i++
	}
	return i
}

// renames reports whether apply's renameAll moves the op's key: a rename,
// its value migrated (opRenameValue) or not.
func (k opKind) renames() bool { return k == opRename || k == opRenameValue }

// opCounts counts a map's ops by what apply does with them: rename counts
// the renames, their values migrated or not (renameAll).
type opCounts struct{ drop, coerce, move, rename int }

func (c *opCounts) add(k opKind) {
	switch k {
	case opDrop:
		c.drop++
	case opCoerce:
		c.coerce++
	case opRename, opRenameValue:
		c.move++
		c.rename++
	case opCopy, opSplit, opMerge, opMove, opCopyValue:
		c.move++
	}
}

// queue adds one change for the current map.
func (w *Walker) queue(o op) {
	w.nOps.add(o.kind)
	w.ops = append(w.ops, o)
}

// renameAll moves the value of every rename in ops (moves renames, copies
// and value migrations in all) from its old key to its new key, in the
// ops' order, migrating the value of an opRenameValue on its way; at, when
// set, are the renamed keys' positions in m. A rename costs the same
// whether or not its value migrates, and the map's layout after it does
// not depend on the values: what a memo entry's plan (renamePlan) relies
// on.
//
// Collision policy: if the new key is already present, its value wins and
// the old key is removed. Equal values make this a plain deduplication
// (renamed); different values are counted as conflict. Nothing is ever
// overwritten. With several old keys for one new key, the first in map order
// provides the value.
//
// pdata has no in-place key rename, and every insertion scans the map for
// the key first. So the old keys are taken out in one RemoveIf pass that
// matches them to the queued renames by position (the ops are in map order)
// and moves each value into a scratch value, and then each new key is
// inserted with GetOrPutEmpty, whose scan also finds a new key that is
// already present. That is one pass plus one scan per rename, of a map that
// has just shrunk by the renamed keys, instead of three partial scans per
// rename (Get, Remove, GetOrPutEmpty). Nothing is allocated once the scratch
// values exist, and the map keeps its order; renamed keys move to the end.
// A shape memo hit whose renames are a large share of its map takes
// layOut instead, with the same result and no scan.
func (w *Walker) renameAll(m pcommon.Map, ops []op, moves int, at []uint16) {
	for len(w.moved) < moves {
		w.moved = append(w.moved, pcommon.NewValueEmpty())
	}
	found := 0
	if at != nil {
		// By position: no key comparison.
		i := 0
		m.RemoveIf(func(_ string, v pcommon.Value) bool {
			if found < len(at) && int(at[found]) == i {
				v.MoveTo(w.moved[found])
				found++
				i++
				return true
			}
			i++
			return false
		})
	} else {
		j := nextRename(ops, 0)
		m.RemoveIf(func(k string, v pcommon.Value) bool {
			if j < len(ops) && ops[j].key == k {
				v.MoveTo(w.moved[found])
				found++
				j = nextRename(ops, j+1)
				return true
			}
			return false
		})
	}
	n := 0
	for i := range ops {
		o := &ops[i]
		if !o.kind.renames() {
			continue
		}
		if n == found {
			break // not in the map (cannot happen: the scan queued it)
		}
		out := vocab.OutcomeRenamed
		if o.kind == opRenameValue {
			o.migrate(w.moved[n])
			out = o.out
		}
		w.place(m, o.target, w.moved[n], out)
		n++
	}
}

// place puts a renamed key's value, held in val, under newKey, with the
// collision policy of renames: an existing newKey keeps its value (renamed
// when equal, conflict otherwise) and val is let go. renamed is the outcome
// counted when the value lands (renamed, or a value migration's own
// outcome); a collision is a conflict whatever the rename was.
func (w *Walker) place(m pcommon.Map, newKey string, val pcommon.Value, renamed vocab.Outcome) {
	dst, exists := m.GetOrPutEmpty(newKey)
	switch {
	case !exists:
		val.MoveTo(dst)
		w.count(renamed)
		return
	case dst.Equal(val):
		w.count(renamed)
	default:
		w.count(vocab.OutcomeConflict)
	}
	// Let go of the dropped value.
	w.empty.MoveTo(val)
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
			w.count(vocab.OutcomeCopied)
		} else {
			w.count(vocab.OutcomeConflict)
		}
		return
	}
	dst := m.PutEmpty(newKey)
	// PutEmpty may have moved the entries; look the old value up again.
	if old, ok := m.Get(oldKey); ok {
		old.CopyTo(dst)
	}
	w.count(vocab.OutcomeCopied)
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

// renamePlan is a shape memo entry's renames as the map's layout after
// them: apply's renameAll leaves the keys it does not rename in their
// order and appends the renamed ones' targets in the ops' order (the
// map's), their values migrated or not, each
// placed with GetOrPutEmpty, a scan of the map, because pdata's public API
// has no other way to add a key. When the shape says that no target is
// already in the map or the target of another rename, that layout is known
// in advance: keys holds it (values empty), and from the position in the
// map of each key's value. layOut moves the values out, copies keys
// over the map (Map.CopyTo reuses its storage: no scan, no allocation) and
// moves the values back in their new order: the same map as renameAll's,
// without a scan per rename. The plan is read by every walker at once and
// never written after newRenamePlan.
type renamePlan struct {
	keys    pcommon.Map
	from    []uint16
	renames int
}

// planRename is one rename of a plan: the position of the renamed key in
// the map, and its target.
type planRename struct {
	at uint16
	to string
}

// planShare: a plan is made when more than one key in planShare is
// renamed. layOut moves every value of the map, renameAll only the
// renamed ones, and a few renames cost less than that in scans.
// BenchmarkRename, pinned, 3 runs: 13 renames of 13 keys cost 7.9–8.1
// cpu-ns each by plan, 22.8–23.3 by scan; 4 of 13 cost 24.7–26.0 by plan,
// 29.4–30.1 by scan. A plan costs about 8 ns a key and a scan about 30 a
// rename, so the plan pays from a quarter of the keys.
const planShare = 4

// planWorth reports whether a plan pays for renames of a map of keys.
func planWorth(renames, keys int) bool { return renames*planShare > keys }

// newRenamePlan returns the plan of renames (in map order) on a map of
// keys, or nil when there is none, a target would collide, or the map has
// more than memoMaxKeys keys (layOut's bound; the memo walks no longer
// map).
func newRenamePlan(keys []string, renames []planRename) *renamePlan {
	if len(renames) == 0 || len(keys) > memoMaxKeys {
		return nil
	}
	renamed := make([]bool, len(keys))
	for _, r := range renames {
		renamed[r.at] = true
	}
	p := &renamePlan{keys: pcommon.NewMap(), from: make([]uint16, 0, len(keys)), renames: len(renames)}
	p.keys.EnsureCapacity(len(keys))
	for i, k := range keys {
		if !renamed[i] {
			p.keys.PutEmpty(k)
			p.from = append(p.from, uint16(i)) //nolint:gosec // < memoMaxKeys
		}
	}
	for _, r := range renames {
		if _, exists := p.keys.Get(r.to); exists {
			return nil // a collision: renameAll's place decides it by value
		}
		p.keys.PutEmpty(r.to)
		p.from = append(p.from, r.at)
	}
	return p
}

// planKeyValueBytes is the size of one entry of pdata's map: a key (a
// string) and an AnyValue (a oneof: an interface).
const planKeyValueBytes = 32

// size is what the plan holds, in bytes (0 for nil): a map entry and an
// index per position, and the map's own header.
func (p *renamePlan) size() int {
	if p == nil {
		return 0
	}
	return 64 + len(p.from)*(2+planKeyValueBytes)
}

// layOut applies a renamePlan to a map of the plan's shape whose values
// memoWalk kept (vals, by position), counting each rename as renameAll's
// place does: renamed, but for the valued renames whose values migrated
// (memoAbsorb changed them in place and counted their outcomes). The map's backing array moves to the walker (Map.MoveTo, no
// copy), the plan's keys are copied into the walker's spare array of the
// same length (Map.CopyTo reuses its storage: no scan, no allocation),
// each value moves from its old position to its new one, and the spare
// array moves into the map; the map's former array, its values all moved
// out, is the next spare for that length. Every value moves once, and the
// values are reached through the handles memoWalk kept on its stack,
// which cost no write barrier to keep (the earlier way, moving every value
// out into the walker's scratch values and back, stored each value twice
// on the heap).
func (w *Walker) layOut(m pcommon.Map, p *renamePlan, vals []pcommon.Value, valued int) {
	n := len(p.from)
	if !w.planMade[n] {
		w.planSpare[n] = pcommon.NewMap()
		w.planSpare[n].EnsureCapacity(n)
		w.planMade[n] = true
	}
	old, spare := w.planOld, w.planSpare[n]
	m.MoveTo(old) // the handles still reach the values: the array is the same
	p.keys.CopyTo(spare)
	i := 0
	for _, v := range spare.All() {
		vals[p.from[i]].MoveTo(v)
		i++
	}
	spare.MoveTo(m)
	w.planSpare[n], w.planOld = old, spare
	w.countN(vocab.OutcomeRenamed, p.renames-valued)
}
