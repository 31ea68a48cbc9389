package engine

import (
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// This file holds the shape memo: the walk pays per shape, not per
// attribute.
//
// Telemetry is repetitive: one instrumentation sends the same attribute
// keys, in the same order, in the same context, millions of times. The
// memo classifies an attribute map once per shape and keeps what the key
// alone decides (checkKey in walk.go), so that a map of a known shape costs
// one key comparison per attribute, the checks that really read values, and
// one vector added to the tally.
//
// The shape is the map's key sequence, in its context (memoCtx): the
// registry.Context (location, span kind, metric name, span name: what a
// rename target depends on), the definition the item is checked against
// and the group check's flags (active, resource, guard, quiet), whether
// the batch is writable, and whether a ShapeAdvisor is offered the
// attributes (ShapeAdvisor.Kinds). Nothing else that checkKey reads varies within
// one Engine and one registry Index. A position whose value check depends
// only on the value's type (a conforming scalar, an unknown key, a plain
// deprecated rename) is memoized with that type as a guard: a map whose
// types differ is a miss, never a wrong answer.
//
// An entry stores, per position, the key (copied on insert), its
// registry.Ref, the type guard, the value check still to run at each hit
// (tail: enums, value migrations, arrays, coercions), the ops the key
// queues (renames, drops) and, with Options.Detail or a Sink, the ordered
// events of the report and the sink (deprecated and unknown keys, findings
// by name); with Options.Detail, the registry entries of its keys, which
// the report lists once per engine and Index (notedKeys): the entry
// remembers the set in which they are all noted (memoEntry.noted), and
// hits after that note nothing. For the whole map it stores the outcome, finding
// and drop counts and the group check's seen bits, added as one vector.
// A hit writes as little as it can into the heap: it keeps the values by
// position in a local array of memoWalk's frame (no write barrier), and
// applies the entry's ops from the entry (renames matched by position),
// because every pointer written into the heap while the collector's GC
// marks costs a write barrier, and at line rate the GC marks much of the
// time (measured: storing each value into the walker cost about a third of
// a conforming map's hit).
//
// Findings: finding() is the one place that counts a finding (and applies
// the finding rules: filters and level overrides, findingrules), findingOut
// the one path of its detail (the report's tally by name, the sink). An
// entry records what finding() counted, after the rules, with each
// finding's level and the findings the rules moved to another level
// (Batch.Relevelled). Unscoped rules read the finding ID only; scoped ones
// read the sample's signal type (memoCtx.sample) and, for the findings on
// a span, metric or event rather than an attribute, its name: an entry
// whose recording had a scoped rule read the name holds it (memoEntry.name)
// and matches maps of samples of that name only. A hit replays the events in order
// through findingOut; with a Sink, every hit does, since the sink sees each
// finding with its context. Without one, the first hit of an entry for a
// service in a batch replays them and notes where the report filed them
// (memoDetail), and later hits are counted in the slot and added to those
// counts once, when Walker.Batch is read.
//
// Advisor: with a ShapeAdvisor whose findings on attributes are
// shape-free (advice.go), a recording offers each attribute to it as the
// full walk does (memoAdvise), its findings are recorded as the built-in
// ones are (events with their IDs, and their counts in
// memoEntry.advice), every offered position is guarded by its value's
// type (the findings may depend on the inferred type), and the context
// holds the signal's registry group (memoCtx.group). A recording with a
// finding the advisor says may not be kept (a budget skip, an error) is
// not inserted. Any other Advisor turns the memo off (Engine.Walker).
//
// Not memoized, and walked in full: the attributes of spans while the
// extended profile matches span definitions (the matcher reads all keys
// first), maps of more than memoMaxKeys attributes or memoMaxKeyBytes of
// key text. Resource entity checks and requirement checks run once per
// item after the attributes, from the seen bits, and are not part of it.
//
// Bounds: memoSets*memoWays entries (2048) and memoMaxBytes (4 MiB,
// counted from the copied strings and the entry's slices) in all, plus the
// sets (512 cache lines, 32 KiB) and the doorkeeper (1024 cache lines,
// 64 KiB); an entry that would pass the budget is not admitted.
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
//
// Eviction: the entry in the set's next way, round robin.
//
// Invalidation: the memo belongs to one registry Index. Engine.Walker
// clears it when a walker is asked for another Index (a reload), and an
// entry is used only with the Index it was recorded against.
//
// Concurrency: walkers run concurrently and share the engine's memo. The
// ways are atomic pointers to entries that are immutable once inserted,
// but for memoEntry.noted, an atomic pointer that a hit sets once the
// entry's registry keys are noted: a hit is lock-free, an insert swaps
// one pointer; the doorkeeper and the tickets are atomic
// words (a lost update costs an admission, never an answer). mu serializes
// reset (use); the counters are atomic. A walker's own state (its counts
// of hits and misses, added at Release, the recording, memoDetail, the
// bypass) needs no lock: one goroutine walks a batch.

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

// MemoStats are the shape memo's counters since the engine was created.
type MemoStats struct {
	// Hits and Misses count attribute maps walked with and without an
	// entry; Evictions counts entries replaced by others.
	Hits, Misses, Evictions int64
	// Entries and Bytes are the memo's current size.
	Entries, Bytes int64
}

// Add adds o's counts to s: the memos of several engines as one.
func (s *MemoStats) Add(o MemoStats) {
	s.Hits += o.Hits
	s.Misses += o.Misses
	s.Evictions += o.Evictions
	s.Entries += o.Entries
	s.Bytes += o.Bytes
}

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

// memoCtx is what checkKey reads besides the key.
type memoCtx struct {
	ctx   registry.Context
	def   *registry.Group
	flags uint8
	// sample is what scoped finding rules read besides the finding and
	// the key: the sink's signal type and point type (rules.go), set only
	// while some are configured. The signal name (span, metric or event
	// name) is compared only for an entry that needs it (memoEntry.name).
	sample [2]string
	// group is the registry definition of the signal (Sample.Group) that a
	// ShapeAdvisor's findings on the attributes may depend on; nil
	// without one.
	group *registry.Group
}

const (
	memoActive uint8 = 1 << iota
	memoResource
	memoGuarding
	memoQuiet
	memoMutate
	// memoAdvised: the ShapeAdvisor is offered the attributes
	// (ShapeAdvisor.Kinds).
	memoAdvised
	// memoTypeFree: its findings on them do not depend on the value's
	// type (ShapeAdvisor.AttrsTypeFree): the positions are not guarded for
	// its sake.
	memoTypeFree
)

func (w *Walker) memoContext() memoCtx {
	s := &w.grp
	var f uint8
	if s.active {
		f |= memoActive
	}
	if s.resource {
		f |= memoResource
	}
	if s.guard {
		f |= memoGuarding
	}
	if s.quiet {
		f |= memoQuiet
	}
	if w.mutate {
		f |= memoMutate
	}
	mc := memoCtx{ctx: w.ctx, def: s.def, flags: f}
	if w.e.findingRules.scoped {
		mc.sample = [2]string{s.sink.signalType, s.sink.pointType}
	}
	if w.e.shape != nil {
		mc.group = w.adv.s.Group
		if w.adv.kinds.Has(SampleAttribute) {
			mc.flags |= memoAdvised
			if w.adv.typeFree {
				mc.flags |= memoTypeFree
			}
		}
	}
	return mc
}

// memoEntry is one shape's recorded walk. Immutable once inserted, but
// for noted.
type memoEntry struct {
	ix *registry.Index
	mc memoCtx
	// name is the sample's signal name when a scoped finding rule read it
	// for a finding of the map (needName): the entry then holds for maps
	// of samples of that name only.
	name     string
	needName bool
	keys     []string // slices of one copied string
	pos      []memoPos
	// The vector: counts added to the tally on a hit (sparse).
	outcomes, findings, drops []memoCount
	relevels                  []memoRelevel
	rewrites                  int
	seen                      registry.AttrBits
	hasSeen                   bool
	ops                       []op
	nOps                      opCounts // ops by kind
	// renameAt are the positions of the opRename ops' keys in the map.
	renameAt []uint16
	// plan lays the map out again in one pass when the entry's ops are
	// renames only, enough of them to pay (planWorth), none colliding
	// (renamePlan); nil otherwise.
	plan   *renamePlan
	events []memoEvent
	// refs are the registry entries of the map's keys (Options.Detail),
	// for the report's registry coverage; noted is the engine's set of
	// listed entries (notedKeys) that has them all, once a hit has noted
	// them: the one field of an entry written after its insert.
	refs  []registry.Ref
	noted atomic.Pointer[notedKeys]
	// advice are the ShapeAdvisor's findings on the map, counted at each
	// hit (Batch.Advice); their detail is in events.
	advice []AdviceTally
	// work lists the positions a hit has work for: a tail, an op or an
	// event; tails those with a tail, all the work of a hit that replays
	// no event (memoDetailAgain): memoWork queues the ops of the positions
	// between two tails before the second.
	work, tails []uint16
	bytes       int
}

// memoPos is one position of a shape.
type memoPos struct {
	ref registry.Ref
	// typ is the value's type when guard is set: the position's recorded
	// result holds for values of that type only.
	typ   memoType
	guard bool
	// tail is the value check a hit runs (tailDone: none).
	tail tail
	// ops and events end the position's ops and events (cumulative).
	ops, events uint16
}

type memoCount struct {
	i uint16
	n int32
}

// memoEventKind is what a recorded event replays.
type memoEventKind uint8

const (
	memoKey memoEventKind = iota
	memoFinding
)

type memoEvent struct {
	kind memoEventKind
	kk   KeyKind
	subj vocab.Subject
	f    vocab.Finding
	lv   vocab.Level // the finding's level after the finding rules
	// id names an Advisor's defined finding (copied on insert).
	id string
}

// memoRec records one map's walk: the walker's hooks (finding, the
// report's key tallies) append events to it while w.rec points at it.
type memoRec struct {
	events   []memoEvent
	refs     []registry.Ref // the registry entries noted (memoEntry.refs)
	ops      []op
	keys     []string
	pos      []memoPos
	outcomes [vocab.NumOutcomes]int64
	findings [vocab.NumFindings]int64
	drops    [vocab.NumReasons]int64
	seen     registry.AttrBits
	// relevels are the findings the finding rules moved to another level
	// (Batch.Relevelled), in the order counted.
	relevels []memoRelevel
	// needName: a scoped finding rule read the sample's signal name.
	needName bool
	// advice are the Advisor's defined findings counted (memoEntry.advice);
	// unkept: an Advisor's findings may not be kept (AdviseKept), or a
	// position offered to it has no type guard: not inserted.
	advice   []AdviceTally
	unkept   bool
	keyBytes int
	// snapshot before the current position
	s0 memoSnap
}

type memoSnap struct {
	outcomes [vocab.NumOutcomes]int64
	findings [vocab.NumFindings]int64
	drops    [vocab.NumReasons]int64
	seen     registry.AttrBits
}

func (r *memoRec) reset() {
	r.clearAdvice()
	clear(r.ops)
	clear(r.keys)
	r.events, r.refs, r.ops, r.keys, r.pos, r.relevels = r.events[:0], r.refs[:0], r.ops[:0], r.keys[:0], r.pos[:0], r.relevels[:0]
	r.outcomes, r.findings, r.drops, r.seen = [vocab.NumOutcomes]int64{}, [vocab.NumFindings]int64{}, [vocab.NumReasons]int64{}, registry.AttrBits{}
	r.keyBytes, r.needName = 0, false
}

// clearAdvice empties the advice recorded, keeping no string of the batch.
func (r *memoRec) clearAdvice() {
	for i := range r.events {
		r.events[i].id = ""
	}
	clear(r.advice)
	r.advice, r.unkept = r.advice[:0], false
}

func (r *memoRec) event(ev memoEvent) { r.events = append(r.events, ev) }

// finding records one finding counted by findingAt (after the rules): its
// event, and for an Advisor's defined finding its count.
func (r *memoRec) finding(f vocab.Finding, lv vocab.Level, subj vocab.Subject, id string) {
	r.event(memoEvent{kind: memoFinding, f: f, lv: lv, subj: subj, id: id})
	if f >= vocab.NumFindings {
		r.advice = addAdvice(r.advice, f, lv, id, 1)
	}
}

// memoRelevel is n findings f that the finding rules put at level l.
type memoRelevel struct {
	f vocab.Finding
	l vocab.Level
	n int64
}

// relevel records one finding the finding rules put at level l.
func (r *memoRec) relevel(f vocab.Finding, l vocab.Level) {
	for i := range r.relevels {
		if c := &r.relevels[i]; c.f == f && c.l == l {
			c.n++
			return
		}
	}
	r.relevels = append(r.relevels, memoRelevel{f: f, l: l, n: 1})
}

// setRec turns recording on (rec) or off (nil).
func (w *Walker) setRec(rec *memoRec) { w.rec, w.report.rec = rec, rec }

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

// memoWalk walks one map through the memo in one pass: while an entry of
// the map's set matches the keys and type guards so far, nothing is
// checked, and the values are kept by position, for a hit's value checks
// and its rename plan; at the end a match is a hit. It follows one entry
// at a time, the first of the set's candidates (its length and context),
// and asks memoSwitch for another only when that one stops matching: a
// key compared against one entry, not a loop over the candidates left
// (measured: −6 to −8 % per span on a conforming hit, stop 33). A
// mismatch that memoSwitch cannot mend is a miss:
// the positions passed are checked in full, read again from the map, and
// the rest as they come. A miss is recorded when the set holds a ticket
// for a shape seen twice.
//
// The value handles are a local array of memoWalk's own (one instance per
// length, memoAttrs): a store into it costs no write barrier, where a
// store into the walker or through a slice does while the collector's GC
// marks, which at line rate is much of the time. So a hit's plan is laid
// out here, while the handles live.
//
// The loop's body is inlined only while its cost stays under the
// compiler's limit for a closure called once (800; it is 794):
// TestMemoWalkLoopInlined fails a change that passes it, which would make
// every attribute a closure call (measured: +50 % on a conforming hit).
func memoWalk[A valueHandles](w *Walker, m pcommon.Map, n int) {
	mo := w.e.memo
	var vals A
	var mc memoCtx
	var set *memoSet
	var cand [memoWays]*memoEntry
	var e *memoEntry // the candidate that matches the map so far
	rec := false
	fp := memoSeed(w.ctx.Location)
	i := 0
	for k, v := range m.All() {
		if i == 0 {
			mc = w.memoContext()
			set = &mo.sets[mo.setIndex(&mc, n, k)]
			for j := range memoWays {
				if c := set.ways[j].Load(); c != nil && len(c.keys) == n && c.ix == w.ix && c.mc == mc &&
					(!c.needName || c.name == w.grp.sink.signalName) {
					cand[j] = c
					if e == nil {
						e = c
					}
				}
			}
			if e == nil {
				rec = w.memoMiss(set)
			}
		}
		if e != nil {
			// p.admits(v), written out: the compiler does not inline
			// that call here (measured: +13.5 % on a conforming hit).
			if p := &e.pos[i]; keyEq(e.keys[i], k) && (!p.guard || p.typ.holds(v.Type(), v)) {
				vals[i] = v
				i++
				continue
			}
			if e = memoSwitch(&cand, e, i, k, v, &vals); e != nil {
				vals[i] = v
				i++
				continue
			}
			rec = w.memoMiss(set)
			fp = w.memoStepPrefix(m, fp, i, rec)
		}
		fp = w.memoStep(fp, k, v, i, rec)
		i++
	}
	if e != nil {
		// A type parameter's array cannot be sliced (its type set has no
		// core type): this is vals[:n], a slice of memoWalk's own frame
		// that the callees only read and do not keep.
		kept := unsafe.Slice(&vals[0], n) //nolint:gosec // a slice of a local array, read while it lives
		w.memoHits++
		w.memoMissRun = 0
		w.memoHit(e, kept)
		if e := w.hitOps; e != nil && e.plan != nil {
			w.layOut(m, e.plan, kept)
			w.hitOps = nil
		}
		return
	}
	fp |= 1
	if rec {
		w.memoRecorded(mc, set, fp)
		return
	}
	if mo.sighted(set, fp, w.memoLifeMisses) {
		set.ticket.Store(fp) // second sighting: record it next time
		w.memoMissRun = 0    // a shape that repeats: not a churn
	}
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
		if c == nil || c == e || !keyEq(c.keys[i], k) || !c.pos[i].admits(v) {
			continue
		}
		for j := range i {
			if !keyEq(c.keys[j], e.keys[j]) || !c.pos[j].admits((*vals)[j]) {
				continue next
			}
		}
		return c
	}
	return nil
}

