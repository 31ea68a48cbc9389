package engine

import (
	"sync/atomic"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// This file holds the shape memo's types: the walk pays per shape, not
// per attribute. The memo's operations are in files of their own:
// memo_layout.go (sets, ways, bounds, insertion and eviction),
// memo_admit.go (the doorkeeper, tickets and the bypass), memo_lookup.go
// (the walk of a map through the memo: a hit or a miss), memo_record.go
// (a miss recorded into an entry) and memo_replay.go (a hit's counts,
// events, value checks and ops).
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
// (tail: enums, value migrations, arrays, coercions) with what the check
// decided for the value it was recorded with (memoValueHit: a hit with
// that value counts and queues the same without the check), the ops the key
// queues (renames, drops) and, with Options.Detail or a Sink, the ordered
// events of the report and the sink (deprecated and unknown keys, findings
// by name); with Options.Detail, the registry entries of its keys, which
// the report lists once per engine and Index (notedKeys): the entry
// remembers the set in which they are all noted (memoEntry.noted), and
// hits after that note nothing. For the whole map it stores the outcome, finding
// and drop counts and the group check's seen bits, added as one vector.
//
// Not memoized, and walked in full: the attributes of spans while the
// extended profile matches span definitions (the matcher reads all keys
// first), maps of more than memoMaxKeys attributes or memoMaxKeyBytes of
// key text. Resource entity checks and requirement checks run once per
// item after the attributes, from the seen bits, and are not part of it.
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

// memoWalker is a walker's state of the shape memo. Its own: one
// goroutine walks a batch.
type memoWalker struct {
	// on: this batch's maps go through the memo (Engine.Walker: the memo
	// is on and the Advisor, if any, is shape-free).
	on bool
	// rec is the recording under way (nil otherwise); recording is its
	// reused storage.
	rec       *memoRec
	recording memoRec
	// detail caches the report detail of hits in this batch; det is its
	// slot being filled by the current hit, or nil.
	detail memoDetail
	det    *memoDetail
	// hitOps is the entry whose ops apply to the current map instead of
	// the walker's ops (memoWork), or nil; valued counts the renames of
	// its plan whose values migrated (memoAbsorb). tailAt are the
	// positions of the ops a hit's value checks queued, tailOps
	// memoMerge's scratch.
	hitOps  *memoEntry
	valued  int
	tailAt  []uint16
	tailOps []op
	// recCtx is the context of the map being recorded (memoMiss).
	recCtx memoCtx
	// hits and misses count this batch's maps (added to the engine's at
	// Release).
	hits, misses int64
	// missRun counts the misses since the last hit or second sighting (a
	// doorkeeper match, in memoWalk); skip counts the maps walked past
	// the memo while it is bypassed (memoTry).
	missRun, skip int
	// lifeMisses and records count over the walker's life, for the
	// admission budget.
	lifeMisses, records int64
}

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

// memoFlags are the current map's flags (memoCtx.flags).
func (w *Walker) memoFlags() uint8 {
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
	if w.shape != nil && w.adv.kinds.Has(SampleAttribute) {
		f |= memoAdvised
		if w.adv.typeFree {
			f |= memoTypeFree
		}
	}
	return f
}

// memoContext is the current map's context: what an entry recorded now
// holds for.
func (w *Walker) memoContext() memoCtx {
	mc := memoCtx{ctx: w.ctx, def: w.grp.def, flags: w.memoFlags()}
	if w.e.findingRules.scoped {
		mc.sample = [2]string{w.grp.sink.signalType, w.grp.sink.pointType}
	}
	if w.shape != nil {
		mc.group = w.adv.s.Group
	}
	return mc
}

// holds reports whether o is the current map's context, whose flags are
// f: whether memoContext() == *o, without building it (a hit's lookup
// compares the context of each candidate, and building it cost as much as
// a tenth of a conforming map's hit).
func (o *memoCtx) holds(w *Walker, f uint8) bool {
	if o.flags != f || o.def != w.grp.def || o.ctx.Location != w.ctx.Location || o.ctx.SpanKind != w.ctx.SpanKind ||
		o.ctx.MetricName != w.ctx.MetricName || o.ctx.SpanName != w.ctx.SpanName {
		return false
	}
	// Without scoped finding rules or an Advisor, every entry's sample and
	// group are empty, as the current map's.
	if w.e.findingRules.scoped && (o.sample[0] != w.grp.sink.signalType || o.sample[1] != w.grp.sink.pointType) {
		return false
	}
	return w.shape == nil || o.group == w.adv.s.Group
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
	// renames only, enough of them with those its value checks make at
	// every hit (tailRename) to pay (planWorth), none colliding
	// (renamePlan); nil otherwise. renameTo holds, by position, the
	// target of each rename a value check makes (nil when there is
	// none), and planTails their number: a hit checks its value checks'
	// ops against them (memoAbsorb).
	plan      *renamePlan
	renameTo  []string
	planTails int
	// valueHits are what a hit does, without the value check, at the
	// positions whose value is the one recorded (memoTail,
	// memoPos.valueHit).
	valueHits []memoValueHit
	events    []memoEvent
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
	// valueHit, when not 0, is 1 + the index in memoEntry.valueHits of
	// what the check decided for the value recorded.
	valueHit uint8
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
