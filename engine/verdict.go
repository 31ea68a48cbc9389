package engine

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelgov/otelcol-governance/registry"
)

// Verdict is the engine's verdict on one value of a current registry key
// (defined, not deprecated): OutcomeConformant, OutcomeTypeMismatch or
// OutcomeEnumViolation, as a read-only walk counts it. Front-ends use it to
// name the key behind those counts (otelgov check's example locations); it
// is the walk's own type and enum check.
func Verdict(a *registry.Attribute, v pcommon.Value) Outcome {
	if !typeMatches(a.Type, v) {
		return OutcomeTypeMismatch
	}
	switch a.Type {
	case registry.TypeString:
		if a.EnumStrings != nil && !a.AllowsString(v.Str()) {
			return OutcomeEnumViolation
		}
	case registry.TypeInt:
		if a.EnumInts != nil && !a.AllowsInt(v.Int()) {
			return OutcomeEnumViolation
		}
	default:
	}
	return OutcomeConformant
}

// Governs reports whether the engine governs a resource with these
// attributes (Options.IncludeResources), as the walk decides it.
func (e *Engine) Governs(resource pcommon.Map) bool {
	return len(e.include) == 0 || e.included(resource)
}
