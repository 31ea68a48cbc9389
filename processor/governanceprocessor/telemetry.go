package governanceprocessor // import "github.com/otelgov/otelcol-governance/processor/governanceprocessor"

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

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

// outcome is what the processor found and did for one attribute or one
// metric name. Every attribute gets exactly one outcome.
type outcome uint8

const (
	outcomeConformant     outcome = iota // known, current, right type and enum member
	outcomeAllowed                       // not in the registry but on the allow list
	outcomeRenamed                       // deprecated key replaced by its current name (or deduplicated)
	outcomeCopied                        // current name added next to the deprecated key
	outcomeConflict                      // current name already present with another value; old key dropped (rename) or kept (copy)
	outcomeDeprecatedKept                // deprecated and left in place (no target, deprecated: off, or read-only data)
	outcomeUnknown                       // not in the registry, kept
	outcomeTypeMismatch                  // value type differs from the declared type, kept
	outcomeEnumViolation                 // value outside a closed enum, kept
	outcomeCoerced                       // value converted losslessly to the declared type
	outcomeDropped                       // removed; the reason is counted separately
	outcomeIncompatible                  // metric names only: renamed in the registry but data does not fit the target
	numOutcomes
)

func (o outcome) String() string {
	switch o {
	case outcomeConformant:
		return "conformant"
	case outcomeAllowed:
		return "allowed"
	case outcomeRenamed:
		return "renamed"
	case outcomeCopied:
		return "copied"
	case outcomeConflict:
		return "conflict"
	case outcomeDeprecatedKept:
		return "deprecated_kept"
	case outcomeUnknown:
		return "unknown"
	case outcomeTypeMismatch:
		return "type_mismatch"
	case outcomeEnumViolation:
		return "enum_violation"
	case outcomeCoerced:
		return "coerced"
	case outcomeDropped:
		return "dropped"
	case outcomeIncompatible:
		return "incompatible"
	case numOutcomes:
	}
	return "invalid"
}

// dropReason says why an attribute was removed.
type dropReason uint8

const (
	reasonUnknown dropReason = iota
	reasonTypeMismatch
	reasonEnumViolation
	numReasons
)

func (r dropReason) String() string {
	switch r {
	case reasonUnknown:
		return "unknown"
	case reasonTypeMismatch:
		return "type_mismatch"
	case reasonEnumViolation:
		return "enum_violation"
	case numReasons:
	}
	return "invalid"
}

const numLocations = int(registry.LocationLog) + 1

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
	attrs    [numLocations][numOutcomes][]metric.AddOption
	drops    [numReasons][]metric.AddOption
	names    [numOutcomes][]metric.AddOption
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
		for o := range numOutcomes {
			t.attrs[l][o] = addOpts(base, loc, attribute.String("outcome", o.String()))
		}
	}
	for r := range numReasons {
		t.drops[r] = addOpts(base, attribute.String("reason", r.String()))
	}
	for o := range numOutcomes {
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
func (t *telemetry) record(ctx context.Context, c *counts) {
	for l := range c.attrs {
		for o, n := range c.attrs[l] {
			if n > 0 {
				t.tb.ProcessorGovernanceAttributes.Add(ctx, n, t.attrs[l][o]...)
			}
		}
	}
	for r, n := range c.drops {
		if n > 0 {
			t.tb.ProcessorGovernanceAttributesDropped.Add(ctx, n, t.drops[r]...)
		}
	}
	for o, n := range c.names {
		if n > 0 {
			t.tb.ProcessorGovernanceMetricNames.Add(ctx, n, t.names[o]...)
		}
	}
	for i := range c.services {
		s := &c.services[i]
		for o, n := range s.counts {
			if n > 0 {
				t.tb.ProcessorGovernanceServiceAttributes.Add(ctx, n, s.slot.opts[o]...)
			}
		}
	}
	if c.overflow > 0 {
		t.tb.ProcessorGovernanceServiceOverflow.Add(ctx, c.overflow, t.overflow...)
	}
}

func (t *telemetry) shutdown() {
	t.tb.Shutdown()
}

// counts is one batch's tally, kept in the walker and recorded once.
type counts struct {
	attrs    [numLocations][numOutcomes]int64
	drops    [numReasons]int64
	names    [numOutcomes]int64
	services []serviceCount
	overflow int64
}

func (c *counts) reset() {
	c.attrs = [numLocations][numOutcomes]int64{}
	c.drops = [numReasons]int64{}
	c.names = [numOutcomes]int64{}
	c.services = c.services[:0]
	c.overflow = 0
}

// service returns the tally of one service slot, adding it on first use.
func (c *counts) service(slot *serviceSlot) *[numOutcomes]int64 {
	for i := range c.services {
		if c.services[i].slot == slot {
			return &c.services[i].counts
		}
	}
	c.services = append(c.services, serviceCount{slot: slot})
	return &c.services[len(c.services)-1].counts
}

type serviceCount struct {
	slot   *serviceSlot
	counts [numOutcomes]int64
}

// serviceSlot is one service.name series; immutable once created.
type serviceSlot struct {
	opts [numOutcomes][]metric.AddOption
}

func newServiceSlot(base []attribute.KeyValue, name string) *serviceSlot {
	s := &serviceSlot{}
	svc := attribute.String("service.name", name)
	for o := range numOutcomes {
		s.opts[o] = addOpts(base, svc, attribute.String("outcome", o.String()))
	}
	return s
}

// serviceTable bounds the cardinality of the per-service metric: the first
// limit distinct names get their own series, later ones share "_other".
type serviceTable struct {
	mu      sync.Mutex
	base    []attribute.KeyValue
	limit   int
	slots   map[string]*serviceSlot
	other   *serviceSlot
	missing *serviceSlot
}

func newServiceTable(base []attribute.KeyValue, limit int) *serviceTable {
	return &serviceTable{
		base:    base,
		limit:   limit,
		slots:   make(map[string]*serviceSlot, min(limit, 1024)),
		other:   newServiceSlot(base, serviceOther),
		missing: newServiceSlot(base, serviceMissing),
	}
}

// slot returns the series of a service name; overflow reports that the name
// was folded into "_other". Only a name seen for the first time allocates.
func (st *serviceTable) slot(name string) (s *serviceSlot, overflow bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if s, ok := st.slots[name]; ok {
		return s, false
	}
	if len(st.slots) >= st.limit {
		return st.other, true
	}
	s = newServiceSlot(st.base, name)
	// Clone so the table does not pin the batch that carried the name.
	st.slots[strings.Clone(name)] = s
	return s, false
}
