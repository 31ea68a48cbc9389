package engine // import "github.com/otelgov/otelcol-governance/engine"

import (
	"github.com/otelgov/otelcol-governance/registry"

	"github.com/otelgov/otelcol-governance/vocab"
)

// NumLocations is the number of registry locations a tally counts.
const NumLocations = int(registry.LocationLog) + 1

// Counts is one batch's tally. The walker keeps it and the front-end reads
// it once per batch (the processor records it on :8888).
type Counts struct {
	// Attrs counts attributes by location and outcome.
	Attrs [NumLocations][vocab.NumOutcomes]int64
	// Drops counts removed attributes by reason.
	Drops [vocab.NumReasons]int64
	// Names counts metric names by outcome.
	Names [vocab.NumOutcomes]int64
	// Services holds one entry per service slot met in the batch, when the
	// engine was given ServiceSlots.
	Services []ServiceCount
	// Overflow counts resources whose service was folded into the overflow
	// slot by ServiceSlots.
	Overflow int64
	// SchemaURLs counts resources and scopes whose schema_url was set to the
	// registry's because their data was rewritten.
	SchemaURLs [NumSchemaLevels]int64
	// Findings counts Weaver live-check findings by ID (Options.Findings).
	Findings [vocab.NumFindings]int64
}

// ServiceCount is the outcome and finding tally of one service slot.
type ServiceCount struct {
	Slot     int
	Counts   [vocab.NumOutcomes]int64
	Findings [vocab.NumFindings]int64
}

func (c *Counts) reset() {
	c.Attrs = [NumLocations][vocab.NumOutcomes]int64{}
	c.Drops = [vocab.NumReasons]int64{}
	c.Names = [vocab.NumOutcomes]int64{}
	clear(c.Services)
	c.Services = c.Services[:0]
	c.Overflow = 0
	c.SchemaURLs = [NumSchemaLevels]int64{}
	c.Findings = [vocab.NumFindings]int64{}
}

// serviceFindings returns the finding tally of one service slot, adding it
// on first use.
func (c *Counts) serviceFindings(slot int) *[vocab.NumFindings]int64 {
	c.service(slot)
	for i := range c.Services {
		if c.Services[i].Slot == slot {
			return &c.Services[i].Findings
		}
	}
	return nil
}

// service returns the tally of one service slot, adding it on first use.
func (c *Counts) service(slot int) *[vocab.NumOutcomes]int64 {
	for i := range c.Services {
		if c.Services[i].Slot == slot {
			return &c.Services[i].Counts
		}
	}
	c.Services = append(c.Services, ServiceCount{Slot: slot})
	return &c.Services[len(c.Services)-1].Counts
}

// KeyKind says why a key is listed in a Batch.
type KeyKind uint8

const (
	// KeyUnknown is a key no registry defines, kept or dropped (allowed keys
	// are not listed).
	KeyUnknown KeyKind = iota
	// KeyDeprecated is a deprecated key, renamed, copied or kept.
	KeyDeprecated
	// KeyRegistry is a key the registry defines (for a template, the
	// template's key). It feeds registry coverage; its Service is ignored.
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

// Batch is one batch's conformance tally, per service and per key: what the
// conformance report (package conformance) aggregates. The walker owns it and
// reuses it from batch to batch; filling it does not allocate once its slices
// have grown.
type Batch struct {
	// Generation is the generation of the registry the batch was checked
	// against (set by the front-end).
	Generation int64
	// Services holds one entry per distinct service.name in the batch.
	Services []ServiceTally
	// Keys holds one entry per distinct (service, key, kind) in the batch.
	Keys []KeyTally
	// Levels is the level of each finding in the engine that walked the
	// batch (Weaver's, or overridden).
	Levels [vocab.NumFindings]vocab.Level
	// Findings holds one entry per distinct (service, finding, subject,
	// name) in the batch.
	Findings []FindingTally
	// Signals holds one entry per registry definition checked in the batch.
	Signals []SignalTally
}

// FindingTally is how often one finding was reported for one name in one
// batch.
type FindingTally struct {
	// Service indexes Batch.Services.
	Service int
	Finding vocab.Finding
	Subject vocab.Subject
	// Name is the attribute key, metric name, event name or span
	// definition the finding is about.
	Name  string
	Count int64
}

// SignalTally is one registry definition's use in one batch: how many
// items it checked and which of its attributes they carried.
type SignalTally struct {
	Signal *registry.Signal
	Count  int64
	Seen   registry.AttrBits
}

// Reset empties b and keeps its capacity.
func (b *Batch) Reset() {
	b.Generation = 0
	b.Services = b.Services[:0]
	b.Keys = b.Keys[:0]
	b.Findings = b.Findings[:0]
	b.Signals = b.Signals[:0]
}

// ServiceTally is one service's attribute counts in one batch.
type ServiceTally struct {
	// Service is the resource's service.name; "" when it has none (the
	// report lists those under "_missing").
	Service string
	// Outcomes counts attributes by Outcome.
	Outcomes [vocab.NumOutcomes]int64
	// Findings counts findings by Finding.
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