// admits reports whether the position's recorded result holds for value v.
func (p *memoPos) admits(v pcommon.Value) bool { return !p.guard || p.typ.holds(v.Type(), v) }

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

// memoStepPrefix checks in full the first n attributes of a map that
// matched an entry that far and then missed: their values were not kept
// (memoWalk), so they are read again from the map.
func (w *Walker) memoStepPrefix(m pcommon.Map, fp uint64, n int, rec bool) uint64 {
	i := 0
	for k, v := range m.All() {
		if i == n {
			break
		}
		fp = w.memoStep(fp, k, v, i, rec)
		i++
	}
	return fp
}

// memoMiss counts a miss and reports whether to record the map: the set
// holds a ticket and the walker's admission budget allows.
func (w *Walker) memoMiss(set *memoSet) bool {
	w.memoMisses++
	w.memoLifeMisses++
	w.memoMissRun++
	if set.ticket.Load() == 0 || w.memoRecords*memoAdmitEvery > w.memoLifeMisses {
		return false
	}
	w.memoRec.reset()
	return true
}

// memoStep checks one attribute of a missed map in full, recording it when
// rec is set, and returns the fingerprint with it.
func (w *Walker) memoStep(fp uint64, k string, v pcommon.Value, pos int, rec bool) uint64 {
	r := w.lookup(k, pos)
	if !rec {
		w.adviseAttr(k, v, r)
		w.checkKey(k, r, v, true)
		return w.memoMix(fp, k, r)
	}
	mr := &w.memoRec
	w.memoSnapshot(&mr.s0)
	ops0 := len(w.ops)
	w.setRec(mr)
	advised := w.memoAdvise(mr, k, v, r)
	tl := w.checkKey(k, r, v, false)
	unk := w.report.takeFiled()
	static := w.staticTail(tl, r, v)
	if static && tl != tailDone {
		w.checkTail(k, v, r, tl)
	}
	w.setRec(nil)
	w.memoDiff(mr)
	mr.ops = append(mr.ops, w.ops[ops0:]...)
	p := memoPos{ref: r, guard: advised && !w.adv.typeFree || static && tl != tailDone || unk}
	if p.guard {
		var ok bool
		if p.typ, ok = memoGuard(v); !ok {
			mr.unkept = true // an advised empty or mixed array
		}
	}
	if !static {
		p.tail = tl
		w.checkTail(k, v, r, tl)
	}
	p.ops, p.events = uint16(len(mr.ops)), uint16(len(mr.events)) //nolint:gosec // bounded by memoMaxKeys
	mr.keys = append(mr.keys, k)
	mr.pos = append(mr.pos, p)
	mr.keyBytes += len(k)
	return w.memoMix(fp, k, r)
}

