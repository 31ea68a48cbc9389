package governanceprocessor // import "github.com/otelgov/otelcol-governance/processor/governanceprocessor"

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/otelgov/otelcol-governance/engine"
)

// findingLevels is the level of each finding under the configuration's
// overrides; nil when the signal checks are off.
type findingLevels [engine.NumFindings]engine.Level

func levelsOf(opts *engine.Options) *findingLevels {
	if !opts.Findings {
		return nil
	}
	var l findingLevels
	for f := range engine.NumFindings {
		l[f] = engine.DefaultLevel(f)
		if o, ok := opts.LevelOverrides[f]; ok {
			l[f] = o
		}
	}
	return &l
}

// findingOpts holds one attribute set per finding ID (its level is fixed by
// the configuration), built once so that recording allocates nothing.
type findingOpts [engine.NumFindings][]metric.AddOption

func newFindingOpts(base []attribute.KeyValue, levels *findingLevels, svc *attribute.KeyValue) findingOpts {
	var o findingOpts
	if levels == nil {
		return o
	}
	for f := range engine.NumFindings {
		kvs := []attribute.KeyValue{attribute.String("finding", f.String()), attribute.String("level", levels[f].String())}
		if svc != nil {
			kvs = append([]attribute.KeyValue{*svc}, kvs...)
		}
		o[f] = addOpts(base, kvs...)
	}
	return o
}

// recordFindings adds one batch's findings.
func (t *telemetry) recordFindings(ctx context.Context, c *[engine.NumFindings]int64) {
	for f, n := range c {
		if n > 0 && t.findings[f] != nil {
			t.tb.ProcessorGovernanceFindings.Add(ctx, n, t.findings[f]...)
		}
	}
}

// recordServiceFindings adds one service slot's findings.
func (t *telemetry) recordServiceFindings(ctx context.Context, slot *serviceSlot, c *[engine.NumFindings]int64) {
	for f, n := range c {
		if n > 0 && slot.findings[f] != nil {
			t.tb.ProcessorGovernanceServiceFindings.Add(ctx, n, slot.findings[f]...)
		}
	}
}
