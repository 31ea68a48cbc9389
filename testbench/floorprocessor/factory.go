// Package floorprocessor is the line rate's floor (#38): a traces
// processor that walks exactly the maps the governance engine walks and,
// for each attribute, reads its key, compares it with the key expected at
// that position and reads the value's type, deciding nothing
// (enginetest.FloorKeys, the engine's micro floor). It is built only into
// the testbench's own collector (testbench/builder-config.yaml, `make
// floor`), never into the distribution.
package floorprocessor // import "github.com/otelgov/otelcol-governance/testbench/floorprocessor"

import (
	"context"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processorhelper"
)

// typ is the processor's type in a collector configuration: `floor`.
var typ = component.MustNewType("floor")

// config has no options: the floor learns the keys it expects from the
// first batch it sees.
type config struct{}

var _ component.Config = (*config)(nil)

// NewFactory returns the factory of the floor processor.
func NewFactory() processor.Factory {
	return processor.NewFactory(typ, func() component.Config { return &config{} },
		processor.WithTraces(createTraces, component.StabilityLevelDevelopment))
}

func createTraces(ctx context.Context, set processor.Settings, cfg component.Config, next consumer.Traces) (processor.Traces, error) {
	p := &floor{logger: set.Logger}
	return processorhelper.NewTraces(ctx, set, cfg, next, p.processTraces,
		processorhelper.WithCapabilities(consumer.Capabilities{MutatesData: false}),
		processorhelper.WithShutdown(p.shutdown))
}
