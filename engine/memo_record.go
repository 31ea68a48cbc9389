package engine

import (
	"math"
	"slices"
	"strings"
	"unsafe"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// This file records a missed map's walk and builds the entry a hit
// replays (memoStep, newMemoEntry).
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

// memoRec records one map's walk: the walker's hooks (finding, the
// report's key tallies) append events to it while w.memo.rec points at it.
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
	// valueHits are, by position, what memoTail recorded (typ
	// ValueTypeEmpty: nothing).
	valueHits []memoValueHit
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
	clear(r.valueHits)
	r.valueHits = r.valueHits[:0]
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
func (w *Walker) setRec(rec *memoRec) { w.memo.rec, w.report.rec = rec, rec }

// memoStep checks one attribute of a missed map in full, recording it when
// rec is set, and returns the fingerprint with it.
func (w *Walker) memoStep(fp uint64, k string, v pcommon.Value, pos int, rec bool) uint64 {
	r := w.lookup(k, pos)
	if !rec {
		w.adviseAttr(k, v, r)
		w.checkKey(k, r, v, true)
		return w.memoMix(fp, k, r)
	}
	mr := &w.memo.recording
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
	var vh memoValueHit
	if !static {
		p.tail = tl
		vh = w.memoTail(k, v, r, tl)
	}
	mr.valueHits = append(mr.valueHits, vh)
	p.ops, p.events = uint16(len(mr.ops)), uint16(len(mr.events)) //nolint:gosec // bounded by memoMaxKeys
	mr.keys = append(mr.keys, k)
	mr.pos = append(mr.pos, p)
	mr.keyBytes += len(k)
	return w.memoMix(fp, k, r)
}

// memoTail runs the value check tl of an attribute being recorded (key
// k, value v) and returns what a hit with the same string or int value
// at that position can do instead of the check (memoValueHit), when the
// check did one of three things, each of which counts and queues only:
//
//   - counted the value conformant (an enum's member: enumValue);
//   - queued the key's rename or copy, with its value migrated (a
//     deprecated key's old member or code: renameValue, or a conversion:
//     migrate) or as it is (deprecated);
//   - queued one same-key value change and counted it value_renamed (a
//     deprecated member of a current key's enum: setValue).
//
// Anything else (a finding, another outcome or op, which may record
// detail for the report) returns the zero memoValueHit, and hits run the
// check. The check depends on nothing else the shape does not fix: the
// key, its registry entry and the context.
func (w *Walker) memoTail(k string, v pcommon.Value, r registry.Ref, tl tail) memoValueHit {
	vh, ok := memoValueOf(v)
	if !ok {
		w.checkTail(k, v, r, tl)
		return memoValueHit{}
	}
	o0, f0, ops0 := w.svc.Outcomes, w.svc.Findings, len(w.ops)
	w.checkTail(k, v, r, tl)
	if f0 != w.svc.Findings || len(w.ops) > ops0+1 {
		return memoValueHit{}
	}
	if len(w.ops) > ops0 {
		vh.queues, vh.op = true, w.ops[ops0]
	}
	switch {
	case !vh.queues:
		vh.counts, vh.out = true, vocab.OutcomeConformant
	case vh.op.kind == opRename || vh.op.kind == opCopy || vh.op.kind == opRenameValue || vh.op.kind == opCopyValue:
	case vh.op.kind == opCoerce:
		vh.counts, vh.out = true, vocab.OutcomeValueRenamed
	default:
		return memoValueHit{}
	}
	if vh.counts {
		o0[vh.out]++
	}
	if o0 != w.svc.Outcomes {
		return memoValueHit{}
	}
	return vh
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
	for i, vh := range rec.valueHits {
		if vh.typ == pcommon.ValueTypeEmpty || len(e.valueHits) == math.MaxUint8 {
			continue
		}
		// Keep no string of the batch: the value's, and the op's key
		// (the entry's copy; the target and the migrated value are
		// the registry's).
		vh.s, vh.op.key = strings.Clone(vh.s), e.keys[i]
		e.valueHits = append(e.valueHits, vh)
		e.pos[i].valueHit = uint8(len(e.valueHits)) //nolint:gosec // <= math.MaxUint8
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
	w.memoPlan(e)
	e.bytes = int(unsafe.Sizeof(*e)) + len(all) + len(mc.ctx.MetricName) + len(mc.ctx.SpanName) + len(mc.sample[0]) + len(mc.sample[1]) + len(e.name) +
		len(e.keys)*int(unsafe.Sizeof("")) + len(e.pos)*int(unsafe.Sizeof(memoPos{})) +
		(len(e.outcomes)+len(e.findings)+len(e.drops))*int(unsafe.Sizeof(memoCount{})) + len(e.relevels)*int(unsafe.Sizeof(memoRelevel{})) +
		len(e.ops)*int(unsafe.Sizeof(op{})) + len(e.events)*int(unsafe.Sizeof(memoEvent{})) + len(e.refs)*int(unsafe.Sizeof(registry.Ref(0))) + 2*len(e.work) + 2*len(e.tails) + 2*len(e.renameAt) +
		len(e.advice)*int(unsafe.Sizeof(AdviceTally{})) + idBytes + e.plan.size()
	for i := range e.ops {
		e.bytes += len(e.ops[i].target) + len(e.ops[i].val.s)
	}
	for _, t := range e.renameTo {
		e.bytes += int(unsafe.Sizeof(t)) + len(t)
	}
	for _, vh := range e.valueHits {
		e.bytes += int(unsafe.Sizeof(vh)) + len(vh.s)
	}
	return e
}

// memoPlan makes the entry's renamePlan when its renames pay for one
// (planWorth) and none collides: its own ops, when they are all renames,
// and the renames its value checks make at every hit (tailRename), in map
// order, as renameAll applies them.
func (w *Walker) memoPlan(e *memoEntry) {
	c := &e.nOps
	if c.move != c.rename || c.drop > 0 || c.coerce > 0 || len(e.renameAt) != c.rename || len(e.keys) > memoMaxKeys {
		return
	}
	var to [memoMaxKeys]string
	tails := 0
	for _, i := range e.tails {
		if t, ok := w.tailRename(e.keys[i], e.pos[i].ref, e.pos[i].tail); ok {
			to[i], tails = t, tails+1
		}
	}
	if !planWorth(c.rename+tails, len(e.keys)) {
		return
	}
	renames := make([]planRename, 0, c.rename+tails)
	r := 0
	for i := range e.keys {
		own := r < len(e.renameAt) && int(e.renameAt[r]) == i
		switch {
		case own && to[i] != "":
			return // both: cannot happen (a tail queues the rename of its key)
		case own:
			renames = append(renames, planRename{at: uint16(i), to: e.ops[r].target}) //nolint:gosec // < memoMaxKeys
			r++
		case to[i] != "":
			renames = append(renames, planRename{at: uint16(i), to: to[i]}) //nolint:gosec // < memoMaxKeys
		}
	}
	if e.plan = newRenamePlan(e.keys, renames); e.plan != nil && tails > 0 {
		e.renameTo, e.planTails = slices.Clone(to[:len(e.keys)]), tails
	}
}

// tailRename reports whether the value check of a position (tl, of key k
// with registry entry r) renames the key at every hit, whatever the
// value, and to what: a deprecated key with a rename target in this
// context (tailTarget) while value migrations apply (migrates) is renamed
// to its target, with its value migrated (renameValue) or not
// (deprecated).
func (w *Walker) tailRename(k string, r registry.Ref, tl tail) (string, bool) {
	if tl != tailTarget || !w.migrates(k) {
		return "", false
	}
	// RenamedKey is the target's key but for a template's instance, which
	// renameValue leaves to deprecated.
	a := w.ix.Attr(r)
	return a.RenamedKey(k, a.Target(w.ctx)), true
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
