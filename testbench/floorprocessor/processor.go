package floorprocessor

import (
	"context"
	"sync/atomic"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/zap"

	"github.com/otelgov/otelcol-governance/engine/enginetest"
)

// floor runs enginetest's floor walk over every batch.
type floor struct {
	logger *zap.Logger
	// keys are the expected keys, learnt from the first batch and read
	// only after that.
	keys atomic.Pointer[enginetest.FloorKeys]
	// batches, misses and types tally the walks, once per batch: the
	// keys that were not the expected ones and the sum of the values'
	// types (so that no read can be optimized away).
	batches, misses, types atomic.Int64
}

func (p *floor) processTraces(_ context.Context, td ptrace.Traces) (ptrace.Traces, error) {
	keys := p.keys.Load()
	if keys == nil {
		p.keys.CompareAndSwap(nil, enginetest.LearnFloor(td))
		keys = p.keys.Load()
	}
	w := enginetest.FloorWalk{Keys: keys}
	w.Walk(td)
	p.batches.Add(1)
	p.misses.Add(int64(w.Miss))
	p.types.Add(int64(w.Types))
	return td, nil
}

// shutdown logs the tallies: a floor whose keys missed did more than a
// memo hit's work.
func (p *floor) shutdown(context.Context) error {
	p.logger.Info("Floor processor stopped",
		zap.Int64("batches", p.batches.Load()), zap.Int64("keys_not_expected", p.misses.Load()), zap.Int64("value_type_sum", p.types.Load()))
	return nil
}
