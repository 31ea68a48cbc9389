package engine

// Finding is one of Weaver live-check's finding IDs. Findings are a
// dimension of their own next to outcomes: an attribute has exactly one
// outcome, and an item (a span, a data point, a log record) may have any
// number of findings.
type Finding uint8

// The finding IDs, spelled as Weaver spells them.
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
	NumFindings
)

var findingNames = [NumFindings]string{
	"missing_attribute", "template_attribute", "missing_metric", "missing_event",
	"deprecated", "not_stable", "type_mismatch", "unexpected_instrument",
	"unit_mismatch", "undefined_enum_variant", "required_attribute_not_present",
	"recommended_attribute_not_present", "opt_in_attribute_not_present",
	"conditionally_required_attribute_not_present", "unexpected_attribute",
	"kind_mismatch", "invalid_format", "missing_namespace", "extends_namespace",
	"illegal_namespace", "entity_required_attribute_not_present",
	"entity_recommended_attribute_not_present", "entity_opt_in_attribute_not_present",
	"entity_conditionally_required_attribute_not_present", "entity_association_not_satisfied",
}

// String returns Weaver's finding ID.
func (f Finding) String() string {
	if f < NumFindings {
		return findingNames[f]
	}
	return "invalid"
}

// ParseFinding returns the finding with Weaver's ID s.
func ParseFinding(s string) (Finding, bool) {
	for f, n := range findingNames {
		if n == s {
			return Finding(f), true
		}
	}
	return 0, false
}

// Level is a finding's level, as in Weaver.
type Level uint8

const (
	LevelViolation Level = iota
	LevelImprovement
	LevelInformation
	NumLevels
)

var levelNames = [NumLevels]string{"violation", "improvement", "information"}

// String returns "violation", "improvement" or "information".
func (l Level) String() string {
	if l < NumLevels {
		return levelNames[l]
	}
	return "invalid"
}

// ParseLevel returns the level named s.
func ParseLevel(s string) (Level, bool) {
	for l, n := range levelNames {
		if n == s {
			return Level(l), true
		}
	}
	return 0, false
}

// defaultLevels are Weaver's levels of each finding.
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

// DefaultLevel is Weaver's level of f.
func DefaultLevel(f Finding) Level {
	if f < NumFindings {
		return defaultLevels[f]
	}
	return LevelViolation
}

// Profile says which findings the engine reports.
type Profile uint8

const (
	// ProfileWeaver reports exactly the findings Weaver's live-check
	// reports for the same registry and input (the default).
	ProfileWeaver Profile = iota
	// ProfileExtended adds this engine's extensions: span definitions
	// selected by v1 span matchers (kind_mismatch, not_stable and the
	// requirement findings on spans), unexpected_attribute on v1 groups,
	// span events checked against event definitions, and the service
	// entity's required service.name on resources.
	ProfileExtended
	NumProfiles
)

var profileNames = [NumProfiles]string{ProfileWeaver: "weaver", ProfileExtended: "extended"}

// String returns "weaver" or "extended".
func (p Profile) String() string {
	if p < NumProfiles {
		return profileNames[p]
	}
	return "invalid"
}

// ParseProfile returns the profile named s.
func ParseProfile(s string) (Profile, bool) {
	for p, n := range profileNames {
		if n == s {
			return Profile(p), true
		}
	}
	return 0, false
}

// Subject says what a finding's Name is.
type Subject uint8

const (
	SubjectKey    Subject = iota // an attribute key as received (or the registry key for *_not_present)
	SubjectMetric                // a metric name as received
	SubjectEvent                 // an event name as received
	SubjectSpan                  // the id of the span definition a matcher selected
	NumSubjects
)

var subjectNames = [NumSubjects]string{"key", "metric", "event", "span"}

// String returns "key", "metric", "event" or "span".
func (s Subject) String() string {
	if s < NumSubjects {
		return subjectNames[s]
	}
	return "invalid"
}

// validName reports whether s matches Weaver's name format
// ^[a-z][a-z0-9]*([._][a-z0-9]+)*$ without a regexp.
func validName(s string) bool {
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
