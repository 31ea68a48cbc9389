package governanceprocessor // import "github.com/otelgov/otelcol-governance/processor/governanceprocessor"

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/otelgov/otelcol-governance/conformance"
	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/processor/governanceprocessor/internal/metadata"
	"github.com/otelgov/otelcol-governance/registry"
)

// signal is the pipeline signal of one processor instance.
type signal uint8

const (
	signalTraces signal = iota
	signalMetrics
	signalLogs
)

func (s signal) String() string {
	switch s {
	case signalTraces:
		return "traces"
	case signalMetrics:
		return "metrics"
	case signalLogs:
		return "logs"
	}
	return "unknown"
}

// Fixed per-service slots; named services follow.
const (
	serviceOther   = "_other"   // services beyond service_limit
	serviceMissing = "_missing" // resources without a string service.name
)

// telemetry wraps the generated TelemetryBuilder. Every attribute set is built
// once, here, so that recording a batch allocates nothing.
type telemetry struct {
	tb       *metadata.TelemetryBuilder
	base     []attribute.KeyValue // processor and otel.signal, on every series
	attrs    [engine.NumLocations][engine.NumOutcomes][]metric.AddOption
	drops    [engine.NumReasons][]metric.AddOption
	names    [engine.NumOutcomes][]metric.AddOption
	overflow []metric.AddOption
	services *serviceTable
}

// The attribute keys of processor and signal are those of the collector's own
// processor metrics (otelcol_processor_incoming_items), so that one PromQL
// selector matches both.
const (
	processorKey = "processor"
	signalKey    = "otel.signal"
)

func newTelemetry(set component.TelemetrySettings, id component.ID, sig signal, serviceLimit int) (*telemetry, error) {
	tb, err := metadata.NewTelemetryBuilder(set)
	if err != nil {
		return nil, fmt.Errorf("create telemetry: %w", err)
	}
	base := []attribute.KeyValue{
		attribute.String(processorKey, id.String()),
		attribute.String(signalKey, sig.String()),
	}
	t := &telemetry{tb: tb, base: base, services: newServiceTable(base, serviceLimit)}
	for l := registry.LocationResource; l <= registry.LocationLog; l++ {
		loc := attribute.String("location", l.String())
		for o := range engine.NumOutcomes {
			t.attrs[l][o] = addOpts(base, loc, attribute.String("outcome", o.String()))
		}
	}
	for r := range engine.NumReasons {
		t.drops[r] = addOpts(base, attribute.String("reason", r.String()))
	}
	for o := range engine.NumOutcomes {
		t.names[o] = addOpts(base, attribute.String("outcome", o.String()))
	}
	t.overflow = addOpts(base)
	return t, nil
}

func addOpts(base []attribute.KeyValue, kvs ...attribute.KeyValue) []metric.AddOption {
	all := append(append(make([]attribute.KeyValue, 0, len(base)+len(kvs)), base...), kvs...)
	return []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(all...))}
}

// recordRegistry records the info gauge naming a registry: 1 for the one in
// force, 0 for one it replaced (so that a query for == 1 finds one series).
func (t *telemetry) recordRegistry(ctx context.Context, ix *registry.Index, generation, value int64) {
	t.tb.ProcessorGovernanceRegistryInfo.Record(ctx, value, metric.WithAttributes(append(t.base[:len(t.base):len(t.base)],
		attribute.String("schema_url", ix.SchemaURL()),
		attribute.String("digest", ix.Digest()),
		attribute.Int64("generation", generation),
	)...))
}