// memoAdvise offers an attribute being recorded to the ShapeAdvisor (the
// full walk's adviseAttr), and reports whether it was offered: its
// position then holds for values of the recorded type only, since the
// findings may depend on the inferred type, unless the ShapeAdvisor says
// they do not (AttrsTypeFree). A finding that may not be
// kept marks the recording so that it is not inserted.
func (w *Walker) memoAdvise(mr *memoRec, k string, v pcommon.Value, r registry.Ref) bool {
	advised, keep := w.adviseAttrKept(k, v, r)
	if !keep {
		mr.unkept = true
	}
	return advised
}

// memoRecorded inserts the recorded map when it has the fingerprint of
// the set's ticket.
func (w *Walker) memoRecorded(mc memoCtx, set *memoSet, fp uint64) {
	mr := &w.memoRec
	w.memoRecords++
	mo := w.e.memo
	// The ticket's shape, or another the doorkeeper has seen (the set's
	// next miss is often another shape of the set): both were seen twice.
	t := set.ticket.Load()
	if !mr.unkept && mr.keyBytes <= memoMaxKeyBytes && len(mr.ops) < 1<<15 && len(mr.events) < 1<<15 &&
		(t == fp || mo.sighted(set, fp, w.memoLifeMisses)) {
		if t == fp {
			set.ticket.CompareAndSwap(t, 0)
		}
		mo.insert(w.newMemoEntry(mr, mc, mr.keyBytes), set)
	}
	// Do not keep the batch's strings alive.
	clear(mr.keys)
	clear(mr.ops)
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
	if w.memoMissRun < memoBypassAfter {
		return true
	}
	w.memoSkip++
	if w.memoSkip%memoBypassSample == 0 {
		return true
	}
	w.memoMisses++
	return false
}

