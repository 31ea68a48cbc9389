package vocab

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkTable fails when a keyed name table misses an entry (it would be ""
// and unparseable), has a duplicate, or does not round-trip. skipZero: the
// zero value is a placeholder that does not parse (KindUnknown).
func checkTable[T interface {
	~uint8 | ~uint16
	String() string
}](t *testing.T, n T, parse func(string) (T, bool), skipZero bool) {
	t.Helper()
	seen := map[string]T{}
	for v := T(0); v < n; v++ {
		s := v.String()
		require.NotEmpty(t, s, "%d has no name", v)
		assert.NotEqual(t, invalid, s, "%d", v)
		assert.True(t, ValidName(s), "name %q is not snake_case", s)
		if w, dup := seen[s]; dup {
			t.Errorf("%d and %d are both named %q", w, v, s)
		}
		seen[s] = v
		got, ok := parse(s)
		if skipZero && v == 0 {
			assert.False(t, ok, "%q must not parse", s)
			continue
		}
		require.True(t, ok, "%q does not parse", s)
		assert.Equal(t, v, got)
	}
	assert.Equal(t, invalid, n.String(), "one past the table")
	_, ok := parse("")
	assert.False(t, ok)
	_, ok = parse("no_such_name")
	assert.False(t, ok)
}

func TestTablesComplete(t *testing.T) {
	t.Run("kind", func(t *testing.T) { checkTable(t, NumKinds, ParseKind, true) })
	t.Run("outcome", func(t *testing.T) { checkTable(t, NumOutcomes, ParseOutcome, false) })
	t.Run("drop_reason", func(t *testing.T) { checkTable(t, NumReasons, ParseDropReason, false) })
	t.Run("finding", func(t *testing.T) { checkTable(t, NumFindings, ParseFinding, false) })
	t.Run("level", func(t *testing.T) { checkTable(t, NumLevels, ParseLevel, false) })
	t.Run("subject", func(t *testing.T) { checkTable(t, NumSubjects, ParseSubject, false) })
	t.Run("profile", func(t *testing.T) { checkTable(t, NumProfiles, ParseProfile, false) })
}

func TestDefaultLevels(t *testing.T) {
	// Weaver's levels of a few IDs, as its documentation lists them.
	assert.Equal(t, LevelViolation, DefaultLevel(FindingMissingAttribute))
	assert.Equal(t, LevelImprovement, DefaultLevel(FindingNotStable))
	assert.Equal(t, LevelInformation, DefaultLevel(FindingTemplateAttribute))
	assert.Equal(t, LevelViolation, DefaultLevel(NumFindings+3), "a finding outside the table")
}

func TestCatalog(t *testing.T) {
	var c Catalog
	assert.Equal(t, int(NumFindings), c.Len())
	f, err := c.Define("acme.pii_in_attribute", LevelViolation)
	require.NoError(t, err)
	assert.Equal(t, NumFindings, f, "the first defined ID follows the built-in ones")
	assert.False(t, f.Builtin())
	assert.Equal(t, "acme.pii_in_attribute", c.Name(f))
	assert.Equal(t, invalid, f.String(), "String knows only built-in IDs")
	got, ok := c.Parse("acme.pii_in_attribute")
	require.True(t, ok)
	assert.Equal(t, f, got)
	got, ok = c.Parse("deprecated")
	require.True(t, ok)
	assert.Equal(t, FindingDeprecated, got)
	assert.Equal(t, LevelViolation, c.DefaultLevel(f))
	assert.Equal(t, int(NumFindings)+1, c.Len())
	assert.Equal(t, invalid, c.Name(f+1))

	for _, bad := range []string{"", "Acme", "a b", "x.", "_x", string(make([]byte, MaxFindingIDLength+1))} {
		_, err := c.Define(bad, LevelViolation)
		require.ErrorIs(t, err, ErrFindingID, "%q", bad)
	}
	_, err = c.Define("deprecated", LevelViolation)
	require.ErrorIs(t, err, ErrFindingExists)
	_, err = c.Define("acme.pii_in_attribute", LevelViolation)
	require.ErrorIs(t, err, ErrFindingExists)

	var full Catalog
	for i := range MaxDefinedFindings {
		_, err := full.Define(fmt.Sprintf("p.f%d", i), LevelImprovement)
		require.NoError(t, err)
	}
	_, err = full.Define("p.one_more", LevelImprovement)
	assert.ErrorIs(t, err, ErrTooManyFinding)
}

func TestValidName(t *testing.T) {
	for s, want := range map[string]bool{
		"http.request.method": true, "a": true, "a1.b_2": true,
		"": false, "A": false, "1a": false, "a..b": false, "a._b": false, "a.": false, "a-b": false,
	} {
		assert.Equal(t, want, ValidName(s), s)
	}
}

func TestBound(t *testing.T) {
	long := strings.Repeat("k", 1<<20)
	// 255 ASCII bytes, then a 3-byte rune that crosses the bound.
	crossing := strings.Repeat("a", MaxKeyLength-1) + "€" + "tail"
	tests := []struct {
		name    string
		in      string
		want    string
		changed bool
	}{
		{name: "empty", in: "", want: ""},
		{name: "short", in: "checkout", want: "checkout"},
		{name: "exactly the bound", in: long[:MaxKeyLength], want: long[:MaxKeyLength]},
		{name: "1 MB", in: long, want: long[:MaxKeyLength], changed: true},
		{name: "rune crossing the bound", in: crossing, want: crossing[:MaxKeyLength-1], changed: true},
		{name: "invalid utf-8", in: "a\xffb\xfe", want: "a\uFFFDb\uFFFD", changed: true},
		{name: "truncated rune at the end", in: "ab\xe2\x82", want: "ab\uFFFD\uFFFD", changed: true},
		{name: "replacement character is valid", in: "a\uFFFDb", want: "a\uFFFDb"},
		{name: "1 MB invalid", in: strings.Repeat("\xff", 1<<20), want: strings.Repeat("\uFFFD", MaxKeyLength/3), changed: true},
		{name: "long, invalid past the bound", in: long[:MaxKeyLength] + "\xff", want: long[:MaxKeyLength], changed: true},
		{name: "long, invalid before the bound", in: "\xff" + long, want: "\uFFFD" + long[:MaxKeyLength-3], changed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := Bound(tt.in)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.changed, changed)
			assert.LessOrEqual(t, len(got), MaxKeyLength)
			assert.True(t, utf8.ValidString(got))
		})
	}
}

