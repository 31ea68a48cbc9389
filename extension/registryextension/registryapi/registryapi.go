// Package registryapi is the contract between the governance_registry
// extension and the governance processors that consume it. It is kept tiny
// on purpose: a processor imports it, never the extension package.
//
// A processor that names a registry extension in its configuration finds it
// in Start with Lookup. Per batch it then:
//
//  1. loads the registry in force once, with Current, and uses that one
//     snapshot for the whole batch, so that a batch that started before a
//     reload finishes on the old registry and the next batch uses the new one;
//  2. aggregates what it saw in a Batch it owns and reuses (per-service
//     outcome counts, and unknown, deprecated and registry keys with counts);
//  3. hands the Batch to Report once.
//
// Neither call blocks on a reload or allocates on the processor's side.
package registryapi // import "github.com/otelgov/otelcol-governance/extension/registryextension/registryapi"

import (
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/collector/component"

	"github.com/otelgov/otelcol-governance/registry"
)

// Registry is what the governance_registry extension offers processors. All
// methods are safe for concurrent use.
type Registry interface {
	// Current returns the registry in force. It is never nil once the
	// extension has started, and it does not allocate: it is one atomic
	// load. The snapshot is immutable.
	Current() *Snapshot

	// Report adds one batch's tally to the extension's conformance report.
	// It is called once per batch. It does not retain b or its slices
	// after it returns (strings it keeps are copied), so the caller may
	// reuse b at once.
	Report(b *Batch)
}

// Snapshot is one successfully loaded registry.
type Snapshot struct {
	// Index is the resolved registry.
	Index *registry.Index
	// Generation counts successful loads: 1 for the load at start, then one
	// more for every reload that changed the registry files and succeeded.
	Generation int64
	// LoadedAt is when this snapshot was loaded.
	LoadedAt time.Time
}

// Outcome is what a processor found and did for one attribute. The values
// and their order are those of the governance processor's `outcome`
// attribute.
type Outcome uint8

const (
	OutcomeConformant     Outcome = iota // known, current, right type and enum member
	OutcomeAllowed                       // not in the registry but on the allow list
	OutcomeRenamed                       // deprecated key replaced by its current name
	OutcomeCopied                        // current name added next to the deprecated key
	OutcomeConflict                      // current name already present with another value
	OutcomeDeprecatedKept                // deprecated and left in place
	OutcomeUnknown                       // not in the registry, kept
	OutcomeTypeMismatch                  // value type differs from the declared type, kept
	OutcomeEnumViolation                 // value outside a closed enum, kept
	OutcomeCoerced                       // value converted losslessly to the declared type
	OutcomeDropped                       // removed
	OutcomeIncompatible                  // metric names only: target does not fit the data
	NumOutcomes
)

var outcomeNames = [NumOutcomes]string{
	"conformant", "allowed", "renamed", "copied", "conflict", "deprecated_kept",
	"unknown", "type_mismatch", "enum_violation", "coerced", "dropped", "incompatible",
}

// String returns the outcome's name as used in metrics and in the report.
func (o Outcome) String() string {
	if o < NumOutcomes {
		return outcomeNames[o]
	}
	return "invalid"
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

// Batch is one batch's tally. The processor owns it and reuses it from batch
// to batch; filling it must not allocate once its slices have grown.
type Batch struct {
	// Generation is the generation of the snapshot the batch was checked
	// against.
	Generation int64
	// Services holds one entry per distinct service.name in the batch.
	Services []ServiceTally
	// Keys holds one entry per distinct (service, key, kind) in the batch.
	Keys []KeyTally
}

// Reset empties b and keeps its capacity.
func (b *Batch) Reset() {
	b.Generation = 0
	b.Services = b.Services[:0]
	b.Keys = b.Keys[:0]
}

// ServiceTally is one service's attribute counts in one batch.
type ServiceTally struct {
	// Service is the resource's service.name; "" when it has none (the
	// report lists those under "_missing").
	Service string
	// Outcomes counts attributes by Outcome.
	Outcomes [NumOutcomes]int64
}

// KeyTally is how often one key was seen in one batch.
type KeyTally struct {
	// Service indexes Batch.Services.
	Service int
	Key     string
	Kind    KeyKind
	Count   int64
}

// Errors of Lookup; processors wrap them and tests match them with errors.Is.
var (
	ErrNotFound  = errors.New("registry extension not found")
	ErrWrongType = errors.New("extension is not a governance registry")
)

// Lookup returns the registry extension id among the host's extensions. It
// is meant for a processor's Start.
func Lookup(host component.Host, id component.ID) (Registry, error) {
	ext, ok := host.GetExtensions()[id]
	if !ok {
		return nil, fmt.Errorf("%q: %w (add it under extensions: and service::extensions)", id, ErrNotFound)
	}
	r, ok := ext.(Registry)
	if !ok {
		return nil, fmt.Errorf("%q: %w: %T", id, ErrWrongType, ext)
	}
	return r, nil
}
