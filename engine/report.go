package engine

import (
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
	// seen deduplicates the registry entries met in the batch by Ref
	// (a direct-mapped cache: a collision only adds a duplicate, which the
	// extension ignores); known lists them until finish adds them to Keys.
	seen  [recentSize]registry.Ref
	known []*registry.Attribute
	// seenEvictions counts the entries of seen replaced by another in the
	// batch: while it stays the same, every entry noted since is still
	// there (the shape memo skips their registryKey calls).
	seenEvictions int
	// findings feeds Batch.Findings and Batch.Signals (report_findings.go).
	findings findingTally
	// rec is the shape memo's recording under way, or nil (memo.go).
	rec *memoRec
	// recentUsed and seenUsed list the slots set since the last reset, so
	// that reset clears only those: clearing both arrays in full cost more
	// than walking a small batch.
	recentUsed, seenUsed []uint16
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

// registryKey notes a registry entry seen in the batch, for the report's
// registry coverage: one comparison when the entry was just seen. The
// *Attribute is read only for an entry not just seen.
func (r *reportTally) registryKey(ref registry.Ref, ix *registry.Index) {
	if !r.enabled {
		return
	}
	if r.rec != nil {
		r.rec.event(memoEvent{kind: memoRegistryKey, ref: ref})
	}
	i := ref.Slot() & (recentSize - 1)
	slot := &r.seen[i]
	if *slot == ref {
		return
	}
	a := ix.Attr(ref)
	if a.Key == "" {
		return
	}
	if *slot == 0 {
		r.seenUsed = append(r.seenUsed, uint16(i)) //nolint:gosec // i < recentSize
	} else {
		r.seenEvictions++
	}
	*slot = ref
	r.known = append(r.known, a)
}

// flush adds the registry entries seen since the last flush to the batch's
// keys.
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
	for _, i := range r.seenUsed {
		r.seen[i] = 0
	}
	r.recentUsed, r.seenUsed = r.recentUsed[:0], r.seenUsed[:0]
	r.seenEvictions = 0
	clear(r.known)
	r.known = r.known[:0]
	r.svcIdx = 0
}