// setIndex chooses the set of a shape from its context, length and first
// key.
func (mo *memo) setIndex(mc *memoCtx, n int, first string) int {
	h := uint64(n)*fibMul ^ uint64(mc.ctx.Location)<<8 ^ uint64(mc.ctx.SpanKind)<<16 ^ uint64(mc.flags)<<24 //nolint:gosec // n >= 1, a hash
	if mc.ctx.MetricName != "" {
		h ^= maphash.String(mo.seed, mc.ctx.MetricName)
	}
	if mc.def != nil {
		h ^= uint64(uintptr(unsafe.Pointer(mc.def))) >> 4 //nolint:gosec // a hash of the pointer, never turned back
	}
	h ^= registry.HashKey(first, 0)
	// The context sits in high bits: a multiply carries every bit into
	// the top ones, which choose the set.
	return int((h * fibMul) >> (64 - memoSetBits))
}

// memoHit applies entry e to the map whose values memoWalk kept (vals).
func (w *Walker) memoHit(e *memoEntry, vals []pcommon.Value) {
	loc := &w.tally.Attrs[w.ctx.Location]
	for _, c := range e.outcomes {
		loc[c.i] += int64(c.n)
		w.svc.Outcomes[c.i] += int64(c.n)
	}
	w.mig.rewrites += e.rewrites
	for _, c := range e.findings {
		w.svc.Findings[c.i] += int64(c.n)
	}
	for _, c := range e.drops {
		w.tally.Drops[c.i] += int64(c.n)
	}
	if w.svc != &w.noService {
		for _, c := range e.relevels {
			w.relevel(c.f, c.l, c.n)
		}
	}
	if e.hasSeen {
		w.grp.seen = w.grp.seen.Or(e.seen)
	}
	if len(e.refs) > 0 {
		w.memoNoteRefs(e)
	}
	w.memoHitAdvice(e)
	if len(e.events) > 0 && w.e.opts.Sink == nil && w.memoDetailAgain(e) {
		// The report's detail of this entry was resolved earlier in the
		// batch for this service: its events are count increments.
		w.memoWork(e, false, vals)
		return
	}
	w.memoWork(e, true, vals)
}

