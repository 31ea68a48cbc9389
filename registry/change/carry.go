package change

// Carrier is who carries a change from the old registry's form into the
// new one's. It is the one place that decides who carries a change over:
// otelgov upgrade lists every change a person must carry under the plan's
// manual, and status checks the collector's. It is built on the diff's
// Migratable and Why, which otelgov registry diff shows as they are (a
// removal is "not migratable" there: there is no new form; it is
// CarrierKept here: nothing must be done for the upgrade).
type Carrier uint8

// Carrier values.
const (
	// CarrierNone: nothing to carry. Old data means what it meant: an
	// addition, a stability or deprecation note, a requirement level
	// relaxed.
	CarrierNone Carrier = iota
	// CarrierCollector: the governance processor rewrites old data into
	// the new form (a rename, an enum member renamed, a value map, a unit
	// with its factor, a type with its conversion, a split). Consumers that
	// read a renamed name are rewritten by otelgov queries --write.
	CarrierCollector
	// CarrierKept: the processor keeps old data as sent (a removal, an
	// obsoletion, a deprecation without a replacement, an enum member
	// removed): reads keep working while producers send it, and nothing
	// must be done for the upgrade.
	CarrierKept
	// CarrierPerson: a person must act; Carry's why says what (producers
	// add an attribute, a unit without a factor, an instrument change, a
	// merge, a span or event renamed).
	CarrierPerson
)

var carrierNames = [...]string{
	CarrierNone:      "none",
	CarrierCollector: "collector",
	CarrierKept:      "kept",
	CarrierPerson:    "person",
}

func (c Carrier) String() string {
	if int(c) < len(carrierNames) {
		return carrierNames[c]
	}
	return "unknown"
}

// MarshalText writes the Carrier's name.
func (c Carrier) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// Why a split does not carry during a transition window.
const whySplitInWindow = "a split applies in rename mode only: during the window (deprecated_names: copy) the old key arrives as sent and the new keys are absent"

// Carry says who carries c over, and why when a person must. window is
// the transition window, where the processor copies the names the plan
// lists (deprecated_names: copy) instead of renaming them: a split, which
// applies in rename mode only, needs a person there.
func (c *Change) Carry(window bool) (Carrier, string) {
	switch c.Kind {
	case AttributeAdded, EnumMemberAdded, MetricAdded, EventAdded, SpanAdded, EntityAdded,
		StabilityChanged, DeprecationChanged:
		return CarrierNone, ""
	case AttributeRemoved, AttributeObsoleted, AttributeUncategorized,
		EnumMemberRemoved, EnumMemberObsoleted,
		MetricRemoved, MetricObsoleted, MetricUncategorized,
		EventRemoved, EventObsoleted, EventUncategorized,
		SpanRemoved, SpanObsoleted, SpanUncategorized,
		EntityRemoved, EntityObsoleted, EntityUncategorized:
		return CarrierKept, ""
	case RequirementLevelChanged, AttributeSetChanged:
		// Migratable: the level relaxes, or the attribute leaves the
		// signal; not: producers must now send it.
		if c.Migratable {
			return CarrierNone, ""
		}
		return CarrierPerson, c.Why
	case Split:
		if window {
			return CarrierPerson, whySplitInWindow
		}
		return c.migratable()
	case AttributeRenamed, MetricRenamed, EnumMemberRenamed, TypeChanged, UnitChanged,
		InstrumentChanged, Merge, EventRenamed, SpanRenamed, EntityRenamed:
		return c.migratable()
	case KindUnknown, numKinds:
	}
	return CarrierPerson, "unknown change kind " + c.Kind.String()
}

// migratable is the processor's carrying of a change it rewrites: the
// collector's when the diff found it migratable, a person's else.
func (c *Change) migratable() (Carrier, string) {
	if c.Migratable {
		return CarrierCollector, ""
	}
	why := c.Why
	if why == "" {
		why = "the processor cannot carry it over"
	}
	return CarrierPerson, why
}