// record adds one batch's counts to the instruments.
func (t *telemetry) record(ctx context.Context, c *engine.Counts) {
	for l := range c.Attrs {
		for o, n := range c.Attrs[l] {
			if n > 0 {
				t.tb.ProcessorGovernanceAttributes.Add(ctx, n, t.attrs[l][o]...)
			}
		}
	}
	for r, n := range c.Drops {
		if n > 0 {
			t.tb.ProcessorGovernanceAttributesDropped.Add(ctx, n, t.drops[r]...)
		}
	}
	for o, n := range c.Names {
		if n > 0 {
			t.tb.ProcessorGovernanceMetricNames.Add(ctx, n, t.names[o]...)
		}
	}
	for i := range c.Services {
		s := &c.Services[i]
		slot := t.services.get(s.Slot)
		for o, n := range s.Counts {
			if n > 0 {
				t.tb.ProcessorGovernanceServiceAttributes.Add(ctx, n, slot.opts[o]...)
			}
		}
	}
	if c.Overflow > 0 {
		t.tb.ProcessorGovernanceServiceOverflow.Add(ctx, c.Overflow, t.overflow...)
	}
	if n := t.services.takeBounded(); n > 0 {
		t.tb.ProcessorGovernanceServiceNameBounded.Add(ctx, n, t.overflow...)
	}
}

func (t *telemetry) shutdown() {
	t.tb.Shutdown()
}

// serviceSlot is one service.name series; immutable once created.
type serviceSlot struct {
	opts [engine.NumOutcomes][]metric.AddOption
}

func newServiceSlot(base []attribute.KeyValue, name string) *serviceSlot {
	s := &serviceSlot{}
	svc := attribute.String("service.name", name)
	for o := range engine.NumOutcomes {
		s.opts[o] = addOpts(base, svc, attribute.String("outcome", o.String()))
	}
	return s
}

// Fixed slots of the service table; named services follow.
const (
	slotOther   = 0
	slotMissing = 1
)

// serviceTable bounds the cardinality of the per-service metric: the first
// limit distinct names get their own series, later ones share "_other". It
// also bounds each label value: a name is cut to conformance.MaxKeyLength
// bytes and made valid UTF-8 (conformance.Bound), the same bound as the
// conformance report, so that one client sending a huge or malformed
// service.name cannot bloat every scrape. Names equal after bounding share a
// series. It is the engine's ServiceSlots.
type serviceTable struct {
	mu      sync.Mutex
	base    []attribute.KeyValue
	limit   int
	index   map[string]int // bounded name -> slot
	slots   []*serviceSlot // by slot; append-only
	bounded atomic.Int64   // names cut or repaired since the last takeBounded
}

var _ engine.ServiceSlots = (*serviceTable)(nil)

func newServiceTable(base []attribute.KeyValue, limit int) *serviceTable {
	return &serviceTable{
		base:  base,
		limit: limit,
		index: make(map[string]int, min(limit, 1024)),
		slots: []*serviceSlot{slotOther: newServiceSlot(base, serviceOther), slotMissing: newServiceSlot(base, serviceMissing)},
	}
}

// Missing is the slot of resources without a string service.name.
func (*serviceTable) Missing() int { return slotMissing }

// Slot returns the slot of a service name; overflow reports that the name
// was folded into "_other". Only a name seen for the first time allocates.
func (st *serviceTable) Slot(name string) (slot int, overflow bool) {
	label, changed := conformance.Bound(name)
	st.mu.Lock()
	defer st.mu.Unlock()
	if changed {
		st.bounded.Add(1)
	}
	if i, ok := st.index[label]; ok {
		return i, false
	}
	if len(st.index) >= st.limit {
		return slotOther, true
	}
	// Clone so the table does not pin the batch that carried the name.
	label = strings.Clone(label)
	slot = len(st.slots)
	st.slots = append(st.slots, newServiceSlot(st.base, label))
	st.index[label] = slot
	return slot, false
}

// takeBounded returns and resets the count of names cut or repaired.
// A batch without such a name costs one atomic load.
func (st *serviceTable) takeBounded() int64 {
	if st.bounded.Load() == 0 {
		return 0
	}
	return st.bounded.Swap(0)
}

// get returns the series of a slot.
func (st *serviceTable) get(slot int) *serviceSlot {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.slots[slot]
}
