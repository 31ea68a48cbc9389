package vocab

import (
	"errors"
	"fmt"
)

// Finding is a finding ID. Findings are a dimension of their own next to
// outcomes: an attribute has exactly one outcome, and an item (a span, a
// data point, a log record) may have any number of findings.
//
// Values below NumFindings are Weaver live-check's built-in IDs, named by
// String. Values from NumFindings up are IDs defined at run time (by
// policies): a Catalog defines them, names them and bounds them (Weaver's
// name format, at most MaxFindingIDLength bytes, at most MaxDefinedFindings
// of them), so that a defined ID is a bounded string before it reaches a
// label, a report key or a log record. Front-ends that publish defined IDs
// name them through their Catalog; String knows only the built-in ones.
type Finding uint16

// Weaver's finding IDs.
const (
	FindingMissingAttribute                         Finding = iota // attribute not in the registry
	FindingTemplateAttribute                                       // attribute matched a template
	FindingMissingMetric                                           // metric name not in the registry
	FindingMissingEvent                                            // event name not in the registry
	FindingDeprecated                                              // deprecated attribute or metric
	FindingNotStable                                               // attribute or signal not stable
	FindingTypeMismatch                                            // value type differs from the registry's
	FindingUnexpectedInstrument                                    // metric instrument differs from the registry's
	FindingUnitMismatch                                            // metric unit differs from the registry's
	FindingUndefinedEnumVariant                                    // value outside the enum members
	FindingRequiredAttributeNotPresent                             // required attribute absent
	FindingRecommendedAttributeNotPresent                          // recommended attribute absent
	FindingOptInAttributeNotPresent                                // opt-in attribute absent
	FindingConditionallyRequiredAttributeNotPresent                // conditionally required attribute absent
	FindingUnexpectedAttribute                                     // attribute outside the definition's set
	FindingKindMismatch                                            // span kind differs from the definition's
	FindingInvalidFormat                                           // name does not match ^[a-z][a-z0-9]*([._][a-z0-9]+)*$
	FindingMissingNamespace                                        // name has no '.'
	FindingExtendsNamespace                                        // unknown key under a registry namespace
	FindingIllegalNamespace                                        // a namespace of the key is a registry attribute
	// The entity findings: a signal's entity_associations checked against
	// the attributes of its resource.
	FindingEntityRequiredAttributeNotPresent              // required entity attribute absent from the resource
	FindingEntityRecommendedAttributeNotPresent           // recommended entity attribute absent
	FindingEntityOptInAttributeNotPresent                 // opt-in entity attribute absent
	FindingEntityConditionallyRequiredAttributeNotPresent // conditionally required entity attribute absent
	FindingEntityAssociationNotSatisfied                  // no branch of a one_of association satisfied
	// NumFindings is the number of built-in IDs, and the first defined one.
	NumFindings
)

var findingNames = [NumFindings]string{
	FindingMissingAttribute:                               "missing_attribute",
	FindingTemplateAttribute:                              "template_attribute",
	FindingMissingMetric:                                  "missing_metric",
	FindingMissingEvent:                                   "missing_event",
	FindingDeprecated:                                     "deprecated",
	FindingNotStable:                                      "not_stable",
	FindingTypeMismatch:                                   "type_mismatch",
	FindingUnexpectedInstrument:                           "unexpected_instrument",
	FindingUnitMismatch:                                   "unit_mismatch",
	FindingUndefinedEnumVariant:                           "undefined_enum_variant",
	FindingRequiredAttributeNotPresent:                    "required_attribute_not_present",
	FindingRecommendedAttributeNotPresent:                 "recommended_attribute_not_present",
	FindingOptInAttributeNotPresent:                       "opt_in_attribute_not_present",
	FindingConditionallyRequiredAttributeNotPresent:       "conditionally_required_attribute_not_present",
	FindingUnexpectedAttribute:                            "unexpected_attribute",
	FindingKindMismatch:                                   "kind_mismatch",
	FindingInvalidFormat:                                  "invalid_format",
	FindingMissingNamespace:                               "missing_namespace",
	FindingExtendsNamespace:                               "extends_namespace",
	FindingIllegalNamespace:                               "illegal_namespace",
	FindingEntityRequiredAttributeNotPresent:              "entity_required_attribute_not_present",
	FindingEntityRecommendedAttributeNotPresent:           "entity_recommended_attribute_not_present",
	FindingEntityOptInAttributeNotPresent:                 "entity_opt_in_attribute_not_present",
	FindingEntityConditionallyRequiredAttributeNotPresent: "entity_conditionally_required_attribute_not_present",
	FindingEntityAssociationNotSatisfied:                  "entity_association_not_satisfied",
}

