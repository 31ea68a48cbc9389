package checker // import "github.com/otelgov/otelcol-governance/checker"

import (
	"fmt"

	"github.com/otelgov/otelcol-governance/engine"
)

// Level is how serious a finding is, in Weaver live-check's terms.
type Level uint8

const (
	// LevelNone is below every finding: --fail-on none never fails.
	LevelNone Level = iota
	LevelInformation
	LevelImprovement
	LevelViolation
)

// String returns the level's name as --fail-on spells it.
func (l Level) String() string {
	switch l {
	case LevelInformation:
		return "information"
	case LevelImprovement:
		return "improvement"
	case LevelViolation:
		return "violation"
	case LevelNone:
	}
	return "none"
}

// ParseLevel parses a --fail-on value.
func ParseLevel(s string) (Level, error) {
	switch s {
	case "violation":
		return LevelViolation, nil
	case "improvement":
		return LevelImprovement, nil
	case "information":
		return LevelInformation, nil
	case "none":
		return LevelNone, nil
	}
	return LevelNone, fmt.Errorf("invalid level %q: want violation, improvement, information or none", s)
}

// Finding IDs.
const (
	FindingDeprecated        = "deprecated"             // a deprecated attribute key
	FindingDeprecatedMetric  = "deprecated_metric"      // a deprecated metric name
	FindingNotInRegistry     = "not_in_registry"        // an attribute key no registry defines
	FindingTypeMismatch      = "type_mismatch"          // a value of another type than declared
	FindingEnumNotInVariants = "undefined_enum_variant" // a value outside a closed enum
)

// This file is the one place that turns the engine's outcomes into findings
// and levels. When the engine reports its own finding IDs and levels
// (Weaver-style signal conformance), replace these three functions and
// nothing else.

// keyFinding maps a key the engine lists in a Batch to a finding.
func keyFinding(k engine.KeyKind) (id string, level Level, ok bool) {
	switch k {
	case engine.KeyDeprecated:
		return FindingDeprecated, LevelViolation, true
	case engine.KeyUnknown:
		return FindingNotInRegistry, LevelImprovement, true
	case engine.KeyRegistry:
	}
	return "", LevelNone, false
}

// outcomeFinding maps the outcomes the engine counts per service but does
// not list per key to a finding; ok is false for outcomes covered by
// keyFinding or that are no finding.
func outcomeFinding(o engine.Outcome) (id string, level Level, ok bool) {
	switch o {
	case engine.OutcomeTypeMismatch:
		return FindingTypeMismatch, LevelViolation, true
	case engine.OutcomeEnumViolation:
		return FindingEnumNotInVariants, LevelInformation, true
	case engine.OutcomeConformant, engine.OutcomeAllowed, engine.OutcomeRenamed,
		engine.OutcomeCopied, engine.OutcomeConflict, engine.OutcomeDeprecatedKept,
		engine.OutcomeUnknown, engine.OutcomeCoerced, engine.OutcomeDropped,
		engine.OutcomeIncompatible, engine.NumOutcomes:
	}
	return "", LevelNone, false
}

// metricFinding is the level of a deprecated metric name.
func metricFinding() (id string, level Level) {
	return FindingDeprecatedMetric, LevelViolation
}
