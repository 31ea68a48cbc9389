package registry

import (
	"math/bits"
	"strings"
)

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
	h := HashKey(seg, 0x9e3779b97f4a7c15)
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
			h := HashKey(a.Key, seed)
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
	h := HashKey(p, t.seed)
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

// HashKey is the registry's hash of a key (its table's): a wyhash-style
// mix of the key's length, its first and its last 8 bytes. It reads no
// more of a long key, so keys that differ only in their middle collide.
func HashKey(s string, seed uint64) uint64 {
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

// Ref is what the hot path needs to know about a registry entry, in one
// word: its type, its flag bits and its slot in the table. The zero Ref is
// "not in the registry". Index.Attr turns a Ref into the full *Attribute,
// off the hot path.
type Ref uint32

const (
	refTypeMask    Ref = 0xF
	refFound       Ref = 1 << 4
	refPlaceholder Ref = 1 << 5
	refDeprecated  Ref = 1 << 6
	refEnum        Ref = 1 << 7
	refRenamed     Ref = 1 << 8 // some rule gives a rename target in some context
	refTemplate    Ref = 1 << 9 // a template: its instances (other keys) share this Ref
	// refNotPlain: any of these bits sends the walk past the fast path.
	refNotPlain  = refPlaceholder | refDeprecated | refEnum | refRenamed
	refSlotShift = 12
)

// Found reports whether the key is in the registry (placeholders included).
func (r Ref) Found() bool { return r&refFound != 0 }

// Type is the declared type.
func (r Ref) Type() Type { return Type(r & refTypeMask) }

// Plain reports a current registry key that nothing can rename, with no
// enum: its value only needs its type checked. Placeholders, deprecated
// keys, enums and keys some rule renames are not plain.
func (r Ref) Plain() bool { return r&(refFound|refNotPlain) == refFound }

// Template reports a template entry, whose Ref every instance key shares:
// unlike any other Ref, it does not say which key it was looked up for.
func (r Ref) Template() bool { return r&refTemplate != 0 }

// Slot is a small integer unique to the entry within its Index, for
// direct-mapped caches keyed by entry.
func (r Ref) Slot() int { return int(r >> refSlotShift) }

func refOf(a *Attribute, slot int) Ref {
	r := refFound | Ref(a.Type)&refTypeMask | Ref(slot)<<refSlotShift //nolint:gosec // slot < 1<<20, checked in newTable
	if a.Placeholder {
		r |= refPlaceholder
	}
	if a.Deprecation.Reason != NotDeprecated {
		r |= refDeprecated
	}
	if a.EnumStrings != nil || a.EnumInts != nil {
		r |= refEnum
	}
	if a.Renamed() {
		r |= refRenamed
	}
	if a.Template {
		r |= refTemplate
	}
	return r
}

// bucketSlots is the number of entries of one table bucket.
const bucketSlots = 8

// bucket is one cache line of the table: the fingerprints of eight slots,
// then their Refs, then where their keys are. A lookup reads the
// fingerprints of the key's home bucket as one word; a miss almost always
// ends there, in this one line. A hit compares the key bytes, which sit
// contiguously in table.keys: a second line.
type bucket struct {
	ctrl [bucketSlots]uint8  // 0: empty; else 0x80 | 7 bits of the hash
	refs [bucketSlots]Ref    // the entries' Refs
	keys [bucketSlots]uint32 // offset<<8 | length in table.keys; length 255: see attrs
	_    [8]byte             // pad to 64 bytes
}

// table is the registry's exact-key table: a Swiss-table-like open
// addressing over cache-line buckets, built once and never modified. The
// full *Attribute of a slot lives in attrs, which the hot path never reads.
// The load factor is at most one half, so a key's home bucket nearly always
// has a free slot, which ends a miss.
type table struct {
	buckets []bucket
	mask    uint64 // len(buckets)-1
	seed    uint64
	keys    string       // every key, back to back
	attrs   []*Attribute // by slot: bucket*8 + position
	// maxProbe is the longest probe sequence (in buckets) of any stored key.
	maxProbe int
}

const (
	lo8 = 0x0101010101010101
	hi8 = 0x8080808080808080
)

// ctrlWord reads a bucket's eight control bytes as one word.
func (g *bucket) ctrlWord() uint64 {
	c := &g.ctrl
	return uint64(c[0]) | uint64(c[1])<<8 | uint64(c[2])<<16 | uint64(c[3])<<24 |
		uint64(c[4])<<32 | uint64(c[5])<<40 | uint64(c[6])<<48 | uint64(c[7])<<56
}

func newTable(attrs []*Attribute) table {
	n := 1
	for n*bucketSlots < 2*len(attrs) {
		n <<= 1
	}
	t := table{mask: uint64(n - 1)} //nolint:gosec // n is a positive power of two
	var keys []byte
	offs := make([]uint32, len(attrs))
	for i, a := range attrs {
		l := len(a.Key)
		if l > 254 {
			l = 255
		}
		offs[i] = uint32(len(keys))<<8 | uint32(l) //nolint:gosec // keys stay far below 1<<24 bytes
		keys = append(keys, a.Key...)
	}
	t.keys = string(keys)
	best := -1
	for seed := range uint64(32) {
		buckets := make([]bucket, n)
		slots := make([]*Attribute, n*bucketSlots)
		worst := 0
		for i, a := range attrs {
			h := HashKey(a.Key, seed)
			g := h & t.mask
			p := 1
			for buckets[g].ctrl[bucketSlots-1] != 0 {
				g = (g + 1) & t.mask
				p++
			}
			gr := &buckets[g]
			j := 0
			for gr.ctrl[j] != 0 {
				j++
			}
			slot := int(g)*bucketSlots + j //nolint:gosec // g < n
			gr.ctrl[j] = 0x80 | uint8(h>>57)
			gr.refs[j] = refOf(a, slot)
			gr.keys[j] = offs[i]
			slots[slot] = a
			worst = max(worst, p)
		}
		if best < 0 || worst < best {
			best, t.buckets, t.attrs, t.seed = worst, buckets, slots, seed
		}
		if worst <= 1 {
			break
		}
	}
	t.maxProbe = max(best, 1)
	// Each entry knows its Ref, for template matches. The resolver builds
	// the attributes of every Index afresh, so no Attribute is shared.
	for i, a := range t.attrs {
		if a != nil {
			a.ref = refOf(a, i)
		}
	}
	return t
}

// get returns the Ref of key, or 0. It reads no *Attribute and does not
// allocate.
func (t *table) get(key string) Ref {
	if len(t.buckets) == 0 {
		return 0
	}
	h := HashKey(key, t.seed)
	fp := uint64(0x80|uint8(h>>57)) * lo8
	g := h & t.mask
	for range t.maxProbe {
		gr := &t.buckets[g]
		w := gr.ctrlWord()
		x := w ^ fp
		for m := (x - lo8) &^ x & hi8; m != 0; m &= m - 1 {
			j := bits.TrailingZeros64(m) >> 3
			k := gr.keys[j&(bucketSlots-1)]
			off, l := int(k>>8), int(k&0xFF)
			if l == len(key) && t.keys[off:off+l] == key {
				return gr.refs[j&(bucketSlots-1)]
			}
			if l == 255 && t.attrs[int(g)*bucketSlots+j].Key == key { //nolint:gosec // g < len(buckets)
				return gr.refs[j&(bucketSlots-1)]
			}
		}
		if (w-lo8)&^w&hi8 != 0 {
			return 0 // a free slot: the key would be here
		}
		g = (g + 1) & t.mask
	}
	return 0
}
