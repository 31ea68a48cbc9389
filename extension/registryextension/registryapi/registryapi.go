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

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/policy"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/registry/change"
	"github.com/otelgov/otelcol-governance/vocab"
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

// UnknownTracker is implemented by a Registry that keeps the inference
// sketch (the extension's infer section). A processor asks it once, in
// Start, and then has each batch's walker track the context of unknown
// keys (engine.Walker.TrackUnknowns) before it hands the Batch to Report.
type UnknownTracker interface {
	// TracksUnknowns reports whether the sketch is on and whether it keeps
	// values (examples and enum members).
	TracksUnknowns() (on, values bool)
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
	// Policies are the extension's advice policies compiled against Index;
	// nil when it has none. They reload with the registry: a policy that
	// does not compile fails the reload, and the last good snapshot (its
	// registry and policies) stays in force.
	Policies *policy.Set
}

// The per-batch tally is the engine's: the processor hands the walker's
// Batch to Report as it is.
type (
	Batch        = engine.Batch
	ServiceTally = engine.ServiceTally
	KeyTally     = engine.KeyTally
	KeyKind      = engine.KeyKind
	Outcome      = vocab.Outcome
)

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

// Shadower is offered by a registry extension that has a candidate
// registry configured (its candidate section): a processor finds it with a
// type assertion on the Registry in Start, and evaluates the candidate
// read-only on a sample of its batches.
type Shadower interface {
	// Shadow returns the candidate's state against the registry in force:
	// nil when the extension has no candidate configured (or before its
	// Start), never nil after Start when it has one. It does not allocate:
	// it is one atomic load. The value is immutable.
	Shadow() *Shadow
}

// Shadow is a candidate registry compared with the registry in force.
type Shadow struct {
	// Changes is change.Diff(active, candidate) indexed by the names data
	// carries, computed once when either side loads. nil when the latest
	// candidate failed to load: a failed candidate is never evaluated.
	Changes *change.Lookup
	// Generation counts the candidate's successful loads: 1 for the load
	// at start. It stays at the last good load when a candidate fails; 0
	// when none ever loaded.
	Generation int64
	// ActiveGeneration is the generation of the registry in force that
	// Changes was computed against.
	ActiveGeneration int64
	// Err is why the latest candidate did not load; "" when it loaded.
	Err string
	// SchemaURL and Digest name the candidate that loaded ("" when Err).
	SchemaURL, Digest string
}

// Failed reports whether the latest candidate did not load.
func (s *Shadow) Failed() bool { return s.Err != "" }
