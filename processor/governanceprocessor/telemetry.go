package governanceprocessor // import "github.com/otelgov/otelcol-governance/processor/governanceprocessor"

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/processor/governanceprocessor/internal/metadata"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/registry/change"
	"github.com/otelgov/otelcol-governance/vocab"
)

// telemetry wraps the generated TelemetryBuilder. The per-batch counters are
// observable: a batch adds its tally to atomic counters here (a handful of
// uncontended atomic adds), and the SDK reads them through callbacks only
// when it collects (a scrape of :8888). A synchronous Add costs several
// hundred nanoseconds in the SDK (attribute-set resolution and
// deduplication, aggregation lookup), and a batch records up to a dozen of
// them: that was most of the fixed cost per batch. Every attribute set is
// built once, here, so that neither recording nor collecting allocates per
// series.
type telemetry struct {
	tb   *metadata.TelemetryBuilder
	base []attribute.KeyValue // processor and otel.signal, on every series

	attrs    [engine.NumLocations][vocab.NumOutcomes]counter
	drops    [vocab.NumReasons]counter
	names    [vocab.NumOutcomes]counter
	overflow counter
	schema   [engine.NumSchemaLevels]counter
	services *serviceTable
	// findings counts findings by ID; its series exist only when the
	// signal checks are on (levels non-nil).
	findings findingCounters
	// associations counts entity_association_not_satisfied by its entity
	// types.
	associations *associationCounters
}

// counter is one series of an observable counter: its running total and
// its attribute set.
type counter struct {
	n    atomic.Int64
	opts []metric.ObserveOption
}

func (c *counter) add(n int64) {
	if n != 0 {
		c.n.Add(n)
	}
}

// observe reports the total of a series that has counted something: like a
// synchronous counter, a series appears with its first count.
func (c *counter) observe(o metric.Int64Observer) {
	if n := c.n.Load(); n > 0 {
		o.Observe(n, c.opts...)
	}
}

// The attribute keys of processor and signal are those of the collector's own
// processor metrics (otelcol_processor_incoming_items), so that one PromQL
// selector matches both.
const (
	processorKey = "processor"
	signalKey    = "otel.signal"
)

