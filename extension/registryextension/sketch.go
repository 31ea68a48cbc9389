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

// serveEvidence renders GET /infer/evidence: the sketch as infer.Evidence.
func (e *registryExtension) serveEvidence(w http.ResponseWriter, _ *http.Request) {
	s := e.sketch
	s.mu.Lock()
	defer s.mu.Unlock() // the evidence is encoded under the lock: no copy
	e.writeJSON(w, http.StatusOK, s.acc.Evidence())
}