// defaultLevels are Weaver's levels of its findings.
var defaultLevels = [NumFindings]Level{
	FindingMissingAttribute:                               LevelViolation,
	FindingTemplateAttribute:                              LevelInformation,
	FindingMissingMetric:                                  LevelViolation,
	FindingMissingEvent:                                   LevelViolation,
	FindingDeprecated:                                     LevelViolation,
	FindingNotStable:                                      LevelImprovement,
	FindingTypeMismatch:                                   LevelViolation,
	FindingUnexpectedInstrument:                           LevelViolation,
	FindingUnitMismatch:                                   LevelViolation,
	FindingUndefinedEnumVariant:                           LevelInformation,
	FindingRequiredAttributeNotPresent:                    LevelViolation,
	FindingRecommendedAttributeNotPresent:                 LevelImprovement,
	FindingOptInAttributeNotPresent:                       LevelInformation,
	FindingConditionallyRequiredAttributeNotPresent:       LevelInformation,
	FindingUnexpectedAttribute:                            LevelImprovement,
	FindingKindMismatch:                                   LevelViolation,
	FindingInvalidFormat:                                  LevelViolation,
	FindingMissingNamespace:                               LevelImprovement,
	FindingExtendsNamespace:                               LevelInformation,
	FindingIllegalNamespace:                               LevelViolation,
	FindingEntityRequiredAttributeNotPresent:              LevelViolation,
	FindingEntityRecommendedAttributeNotPresent:           LevelImprovement,
	FindingEntityOptInAttributeNotPresent:                 LevelInformation,
	FindingEntityConditionallyRequiredAttributeNotPresent: LevelInformation,
	FindingEntityAssociationNotSatisfied:                  LevelViolation,
}

// String returns Weaver's ID of a built-in finding, "invalid" otherwise
// (a defined finding is named by its Catalog).
func (f Finding) String() string { return name(findingNames[:], f) }

// Builtin reports whether f is one of Weaver's IDs.
func (f Finding) Builtin() bool { return f < NumFindings }

// ParseFinding returns the built-in finding with Weaver's ID s.
func ParseFinding(s string) (Finding, bool) { return parse[Finding](findingNames[:], s) }

// DefaultLevel is Weaver's level of a built-in finding; LevelViolation for
// any other value.
func DefaultLevel(f Finding) Level {
	if f < NumFindings {
		return defaultLevels[f]
	}
	return LevelViolation
}

// Level is a finding's level, as in Weaver; lower is more severe.
type Level uint8

// The levels.
const (
	LevelViolation Level = iota
	LevelImprovement
	LevelInformation
	NumLevels
)

var levelNames = [NumLevels]string{
	LevelViolation:   "violation",
	LevelImprovement: "improvement",
	LevelInformation: "information",
}

// String returns "violation", "improvement" or "information".
func (l Level) String() string { return name(levelNames[:], l) }

// ParseLevel returns the level named s.
func ParseLevel(s string) (Level, bool) { return parse[Level](levelNames[:], s) }

// Subject says what a finding's name is.
type Subject uint8

// The subjects.
const (
	SubjectKey    Subject = iota // an attribute key as received (or the registry key for *_not_present)
	SubjectMetric                // a metric name as received
	SubjectEvent                 // an event name as received
	SubjectSpan                  // the id of the span definition a matcher selected
	NumSubjects
)

var subjectNames = [NumSubjects]string{
	SubjectKey:    "key",
	SubjectMetric: "metric",
	SubjectEvent:  "event",
	SubjectSpan:   "span",
}

