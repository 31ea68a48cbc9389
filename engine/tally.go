package engine // import "github.com/otelgov/otelcol-governance/engine"

import (
	"github.com/otelgov/otelcol-governance/registry"

	"github.com/otelgov/otelcol-governance/vocab"
)

// NumLocations is the number of registry locations a tally counts.
const NumLocations = int(registry.LocationLog) + 1

// KeyKind says why a key is listed in a Batch.
type KeyKind uint8

const (
	// KeyUnknown is a key no registry defines, kept or dropped (allowed keys
	// are not listed).
	KeyUnknown KeyKind = iota
	// KeyDeprecated is a deprecated key, renamed, copied or kept.
	KeyDeprecated
	// KeyRegistry is a key the registry defines (for a template, the
	// template's key). It feeds registry coverage, a set: an Engine lists
	// each registry key once per registry Index, in the first batch that
	// meets it (Count 1), and again after a reload. Its Service is ignored.
	KeyRegistry
	numKeyKinds
)

// String returns "unknown", "deprecated" or "registry".
func (k KeyKind) String() string {
	switch k {
	case KeyUnknown:
		return "unknown"
	case KeyDeprecated:
		return "deprecated"
	case KeyRegistry:
		return "registry"
	case numKeyKinds:
	}
	return "invalid"
}

// Batch is one batch's tally: the one the walker fills and every front-end
// reads, once per batch. The processor records it on :8888 and hands the
// same Batch to the registry extension's conformance report (package
// conformance); otelgov check feeds it to its own report. The walker owns it
// and reuses it from batch to batch; filling it does not allocate once its
// slices have grown.
//
// Every attribute is counted once in Attrs and once in its service's
// Outcomes (two dimensions, not two tallies); every finding once in its
// service's Findings and, with Options.Detail, once in Findings by name.
type Batch struct {
	// Generation is the generation of the registry the batch was checked
	// against (set by the front-end).
	Generation int64

	// Attrs counts attributes by location and outcome.
	Attrs [NumLocations][vocab.NumOutcomes]int64
	// Drops counts removed attributes by reason.
	Drops [vocab.NumReasons]int64
	// Names counts metric names by outcome.
	Names [vocab.NumOutcomes]int64
	// Overflow counts resources whose service was folded into
	// vocab.ServiceOther by the front-end's ServiceSlots.
	Overflow int64
	// SchemaURLs counts resources and scopes whose schema_url was set to the
	// registry's because their data was rewritten.
	SchemaURLs [NumSchemaLevels]int64

	// Services holds one entry per service identity met in the batch. An
	// engine without ServiceSlots and without Options.Detail keeps one
	// entry (Slot -1, Service "") for the whole batch: nothing reads
	// per-service counts then, and FindingTotals still holds.
	Services []ServiceTally
	// Associations counts entity_association_not_satisfied by the
	// association no entity satisfied (over all services): at most one
	// entry per one_of of the registry.
	Associations []AssociationTally
	// Relevelled counts the findings a scoped level override
	// (Options.Rules, Engine.LevelScoped) counted at another level than
	// Engine.Level's, by service, finding and level; they are counted in
	// Services[].Findings too. Empty without scoped overrides.
	Relevelled []LevelCount

	// The detail below is filled only with Options.Detail (the conformance
	// report's input).

	// Keys holds one entry per distinct (service, key, kind).
	Keys []KeyTally
	// Findings holds one entry per distinct (service, finding, level,
	// subject, name).
	Findings []FindingTally
	// Signals holds one entry per registry definition checked.
	Signals []SignalTally
	// Advice counts the Advisor's defined findings (advice.go), over all
	// services; built-in findings an Advisor reports count in Services.
	Advice []AdviceTally
	// AdviceRepeats counts the samples other than attributes whose
	// findings the walk took from an earlier sample of the same
	// ShapeAdvisor key in the batch, without asking the Advisor
	// (adviceCache).
	AdviceRepeats int64
	// Unknowns holds the context of the unknown keys, one entry per
	// distinct (Keys entry, location, signal name), only while the walker
	// tracks them (Walker.TrackUnknowns); UnknownsOverflow counts the
	// filings past its bound.
	Unknowns         []UnknownTally
	UnknownsOverflow int64
}

