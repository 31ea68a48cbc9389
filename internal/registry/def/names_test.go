package def

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNameTables checks that every constant of every enum has a name (a
// constant added without one would print as "") and that each parse
// function inverts String for the values a file can spell.
func TestNameTables(t *testing.T) {
	for name, names := range map[string][]string{
		"Location":          locationNames[:],
		"SpanKind":          spanKindNames[:],
		"Type":              typeNames[:],
		"Stability":         stabilityNames[:],
		"DeprecationReason": deprecationReasonNames[1:], // NotDeprecated has no name
		"RequirementLevel":  requirementLevelNames[:],
		"Field":             fieldNames[:],
	} {
		for i, n := range names {
			assert.NotEmpty(t, n, "%s %d has no name", name, i)
		}
	}
	assert.Len(t, locationNames, NumLocations)
	assert.Len(t, typeNames, int(TypeAny)+1)
	assert.Len(t, stabilityNames, int(StabilityStable)+1)
	assert.Len(t, deprecationReasonNames, int(DeprecatedUnspecified)+1)
	assert.Len(t, requirementLevelNames, int(RequirementOptIn)+1)
	assert.Len(t, fieldNames, int(FieldStatusMessage)+1)
	assert.Len(t, spanKindNames, int(SpanKindConsumer)+1)

	for l := range numLocations {
		got, ok := ParseLocation(l.String())
		require.True(t, ok, l.String())
		assert.Equal(t, l, got)
	}
	for k := SpanKindUnspecified; k <= SpanKindConsumer; k++ {
		got, ok := ParseSpanKind(k.String())
		require.True(t, ok, k.String())
		assert.Equal(t, k, got)
	}
	for ty := TypeString; ty <= TypeAny; ty++ {
		got, ok := ParseType(ty.String())
		require.True(t, ok, ty.String())
		assert.Equal(t, ty, got)
	}
	for s := StabilityDevelopment; s <= StabilityStable; s++ {
		got, ok := ParseStability(s.String())
		require.True(t, ok, s.String())
		assert.Equal(t, s, got)
	}
	for r := DeprecatedRenamed; r <= DeprecatedUnspecified; r++ {
		got, ok := ParseDeprecationReason(r.String())
		require.True(t, ok, r.String())
		assert.Equal(t, r, got)
	}
	for l := RequirementRecommended; l <= RequirementOptIn; l++ {
		got, ok := ParseRequirementLevel(l.String())
		require.True(t, ok, l.String())
		assert.Equal(t, l, got)
	}
	for f := FieldEventName; f <= FieldStatusMessage; f++ {
		got, ok := ParseField(f.String())
		require.True(t, ok, f.String())
		assert.Equal(t, f, got)
	}

	// Values a file cannot spell, and out-of-range values.
	for _, s := range []string{"", "unknown"} {
		_, ok := ParseType(s)
		assert.False(t, ok, s)
	}
	_, ok := ParseStability("unspecified")
	assert.False(t, ok)
	st, ok := ParseStability("experimental")
	assert.True(t, ok)
	assert.Equal(t, StabilityDevelopment, st)
	_, ok = ParseField("none")
	assert.False(t, ok)
	assert.Empty(t, NotDeprecated.String())
	assert.Equal(t, "unknown", Type(200).String())
	assert.Equal(t, "unknown", Location(200).String())
	assert.Equal(t, "string[]", TypeStringArray.String())
	assert.Equal(t, "release_candidate", StabilityReleaseCandidate.String())
}