// String returns "key", "metric", "event" or "span".
func (s Subject) String() string { return name(subjectNames[:], s) }

// ParseSubject returns the subject named s.
func ParseSubject(s string) (Subject, bool) { return parse[Subject](subjectNames[:], s) }

// Bounds of the finding IDs a Catalog defines.
const (
	// MaxFindingIDLength bounds a defined finding ID, in bytes.
	MaxFindingIDLength = 64
	// MaxDefinedFindings bounds how many IDs one Catalog defines, so that
	// the label values of `finding` stay bounded.
	MaxDefinedFindings = 256
)

// Errors of Catalog.Define.
var (
	ErrFindingID      = errors.New("invalid finding ID")
	ErrFindingExists  = errors.New("finding ID already defined")
	ErrTooManyFinding = errors.New("too many finding IDs")
)

// Catalog is the set of finding IDs one configuration uses: Weaver's
// built-in IDs, then the IDs it defines (policies). It names, parses and
// levels both alike. A Catalog is built before use and read-only after:
// Define is not safe for concurrent use with the readers.
type Catalog struct {
	names  []string // by Finding - NumFindings
	levels []Level  // default level of each defined finding
	index  map[string]Finding
}

// Define adds a finding ID with its default level. The ID must have
// Weaver's name format (ValidName), be at most MaxFindingIDLength bytes,
// and be neither built in nor defined; at most MaxDefinedFindings IDs are
// defined.
func (c *Catalog) Define(id string, level Level) (Finding, error) {
	switch {
	case len(id) > MaxFindingIDLength || !ValidName(id):
		return 0, fmt.Errorf("%w %q: want ^[a-z][a-z0-9]*([._][a-z0-9]+)*$ of at most %d bytes", ErrFindingID, id, MaxFindingIDLength)
	case level >= NumLevels:
		return 0, fmt.Errorf("%w %q: invalid level %d", ErrFindingID, id, level)
	case len(c.names) >= MaxDefinedFindings:
		return 0, fmt.Errorf("%w: at most %d", ErrTooManyFinding, MaxDefinedFindings)
	}
	if _, ok := c.Parse(id); ok {
		return 0, fmt.Errorf("%w: %q", ErrFindingExists, id)
	}
	if c.index == nil {
		c.index = map[string]Finding{}
	}
	f := NumFindings + Finding(len(c.names)) //nolint:gosec // bounded by MaxDefinedFindings
	c.names = append(c.names, id)
	c.levels = append(c.levels, level)
	c.index[id] = f
	return f, nil
}

// Len is the number of finding IDs: built-in and defined. Every finding of
// the catalog is below Len, so tallies can be indexed by Finding.
func (c *Catalog) Len() int { return int(NumFindings) + len(c.names) }

// Name returns the ID of f, "invalid" when the catalog does not have it.
func (c *Catalog) Name(f Finding) string {
	if f < NumFindings {
		return findingNames[f]
	}
	if i := int(f - NumFindings); c != nil && i < len(c.names) {
		return c.names[i]
	}
	return invalid
}

// Parse returns the finding with ID s, built-in or defined.
func (c *Catalog) Parse(s string) (Finding, bool) {
	if f, ok := ParseFinding(s); ok {
		return f, true
	}
	if c == nil {
		return 0, false
	}
	f, ok := c.index[s]
	return f, ok
}

// DefaultLevel is the level of f before overrides: Weaver's for a built-in
// ID, the defined one otherwise.
func (c *Catalog) DefaultLevel(f Finding) Level {
	if f < NumFindings {
		return defaultLevels[f]
	}
	if i := int(f - NumFindings); c != nil && i < len(c.levels) {
		return c.levels[i]
	}
	return LevelViolation
}

// ValidName reports whether s matches Weaver's name format
// ^[a-z][a-z0-9]*([._][a-z0-9]+)*$, without a regexp.
func ValidName(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	sep := false // the previous byte was '.' or '_'
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			sep = false
		case c == '.' || c == '_':
			if sep {
				return false
			}
			sep = true
		default:
			return false
		}
	}
	return !sep
}
