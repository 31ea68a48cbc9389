package engine

import (
	"sync/atomic"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelgov/otelcol-governance/registry"
)

// reportTally fills the Batch's detail (keys, finding names, definitions)
// while the walk runs. It is used only when Options.Detail is set;
// otherwise enabled is false and every method returns at once.
// Its slices and maps are reused from batch to batch, so that after the
// first batches of a given shape feeding the report allocates nothing.
type reportTally struct {
	enabled bool
	batch   *Batch // the walker's tally
	// svcIdx indexes the current resource's service in batch.Services.
	svcIdx int

	keys map[tallyKey]int // (service, key, kind) -> index in batch.Keys
	// recent is a direct-mapped cache in front of keys: a key repeated from
	// item to item costs a string comparison instead of a map lookup.
	recent [recentSize]recentKey
	// noted is the set of registry entries the engine has handed to the
	// report for the walker's Index (notedKeys); known lists those this
	// batch noted first, until flush adds them to Keys.
	noted *notedKeys
	known []*registry.Attribute
	// findings feeds Batch.Findings and Batch.Signals (report_findings.go).
	findings findingTally
	// rec is the shape memo's recording under way, or nil (memo.go).
	rec *memoRec
	// recentUsed lists the slots of recent set since the last reset, so
	// that reset clears only those: clearing the array in full cost more
	// than walking a small batch.
	recentUsed []uint16

	// The unknown-key context (unknowns.go), on while unknowns is set:
	// ctx is the walker's context, unk indexes Batch.Unknowns, val is the
	// value of the unknown key being filed when hasVal.
	unknowns, values bool
	hasVal, filed    bool
	val              pcommon.Value
	ctx              *registry.Context
	unk              map[unknownKey]int
}

// notedKeys is the set of registry entries an Engine has listed in its
// Batches' Keys (KeyRegistry) for one Index, by Ref.Slot. Registry
// coverage is a set: an entry is listed in the first batch that meets it,
// not in every batch, which spared a string hash per registry key and
// batch in the walk and in the report. The walkers of one Index share it
// (atomic words); a walker keeps the set it started with, so that a walk
// on an older Index during a reload never marks the newer one's entries.
type notedKeys struct {
	ix   *registry.Index
	bits []atomic.Uint64
}

func newNotedKeys(ix *registry.Index) *notedKeys {
	return &notedKeys{ix: ix, bits: make([]atomic.Uint64, (ix.Slots()+63)/64)}
}

// first marks the entry of slot s and reports whether it was not marked
// before.
func (n *notedKeys) first(s int) bool {
	w, bit := &n.bits[s>>6], uint64(1)<<(s&63)
	return w.Load()&bit == 0 && w.Or(bit)&bit == 0
}

const recentSize = 256

type recentKey struct {
	tk  tallyKey
	idx int // index in batch.Keys + 1; 0 for an empty slot
}

type tallyKey struct {
	service int
	key     string
	kind    KeyKind
}

func newReportTally(enabled bool) reportTally {
	r := reportTally{enabled: enabled}
	if enabled {
		r.keys = make(map[tallyKey]int, 64)
		r.findings = newFindingTally()
	}
	return r
}

// slotHash is the cheap hash of the direct-mapped caches: length and two
// bytes of the key.
func slotHash(k string) int {
	if k == "" {
		return 0
	}
	return len(k)*31 + int(k[len(k)-1])*13 + int(k[len(k)/2])
}

// key counts one unknown or deprecated key for the current service, and
// returns its index in Batch.Keys (-1 without Options.Detail). Registry
// keys go through registryKey.
func (r *reportTally) key(k string, kind KeyKind) int {
	if !r.enabled {
		return -1
	}
	if r.rec != nil {
		r.rec.event(memoEvent{kind: memoKey, kk: kind})
	}
	i := r.keyIndex(k, kind)
	if r.unknowns && kind == KeyUnknown {
		r.unknown(i)
	}
	return i
}

// keyIndex counts k for the current service and returns its index in
// Batch.Keys.
func (r *reportTally) keyIndex(k string, kind KeyKind) int {
	svc := r.svcIdx
	slot := (slotHash(k) + svc*7 + int(kind)) & (recentSize - 1)
	c := &r.recent[slot]
	if c.idx > 0 && c.tk.key == k && c.tk.service == svc && c.tk.kind == kind {
		r.batch.Keys[c.idx-1].Count++
		return c.idx - 1
	}
	tk := tallyKey{service: svc, key: k, kind: kind}
	i, ok := r.keys[tk]
	if ok {
		r.batch.Keys[i].Count++
	} else {
		i = len(r.batch.Keys)
		r.keys[tk] = i
		r.batch.Keys = append(r.batch.Keys, KeyTally{Service: svc, Key: k, Kind: kind, Count: 1})
	}
	if c.idx == 0 {
		r.recentUsed = append(r.recentUsed, uint16(slot))
	}
	*c = recentKey{tk: tk, idx: i + 1}
	return i
}

// registryKey notes a registry entry met in the batch, for the report's
// registry coverage: listed in Keys if the engine has not listed it
// before for this Index (notedKeys), one bit test otherwise.
func (r *reportTally) registryKey(ref registry.Ref, ix *registry.Index) {
	if !r.enabled {
		return
	}
	if r.rec != nil {
		r.rec.refs = append(r.rec.refs, ref)
	}
	if r.noted.first(ref.Slot()) {
		if a := ix.Attr(ref); a.Key != "" {
			r.known = append(r.known, a)
		}
	}
}

// flush adds the registry entries noted first since the last flush to the
// batch's keys.
func (r *reportTally) flush() {
	for _, a := range r.known {
		r.batch.Keys = append(r.batch.Keys, KeyTally{Key: a.Key, Kind: KeyRegistry, Count: 1})
	}
	clear(r.known)
	r.known = r.known[:0]
}

// reset empties the tally, keeping capacity, and drops every reference to the
// batch's strings.
func (r *reportTally) reset() {
	r.findings.reset()
	clear(r.keys)
	for _, i := range r.recentUsed {
		r.recent[i] = recentKey{}
	}
	r.recentUsed = r.recentUsed[:0]
	r.noted = nil
	clear(r.known)
	r.known = r.known[:0]
	r.svcIdx = 0
	if r.unknowns {
		clear(r.unk)
		r.unknowns, r.values, r.hasVal, r.filed, r.ctx = false, false, false, false, nil
		r.val = pcommon.Value{}
	}
}
