package engine // import "github.com/otelgov/otelcol-governance/engine"

import "github.com/otelgov/otelcol-governance/registry"

// Outcome is what the engine found and did for one attribute or one metric
// name. Every attribute gets exactly one outcome. The names are the values
// of the `outcome` label on :8888 and the keys of the conformance report.
type Outcome uint8

const (
	OutcomeConformant     Outcome = iota // known, current, right type and enum member
	OutcomeAllowed                       // not in the registry but on the allow list
	OutcomeRenamed                       // deprecated key replaced by its current name (or deduplicated)
	OutcomeCopied                        // current name added next to the deprecated key
	OutcomeConflict                      // current name already present with another value; old key dropped (rename) or kept (copy)
	OutcomeDeprecatedKept                // deprecated and left in place (no target, deprecated: off, or read-only data)
	OutcomeUnknown                       // not in the registry, kept
	OutcomeTypeMismatch                  // value type differs from the declared type, kept
	OutcomeEnumViolation                 // value outside a closed enum, kept
	OutcomeCoerced                       // value converted losslessly to the declared type
	OutcomeDropped                       // removed; the reason is counted separately
	OutcomeIncompatible                  // metric names only: renamed in the registry but data does not fit the target
	// Value migrations (values.go).
	OutcomeValueRenamed         // value replaced by its current enum member or value map entry (with or without a key rename)
	OutcomeConverted            // value converted losslessly by a rule (int to string, string to string[]) and renamed
	OutcomeSplit                // value split into several current attributes
	OutcomeMerged               // value merged with others into one current attribute
	OutcomeMoved                // value moved out of the attributes into a field (LogRecord.EventName, span status description)
	OutcomeUndefinedEnumVariant // value outside an open enum's members, kept (Weaver's undefined_enum_variant)
	NumOutcomes
)

var outcomeNames = [NumOutcomes]string{
	"conformant", "allowed", "renamed", "copied", "conflict", "deprecated_kept",
	"unknown", "type_mismatch", "enum_violation", "coerced", "dropped", "incompatible",
	"value_renamed", "converted", "split", "merged", "moved", "undefined_enum_variant",
}

// String returns the outcome's name as used in metrics and in the report.
func (o Outcome) String() string {
	if o < NumOutcomes {
		return outcomeNames[o]
	}
	return "invalid"
}

// DropReason says why an attribute was removed.
type DropReason uint8

const (
	ReasonUnknown DropReason = iota
	ReasonTypeMismatch
	ReasonEnumViolation
	ReasonUnexpected // outside a registry metric's attribute set (drop_unexpected_attributes)
	NumReasons
)

var reasonNames = [NumReasons]string{"unknown", "type_mismatch", "enum_violation", "unexpected"}

// String returns the reason's name as used in metrics.
func (r DropReason) String() string {
	if r < NumReasons {
		return reasonNames[r]
	}
	return "invalid"
}

// NumLocations is the number of registry locations a tally counts.
const NumLocations = int(registry.LocationLog) + 1

// Counts is one batch's tally. The walker keeps it and the front-end reads
// it once per batch (the processor records it on :8888).
type Counts struct {
	// Attrs counts attributes by location and outcome.
	Attrs [NumLocations][NumOutcomes]int64
	// Drops counts removed attributes by reason.
	Drops [NumReasons]int64
	// Names counts metric names by outcome.
	Names [NumOutcomes]int64
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
	Findings [NumFindings]int64
}

// ServiceCount is the outcome and finding tally of one service slot.
type ServiceCount struct {
	Slot     int
	Counts   [NumOutcomes]int64
	Findings [NumFindings]int64
}

func (c *Counts) reset() {
	c.Attrs = [NumLocations][NumOutcomes]int64{}
	c.Drops = [NumReasons]int64{}
	c.Names = [NumOutcomes]int64{}
	clear(c.Services)
	c.Services = c.Services[:0]
	c.Overflow = 0
	c.SchemaURLs = [NumSchemaLevels]int64{}
	c.Findings = [NumFindings]int64{}
}

// serviceFindings returns the finding tally of one service slot, adding it
// on first use.
func (c *Counts) serviceFindings(slot int) *[NumFindings]int64 {
	c.service(slot)
	for i := range c.Services {
		if c.Services[i].Slot == slot {
			return &c.Services[i].Findings
		}
	}
	return nil
}

// service returns the tally of one service slot, adding it on first use.
func (c *Counts) service(slot int) *[NumOutcomes]int64 {
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
	Levels [NumFindings]Level
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
	Finding Finding
	Subject Subject
	// Name is the attribute key, metric name, event name or span
	// definition the finding is about.
	Name  string
	Count int64
}

// SignalTally is one registry definition's use in one batch: how many
// items it checked and which of its attributes they carried.
type SignalTally struct {
	Signal *registry.Group
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
	Outcomes [NumOutcomes]int64
	// Findings counts findings by Finding.
	Findings [NumFindings]int64
}

// KeyTally is how often one key was seen in one batch.
type KeyTally struct {
	// Service indexes Batch.Services.
	Service int
	Key     string
	Kind    KeyKind
	Count   int64
}
