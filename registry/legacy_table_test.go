package registry

// legacyTable is the attribute table as it was before the grouped table of
// table.go: open addressing over []*Attribute, so every probe dereferences
// an *Attribute for its key. It is kept, in a test file, only so that
// BenchmarkTable can measure the grouped table against it.

// legacyTable is an open-addressing hash table from key to *Attribute, built once
// and never modified. The hash reads the length and at most 16 bytes of the
// key (first and last 8), so a lookup costs a few nanoseconds regardless of
// key length; a full string comparison confirms the hit. The seed is chosen
// at build time to minimise the longest probe sequence, which bounds every
// lookup (hit or miss) because the table content is fixed.
type legacyTable struct {
	slots    []*Attribute // len is a power of two; nil is empty
	mask     uint64
	seed     uint64
	maxProbe int // longest probe sequence of any stored key
}

func newLegacyTable(attrs []*Attribute) legacyTable {
	size := 16
	for size < 4*len(attrs) {
		size <<= 1
	}
	t := legacyTable{mask: uint64(size - 1)} //nolint:gosec // size is a positive power of two
	best := -1
	var bestSlots []*Attribute
	var bestSeed uint64
	// A handful of seeds is plenty; keep the build deterministic.
	for seed := range uint64(32) {
		slots := make([]*Attribute, size)
		worst := 0
		for _, a := range attrs {
			i := HashKey(a.Key, seed) & t.mask
			p := 1
			for slots[i] != nil {
				i = (i + 1) & t.mask
				p++
			}
			slots[i] = a
			worst = max(worst, p)
		}
		if best < 0 || worst < best {
			best, bestSlots, bestSeed = worst, slots, seed
		}
		if worst <= 2 {
			break
		}
	}
	t.slots, t.seed, t.maxProbe = bestSlots, bestSeed, best
	return t
}

// get returns the exact entry for key or nil. It does not allocate.
func (t *legacyTable) get(key string) *Attribute {
	if len(t.slots) == 0 {
		return nil
	}
	i := HashKey(key, t.seed) & t.mask
	for range t.maxProbe {
		a := t.slots[i]
		if a == nil {
			return nil
		}
		if len(a.Key) == len(key) && a.Key == key {
			return a
		}
		i = (i + 1) & t.mask
	}
	return nil
}
