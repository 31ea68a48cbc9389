package engine

import (
	"unsafe"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelgov/otelcol-governance/engine/internal/keyeq"
)

// This file walks a map through the memo: one pass that ends in a hit
// or a miss.
//
// A hit writes as little as it can into the heap: it keeps the values by
// position in a local array of memoWalk's frame (no write barrier), and
// applies the entry's ops from the entry (renames matched by position),
// because every pointer written into the heap while the collector's GC
// marks costs a write barrier, and at line rate the GC marks much of the
// time (measured: storing each value into the walker cost about a third of
// a conforming map's hit).

// memoAttrs walks one map of n keys (n <= memoMaxKeys) through the memo,
// with value handles for the smallest array of them that holds it.
func (w *Walker) memoAttrs(m pcommon.Map, n int) {
	switch {
	case n <= handlesSmall:
		memoWalk[[handlesSmall]pcommon.Value](w, m, n)
	case n <= 2*handlesSmall:
		memoWalk[[2 * handlesSmall]pcommon.Value](w, m, n)
	default:
		memoWalk[[memoMaxKeys]pcommon.Value](w, m, n)
	}
}

// handlesSmall is the length of the smallest array of value handles
// memoWalk keeps on its stack (zeroed at each call).
const handlesSmall = 16

// valueHandles are the arrays of value handles memoWalk keeps: 16, 32 or
// memoMaxKeys (64).
type valueHandles interface {
	[handlesSmall]pcommon.Value | [2 * handlesSmall]pcommon.Value | [memoMaxKeys]pcommon.Value
}

// memoWalk walks one map through the memo: while an entry of the map's
// set matches the keys and type guards so far, nothing is checked, and
// the values are kept by position, for a hit's value checks and its
// rename plan; at the end a match is a hit. It follows one entry at a
// time, the first of the set's candidates (its length and context), and
// asks memoSwitch for another only when that one stops matching: a key
// compared against one entry, not a loop over the candidates left
// (measured: −6 to −8 % per span on a conforming hit, stop 33). A
// mismatch that memoSwitch cannot mend is a miss: the map is walked again
// in full (memoMissed). A miss is recorded when the set holds a ticket for
// a shape seen twice.
//
// The matching loop holds only the matching; the mismatch, the miss and
// the fingerprint are out of it, where they read as what they are
// (callgrind counted the same instructions per conforming span either
// way: the lines of pdata's iterator, Map.All, cost 36 to 43 per attribute here
// against 6 in BenchmarkMemo's floor, whose loop body is smaller).
//
// The value handles are a local array of memoWalk's own (one instance per
// length, memoAttrs): a store into it costs no write barrier, where a
// store into the walker or through a slice does while the collector's GC
// marks, which at line rate is much of the time. So a hit's plan is laid
// out here, while the handles live.
//
// The loop's body is inlined only while its cost stays under the
// compiler's limit for a closure called once (800):
// TestMemoWalkLoopInlined fails a change that passes it, which would make
// every attribute a closure call (measured: +50 % on a conforming hit).
func memoWalk[A valueHandles](w *Walker, m pcommon.Map, n int) {
	var first string
	for k := range m.All() {
		first = k
		break
	}
	// e is the candidate that matches the map so far.
	set, cand, e := w.memoStart(n, first)
	if e == nil {
		w.memoMissed(m, set)
		return
	}
	var vals A
	// Where e stopped matching: position i, key k, value v.
	var k string
	var v pcommon.Value
	i := 0
	for key, val := range m.All() {
		// p.admits(v), written out: the compiler does not inline
		// that call here (measured: +13.5 % on a conforming hit).
		if p := &e.pos[i]; keyeq.Equal(e.keys[i], key) && (!p.guard || p.typ.holds(val.Type(), val)) {
			vals[i] = val
			i++
			continue
		}
		k, v = key, val
		break
	}
	for e != nil && i < n {
		if e = memoSwitch(&cand, e, i, k, v, &vals); e != nil {
			vals[i] = v
			i, k, v = memoResume(m, e, i+1, &vals)
		}
	}
	if e == nil {
		w.memoMissed(m, set)
		return
	}
	// A type parameter's array cannot be sliced (its type set has no
	// core type): this is vals[:n], a slice of memoWalk's own frame
	// that the callees only read and do not keep.
	kept := unsafe.Slice(&vals[0], n) //nolint:gosec // a slice of a local array, read while it lives
	w.memo.hits++
	w.memo.missRun = 0
	w.memoHit(e, kept)
	if e := w.memo.hitOps; e != nil && e.plan != nil {
		w.layOut(m, e.plan, kept, w.memo.valued)
		w.memo.hitOps, w.memo.valued = nil, 0
	}
}

