package change

import "fmt"

// Kind is what kind of change a Change is. Its names are keyed by the
// constant (kindNames), like the registry's enums and vocab's.
type Kind uint8

// Kind values. An item's lifecycle kinds (added, renamed, removed,
// obsoleted, uncategorized) exist for every Item; Lifecycle returns them.
const (
	KindUnknown Kind = iota

	// AttributeAdded: a key the old side does not define. NewValue is its type.
	AttributeAdded
	// AttributeRenamed: the key's current name changes: NewName is the new
	// side's collapsed target, OldValue the old side's ("" when the key was
	// current). Scope limits it when the rename depends on the context.
	AttributeRenamed
	// AttributeRemoved: the new side no longer defines the key.
	AttributeRemoved
	// AttributeObsoleted: newly deprecated as obsoleted, without a
	// replacement the processor applies.
	AttributeObsoleted
	// AttributeUncategorized: newly deprecated as uncategorized (or with
	// no reason), without a replacement the processor applies.
	AttributeUncategorized

	// EnumMemberAdded: Member is a new value of the key's enum.
	EnumMemberAdded
	// EnumMemberRenamed: Member is deprecated in favour of NewValue (or a
	// rules file's value map sends it there).
	EnumMemberRenamed
	// EnumMemberRemoved: Member is no longer a value of the enum (of
	// NewName's, when the key is renamed).
	EnumMemberRemoved
	// EnumMemberObsoleted: Member is newly deprecated without a replacement.
	EnumMemberObsoleted

	// TypeChanged: the key's (or its current name's) type changes from
	// OldValue to NewValue; Values is the value map that follows, if any.
	TypeChanged
	// UnitChanged: a metric's unit changes from OldValue to NewValue;
	// Factor converts old values, 0 when unknown.
	UnitChanged
	// InstrumentChanged: a metric's instrument changes.
	InstrumentChanged

	MetricAdded
	MetricRenamed
	MetricRemoved
	MetricObsoleted
	MetricUncategorized

	EventAdded
	EventRenamed
	EventRemoved
	EventObsoleted
	EventUncategorized

	SpanAdded
	SpanRenamed
	SpanRemoved
	SpanObsoleted
	SpanUncategorized

	EntityAdded
	EntityRenamed
	EntityRemoved
	EntityObsoleted
	EntityUncategorized

	// RequirementLevelChanged: attribute Name's requirement level on the
	// signal Context changes from OldValue to NewValue.
	RequirementLevelChanged
	// AttributeSetChanged: attribute Name joins (OldValue "", NewValue its
	// level) or leaves (NewValue "") the signal Context.
	AttributeSetChanged
	// StabilityChanged: the item's stability changes.
	StabilityChanged
	// DeprecationChanged: the item's declared deprecation changes (its
	// note, its reason or its renamed_to) without changing what the
	// processor does with it: the item was already renamed to the same
	// target, or it is no longer deprecated.
	DeprecationChanged
	// Split: the new side splits the key's value into the keys Into.
	Split
	// Merge: the new side merges the keys Into into NewName.
	Merge

	numKinds
)

var kindNames = [...]string{
	KindUnknown:             "unknown",
	AttributeAdded:          "attribute_added",
	AttributeRenamed:        "attribute_renamed",
	AttributeRemoved:        "attribute_removed",
	AttributeObsoleted:      "attribute_obsoleted",
	AttributeUncategorized:  "attribute_uncategorized",
	EnumMemberAdded:         "enum_member_added",
	EnumMemberRenamed:       "enum_member_renamed",
	EnumMemberRemoved:       "enum_member_removed",
	EnumMemberObsoleted:     "enum_member_obsoleted",
	TypeChanged:             "type_changed",
	UnitChanged:             "unit_changed",
	InstrumentChanged:       "instrument_changed",
	MetricAdded:             "metric_added",
	MetricRenamed:           "metric_renamed",
	MetricRemoved:           "metric_removed",
	MetricObsoleted:         "metric_obsoleted",
	MetricUncategorized:     "metric_uncategorized",
	EventAdded:              "event_added",
	EventRenamed:            "event_renamed",
	EventRemoved:            "event_removed",
	EventObsoleted:          "event_obsoleted",
	EventUncategorized:      "event_uncategorized",
	SpanAdded:               "span_added",
	SpanRenamed:             "span_renamed",
	SpanRemoved:             "span_removed",
	SpanObsoleted:           "span_obsoleted",
	SpanUncategorized:       "span_uncategorized",
	EntityAdded:             "entity_added",
	EntityRenamed:           "entity_renamed",
	EntityRemoved:           "entity_removed",
	EntityObsoleted:         "entity_obsoleted",
	EntityUncategorized:     "entity_uncategorized",
	RequirementLevelChanged: "requirement_level_changed",
	AttributeSetChanged:     "attribute_set_changed",
	StabilityChanged:        "stability_changed",
	DeprecationChanged:      "deprecation_changed",
	Split:                   "split",
	Merge:                   "merge",
}

func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// MarshalText writes the Kind's name.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// ParseKind parses a Kind's name; "unknown" is not a kind one can ask for.
func ParseKind(s string) (Kind, bool) {
	for k := KindUnknown + 1; k < numKinds; k++ {
		if kindNames[k] == s {
			return k, true
		}
	}
	return KindUnknown, false
}

// Kinds lists every kind, in order.
func Kinds() []Kind {
	out := make([]Kind, 0, numKinds-1)
	for k := KindUnknown + 1; k < numKinds; k++ {
		out = append(out, k)
	}
	return out
}

// Op is an item's lifecycle step.
type Op uint8

// Op values, in the order of each item's lifecycle kinds.
const (
	OpAdded Op = iota
	OpRenamed
	OpRemoved
	OpObsoleted
	OpUncategorized
	numOps
)

// firstLifecycle is each item's first lifecycle kind; the others follow in
// Op order.
var firstLifecycle = [numItems]Kind{
	ItemAttribute: AttributeAdded,
	ItemMetric:    MetricAdded,
	ItemEvent:     EventAdded,
	ItemSpan:      SpanAdded,
	ItemEntity:    EntityAdded,
}

// Lifecycle returns item's kind for op (Lifecycle(ItemMetric, OpRenamed)
// is MetricRenamed).
func Lifecycle(item Item, op Op) Kind {
	if item >= numItems || op >= numOps {
		return KindUnknown
	}
	return firstLifecycle[item] + Kind(op)
}

// LifecycleOf returns the Item and Op of a lifecycle kind, and false for
// the other kinds.
func LifecycleOf(k Kind) (Item, Op, bool) {
	for it := range numItems {
		if f := firstLifecycle[it]; k >= f && k < f+Kind(numOps) {
			return it, Op(k - f), true
		}
	}
	return 0, 0, false
}