// newTelemetry builds the processor's counters. services is the engine's
// ServiceSlots; levels are the engine's finding levels (nil when the
// signal checks are off); memo reads the engine's shape memo counters.
func newTelemetry(set component.TelemetrySettings, id component.ID, sig vocab.Kind, services *serviceTable, levels *findingLevels, memo func() engine.MemoStats) (*telemetry, error) {
	tb, err := metadata.NewTelemetryBuilder(set)
	if err != nil {
		return nil, fmt.Errorf("create telemetry: %w", err)
	}
	base := []attribute.KeyValue{
		attribute.String(processorKey, id.String()),
		attribute.String(signalKey, sig.String()),
	}
	services.init(base, levels)
	t := &telemetry{tb: tb, base: base, services: services}
	t.findings = newFindingCounters(base, levels, nil)
	t.associations = newAssociationCounters(base)
	for l := range engine.NumSchemaLevels {
		t.schema[l].opts = observeOpts(base, attribute.String("target", l.String()))
	}
	for l := registry.LocationResource; l <= registry.LocationLog; l++ {
		loc := attribute.String("location", l.String())
		for o := range vocab.NumOutcomes {
			t.attrs[l][o].opts = observeOpts(base, loc, attribute.String("outcome", o.String()))
		}
	}
	for r := range vocab.NumReasons {
		t.drops[r].opts = observeOpts(base, attribute.String("reason", r.String()))
	}
	for o := range vocab.NumOutcomes {
		t.names[o].opts = observeOpts(base, attribute.String("outcome", o.String()))
	}
	t.overflow.opts = observeOpts(base)
	t.services.bounded.opts = observeOpts(base)
	baseOpts := observeOpts(base)
	// memoStat observes one of the shape memo's counters; the engine keeps
	// them (atomics), read only when the SDK collects.
	memoStat := func(f func(*engine.MemoStats) int64) metric.Int64Callback {
		return func(_ context.Context, o metric.Int64Observer) error {
			st := memo()
			o.Observe(f(&st), baseOpts...)
			return nil
		}
	}
	err = errors.Join(
		tb.RegisterProcessorGovernanceMemoHitsCallback(memoStat(func(s *engine.MemoStats) int64 { return s.Hits })),
		tb.RegisterProcessorGovernanceMemoMissesCallback(memoStat(func(s *engine.MemoStats) int64 { return s.Misses })),
		tb.RegisterProcessorGovernanceMemoEvictionsCallback(memoStat(func(s *engine.MemoStats) int64 { return s.Evictions })),
		tb.RegisterProcessorGovernanceMemoEntriesCallback(memoStat(func(s *engine.MemoStats) int64 { return s.Entries })),
		tb.RegisterProcessorGovernanceMemoBytesCallback(memoStat(func(s *engine.MemoStats) int64 { return s.Bytes })),
		tb.RegisterProcessorGovernanceAttributesCallback(func(_ context.Context, o metric.Int64Observer) error {
			for l := range t.attrs {
				for i := range t.attrs[l] {
					t.attrs[l][i].observe(o)
				}
			}
			return nil
		}),
		tb.RegisterProcessorGovernanceAttributesDroppedCallback(func(_ context.Context, o metric.Int64Observer) error {
			for i := range t.drops {
				t.drops[i].observe(o)
			}
			return nil
		}),
		tb.RegisterProcessorGovernanceMetricNamesCallback(func(_ context.Context, o metric.Int64Observer) error {
			for i := range t.names {
				t.names[i].observe(o)
			}
			return nil
		}),
		tb.RegisterProcessorGovernanceServiceAttributesCallback(func(_ context.Context, o metric.Int64Observer) error {
			t.services.observe(o)
			return nil
		}),
		tb.RegisterProcessorGovernanceServiceOverflowCallback(func(_ context.Context, o metric.Int64Observer) error {
			t.overflow.observe(o)
			return nil
		}),
		tb.RegisterProcessorGovernanceServiceNameBoundedCallback(func(_ context.Context, o metric.Int64Observer) error {
			t.services.bounded.observe(o)
			return nil
		}),
		tb.RegisterProcessorGovernanceSchemaURLRewritesCallback(func(_ context.Context, o metric.Int64Observer) error {
			for i := range t.schema {
				t.schema[i].observe(o)
			}
			return nil
		}),
		tb.RegisterProcessorGovernanceFindingsCallback(func(_ context.Context, o metric.Int64Observer) error {
			t.findings.observe(o)
			return nil
		}),
		tb.RegisterProcessorGovernanceEntityAssociationsNotSatisfiedCallback(func(_ context.Context, o metric.Int64Observer) error {
			t.associations.observe(o)
			return nil
		}),
		tb.RegisterProcessorGovernanceServiceDeprecatedNamesCallback(func(_ context.Context, o metric.Int64Observer) error {
			t.services.observeNames(o)
			return nil
		}),
		tb.RegisterProcessorGovernanceServiceFindingsCallback(func(_ context.Context, o metric.Int64Observer) error {
			t.services.observeFindings(o)
			return nil
		}),
	)
	if err != nil {
		tb.Shutdown()
		return nil, fmt.Errorf("register telemetry callbacks: %w", err)
	}
	return t, nil
}

