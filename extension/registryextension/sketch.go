package registryextension // import "github.com/otelgov/otelcol-governance/extension/registryextension"

import (
	"net/http"
	"sync"

	"github.com/otelgov/otelcol-governance/extension/registryextension/registryapi"
	"github.com/otelgov/otelcol-governance/infer"
)

// sketch is the inference sketch (Config.Infer): an infer.Accumulator fed
// only from the processors' per-batch tallies of unknown keys, never from
// the telemetry itself, behind one lock taken once per batch.
type sketch struct {
	values bool
	mu     sync.Mutex
	acc    *infer.Accumulator
}

func newSketch(cfg *InferConfig) *sketch {
	if !cfg.Enabled {
		return nil
	}
	return &sketch{
		values: cfg.Examples,
		acc:    infer.New(infer.Limits{MaxAttributes: cfg.MaxAttributes, MaxServices: cfg.MaxServices}),
	}
}

// add merges one batch's unknown keys.
func (s *sketch) add(b *registryapi.Batch) {
	s.mu.Lock()
	s.acc.AddUnknowns(b)
	s.mu.Unlock()
}

var _ registryapi.UnknownTracker = (*registryExtension)(nil)

// TracksUnknowns reports whether the sketch is on and keeps values.
func (e *registryExtension) TracksUnknowns() (on, values bool) {
	if e.sketch == nil {
		return false, false
	}
	return true, e.sketch.values
}

// snapshot is a copy of the sketch's evidence, taken under the lock.
func (s *sketch) snapshot() *infer.Evidence {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.acc.Evidence().Clone()
}

// serveEvidence renders GET /infer/evidence: the sketch as infer.Evidence.
// The lock is held only to copy the sketch, never while writing: every
// processor's Report takes it per batch, and a slow reader must not stall
// the pipelines.
func (e *registryExtension) serveEvidence(w http.ResponseWriter, _ *http.Request) {
	e.writeJSON(w, http.StatusOK, e.sketch.snapshot())
}