// memoNoteRefs notes the registry entries of entry e for the report,
// unless a hit has noted them all in the walker's set already.
func (w *Walker) memoNoteRefs(e *memoEntry) {
	n := w.report.noted
	if e.noted.Load() == n {
		return
	}
	for _, r := range e.refs {
		w.report.registryKey(r, w.ix)
	}
	e.noted.Store(n)
}

// memoHitAdvice counts the Advisor's findings of entry e (their detail,
// when any, is in its events).
func (w *Walker) memoHitAdvice(e *memoEntry) {
	for i := range e.advice {
		c := &e.advice[i]
		w.countAdvice(c.Finding, c.Level, c.ID, c.Count)
	}
}

// memoWork does the work of a hit at the positions that have some, from
// the values memoWalk kept (the keys are the entry's, equal to the
// map's): it replays the events (when replay is set), runs the value
// checks and hands the entry's ops to apply.
func (w *Walker) memoWork(e *memoEntry, replay bool, vals []pcommon.Value) {
	// The entry's ops are applied from the entry itself (w.hitOps), not
	// copied into w.ops, unless a value check queues ops of its own: then
	// both go into w.ops in the walk's order (merged), the entry's ops of
	// each position before its value check's.
	eop, merged := 0, len(e.ops) == 0
	work := e.tails
	if replay {
		work = e.work
	}
	for _, i := range work {
		p := &e.pos[i]
		k := e.keys[i]
		if replay {
			ev := 0
			if i > 0 {
				ev = int(e.pos[i-1].events)
			}
			if w.report.unknowns {
				w.report.unknownValue(vals[i]) // once per shape, service and batch
			}
			for ; ev < int(p.events); ev++ {
				idx := w.memoReplay(&e.events[ev], k)
				if w.memoDet != nil {
					w.memoDet.idx = append(w.memoDet.idx, int32(idx)) //nolint:gosec // an index of the batch's detail
				}
			}
		}
		if merged {
			for ; eop < int(p.ops); eop++ {
				w.queue(e.ops[eop])
			}
		}
		if p.tail != tailDone {
			w.checkTail(k, vals[i], p.ref, p.tail)
			if !merged && len(w.ops) > 0 {
				// The first ops of a value check: the entry's ops so
				// far go before them.
				w.tailOps = append(w.tailOps[:0], w.ops...)
				w.ops, w.nOps = w.ops[:0], opCounts{}
				for ; eop < int(p.ops); eop++ {
					w.queue(e.ops[eop])
				}
				for _, o := range w.tailOps {
					w.queue(o)
				}
				clear(w.tailOps) // keep no string of the batch
				merged = true
			}
		}
	}
	if merged {
		for ; eop < len(e.ops); eop++ {
			w.queue(e.ops[eop])
		}
	} else {
		w.hitOps = e
	}
	w.memoDet = nil
}

