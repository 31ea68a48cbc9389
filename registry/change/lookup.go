package change

import (
	"math/bits"
	"strconv"
)

// KindSet is a set of Kinds, one bit per Kind: a value, compared and
// combined without allocating.
type KindSet uint64

// Every Kind has a bit.
var _ [64 - numKinds]struct{}

// Has reports whether k is in s.
func (s KindSet) Has(k Kind) bool { return s&(1<<k) != 0 }

// With returns s with k added.
func (s KindSet) With(k Kind) KindSet { return s | 1<<k }

// Len is the number of kinds in s.
func (s KindSet) Len() int { return bits.OnesCount64(uint64(s)) }

// Kinds lists the kinds of s, in Kind order.
func (s KindSet) Kinds() []Kind {
	out := make([]Kind, 0, s.Len())
	for k := KindUnknown + 1; k < numKinds; k++ {
		if s.Has(k) {
			out = append(out, k)
		}
	}
	return out
}

// NumKinds is one more than the largest Kind: arrays indexed by Kind have
// NumKinds entries.
const NumKinds = int(numKinds)

// Lookup is a Set indexed by the names data carries, for a read-only walk
// of live telemetry (the collector's shadow registry): per attribute key
// and per metric name, the kinds of the changes on that name, and per enum
// member value the kinds of the changes on that member. It is built once
// per Set and immutable; Attribute and Metric are map lookups that do not
// allocate.
//
// It holds the changes whose Name is what a producer sends: an item's
// lifecycle kinds (an addition's Name is the new side's: data that carries
// it is unknown to the old registry and known to the new), type, unit,
// instrument, stability and deprecation changes, splits, merges and enum
// members. A per-signal change (requirement_level_changed,
// attribute_set_changed) on a metric is indexed under the metric's name
// (its Context): it changes what a producer of that metric must send, not
// the attribute anywhere else. A rename scoped to some contexts
// (Change.Scope) is indexed under its key for every context: the lookup
// answers what may change, an upper bound where scopes apply. Events,
// spans and entities, and per-signal changes on them, are left out: the
// data names none of them by the registry's id.
type Lookup struct {
	attrs   map[string]attrKinds
	metrics map[string]KindSet
}

type attrKinds struct {
	kinds   KindSet            // changes on the key
	members map[string]KindSet // changes on one enum member value
}

// NewLookup indexes set.
func NewLookup(set *Set) *Lookup {
	l := &Lookup{attrs: map[string]attrKinds{}, metrics: map[string]KindSet{}}
	for i := range set.Changes {
		c := &set.Changes[i]
		if c.Kind == RequirementLevelChanged || c.Kind == AttributeSetChanged {
			if c.Item == ItemMetric && c.Context != "" {
				l.metrics[c.Context] = l.metrics[c.Context].With(c.Kind)
			}
			continue
		}
		switch c.Item {
		case ItemAttribute:
			a := l.attrs[c.Name]
			if c.Member != "" {
				if a.members == nil {
					a.members = map[string]KindSet{}
				}
				a.members[c.Member] = a.members[c.Member].With(c.Kind)
			} else {
				a.kinds = a.kinds.With(c.Kind)
			}
			l.attrs[c.Name] = a
		case ItemMetric:
			l.metrics[c.Name] = l.metrics[c.Name].With(c.Kind)
		case ItemEvent, ItemSpan, ItemEntity:
		default:
		}
	}
	return l
}

// Empty reports whether no name the data carries changes.
func (l *Lookup) Empty() bool { return len(l.attrs) == 0 && len(l.metrics) == 0 }

// Attribute returns the kinds of the changes on key, and on the enum member
// str when isStr (a string value) or the member i when isInt (an int
// value).
func (l *Lookup) Attribute(key string, str string, isStr bool, i int64, isInt bool) KindSet {
	a, ok := l.attrs[key]
	if !ok {
		return 0
	}
	s := a.kinds
	if a.members == nil {
		return s
	}
	switch {
	case isStr:
		s |= a.members[str]
	case isInt:
		var buf [20]byte
		s |= a.members[string(strconv.AppendInt(buf[:0], i, 10))]
	}
	return s
}

// Metric returns the kinds of the changes on the metric name.
func (l *Lookup) Metric(name string) KindSet { return l.metrics[name] }