func TestBoundAllocs(t *testing.T) {
	long := strings.Repeat("k", 1<<20)
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		_, _ = Bound("checkout")
		_, _ = Bound(long)
	}))
}

// TestWeaverWords pins Weaver's spelling of its sample types, signal types,
// instruments and context keys (crates/weaver_live_check/src/lib.rs and
// sample_metric.rs at afa9700c; src/registry/otlp/conversion.rs names the
// unsupported instruments) and checks that each table round-trips.
func TestWeaverWords(t *testing.T) {
	t.Run("sample_type", func(t *testing.T) { checkTable(t, NumSampleTypes, ParseSampleType, false) })
	t.Run("context_key", func(t *testing.T) { checkTable(t, NumContextKeys, ParseContextKey, false) })
	assert.Equal(t, []string{
		"resource", "attribute", "span", "span_event", "span_link", "metric", "number_data_point",
		"histogram_data_point", "exponential_histogram_data_point", "exemplar", "log", "instrumentation_scope",
	}, sampleTypeNames[:])
	assert.Equal(t, []string{"", "span", "metric", "log", "resource"}, signalTypeNames[:])
	for v := SignalSpan; v < NumSignalTypes; v++ {
		got, ok := ParseSignalType(v.String())
		require.True(t, ok, v.String())
		assert.Equal(t, v, got)
	}
	_, ok := ParseSignalType("")
	assert.False(t, ok, "no signal type has no name to parse")
	// Weaver serializes SampleInstrument untagged: a supported instrument in
	// the registry's lower case, an unsupported one by its OTLP type name.
	assert.Equal(t, []string{"Unspecified", "counter", "updowncounter", "gauge", "histogram", "Summary"}, instrumentNames[:])
	for v := range NumInstruments {
		got, ok := ParseInstrument(v.String())
		require.True(t, ok, v.String())
		assert.Equal(t, v, got)
		assert.Equal(t, v != InstrumentUnspecified && v != InstrumentSummary, v.Supported(), v.String())
	}
	assert.Equal(t, invalid, NumInstruments.String())
	assert.Equal(t, "attribute_key", SubjectContextKey(SubjectKey).String())
	assert.Equal(t, "metric_name", SubjectContextKey(SubjectMetric).String())
	assert.Equal(t, "event_name", SubjectContextKey(SubjectEvent).String())
	assert.Equal(t, "span_definition", SubjectContextKey(SubjectSpan).String())
	assert.Equal(t, "entity_type", ContextEntityType.String())
	assert.Equal(t, "deprecation_note", ContextDeprecationNote.String())
}
