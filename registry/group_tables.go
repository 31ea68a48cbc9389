package registry

import (
	"math"
	"math/bits"
)

// The tables behind the Index's group lookups; built once, read without
// allocating.

type groupIndex struct {
	metrics  groupTable // by metric name, placeholders included
	events   groupTable // by event name
	spans    map[string]*Group
	entities map[string]*Group
	// service is entities["service"], which every resource is checked
	// against (ServiceEntity): read once per batch, not looked up.
	service  *Group
	list     []*Group // every definition, sorted by kind then ID
	matchers []SpanMatcher
	// namespaces holds every '.'-bounded proper prefix of a registry key
	// that is not a template (Weaver's namespaces_to_check_set).
	namespaces nameSet
}

// posTable maps an attribute's ordinal to its position in one definition:
// open addressing with a multiplicative hash; definitions are small.
type posTable struct {
	ids   []int32 // sigID+1; 0 is empty
	pos   []uint16
	shift uint
}

func newPosTable(attrs []GroupAttr) posTable {
	size := 8
	for size < 2*len(attrs) {
		size <<= 1
	}
	t := posTable{ids: make([]int32, size), pos: make([]uint16, size), shift: uint(64 - bits.TrailingZeros(uint(size)))}
	for i, sa := range attrs {
		if i > math.MaxUint16 {
			break
		}
		j := t.slot(sa.attr.ordinal)
		for t.ids[j] != 0 {
			j = (j + 1) & (len(t.ids) - 1)
		}
		t.ids[j], t.pos[j] = sa.attr.ordinal+1, uint16(i) //nolint:gosec // bounded above
	}
	return t
}

func (t *posTable) slot(id int32) int {
	return int((uint64(uint32(id)) * 0x9e3779b97f4a7c15) >> t.shift) //nolint:gosec // shift keeps it below len
}

func (t *posTable) get(id int32) int {
	if len(t.ids) == 0 {
		return -1
	}
	mask := len(t.ids) - 1
	for j := t.slot(id); ; j = (j + 1) & mask {
		switch t.ids[j] {
		case 0:
			return -1
		case id + 1:
			return int(t.pos[j])
		}
	}
}

// groupTable maps names to groups (metrics, events): open addressing on
// the registry's key hash, built once.
type groupTable struct {
	slots    []*Group
	mask     uint64
	maxProbe int
}

func newGroupTable(sigs []*Group) groupTable {
	size := 16
	for size < 4*len(sigs) {
		size <<= 1
	}
	t := groupTable{slots: make([]*Group, size), mask: uint64(size - 1)} //nolint:gosec // positive power of two
	for _, s := range sigs {
		i := HashKey(s.Name, 0) & t.mask
		p := 1
		for t.slots[i] != nil {
			i = (i + 1) & t.mask
			p++
		}
		t.slots[i] = s
		t.maxProbe = max(t.maxProbe, p)
	}
	return t
}

func (t *groupTable) get(name string) *Group {
	if len(t.slots) == 0 {
		return nil
	}
	i := HashKey(name, 0) & t.mask
	for range t.maxProbe {
		s := t.slots[i]
		if s == nil {
			return nil
		}
		if s.Name == name {
			return s
		}
		i = (i + 1) & t.mask
	}
	return nil
}

// nameSet is an immutable set of non-empty strings: open addressing on the
// registry's key hash, so that a membership test allocates nothing and
// costs one hash of at most 16 bytes.
type nameSet struct {
	slots    []string // "" is empty
	mask     uint64
	maxProbe int
}

func newNameSet(names map[string]struct{}) nameSet {
	size := 16
	for size < 4*len(names) {
		size <<= 1
	}
	t := nameSet{slots: make([]string, size), mask: uint64(size - 1)} //nolint:gosec // positive power of two
	for n := range names {
		i := HashKey(n, 0) & t.mask
		p := 1
		for t.slots[i] != "" {
			i = (i + 1) & t.mask
			p++
		}
		t.slots[i] = n
		t.maxProbe = max(t.maxProbe, p)
	}
	return t
}

func (t *nameSet) has(name string) bool {
	if len(t.slots) == 0 || name == "" {
		return false
	}
	i := HashKey(name, 0) & t.mask
	for range t.maxProbe {
		switch t.slots[i] {
		case "":
			return false
		case name:
			return true
		}
		i = (i + 1) & t.mask
	}
	return false
}