// memoResume goes on matching entry e against map m from position from
// (the positions before it matched), keeping the values, and returns
// where e stops matching (position, key and value), or the map's length:
// memoSwitch's path, for a set holding entries of one length and context
// that differ in a key or a type.
func memoResume[A valueHandles](m pcommon.Map, e *memoEntry, from int, vals *A) (int, string, pcommon.Value) {
	i := 0
	for k, v := range m.All() {
		if i >= from {
			if !keyeq.Equal(e.keys[i], k) || !e.pos[i].admits(v) {
				return i, k, v
			}
			(*vals)[i] = v
		}
		i++
	}
	return i, "", pcommon.Value{}
}

// memoMissed walks a map that missed the memo (set: its set) in full,
// recording it when the set holds a ticket and the admission budget
// allows; a map not recorded leaves its fingerprint in the doorkeeper.
func (w *Walker) memoMissed(m pcommon.Map, set *memoSet) {
	rec := w.memoMiss(set)
	fp := memoSeed(w.ctx.Location)
	i := 0
	for k, v := range m.All() {
		fp = w.memoStep(fp, k, v, i, rec)
		i++
	}
	fp |= 1
	if rec {
		w.memoRecorded(set, fp)
		return
	}
	if w.e.memo.sighted(set, fp, w.memo.lifeMisses) {
		set.ticket.Store(fp) // second sighting: record it next time
		w.memo.missRun = 0   // a shape that repeats: not a churn
	}
}

// memoStart begins the walk of a map of n keys whose first key is k: it
// returns the map's set, the entries of the set for its length and
// context (cand) and the first of them (nil: none). Out of memoWalk's
// loop, whose body it leaves room in; its results are returned, not
// stored through pointers, so that they land in memoWalk's frame without
// write barriers.
func (w *Walker) memoStart(n int, k string) (set *memoSet, cand [memoWays]*memoEntry, e *memoEntry) {
	f := w.memoFlags()
	mo := w.e.memo
	set = &mo.sets[mo.setIndex(&w.ctx, w.grp.def, f, n, k)]
	for j := range memoWays {
		if c := set.ways[j].Load(); c != nil && len(c.keys) == n && c.ix == w.ix && c.mc.holds(w, f) &&
			(!c.needName || c.name == w.grp.sink.signalName) {
			cand[j] = c
			if e == nil {
				e = c
			}
		}
	}
	return set, cand, e
}

// memoSwitch returns another candidate than e (cand: the entries of the
// map's set for its length and context) that matches the map as far as
// position i: the keys before i (e's, which matched), key k at i, and the
// type guards of the values kept (vals, positions before i) and of v; nil
// when none does. memoWalk follows one candidate per key and comes here
// when it stops matching: a set holding entries of one length and context
// that differ in a key or a type.
//
//go:noinline
func memoSwitch[A valueHandles](cand *[memoWays]*memoEntry, e *memoEntry, i int, k string, v pcommon.Value, vals *A) *memoEntry {
next:
	for _, c := range cand {
		if c == nil || c == e || !keyeq.Equal(c.keys[i], k) || !c.pos[i].admits(v) {
			continue
		}
		for j := range i {
			if !keyeq.Equal(c.keys[j], e.keys[j]) || !c.pos[j].admits((*vals)[j]) {
				continue next
			}
		}
		return c
	}
	return nil
}

// admits reports whether the position's recorded result holds for value v.
func (p *memoPos) admits(v pcommon.Value) bool { return !p.guard || p.typ.holds(v.Type(), v) }

// memoGuard is the type a memoized value check holds for: the value's
// type, and for an array the type all its elements have; ok is false for
// an empty or mixed array, whose checks are never memoized.
func memoGuard(v pcommon.Value) (g memoType, ok bool) {
	t := v.Type()
	if t != pcommon.ValueTypeSlice {
		return memoType{typ: t}, true
	}
	s := v.Slice()
	if s.Len() == 0 {
		return memoType{}, false
	}
	elem := s.At(0).Type()
	for i := 1; i < s.Len(); i++ {
		if s.At(i).Type() != elem {
			return memoType{}, false
		}
	}
	return memoType{typ: t, elem: elem}, true
}

// memoType is a value's type for a guard.
type memoType struct{ typ, elem pcommon.ValueType }

// holds reports whether v, of type t (v.Type(), taken by the caller so
// that holds inlines into the memo walk), has the guard's type.
func (g memoType) holds(t pcommon.ValueType, v pcommon.Value) bool {
	return t == g.typ && (t != pcommon.ValueTypeSlice || g.holdsArray(v))
}

// holdsArray is holds for an array: every element has the guard's type.
// Not inlined, so that holds is.
//
//go:noinline
func (g memoType) holdsArray(v pcommon.Value) bool {
	got, ok := memoGuard(v)
	return ok && got == g
}