func observeOpts(base []attribute.KeyValue, kvs ...attribute.KeyValue) []metric.ObserveOption {
	all := append(append(make([]attribute.KeyValue, 0, len(base)+len(kvs)), base...), kvs...)
	return []metric.ObserveOption{metric.WithAttributeSet(attribute.NewSet(all...))}
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

// record adds one batch's tally to the counters.
func (t *telemetry) record(c *engine.Batch) {
	for l := range c.Attrs {
		if c.Attrs[l] == ([vocab.NumOutcomes]int64{}) {
			continue // a location the batch has no attribute in
		}
		for o, n := range c.Attrs[l] {
			t.attrs[l][o].add(n)
		}
	}
	for r, n := range c.Drops {
		t.drops[r].add(n)
	}
	for o, n := range c.Names {
		t.names[o].add(n)
	}
	if len(c.Services) > 0 {
		t.services.record(c.Services, c.Relevelled)
		t.services.recordNames(c)
	}
	t.overflow.add(c.Overflow)
	for l, n := range c.SchemaURLs {
		t.schema[l].add(n)
	}
	if t.findings.levels != nil {
		totals := c.FindingTotals()
		t.findings.add(&totals, c.Relevelled, -1)
		t.associations.add(c.Associations)
	}
}

func (t *telemetry) shutdown() {
	t.tb.Shutdown()
}

// serviceSlot is one service.name series per outcome, and per finding when
// the signal checks are on.
type serviceSlot struct {
	name     string // the bounded service.name label (immutable)
	counts   [vocab.NumOutcomes]counter
	findings findingCounters
	// names counts the watched names (serviceTable.names), by index.
	names []counter
	// shadow counts the candidate's changes by change.Kind; nil until the
	// table's shadow is on (serviceTable.enableShadow).
	shadow []counter
}

// initShadow builds the slot's shadow series, one per change kind.
func (s *serviceSlot) initShadow(base []attribute.KeyValue) {
	svc := attribute.String("service.name", s.name)
	s.shadow = make([]counter, change.NumKinds)
	for _, k := range change.Kinds() {
		s.shadow[k].opts = observeOpts(base, svc, attribute.String("change_kind", k.String()))
	}
}

func newServiceSlot(base []attribute.KeyValue, name string, levels *findingLevels, watched []string) *serviceSlot {
	s := &serviceSlot{name: name}
	svc := attribute.String("service.name", name)
	if len(watched) > 0 {
		s.names = make([]counter, len(watched))
		for i, n := range watched {
			s.names[i].opts = observeOpts(base, svc, attribute.String("deprecated_name", n))
		}
	}
	s.findings = newFindingCounters(base, levels, &svc)
	for o := range vocab.NumOutcomes {
		s.counts[o].opts = observeOpts(base, svc, attribute.String("outcome", o.String()))
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
// also bounds each label value: a name is cut to vocab.MaxKeyLength
// bytes and made valid UTF-8 (vocab.Bound), so that one client sending a
// huge or malformed service.name cannot bloat every scrape. Names equal
// after bounding share a series. It is the engine's ServiceSlots: the
// identity it returns (bounded name, slot, _other/_missing) is computed once
// per resource and is also the name the registry extension's conformance
// report files the resource under. The report applies its own max_services
// on top, across every processor that feeds it: a service folded into
// _other here is under _other there too, and a report entry exists only for
// a service some processor gave a slot of its own.
type serviceTable struct {
	mu      sync.Mutex
	base    []attribute.KeyValue
	limit   int
	index   map[string]int // bounded name -> slot
	slots   []*serviceSlot // by slot; append-only
	bounded counter        // names cut or repaired
	// levels are the findings' levels; nil when the signal checks are off.
	levels *findingLevels
	// names are the watched names (deprecated_names), sorted, and their
	// index; set before init, immutable after.
	names   []string
	nameIdx map[string]int
	// shadow: every slot has its shadow series (enableShadow); guarded by mu.
	shadow bool
}

// enableShadow gives every slot, present and future, its shadow series.
// The processor calls it in Start when its registry extension has a
// candidate; without one no slot pays for them.
func (st *serviceTable) enableShadow() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.shadow {
		return
	}
	st.shadow = true
	for _, s := range st.slots {
		s.initShadow(st.base)
	}
}

// observeShadow reports every shadow series that has counted something.
func (st *serviceTable) observeShadow(o metric.Int64Observer) {
	for _, s := range st.snapshot() {
		for i := range s.shadow {
			s.shadow[i].observe(o)
		}
	}
}

var _ engine.ServiceSlots = (*serviceTable)(nil)

// newServiceTable returns a table of limit named services; init builds its
// series before the first batch.
func newServiceTable(limit int) *serviceTable {
	return &serviceTable{limit: limit, index: make(map[string]int, min(limit, 1024))}
}

// watch sets the names counted per service: the keys of deprecated_names.
// It is called before init.
func (st *serviceTable) watch(names map[string]engine.DeprecatedMode) {
	if len(names) == 0 {
		return
	}
	st.names = slices.Sorted(maps.Keys(names))
	st.nameIdx = make(map[string]int, len(st.names))
	for i, n := range st.names {
		st.nameIdx[n] = i
	}
}

// recordNames counts the watched names of one batch per service: the
// deprecated keys of its detail, and the metric names of its deprecated
// findings. One map lookup per distinct (service, name) of the batch.
func (st *serviceTable) recordNames(b *engine.Batch) {
	if len(st.names) == 0 {
		return
	}
	slots := st.snapshot()
	add := func(service int, name string, n int64) {
		i, ok := st.nameIdx[name]
		if !ok || service < 0 || service >= len(b.Services) {
			return
		}
		if s := b.Services[service].Slot; s >= 0 && s < len(slots) {
			slots[s].names[i].add(n)
		}
	}
	for i := range b.Keys {
		if k := &b.Keys[i]; k.Kind == engine.KeyDeprecated {
			add(k.Service, k.Key, k.Count)
		}
	}
	for i := range b.Findings {
		if f := &b.Findings[i]; f.Finding == vocab.FindingDeprecated && f.Subject == vocab.SubjectMetric {
			add(f.Service, f.Name, f.Count)
		}
	}
}

// observeNames reports every watched name's series that has counted
// something.
func (st *serviceTable) observeNames(o metric.Int64Observer) {
	for _, s := range st.snapshot() {
		for i := range s.names {
			s.names[i].observe(o)
		}
	}
}

// snapshot returns the slots as they are now; the slice is append-only,
// so the copy's entries stay valid.
func (st *serviceTable) snapshot() []*serviceSlot {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.slots
}

// init builds the reserved slots' series, once the engine's levels are known.
func (st *serviceTable) init(base []attribute.KeyValue, levels *findingLevels) {
	st.base, st.levels = base, levels
	st.slots = []*serviceSlot{
		slotOther:   newServiceSlot(base, vocab.ServiceOther, levels, st.names),
		slotMissing: newServiceSlot(base, vocab.ServiceMissing, levels, st.names),
	}
}

// Missing is the identity of resources without a string service.name.
func (*serviceTable) Missing() engine.ServiceID {
	return engine.ServiceID{Slot: slotMissing, Name: vocab.ServiceMissing}
}

// Slot returns the identity of a service name: its own slot, or "_other"
// with Overflow set beyond the limit. Only a name seen for the first time
// allocates.
func (st *serviceTable) Slot(name string) engine.ServiceID { return st.slot(name, true) }

// slot is Slot; count says whether a name cut or repaired counts in
// service_name_bounded (the shadow's second look at a resource does not).
func (st *serviceTable) slot(name string, count bool) engine.ServiceID {
	label, changed := vocab.Bound(name)
	st.mu.Lock()
	defer st.mu.Unlock()
	if changed && count {
		st.bounded.add(1)
	}
	if i, ok := st.index[label]; ok {
		return engine.ServiceID{Slot: i, Name: st.slots[i].name}
	}
	if len(st.index) >= st.limit {
		return engine.ServiceID{Slot: slotOther, Name: vocab.ServiceOther, Overflow: true}
	}
	// Clone so the table does not pin the batch that carried the name.
	label = strings.Clone(label)
	slot := len(st.slots)
	ns := newServiceSlot(st.base, label, st.levels, st.names)
	if st.shadow {
		ns.initShadow(st.base)
	}
	st.slots = append(st.slots, ns)
	st.index[label] = slot
	return engine.ServiceID{Slot: slot, Name: label}
}

// record adds the per-service counts of one batch.
func (st *serviceTable) record(services []engine.ServiceTally, relevelled []engine.LevelCount) {
	slots := st.snapshot()
	for i := range services {
		s := &services[i]
		if s.Slot < 0 || s.Slot >= len(slots) {
			continue // not one of this table's slots (cannot happen)
		}
		slot := slots[s.Slot]
		for o, n := range s.Outcomes {
			slot.counts[o].add(n)
		}
		slot.findings.add(&s.Findings, relevelled, i)
	}
}

// observe reports every service series that has counted something.
func (st *serviceTable) observe(o metric.Int64Observer) {
	for _, s := range st.snapshot() {
		for i := range s.counts {
			s.counts[i].observe(o)
		}
	}
}

// observeFindings reports every service's finding series that has counted
// something.
func (st *serviceTable) observeFindings(o metric.Int64Observer) {
	for _, s := range st.snapshot() {
		s.findings.observe(o)
	}
}
