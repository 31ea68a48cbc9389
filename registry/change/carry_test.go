package change

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCarry: who carries each kind of change over, the table of
// docs/upgrade.md: the collector what it rewrites and the diff found
// migratable; kept what the processor leaves as sent; a person what the
// diff found not migratable among the kinds the processor would rewrite,
// a requirement that producers must now meet, and a split during the
// window; nothing for additions and notes. Every kind is decided.
func TestCarry(t *testing.T) {
	for _, tt := range []struct {
		c      Change
		window bool
		want   Carrier
		why    string
	}{
		{Change{Kind: AttributeRenamed, Migratable: true}, true, CarrierCollector, ""},
		{Change{Kind: MetricRenamed, Migratable: true}, true, CarrierCollector, ""},
		{Change{Kind: UnitChanged, Migratable: true, Factor: 0.001}, true, CarrierCollector, ""},
		{Change{Kind: UnitChanged, Why: "no factor"}, false, CarrierPerson, "no factor"},
		{Change{Kind: InstrumentChanged, Why: "the data points change type"}, false, CarrierPerson, "the data points change type"},
		{Change{Kind: Merge, Why: "a merge needs every part"}, false, CarrierPerson, "a merge needs every part"},
		{Change{Kind: Split, Migratable: true}, false, CarrierCollector, ""},
		{Change{Kind: Split, Migratable: true}, true, CarrierPerson, whySplitInWindow},
		{Change{Kind: RequirementLevelChanged, Migratable: true}, true, CarrierNone, ""},
		{Change{Kind: RequirementLevelChanged, Why: "producers must now send it (required)"}, true, CarrierPerson, "producers must now send it (required)"},
		{Change{Kind: AttributeSetChanged, Why: "producers must now send it (required)"}, false, CarrierPerson, "producers must now send it (required)"},
		{Change{Kind: SpanRenamed, Why: "the processor does not rename spans"}, false, CarrierPerson, "the processor does not rename spans"},
		{Change{Kind: AttributeRemoved, Why: "the new registry does not define the key"}, true, CarrierKept, ""},
		{Change{Kind: EnumMemberRemoved, Why: "no longer a member"}, true, CarrierKept, ""},
		{Change{Kind: AttributeAdded, Migratable: true}, true, CarrierNone, ""},
		{Change{Kind: StabilityChanged, Migratable: true}, true, CarrierNone, ""},
	} {
		t.Run(tt.c.Kind.String(), func(t *testing.T) {
			by, why := tt.c.Carry(tt.window)
			assert.Equal(t, tt.want, by)
			assert.Equal(t, tt.why, why)
		})
	}
	for _, k := range Kinds() {
		by, why := (&Change{Kind: k}).Carry(false)
		assert.NotEqual(t, "unknown change kind "+k.String(), why, "kind %s is decided", k)
		assert.NotEqual(t, "unknown", by.String())
	}
}
