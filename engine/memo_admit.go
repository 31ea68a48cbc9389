package engine

import (
	"hash/maphash"
	"unsafe"

	"github.com/otelgov/otelcol-governance/registry"
)

// This file decides which missed shapes the memo records and keeps.
//
// Admission: a shape is admitted on its second sighting. A miss leaves
// its fingerprint (memoMix: its keys, exactly) in the doorkeeper; a miss
// that finds it there leaves a ticket in its set; the set's next miss is
// recorded, and inserted if it has the ticket's fingerprint or the
// doorkeeper holds its own (another shape of the set, seen before). The
// doorkeeper is memoDoorBuckets buckets of memoDoorWays fingerprints; a
// new one takes a free way, else a pseudo-random one. Shapes that
// alternate in one bucket push each other out and are never seen twice:
// with eight ways that takes nine shapes in a bucket, where a full memo's
// 2048 shapes put two in a bucket on average. A walker records at most one
// map per memoAdmitEvery misses.
//
// Bypass: after memoBypassAfter misses in a row, none of them a second
// sighting, a walker sends only one map in memoBypassSample through the
// memo until one hits or is seen a second time. A client sending a new
// shape with every map (random keys) then costs about the walk without a
// memo and grows nothing, while a warm-up of many shapes, each seen once
// so far, does not shut the memo out of the shapes that then repeat.

// sighted reports whether a map of fingerprint fp missed in set before
// (the doorkeeper holds it), and leaves it there when not: in a free way
// of its bucket, else in the way victim chooses (any number that varies:
// the walker's count of misses).
func (mo *memo) sighted(set *memoSet, fp uint64, victim int64) bool {
	// The set's address stands for the shape's context (memoCtx), which
	// the fingerprint does not hold; it never moves while the memo lives.
	key := (fp ^ uint64(uintptr(unsafe.Pointer(set)))*fibMul) | 1 //nolint:gosec // a hash of the pointer, never turned back
	b := &mo.door[key>>(64-memoDoorBits)]
	free := -1
	for j := range b {
		switch b[j].Load() {
		case key:
			return true
		case 0:
			if free < 0 {
				free = j
			}
		}
	}
	if free < 0 {
		free = int(uint64(victim) % memoDoorWays) //nolint:gosec // a count, used as a pseudo-random way
	}
	b[free].Store(key)
	return false
}

// memoMiss counts a miss and reports whether to record the map: the set
// holds a ticket and the walker's admission budget allows. The recording
// holds for the map's context (w.memo.recCtx), taken here: nothing the
// walk of the map has done so far changes it.
func (w *Walker) memoMiss(set *memoSet) bool {
	w.memo.misses++
	w.memo.lifeMisses++
	w.memo.missRun++
	if set.ticket.Load() == 0 || w.memo.records*memoAdmitEvery > w.memo.lifeMisses {
		return false
	}
	w.memo.recording.reset()
	w.memo.recCtx = w.memoContext()
	return true
}

// memoRecorded inserts the recorded map when it has the fingerprint of
// the set's ticket.
func (w *Walker) memoRecorded(set *memoSet, fp uint64) {
	mr, mc := &w.memo.recording, &w.memo.recCtx
	w.memo.records++
	mo := w.e.memo
	// The ticket's shape, or another the doorkeeper has seen (the set's
	// next miss is often another shape of the set): both were seen twice.
	t := set.ticket.Load()
	if !mr.unkept && mr.keyBytes <= memoMaxKeyBytes && len(mr.ops) < 1<<15 && len(mr.events) < 1<<15 &&
		(t == fp || mo.sighted(set, fp, w.memo.lifeMisses)) {
		if t == fp {
			set.ticket.CompareAndSwap(t, 0)
		}
		mo.insert(w.newMemoEntry(mr, *mc, mr.keyBytes), set)
	}
	*mc = memoCtx{}
	// Do not keep the batch's strings alive.
	clear(mr.keys)
	clear(mr.ops)
	clear(mr.valueHits)
	mr.clearAdvice()
}

func memoSeed(l registry.Location) uint64 { return uint64(l+1) * fibMul }

// memoMix adds one attribute to a fingerprint: its Ref, which names a
// registry key exactly, and for a key the Ref does not name (outside the
// registry, or an instance of a template, whose instances share the
// template's Ref) a hash of all its bytes. So two maps have one
// fingerprint only when they have the same keys (or a hash collides): a
// second sighting in the doorkeeper is a shape that repeats, and a client
// sending new keys with every map never makes one. The fingerprint only
// decides admission and the bypass: a collision costs a recording,
// bounded by the admission budget, never a wrong answer.
func (w *Walker) memoMix(fp uint64, k string, r registry.Ref) uint64 {
	h := uint64(r)
	if !r.Found() || r.Template() {
		h ^= maphash.String(w.e.memo.seed, k)
	}
	return (fp ^ h) * 0x100000001b3
}

// memoTry reports whether the next map goes through the memo. A walker
// whose last memoBypassAfter maps all missed (new shapes with every map: a
// churn of random keys) sends one map in memoBypassSample: the others take
// the full walk without paying for the memo's comparisons and fingerprint,
// and count as misses. A sampled map that hits, or is the second sighting
// of a shape, ends the bypass; sampled maps still admit shapes, more
// slowly.
func (w *Walker) memoTry() bool {
	if w.memo.missRun < memoBypassAfter {
		return true
	}
	w.memo.skip++
	if w.memo.skip%memoBypassSample == 0 {
		return true
	}
	w.memo.misses++
	return false
}