// memoDetail caches, per batch, where the report's detail (Options.Detail)
// filed the events of an entry for a service: indices in Batch.Keys and
// Batch.Findings. The first hit of an entry for a
// service in a batch replays its events through the report and notes the
// indices; later hits count in the slot (pending), added to each count when
// the slot is reused or Walker.Batch is read. A direct-mapped table of
// memoDetailSlots entries over one index arena, emptied at every batch;
// an arena past memoDetailMax stops caching for the rest of the batch.
type memoDetail struct {
	slots [memoDetailSlots]memoDetailSlot
	used  []uint16
	idx   []int32
}

type memoDetailSlot struct {
	e   *memoEntry
	svc int
	lo  int32
	// pending counts the hits not yet added to the report's counts.
	pending int64
}

const (
	memoDetailSlots = 128
	memoDetailMax   = 1 << 16
)

func (d *memoDetail) reset() {
	for _, i := range d.used {
		d.slots[i] = memoDetailSlot{}
	}
	d.used, d.idx = d.used[:0], d.idx[:0]
}

// memoDetailAgain reports whether the events of e were filed earlier in
// this batch for the current service, and then adds them; otherwise it
// prepares the slot that memoWork fills (w.memoDet).
func (w *Walker) memoDetailAgain(e *memoEntry) bool {
	d := &w.memoDetail
	svc := w.report.svcIdx
	h := int(uintptr(unsafe.Pointer(e))>>6) + svc*7 //nolint:gosec // a hash of the pointer, never turned back
	i := uint16(h & (memoDetailSlots - 1))          //nolint:gosec // masked
	s := &d.slots[i]
	if s.e == e && s.svc == svc {
		// The counts are added when the slot is flushed.
		s.pending++
		return true
	}
	if len(d.idx)+len(e.events) > memoDetailMax {
		return false
	}
	if s.e == nil {
		d.used = append(d.used, i)
	} else {
		w.memoDetailFlush(s)
	}
	*s = memoDetailSlot{e: e, svc: svc, lo: int32(len(d.idx))} //nolint:gosec // < memoDetailMax
	w.memoDet = d
	return false
}

