package engine

import (
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// reportTally fills the per-batch conformance Batch while the walk runs. It
// is used only when Options.Report is set; otherwise enabled is false and
// every method returns at once.
// Its slices and maps are reused from batch to batch, so that after the
// first batches of a given shape feeding the report allocates nothing.
type reportTally struct {
	enabled bool
	batch   Batch
	// svc is the outcome tally of the current resource's service; it points
	// into batch.Services, or at unused outside a governed resource.
	svc    *[vocab.NumOutcomes]int64
	svcIdx int
	unused [vocab.NumOutcomes]int64

	services map[string]int   // service.name -> index in batch.Services
	keys     map[tallyKey]int // (service, key, kind) -> index in batch.Keys
	// recent is a direct-mapped cache in front of keys: a key repeated from
	// item to item costs a string comparison instead of a map lookup.
	recent [recentSize]recentKey
	// seen deduplicates the registry entries met in the batch by Ref
	// (a direct-mapped cache: a collision only adds a duplicate, which the
	// extension ignores); known lists them until finish adds them to Keys.
	seen  [recentSize]registry.Ref
	known []*registry.Attribute
	// findings feeds Batch.Findings and Batch.Signals (report_findings.go).
	findings findingTally
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
		r.services = make(map[string]int, 8)
		r.keys = make(map[tallyKey]int, 64)
		r.findings = newFindingTally()
	}
	r.svc = &r.unused
	return r
}

// resource selects the service tally of a resource's service.name ("" when
// it has none).
func (r *reportTally) resource(name string) {
	if !r.enabled {
		return
	}
	i, ok := r.services[name]
	if !ok {
		i = len(r.batch.Services)
		r.batch.Services = append(r.batch.Services, ServiceTally{Service: name})
		r.services[name] = i
	}
	r.svcIdx = i
	r.svc = &r.batch.Services[i].Outcomes
}

// slotHash is the cheap hash of the direct-mapped caches: length and two
// bytes of the key.
func slotHash(k string) int {
	if k == "" {
		return 0
	}
	return len(k)*31 + int(k[len(k)-1])*13 + int(k[len(k)/2])
}

// key counts one unknown or deprecated key for the current service. Registry
// keys go through registryKey.
func (r *reportTally) key(k string, kind KeyKind) {
	if !r.enabled {
		return
	}
	svc := r.svcIdx
	slot := (slotHash(k) + svc*7 + int(kind)) & (recentSize - 1)
	c := &r.recent[slot]
	if c.idx > 0 && c.tk.key == k && c.tk.service == svc && c.tk.kind == kind {
		r.batch.Keys[c.idx-1].Count++
		return
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
}

// registryKey notes a registry entry seen in the batch, for the report's
// registry coverage: one comparison when the entry was just seen. The
// *Attribute is read only for an entry not just seen.
func (r *reportTally) registryKey(ref registry.Ref, ix *registry.Index) {
	if !r.enabled {
		return
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
	clear(r.batch.Services)
	clear(r.batch.Keys)
	clear(r.batch.Findings)
	clear(r.batch.Signals)
	r.findings.reset()
	r.batch.Reset()
	clear(r.services)
	clear(r.keys)
	for _, i := range r.recentUsed {
		r.recent[i] = recentKey{}
	}
	for _, i := range r.seenUsed {
		r.seen[i] = 0
	}
	r.recentUsed, r.seenUsed = r.recentUsed[:0], r.seenUsed[:0]
	clear(r.known)
	r.known = r.known[:0]
	r.svc = &r.unused
	r.svcIdx = 0
}
