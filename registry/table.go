package registry

import (
	"math/bits"
	"strings"
)

// table is an open-addressing hash table from key to *Attribute, built once
// and never modified. The hash reads the length and at most 16 bytes of the
// key (first and last 8), so a lookup costs a few nanoseconds regardless of
// key length; a full string comparison confirms the hit. The seed is chosen
// at build time to minimise the longest probe sequence, which bounds every
// lookup (hit or miss) because the table content is fixed.
type table struct {
	slots    []*Attribute // len is a power of two; nil is empty
	mask     uint64
	seed     uint64
	maxProbe int // longest probe sequence of any stored key
}

// prefixTable holds the template keys. Template matching walks a key's '.'
// positions right to left, so the longest template wins, and probes only
// prefixes whose length some template has (lens), so most prefixes of a key
// outside every template namespace cost no probe at all.
type prefixTable struct {
	slots    []prefixSlot
	mask     uint64
	seed     uint64
	maxProbe int
	lens     uint64 // bit n: a template of length n < 64 exists
	long     bool   // a template of length >= 64 exists
	// ns is a Bloom filter (two bits of 256) of the templates' first
	// segments ("http" for http.request.header): a key whose first segment
	// it rules out cannot match a template and costs no probe.
	ns [4]uint64
}

func nsBits(seg string) (uint64, uint64) {
	h := hashKey(seg, 0x9e3779b97f4a7c15)
	return h & 255, (h >> 8) & 255
}

type prefixSlot struct {
	hash uint64
	tmpl *Attribute // nil: empty slot
}

func newPrefixTable(attrs []*Attribute) prefixTable {
	var tmpls []*Attribute
	t := prefixTable{}
	for _, a := range attrs {
		if !a.Template {
			continue
		}
		tmpls = append(tmpls, a)
		seg := a.Key
		if i := strings.IndexByte(seg, '.'); i > 0 {
			seg = seg[:i]
		}
		b1, b2 := nsBits(seg)
		t.ns[b1>>6] |= 1 << (b1 & 63)
		t.ns[b2>>6] |= 1 << (b2 & 63)
		if n := len(a.Key); n < 64 {
			t.lens |= 1 << uint(n)
		} else {
			t.long = true
		}
	}
	size := 16
	for size < 4*len(tmpls) {
		size <<= 1
	}
	t.mask = uint64(size - 1) //nolint:gosec // size is a positive power of two
	best := -1
	for seed := range uint64(32) {
		slots := make([]prefixSlot, size)
		worst := 0
		for _, a := range tmpls {
			h := hashKey(a.Key, seed)
			i := h & t.mask
			p := 1
			for slots[i].tmpl != nil {
				i = (i + 1) & t.mask
				p++
			}
			slots[i] = prefixSlot{hash: h, tmpl: a}
			worst = max(worst, p)
		}
		if best < 0 || worst < best {
			best, t.slots, t.seed = worst, slots, seed
		}
		if worst <= 1 {
			break
		}
	}
	t.maxProbe = max(best, 0)
	return t
}

// get returns the template whose key is p, or nil.
func (t *prefixTable) get(p string) *Attribute {
	h := hashKey(p, t.seed)
	i := h & t.mask
	for range t.maxProbe {
		s := &t.slots[i]
		if s.tmpl == nil {
			return nil
		}
		if s.hash == h && s.tmpl.Key == p {
			return s.tmpl
		}
		i = (i + 1) & t.mask
	}
	return nil
}

// match returns the longest template that is a '.'-bounded proper prefix of
// key, or nil. It does not allocate.
func (t *prefixTable) match(key string) *Attribute {
	if t.maxProbe == 0 {
		return nil
	}
	first := strings.IndexByte(key, '.')
	if first <= 0 {
		return nil
	}
	b1, b2 := nsBits(key[:first])
	if t.ns[b1>>6]&(1<<(b1&63)) == 0 || t.ns[b2>>6]&(1<<(b2&63)) == 0 {
		return nil
	}
	for i := len(key) - 1; i >= first; i-- {
		if key[i] != '.' {
			continue
		}
		if i < 64 {
			if t.lens&(1<<uint(i)) == 0 {
				continue
			}
		} else if !t.long {
			continue
		}
		if a := t.get(key[:i]); a != nil {
			return a
		}
	}
	return nil
}

// load64 reads 8 bytes of s at off little-endian. The compiler merges the
// byte loads into one.
func load64(s string, off int) uint64 {
	_ = s[off+7]
	return uint64(s[off]) | uint64(s[off+1])<<8 | uint64(s[off+2])<<16 | uint64(s[off+3])<<24 |
		uint64(s[off+4])<<32 | uint64(s[off+5])<<40 | uint64(s[off+6])<<48 | uint64(s[off+7])<<56
}

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

const (
	hashK1 = 0xa0761d6478bd642f
	hashK2 = 0xe7037ed1a0b428db
	hashK3 = 0x8ebc6af09c88c6e3
)

// hashKey is a wyhash-style hash of the key's length, head and tail.
func hashKey(s string, seed uint64) uint64 {
	n := len(s)
	var a, b uint64
	switch {
	case n >= 8:
		a, b = load64(s, 0), load64(s, n-8)
	case n >= 4:
		a = uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
		b = uint64(s[n-4]) | uint64(s[n-3])<<8 | uint64(s[n-2])<<16 | uint64(s[n-1])<<24
	case n > 0:
		a = uint64(s[0])<<16 | uint64(s[n>>1])<<8 | uint64(s[n-1])
	}
	return mix(a^hashK1^seed, b^hashK2^uint64(n)*hashK3)
}

func newTable(attrs []*Attribute) table {
	size := 16
	for size < 4*len(attrs) {
		size <<= 1
	}
	t := table{mask: uint64(size - 1)} //nolint:gosec // size is a positive power of two
	best := -1
	var bestSlots []*Attribute
	var bestSeed uint64
	// A handful of seeds is plenty; keep the build deterministic.
	for seed := range uint64(32) {
		slots := make([]*Attribute, size)
		worst := 0
		for _, a := range attrs {
			i := hashKey(a.Key, seed) & t.mask
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
func (t *table) get(key string) *Attribute {
	if len(t.slots) == 0 {
		return nil
	}
	i := hashKey(key, t.seed) & t.mask
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
