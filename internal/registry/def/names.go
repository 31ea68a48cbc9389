package def

// The names of the model's enums, as written in registry, schema and rules
// files (and in the extension's JSON). Each table is keyed by the constant,
// so a reordered or inserted constant cannot shift a name; TestNameTables
// checks that every constant has one.

var locationNames = [...]string{
	LocationResource:  "resource",
	LocationScope:     "scope",
	LocationSpan:      "span",
	LocationSpanEvent: "span_event",
	LocationSpanLink:  "span_link",
	LocationDataPoint: "data_point",
	LocationLog:       "log",
}

var spanKindNames = [...]string{
	SpanKindUnspecified: "unspecified",
	SpanKindInternal:    "internal",
	SpanKindServer:      "server",
	SpanKindClient:      "client",
	SpanKindProducer:    "producer",
	SpanKindConsumer:    "consumer",
}

// typeNames: TypeUnknown is named for messages but is never parsed.
var typeNames = [...]string{
	TypeUnknown:      "unknown",
	TypeString:       "string",
	TypeInt:          "int",
	TypeDouble:       "double",
	TypeBoolean:      "boolean",
	TypeStringArray:  "string[]",
	TypeIntArray:     "int[]",
	TypeDoubleArray:  "double[]",
	TypeBooleanArray: "boolean[]",
	TypeAny:          "any",
}

// stabilityNames: StabilityUnspecified is named for output; a file states
// it by leaving stability out.
var stabilityNames = [...]string{
	StabilityUnspecified:      "unspecified",
	StabilityDevelopment:      "development",
	StabilityAlpha:            "alpha",
	StabilityBeta:             "beta",
	StabilityReleaseCandidate: "release_candidate",
	StabilityStable:           "stable",
}

// deprecationReasonNames: NotDeprecated has no name.
var deprecationReasonNames = [...]string{
	NotDeprecated:           "",
	DeprecatedRenamed:       "renamed",
	DeprecatedObsoleted:     "obsoleted",
	DeprecatedUncategorized: "uncategorized",
	DeprecatedUnspecified:   "unspecified",
}

var requirementLevelNames = [...]string{
	RequirementRecommended:           "recommended",
	RequirementRequired:              "required",
	RequirementConditionallyRequired: "conditionally_required",
	RequirementOptIn:                 "opt_in",
}

// fieldNames: FieldNone is named for output but is never parsed.
var fieldNames = [...]string{
	FieldNone:          "none",
	FieldEventName:     "event_name",
	FieldStatusMessage: "status_message",
}

// nameOf returns names[v], or "unknown" for a value outside the table.
func nameOf[T ~uint8](names []string, v T) string {
	if int(v) < len(names) {
		return names[v]
	}
	return "unknown"
}

// parseName returns the value named s in names, skipping the values in
// unnamed (those a file cannot spell).
func parseName[T ~uint8](names []string, s string, unnamed ...T) (T, bool) {
	if s == "" {
		return 0, false
	}
	for i, n := range names {
		v := T(i) //nolint:gosec // the tables hold fewer than 256 names
		if n == s && !contains(unnamed, v) {
			return v, true
		}
	}
	return 0, false
}

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// String returns the lower-case name used in metrics and YAML ("span_event").
func (l Location) String() string { return nameOf(locationNames[:], l) }

// ParseLocation returns the location named s ("span_event").
func ParseLocation(s string) (Location, bool) { return parseName[Location](locationNames[:], s) }

// String returns the lower-case name used in rules files ("client").
func (k SpanKind) String() string { return nameOf(spanKindNames[:], k) }

// ParseSpanKind returns the span kind named s ("client").
func ParseSpanKind(s string) (SpanKind, bool) { return parseName[SpanKind](spanKindNames[:], s) }

// String returns the model's spelling ("string[]"); "unknown" for TypeUnknown.
func (t Type) String() string { return nameOf(typeNames[:], t) }

// ParseType returns the scalar or array type named s ("string[]", "any").
func ParseType(s string) (Type, bool) { return parseName(typeNames[:], s, TypeUnknown) }

// String returns the model's spelling ("release_candidate").
func (s Stability) String() string { return nameOf(stabilityNames[:], s) }

// ParseStability returns the stability named s; "experimental" is the
// model's old name for development. Unspecified has no spelling.
func ParseStability(s string) (Stability, bool) {
	if s == "experimental" {
		return StabilityDevelopment, true
	}
	return parseName(stabilityNames[:], s, StabilityUnspecified)
}

// String returns the model's spelling ("obsoleted"); "" for NotDeprecated.
func (r DeprecationReason) String() string { return nameOf(deprecationReasonNames[:], r) }

// ParseDeprecationReason returns the reason named s ("renamed").
func ParseDeprecationReason(s string) (DeprecationReason, bool) {
	return parseName(deprecationReasonNames[:], s, NotDeprecated)
}

// String returns the model's spelling ("conditionally_required").
func (l RequirementLevel) String() string { return nameOf(requirementLevelNames[:], l) }

// ParseRequirementLevel returns the level named s ("opt_in").
func ParseRequirementLevel(s string) (RequirementLevel, bool) {
	return parseName[RequirementLevel](requirementLevelNames[:], s)
}

// String returns the name used in rules files ("event_name"); "none" for FieldNone.
func (f Field) String() string { return nameOf(fieldNames[:], f) }

// ParseField returns the field named s ("status_message").
func ParseField(s string) (Field, bool) { return parseName(fieldNames[:], s, FieldNone) }
