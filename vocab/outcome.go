package vocab

// Outcome is what the engine found and did for one attribute or one metric
// name. Every attribute gets exactly one outcome. The names are the values
// of the `outcome` label on :8888 and the keys of the conformance report.
type Outcome uint8

// The outcomes.
const (
	OutcomeConformant     Outcome = iota // known, current, right type and enum member
	OutcomeAllowed                       // not in the registry but on the allow list
	OutcomeRenamed                       // deprecated key replaced by its current name (or deduplicated)
	OutcomeCopied                        // current name added next to the deprecated key
	OutcomeConflict                      // current name already present with another value; old key dropped (rename) or kept (copy)
	OutcomeDeprecatedKept                // deprecated and left in place (no target, deprecated: off, or read-only data)
	OutcomeUnknown                       // not in the registry, kept
	OutcomeTypeMismatch                  // value type differs from the declared type, kept
	OutcomeEnumViolation                 // value outside a closed enum, kept
	OutcomeCoerced                       // value converted losslessly to the declared type
	OutcomeDropped                       // removed; the reason is counted separately
	OutcomeIncompatible                  // metric names only: renamed in the registry but data does not fit the target
	// Value migrations.
	OutcomeValueRenamed         // value replaced by its current enum member or value map entry (with or without a key rename)
	OutcomeConverted            // value converted losslessly by a rule (int to string, string to string[]) and renamed
	OutcomeSplit                // value split into several current attributes
	OutcomeMerged               // value merged with others into one current attribute
	OutcomeMoved                // value moved out of the attributes into a field (LogRecord.EventName, span status description)
	OutcomeUndefinedEnumVariant // value outside an open enum's members, kept (Weaver's undefined_enum_variant)
	NumOutcomes
)

var outcomeNames = [NumOutcomes]string{
	OutcomeConformant:           "conformant",
	OutcomeAllowed:              "allowed",
	OutcomeRenamed:              "renamed",
	OutcomeCopied:               "copied",
	OutcomeConflict:             "conflict",
	OutcomeDeprecatedKept:       "deprecated_kept",
	OutcomeUnknown:              "unknown",
	OutcomeTypeMismatch:         "type_mismatch",
	OutcomeEnumViolation:        "enum_violation",
	OutcomeCoerced:              "coerced",
	OutcomeDropped:              "dropped",
	OutcomeIncompatible:         "incompatible",
	OutcomeValueRenamed:         "value_renamed",
	OutcomeConverted:            "converted",
	OutcomeSplit:                "split",
	OutcomeMerged:               "merged",
	OutcomeMoved:                "moved",
	OutcomeUndefinedEnumVariant: "undefined_enum_variant",
}

// String returns the outcome's name as used in metrics and in the report.
func (o Outcome) String() string { return name(outcomeNames[:], o) }

// ParseOutcome returns the outcome named s.
func ParseOutcome(s string) (Outcome, bool) { return parse[Outcome](outcomeNames[:], s) }

// DropReason says why an attribute was removed: the `reason` label.
type DropReason uint8

// The drop reasons.
const (
	ReasonUnknown       DropReason = iota // not in the registry (unknown: drop)
	ReasonTypeMismatch                    // wrong type (type_mismatch: drop)
	ReasonEnumViolation                   // outside a closed enum (enum_violation: drop)
	ReasonUnexpected                      // outside a registry metric's attribute set (drop_unexpected_attributes)
	NumReasons
)

var reasonNames = [NumReasons]string{
	ReasonUnknown:       "unknown",
	ReasonTypeMismatch:  "type_mismatch",
	ReasonEnumViolation: "enum_violation",
	ReasonUnexpected:    "unexpected",
}

// String returns the reason's name as used in metrics.
func (r DropReason) String() string { return name(reasonNames[:], r) }

// ParseDropReason returns the reason named s.
func ParseDropReason(s string) (DropReason, bool) { return parse[DropReason](reasonNames[:], s) }
