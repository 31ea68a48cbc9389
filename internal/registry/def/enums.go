// Package def holds the registry's definitions as written in registry,
// schema and rules files, before resolution: the loaders (internal/registry/load)
// produce them, cmd/registrygen writes the semantic conventions' as Go
// literals into registry/embedded_gen.go, and the registry package resolves
// them into an Index. The enums here are the public model's: the registry
// package re-exports them under the same names.
package def

// Location says where an attribute map sits in the telemetry. Context rules and
// schema-file sections are scoped by it.
type Location uint8

const (
	LocationResource Location = iota
	LocationScope
	LocationSpan
	LocationSpanEvent
	LocationSpanLink
	LocationDataPoint // metric data point (and its exemplars)
	LocationLog
	numLocations
)

// NumLocations is the number of locations (an int, not a Location).
const NumLocations = int(numLocations)

// SpanKind mirrors ptrace.SpanKind numbering, so a caller converts with a cast.
type SpanKind uint8

const (
	SpanKindUnspecified SpanKind = 0
	SpanKindInternal    SpanKind = 1
	SpanKindServer      SpanKind = 2
	SpanKindClient      SpanKind = 3
	SpanKindProducer    SpanKind = 4
	SpanKindConsumer    SpanKind = 5
)

// Type is an attribute's declared value type.
type Type uint8

const (
	TypeUnknown Type = iota // not declared (e.g. unknown key)
	TypeString
	TypeInt
	TypeDouble
	TypeBoolean
	TypeStringArray
	TypeIntArray
	TypeDoubleArray
	TypeBooleanArray
	TypeAny // "any" in the v2 model: no type check
)

// Stability of a definition.
type Stability uint8

const (
	StabilityUnspecified Stability = iota
	StabilityDevelopment
	StabilityAlpha
	StabilityBeta
	StabilityReleaseCandidate
	StabilityStable
)

// DeprecationReason mirrors the Weaver model's deprecated.reason.
type DeprecationReason uint8

const (
	NotDeprecated DeprecationReason = iota
	DeprecatedRenamed
	DeprecatedObsoleted
	DeprecatedUncategorized
	DeprecatedUnspecified
)

// Deprecation as written in the model.
type Deprecation struct {
	Reason    DeprecationReason
	RenamedTo string // as declared, before chain collapsing
	Note      string
}

// DeprecatedMember is one enum member the model marks deprecated, for
// example cloud.platform's azure_vm, renamed to azure.vm. The model's
// renamed_to names another member's id; RenamedTo holds that member's value,
// which is what telemetry carries.
type DeprecatedMember struct {
	// Value is the deprecated member's value; the decimal form for int enums.
	Value  string
	Reason DeprecationReason
	// RenamedTo is the value of the member it is renamed to; "" when the
	// model names none (obsoleted, uncategorized).
	RenamedTo string
	Note      string
}

// RequirementLevel of an attribute in a group definition.
type RequirementLevel uint8

const (
	RequirementRecommended RequirementLevel = iota // the model's default
	RequirementRequired
	RequirementConditionallyRequired
	RequirementOptIn
)

// Field is a field of a telemetry item that a move can fill.
type Field uint8

const (
	// FieldNone: no move.
	FieldNone Field = iota
	// FieldEventName is LogRecord.EventName.
	FieldEventName
	// FieldStatusMessage is a span's status description; a move fills it
	// only on spans whose status code is Error (the description is
	// meaningless otherwise).
	FieldStatusMessage
)

// Assign is one attribute a split case sets.
type Assign struct {
	Key   string
	Value string
}