// memoDetailFlush adds a slot's pending hits to the report's counts.
func (w *Walker) memoDetailFlush(s *memoDetailSlot) {
	n := s.pending
	if n == 0 {
		return
	}
	s.pending = 0
	keys, findings := w.tally.Keys, w.tally.Findings
	for j, idx := range w.memoDetail.idx[s.lo : int(s.lo)+len(s.e.events)] {
		switch s.e.events[j].kind {
		case memoKey:
			keys[idx].Count += n
		case memoFinding:
			findings[idx].Count += n
		}
	}
}

// flushMemoDetail adds every slot's pending hits to the report's counts
// (Walker.Batch).
func (w *Walker) flushMemoDetail() {
	d := &w.memoDetail
	for _, i := range d.used {
		w.memoDetailFlush(&d.slots[i])
	}
}

// memoReplay replays one recorded event of key k, and returns where the
// report filed it.
func (w *Walker) memoReplay(ev *memoEvent, k string) int {
	switch ev.kind {
	case memoKey:
		return w.report.key(k, ev.kk)
	case memoFinding:
		return w.findingOut(ev.f, ev.lv, ev.subj, k, ev.id)
	}
	return -1
}

// staticTail reports whether the tail of an attribute depends on its
// value's type only (given checkKey's decisions), so that an entry can hold
// its result under a type guard (memoGuard). An array counts by its
// elements' type when they all have one.
func (w *Walker) staticTail(tl tail, r registry.Ref, v pcommon.Value) bool {
	if tl == tailDone {
		return true
	}
	if _, ok := memoGuard(v); !ok {
		return false // an empty or mixed array
	}
	a := w.ix.Attr(r)
	switch tl {
	case tailPlain, tailValue:
		if isEnum(a) || a.DeprecatedMembers != nil {
			return false
		}
		return typeMatches(a.Type, v) || !w.mutate || w.e.opts.TypeMismatch != TypeMismatchCoerce
	case tailTarget:
		t := a.Target(w.ctx)
		return a.Migration == nil && t.DeprecatedMembers == nil && !isEnum(a)
	case tailDeprecated:
		return a.Migration == nil && !isEnum(a)
	case tailDone:
	}
	return false
}

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

// memoSnapshot takes the counts the vector is the difference of.
func (w *Walker) memoSnapshot(s *memoSnap) {
	s.outcomes = w.svc.Outcomes
	s.findings = w.svc.Findings
	s.drops = w.tally.Drops
	s.seen = w.grp.seen
}

// memoDiff adds what the current position counted since the snapshot.
func (w *Walker) memoDiff(r *memoRec) {
	s := &r.s0
	for i := range s.outcomes {
		r.outcomes[i] += w.svc.Outcomes[i] - s.outcomes[i]
	}
	for i := range s.findings {
		r.findings[i] += w.svc.Findings[i] - s.findings[i]
	}
	for i := range s.drops {
		r.drops[i] += w.tally.Drops[i] - s.drops[i]
	}
	r.seen = r.seen.Or(w.grp.seen.AndNot(s.seen))
}

