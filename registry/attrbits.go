package registry

import "math/bits"

// AttrBits is a set of positions in a Group's Attrs.
type AttrBits [MaxGroupAttributes / 64]uint64

// Set adds position i.
func (b *AttrBits) Set(i int) {
	if i >= 0 && i < MaxGroupAttributes {
		b[i>>6] |= 1 << (uint(i) & 63)
	}
}

// Has reports whether position i is in the set.
func (b *AttrBits) Has(i int) bool {
	return i >= 0 && i < MaxGroupAttributes && b[i>>6]&(1<<(uint(i)&63)) != 0
}

// AndNot returns b without the positions of c.
func (b AttrBits) AndNot(c AttrBits) AttrBits {
	for i := range b {
		b[i] &^= c[i]
	}
	return b
}

// Or returns the union of b and c.
func (b AttrBits) Or(c AttrBits) AttrBits {
	for i := range b {
		b[i] |= c[i]
	}
	return b
}

// Empty reports whether the set is empty.
func (b *AttrBits) Empty() bool {
	for _, w := range b {
		if w != 0 {
			return false
		}
	}
	return true
}

// Count is the number of positions in the set.
func (b *AttrBits) Count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// Next returns the first position at or after i, or -1.
func (b *AttrBits) Next(i int) int {
	for i >= 0 && i < MaxGroupAttributes {
		w := b[i>>6] >> (uint(i) & 63)
		if w != 0 {
			return i + bits.TrailingZeros64(w)
		}
		i = (i | 63) + 1
	}
	return -1
}
