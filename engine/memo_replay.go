package engine

import (
	"unsafe"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelgov/otelcol-governance/engine/internal/keyeq"
	"github.com/otelgov/otelcol-governance/vocab"
)

// This file replays a hit: its counts, its events, the value checks of
// its positions and its ops.
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
	if len(e.advice) > 0 {
		w.memoHitAdvice(e)
	}
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
// checks and hands the entry's ops to apply. The entry's ops are applied
// from the entry itself (w.memo.hitOps), not copied into w.ops; so are
// those the value checks queue when memoAbsorb takes them. Otherwise
// memoMerge puts both into w.ops.
func (w *Walker) memoWork(e *memoEntry, replay bool, vals []pcommon.Value) {
	work := e.tails
	if replay {
		work = e.work
	}
	at := w.memo.tailAt[:0]
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
				if w.memo.det != nil {
					w.memo.det.idx = append(w.memo.det.idx, int32(idx)) //nolint:gosec // an index of the batch's detail
				}
			}
		}
		switch {
		case p.tail == tailDone:
		case p.valueHit != 0 && e.valueHits[p.valueHit-1].holds(vals[i]):
			// The value check of the same value (memoTail).
			vh := &e.valueHits[p.valueHit-1]
			if vh.queues {
				w.queue(vh.op)
				at = append(at, i)
			}
			if vh.counts {
				w.count(vh.out)
			}
		default:
			n := len(w.ops)
			w.checkTail(k, vals[i], p.ref, p.tail)
			for range len(w.ops) - n {
				at = append(at, i)
			}
		}
	}
	if len(at) > 0 {
		w.memo.tailAt = at // a store into the heap costs a write barrier while the GC marks
	}
	if w.memo.det != nil {
		w.memo.det = nil
	}
	switch {
	case len(w.ops) > 0 && !w.memoAbsorb(e, vals):
		if len(e.ops) > 0 {
			w.memoMerge(e)
		}
	case len(e.ops) > 0 || e.plan != nil:
		w.memo.hitOps = e
	}
}

// memoAbsorb applies the ops a hit's value checks queued (w.ops, at the
// positions w.memo.tailAt) to the values memoWalk kept, so that the
// entry's ops and plan do the rest as they do for a hit without them: a
// rename at a position the plan renames (renameTo) costs nothing more,
// with its value migrated (opRenameValue) in place or not; a value
// changed under its key (opCoerce: an enum member renamed, a value map)
// is set in place. It reports false, and changes nothing, when an op is
// another (a drop, a copy, a split...), a rename the plan does not make,
// or the plan's renames by value checks are not all there.
func (w *Walker) memoAbsorb(e *memoEntry, vals []pcommon.Value) bool {
	renames := 0
	for j := range w.ops {
		o := &w.ops[j]
		switch o.kind {
		case opCoerce:
		case opRename, opRenameValue:
			if e.renameTo == nil || !keyeq.Equal(e.renameTo[w.memo.tailAt[j]], o.target) {
				return false
			}
			renames++
		default:
			return false
		}
	}
	if renames != e.planTails {
		return false
	}
	for j := range w.ops {
		o := &w.ops[j]
		v := vals[w.memo.tailAt[j]]
		switch o.kind {
		case opCoerce:
			o.val.set(v)
		case opRenameValue:
			o.migrate(v)
			w.count(o.out)
			w.memo.valued++
		default:
		}
	}
	w.ops, w.nOps = w.ops[:0], opCounts{}
	return true
}

// memoMerge puts the entry's ops and those the hit's value checks queued
// (w.ops, at the positions w.memo.tailAt) into w.ops in the walk's order:
// the entry's ops of each position before its value check's.
func (w *Walker) memoMerge(e *memoEntry) {
	w.memo.tailOps = append(w.memo.tailOps[:0], w.ops...)
	w.ops, w.nOps = w.ops[:0], opCounts{}
	eop := 0
	for j, o := range w.memo.tailOps {
		for ; eop < int(e.pos[w.memo.tailAt[j]].ops); eop++ {
			w.queue(e.ops[eop])
		}
		w.queue(o)
	}
	for ; eop < len(e.ops); eop++ {
		w.queue(e.ops[eop])
	}
	clear(w.memo.tailOps) // keep no string of the batch
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
// prepares the slot that memoWork fills (w.memo.det).
func (w *Walker) memoDetailAgain(e *memoEntry) bool {
	d := &w.memo.detail
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
	w.memo.det = d
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
	for j, idx := range w.memo.detail.idx[s.lo : int(s.lo)+len(s.e.events)] {
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
	d := &w.memo.detail
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

// memoValueHit is what the value check at one position of a shape decided
// for the value it was recorded with (memoTail): queue op, count out, or
// both. The check decides the same for the same key, context and value,
// so a hit whose value is that one does this instead of the check
// (memoWork).
type memoValueHit struct {
	typ pcommon.ValueType // ValueTypeStr or ValueTypeInt
	s   string
	n   int64
	// queues: queue op; counts: count out.
	queues, counts bool
	out            vocab.Outcome
	op             op
}

// memoValueOf is a value check's recordable value: a string or an int.
func memoValueOf(v pcommon.Value) (memoValueHit, bool) {
	switch t := v.Type(); t {
	case pcommon.ValueTypeStr:
		return memoValueHit{typ: t, s: v.Str()}, true
	case pcommon.ValueTypeInt:
		return memoValueHit{typ: t, n: v.Int()}, true
	default:
		return memoValueHit{}, false
	}
}

// holds reports whether v is the value h was recorded with.
func (h *memoValueHit) holds(v pcommon.Value) bool {
	switch h.typ {
	case pcommon.ValueTypeStr:
		return v.Type() == pcommon.ValueTypeStr && keyeq.Equal(v.Str(), h.s)
	case pcommon.ValueTypeInt:
		return v.Type() == pcommon.ValueTypeInt && v.Int() == h.n
	default:
		return false
	}
}