// newMemoEntry builds an entry from a recording, copying every string it
// keeps.
func (w *Walker) newMemoEntry(rec *memoRec, mc memoCtx, keyBytes int) *memoEntry {
	var b strings.Builder
	b.Grow(keyBytes)
	for _, k := range rec.keys {
		b.WriteString(k)
	}
	all := b.String()
	e := &memoEntry{ix: w.ix, mc: mc, keys: make([]string, len(rec.keys)), pos: append([]memoPos(nil), rec.pos...)}
	e.mc.ctx.MetricName = strings.Clone(mc.ctx.MetricName)
	e.mc.ctx.SpanName = strings.Clone(mc.ctx.SpanName)
	for i := range e.mc.sample {
		e.mc.sample[i] = strings.Clone(mc.sample[i])
	}
	if rec.needName {
		e.name, e.needName = strings.Clone(w.grp.sink.signalName), true
	}
	off := 0
	for i, k := range rec.keys {
		e.keys[i] = all[off : off+len(k)]
		off += len(k)
	}
	e.outcomes = sparse(rec.outcomes[:])
	e.findings = sparse(rec.findings[:])
	e.drops = sparse(rec.drops[:])
	if len(rec.relevels) > 0 {
		e.relevels = slices.Clone(rec.relevels)
	}
	for i, c := range rec.outcomes {
		e.rewrites += int(c) * rewriteOutcome[i]
	}
	e.seen, e.hasSeen = rec.seen, !rec.seen.Empty()
	if len(rec.ops) > 0 {
		e.ops = make([]op, len(rec.ops))
		for i, o := range rec.ops {
			at := w.memoKeyIndex(rec, i)
			o.key = e.keys[at]
			e.ops[i] = o
			e.nOps.add(o.kind)
			if o.kind == opRename {
				e.renameAt = append(e.renameAt, uint16(at)) //nolint:gosec // < memoMaxKeys
			}
		}
	}
	if planWorth(e.nOps.rename, len(e.keys)) {
		e.plan = newRenamePlan(e.keys, e.ops, &e.nOps, e.renameAt)
	}
	if w.report.enabled || w.e.opts.Sink != nil {
		e.events = append([]memoEvent(nil), rec.events...)
	}
	if w.report.enabled && len(rec.refs) > 0 {
		e.refs = slices.Clone(rec.refs)
	}
	idBytes := e.copyAdvice(rec)
	if len(e.events) == 0 {
		for i := range e.pos {
			e.pos[i].events = 0
		}
	}
	nop, nev := uint16(0), uint16(0)
	for i := range e.pos {
		p := &e.pos[i]
		if p.tail != tailDone || p.ops > nop || p.events > nev {
			e.work = append(e.work, uint16(i)) //nolint:gosec // < memoMaxKeys
		}
		if p.tail != tailDone {
			e.tails = append(e.tails, uint16(i)) //nolint:gosec // < memoMaxKeys
		}
		nop, nev = p.ops, p.events
	}
	e.bytes = int(unsafe.Sizeof(*e)) + len(all) + len(mc.ctx.MetricName) + len(mc.ctx.SpanName) + len(mc.sample[0]) + len(mc.sample[1]) + len(e.name) +
		len(e.keys)*int(unsafe.Sizeof("")) + len(e.pos)*int(unsafe.Sizeof(memoPos{})) +
		(len(e.outcomes)+len(e.findings)+len(e.drops))*int(unsafe.Sizeof(memoCount{})) + len(e.relevels)*int(unsafe.Sizeof(memoRelevel{})) +
		len(e.ops)*int(unsafe.Sizeof(op{})) + len(e.events)*int(unsafe.Sizeof(memoEvent{})) + len(e.refs)*int(unsafe.Sizeof(registry.Ref(0))) + 2*len(e.work) + 2*len(e.tails) + 2*len(e.renameAt) +
		len(e.advice)*int(unsafe.Sizeof(AdviceTally{})) + idBytes + e.plan.size()
	for i := range e.ops {
		e.bytes += len(e.ops[i].target) + len(e.ops[i].val.s)
	}
	return e
}

// copyAdvice copies the recording's Advisor findings into e, with one copy
// of each ID for them and the events, and returns the bytes of the IDs.
func (e *memoEntry) copyAdvice(rec *memoRec) int {
	if len(rec.advice) == 0 {
		return 0
	}
	e.advice = make([]AdviceTally, len(rec.advice))
	n := 0
	for i, c := range rec.advice {
		c.ID = strings.Clone(c.ID)
		n += len(c.ID)
		e.advice[i] = c
	}
	for i := range e.events {
		ev := &e.events[i]
		if ev.id == "" {
			continue
		}
		for _, c := range e.advice {
			if c.ID == ev.id {
				ev.id = c.ID
				break
			}
		}
	}
	return n
}

// memoKeyIndex is the position whose key queued rec.ops[i].
func (w *Walker) memoKeyIndex(rec *memoRec, i int) int {
	for p := range rec.pos {
		if i < int(rec.pos[p].ops) {
			return p
		}
	}
	return len(rec.pos) - 1
}

func sparse(v []int64) []memoCount {
	var out []memoCount
	for i, n := range v {
		if n != 0 {
			out = append(out, memoCount{i: uint16(i), n: int32(n)}) //nolint:gosec // small indexes and per-map counts
		}
	}
	return out
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