// FindingTally is how often one finding was reported for one name in one
// batch, at one level.
type FindingTally struct {
	// Service indexes Batch.Services.
	Service int
	Finding vocab.Finding
	// ID names a defined finding (an Advisor's, Finding >=
	// vocab.NumFindings); "" for a built-in one.
	ID string
	// Level is the level the engine applied when it counted the finding
	// (Weaver's, or overridden): levels are applied in one place, the
	// engine, per finding, so a report fed by engines with different
	// overrides (or, later, levels that depend on the sample) counts each
	// finding at the level it was given.
	Level   vocab.Level
	Subject vocab.Subject
	// Name is the attribute key, metric name, event name or span
	// definition the finding is about, as received (unbounded: the report
	// bounds what it keeps).
	Name  string
	Count int64
}

// AssociationTally is how often one entity association was not satisfied
// in one batch.
type AssociationTally struct {
	// Association is the one_of no entity satisfied (registry data).
	Association []registry.EntityAssociation
	Count       int64
}

// SignalTally is one registry definition's use in one batch: how many
// items it checked and which of its attributes they carried.
type SignalTally struct {
	Signal *registry.Group
	Count  int64
	Seen   registry.AttrBits
}

// reset empties b and keeps its capacity, dropping every reference to the
// batch's strings.
func (b *Batch) reset() {
	clear(b.Services)
	clear(b.Keys)
	clear(b.Findings)
	clear(b.Signals)
	clear(b.Advice)
	clear(b.Unknowns)
	b.Reset()
}

// Reset empties b and keeps its capacity.
func (b *Batch) Reset() {
	b.Generation = 0
	b.Attrs = [NumLocations][vocab.NumOutcomes]int64{}
	b.Drops = [vocab.NumReasons]int64{}
	b.Names = [vocab.NumOutcomes]int64{}
	b.Overflow = 0
	b.SchemaURLs = [NumSchemaLevels]int64{}
	b.Services = b.Services[:0]
	b.Relevelled = b.Relevelled[:0]
	clear(b.Associations)
	b.Associations = b.Associations[:0]
	b.Keys = b.Keys[:0]
	b.Findings = b.Findings[:0]
	b.Signals = b.Signals[:0]
	b.Advice = b.Advice[:0]
	b.AdviceRepeats = 0
	b.Unknowns = b.Unknowns[:0]
	b.UnknownsOverflow = 0
}

// LevelCount is how often one service counted one finding at one level.
type LevelCount struct {
	// Service indexes Batch.Services.
	Service int
	Finding vocab.Finding
	Level   vocab.Level
	Count   int64
}

// FindingTotals sums the services' findings by ID.
func (b *Batch) FindingTotals() (t [vocab.NumFindings]int64) {
	for i := range b.Services {
		for f, n := range b.Services[i].Findings {
			t[f] += n
		}
	}
	return t
}

// ServiceTally is one service's attribute and finding counts in one batch.
type ServiceTally struct {
	// Slot is the service's slot in the front-end's ServiceSlots; without
	// them, its index in Batch.Services.
	Slot int
	// Service is the service identity's name: the resource's service.name
	// bounded by vocab.Bound, or vocab.ServiceOther, or
	// vocab.ServiceMissing ("" also reads as missing).
	Service string
	// Outcomes counts attributes by Outcome.
	Outcomes [vocab.NumOutcomes]int64
	// Findings counts findings by Finding (Options.Findings).
	Findings [vocab.NumFindings]int64
}

// KeyTally is how often one key was seen in one batch.
type KeyTally struct {
	// Service indexes Batch.Services.
	Service int
	Key     string
	Kind    KeyKind
	Count   int64
}
