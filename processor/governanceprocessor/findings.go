package governanceprocessor // import "github.com/otelgov/otelcol-governance/processor/governanceprocessor"

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/vocab"
)

// findingLevels is the level of each finding under the configuration's
// overrides; nil when the signal checks are off.
type findingLevels [vocab.NumFindings]vocab.Level

// levelsOf asks the engine, the one place that applies level overrides,
// for the level each finding is counted at.
func levelsOf(e *engine.Engine, findings bool) *findingLevels {
	if !findings {
		return nil
	}
	var l findingLevels
	for f := range l {
		l[f] = e.Level(vocab.Finding(f))
	}
	return &l
}

// findingCounters holds one series per finding ID (its level is fixed by
// the configuration); empty when the signal checks are off.
type findingCounters []counter

func newFindingCounters(base []attribute.KeyValue, levels *findingLevels, svc *attribute.KeyValue) findingCounters {
	if levels == nil {
		return nil
	}
	c := make(findingCounters, vocab.NumFindings)
	for f := range vocab.NumFindings {
		kvs := []attribute.KeyValue{attribute.String("finding", f.String()), attribute.String("level", levels[f].String())}
		if svc != nil {
			kvs = append([]attribute.KeyValue{*svc}, kvs...)
		}
		c[f].opts = observeOpts(base, kvs...)
	}
	return c
}

// add adds one batch's findings.
func (c findingCounters) add(n *[vocab.NumFindings]int64) {
	for f := range c {
		c[f].add(n[f])
	}
}

// observe reports every finding series that has counted something.
func (c findingCounters) observe(o metric.Int64Observer) {
	for f := range c {
		c[f].observe(o)
	}
}
