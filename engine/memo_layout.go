package engine

import (
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/otelgov/otelcol-governance/registry"
)

// This file lays the memo out: its sets and ways, its bounds, and the
// insertion and eviction of entries.
//
// Bounds: memoSets*memoWays entries (2048) and memoMaxBytes (4 MiB,
// counted from the copied strings and the entry's slices) in all, plus the
// sets (512 cache lines, 32 KiB) and the doorkeeper (1024 cache lines,
// 64 KiB); an entry that would pass the budget is not admitted.
//
// Eviction: the entry in the set's next way, round robin.

// fibMul is 2^64 divided by the golden ratio: a multiply by it carries
// every bit of a hash into the top ones (Fibonacci hashing), which choose a
// memo set or a doorkeeper bucket.
const fibMul = 0x9e3779b97f4a7c15

const (
	memoSetBits = 9
	memoSets    = 1 << memoSetBits
	memoWays    = 4
	// memoMaxKeys and memoMaxKeyBytes bound one entry's keys.
	memoMaxKeys     = 64
	memoMaxKeyBytes = 4 << 10
	// memoMaxBytes bounds all entries.
	memoMaxBytes = 4 << 20
	// The doorkeeper: 1<<memoDoorBits buckets of memoDoorWays
	// fingerprints, one cache line each.
	memoDoorBits    = 10
	memoDoorBuckets = 1 << memoDoorBits
	memoDoorWays    = 8
	// memoAdmitEvery: a walker records one entry per this many misses.
	memoAdmitEvery = 8
	// After memoBypassAfter misses in a row, a walker sends only one map
	// in memoBypassSample through the memo (the others take the full walk
	// at once) until one hits.
	memoBypassAfter  = 64
	memoBypassSample = 16
)

// memo is one engine's shape memo.
type memo struct {
	// sets come first: the memo is allocated page-aligned (a large
	// object), so that each 64-byte set is one cache line.
	sets [memoSets]memoSet
	// door is the doorkeeper: the fingerprints of shapes missed, a
	// bucket per cache line (it follows the sets, 32 KiB).
	door [memoDoorBuckets][memoDoorWays]atomic.Uint64
	// mu serializes reset.
	mu sync.Mutex
	// ix is the registry the entries belong to.
	ix   atomic.Pointer[registry.Index]
	seed maphash.Seed

	hits, misses, evictions, entries, bytes atomic.Int64
}

// memoSet is one set of the memo: 4 ways and the set's admission state,
// in one cache line, which the walk of every map of the set loads anyway.
type memoSet struct {
	ways [memoWays]atomic.Pointer[memoEntry]
	// ticket is the fingerprint of a shape seen twice: the next miss in
	// the set is recorded, and inserted if it has that fingerprint.
	ticket atomic.Uint64
	next   atomic.Uint32 // round-robin victim
	_      [20]byte      // pad to 64 bytes
}

func newMemo() *memo { return &memo{seed: maphash.MakeSeed()} }

// Stats reads the counters.
func (mo *memo) stats() MemoStats {
	return MemoStats{
		Hits: mo.hits.Load(), Misses: mo.misses.Load(), Evictions: mo.evictions.Load(),
		Entries: mo.entries.Load(), Bytes: mo.bytes.Load(),
	}
}

// use makes ix the memo's registry, dropping every entry of another.
func (mo *memo) use(ix *registry.Index) {
	if mo.ix.Load() == ix {
		return
	}
	mo.mu.Lock()
	defer mo.mu.Unlock()
	if mo.ix.Load() == ix {
		return
	}
	mo.ix.Store(ix)
	for i := range mo.sets {
		for j := range mo.sets[i].ways {
			if old := mo.sets[i].ways[j].Swap(nil); old != nil {
				mo.entries.Add(-1)
				mo.bytes.Add(-int64(old.bytes))
			}
		}
	}
	for i := range mo.sets {
		mo.sets[i].ticket.Store(0)
	}
	for i := range mo.door {
		for j := range mo.door[i] {
			mo.door[i][j].Store(0)
		}
	}
}

// MemoStats returns the shape memo's counters (zero when the memo is off).
func (e *Engine) MemoStats() MemoStats {
	if e.memo == nil {
		return MemoStats{}
	}
	return e.memo.stats()
}

// setIndex chooses the set of a shape from its context (ctx, def and
// flags: memoCtx's), length and first key.
func (mo *memo) setIndex(ctx *registry.Context, def *registry.Group, flags uint8, n int, first string) int {
	h := uint64(n)*fibMul ^ uint64(ctx.Location)<<8 ^ uint64(ctx.SpanKind)<<16 ^ uint64(flags)<<24 //nolint:gosec // n >= 1, a hash
	if ctx.MetricName != "" {
		h ^= maphash.String(mo.seed, ctx.MetricName)
	}
	if def != nil {
		h ^= uint64(uintptr(unsafe.Pointer(def))) >> 4 //nolint:gosec // a hash of the pointer, never turned back
	}
	h ^= registry.HashKey(first, 0)
	// The context sits in high bits: a multiply carries every bit into
	// the top ones, which choose the set.
	return int((h * fibMul) >> (64 - memoSetBits))
}

// sameShape reports whether o holds for the maps e holds for: the same
// registry, context, sample name, keys and type guards.
func (o *memoEntry) sameShape(e *memoEntry) bool {
	if o.ix != e.ix || o.mc != e.mc || o.needName != e.needName || o.name != e.name || !slices.Equal(o.keys, e.keys) {
		return false
	}
	for i := range o.pos {
		if p, q := &o.pos[i], &e.pos[i]; p.guard != q.guard || p.guard && p.typ != q.typ {
			return false
		}
	}
	return true
}

// insert puts e into set, evicting the next way's entry, unless the memo
// moved to another registry or e would pass the byte budget.
func (mo *memo) insert(e *memoEntry, set *memoSet) {
	if mo.ix.Load() != e.ix {
		return
	}
	way := -1
	for j := range set.ways {
		o := set.ways[j].Load()
		if o == nil {
			if way < 0 {
				way = j
			}
		} else if o.sameShape(e) {
			return // another walker's, or inserted while this map was walked
		}
	}
	if way < 0 {
		way = int(set.next.Add(1) % memoWays)
	}
	old := set.ways[way].Load()
	size := int64(e.bytes)
	if old != nil {
		size -= int64(old.bytes)
	}
	if mo.bytes.Load()+size > memoMaxBytes {
		return
	}
	if old = set.ways[way].Swap(e); old != nil {
		mo.evictions.Add(1)
		mo.bytes.Add(-int64(old.bytes))
	} else {
		mo.entries.Add(1)
	}
	mo.bytes.Add(int64(e.bytes))
}
