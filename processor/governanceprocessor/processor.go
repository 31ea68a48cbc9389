package governanceprocessor // import "github.com/otelgov/otelcol-governance/processor/governanceprocessor"

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/zap"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/extension/registryextension/registryapi"
	"github.com/otelgov/otelcol-governance/policy"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// staticGeneration is the registry generation of a registry loaded once at
// start; a reloading registry source would count up from here.
const staticGeneration = 1

// governor is one processor instance: one signal of one configured processor.
// It adapts the engine to the collector: registry source, telemetry,
// lifecycle.
type governor struct {
	cfg    *config
	sig    vocab.Kind
	tel    *telemetry
	logger *zap.Logger
	engine *engine.Engine

	// snap is the registry in force. A static registry is set once at
	// construction; with an extension it follows the extension's Current,
	// and every batch uses the one snapshot it loaded at its start.
	snap atomic.Pointer[snapshot]
	ext  registryapi.Registry // nil without a registry extension
	// unknowns: the extension keeps the inference sketch, so each walker
	// tracks the context of unknown keys (with their values when
	// unknownValues); both false otherwise, at the cost of one test.
	unknowns, unknownValues bool
	swapM                   sync.Mutex // serialises snapshot swaps (rare: one per reload)

	// findingLog receives a sample of the findings as log records; the logs
	// instance appends them to its batches. nil when off.
	findingLog *findingLog

	// pol runs the advice policies (policies.go): while a set is in force,
	// engine walks a batch with pol as its Advisor (WalkerAdvised), from
	// the same shape memo as without; nil when no policy can apply.
	pol *policies

	// shadow evaluates the registry extension's candidate on a sample of
	// the batches (shadow.go); nil without a candidate. Set in start.
	shadow *shadow
}

// snapshot is one registry in force.
type snapshot struct {
	ix         *registry.Index
	generation int64
	src        *registryapi.Snapshot // the extension's snapshot; nil when static
}

// newGovernor builds one instance: its engine (offering findings to fl
// when it is not nil), and its telemetry, labelled with the engine's levels.
func newGovernor(set component.TelemetrySettings, id component.ID, cfg *config, ix *registry.Index, pol *policy.Set, sig vocab.Kind, fl *findingLog) (*governor, error) {
	opts := cfg.engineOptions()
	services := newServiceTable(cfg.ServiceLimit)
	services.watch(cfg.DeprecatedNames)
	opts.Services = services
	if fl != nil {
		opts.Sink = fl
	}
	e := engine.New(opts)
	var pols *policies
	if opts.Findings && (pol != nil || cfg.Registry.Extension != nil) {
		pols = newPolicies(&cfg.Findings, set.Logger)
	}
	tel, err := newTelemetry(set, id, sig, services, levelsOf(e, opts.Findings), e.MemoStats)
	if err != nil {
		return nil, err
	}
	g := &governor{
		cfg:        cfg,
		sig:        sig,
		tel:        tel,
		logger:     set.Logger,
		engine:     e,
		pol:        pols,
		findingLog: fl,
	}
	if pols != nil {
		if err := pols.register(tel.tb, tel.base); err != nil {
			tel.shutdown()
			return nil, fmt.Errorf("register policy telemetry: %w", err)
		}
		pols.use(pol)
	}
	if ix != nil {
		g.snap.Store(&snapshot{ix: ix, generation: staticGeneration})
	}
	return g, nil
}

func (g *governor) start(ctx context.Context, host component.Host) error {
	if id := g.cfg.Registry.Extension; id != nil {
		ext, err := registryapi.Lookup(host, *id)
		if err != nil {
			return fmt.Errorf("registry::extension: %w", err)
		}
		if ext.Current() == nil {
			return fmt.Errorf("registry::extension: %q has no registry loaded", id.String())
		}
		g.ext = ext
		if err := g.startShadow(); err != nil {
			return err
		}
		if t, ok := ext.(registryapi.UnknownTracker); ok {
			g.unknowns, g.unknownValues = t.TracksUnknowns()
		}
	}
	s := g.current(ctx)
	if g.ext == nil {
		g.tel.recordRegistry(ctx, s.ix, s.generation, 1)
	}
	// The collector's logger already names the component, pipeline and signal.
	g.logger.Info("Governance processor started",
		zap.String("schema_url", s.ix.SchemaURL()),
		zap.String("registry_digest", s.ix.Digest()),
		zap.Int64("registry_generation", s.generation),
		zap.Bool("registry_from_extension", g.ext != nil),
		zap.String("deprecated", string(g.cfg.Deprecated)),
		zap.String("unknown", string(g.cfg.Unknown)),
		zap.Bool("mutates_data", g.engine.Mutates()),
		zap.Bool("shadow", g.shadow != nil))
	g.warnEnums(s.ix)
	if g.ext == nil {
		// The extension logs its registry's warnings itself.
		for _, w := range s.ix.Warnings() {
			g.logger.Warn("Registry loaded with a warning", zap.String("warning", w))
		}
	}
	if len(g.cfg.Findings.LevelOverrides) > 0 {
		g.logger.Warn("findings::level_overrides is deprecated and will be removed in the next release: use findings::finding_level_overrides (one entry per level: {ids: [ID, ...], level: LEVEL}); its entries apply after finding_level_overrides")
	}
	// Validate refuses such IDs without policies; with the extension it
	// cannot know whether the extension loads any.
	if r, err := g.cfg.Findings.rules(); err == nil && len(r.UnknownIDs()) > 0 && (g.pol == nil || !g.pol.active()) {
		g.logger.Warn("finding rules name IDs that are not built in, and no advice policy is loaded that could report them: those rules match nothing",
			zap.Strings("ids", r.UnknownIDs()))
	}
	startupMemory.Do(debug.FreeOSMemory)
	return nil
}

// startupMemory returns the garbage of the collector's start-up to the OS,
// once per process, when the first governance processor has started: the
// registry's load (reading the embedded semantic conventions allocates
// and drops tens of MB) and the configuration's resolution. Without it the
// freed pages stay mapped until the Go runtime's scavenger gets to them,
// and an idle sidecar's anonymous memory counts them
// (benchmarks/results/sidecar-idle). One collection at start, never on
// the data path.
var startupMemory sync.Once

// warnEnums logs, once at start, closed_enums entries that are not enums of
// the registry, and an enum_violation: drop that has nothing to act on.
func (g *governor) warnEnums(ix *registry.Index) {
	if g.cfg.EnumViolation == engine.EnumViolationDrop && len(g.cfg.ClosedEnums) == 0 {
		g.logger.Warn("enum_violation: drop acts only on the enums listed in closed_enums, and none is listed: enums are open, nothing is dropped")
	}
	for _, k := range g.cfg.ClosedEnums {
		if a := ix.Lookup(k); a == nil || a.Placeholder || (a.EnumStrings == nil && a.EnumInts == nil) {
			g.logger.Warn("closed_enums lists a key that is not an enum of the registry; it has no effect", zap.String("key", k))
		}
	}
}

// current returns the registry in force for one batch. With an extension it
// is one atomic load and a pointer comparison, unless the extension has
// swapped its registry since the last batch.
func (g *governor) current(ctx context.Context) *snapshot {
	s := g.snap.Load()
	if g.ext == nil {
		return s
	}
	src := g.ext.Current()
	if s != nil && s.src == src {
		return s
	}
	return g.swap(ctx, src)
}

// swap adopts the extension's new registry and moves the info gauge to it.
func (g *governor) swap(ctx context.Context, src *registryapi.Snapshot) *snapshot {
	g.swapM.Lock()
	defer g.swapM.Unlock()
	old := g.snap.Load()
	if old != nil && old.src == src {
		return old
	}
	s := &snapshot{ix: src.Index, generation: src.Generation, src: src}
	if old != nil {
		g.tel.recordRegistry(ctx, old.ix, old.generation, 0)
	}
	g.tel.recordRegistry(ctx, s.ix, s.generation, 1)
	if g.pol != nil {
		g.pol.use(src.Policies)
	}
	g.snap.Store(s)
	if old != nil {
		g.logger.Info("Governance processor switched registry",
			zap.Int64("registry_generation", s.generation),
			zap.String("registry_digest", s.ix.Digest()))
	}
	return s
}

func (g *governor) shutdown(context.Context) error {
	g.tel.shutdown()
	g.logger.Info("Governance processor stopped")
	return nil
}

// errNotStarted is returned for data that arrives before Start, which the
// collector never does; it guards against a nil registry.
var errNotStarted = errors.New("governance processor: registry extension not resolved: processor not started")

// govern walks one batch of any signal against the registry in force,
// records its counts and hands its tally to the extension's report.
func govern[T interface{ IsReadOnly() bool }](ctx context.Context, g *governor, data T, walk func(*engine.Walker, T)) (T, error) {
	s := g.current(ctx)
	if s == nil {
		return data, errNotStarted
	}
	e := g.engine
	var adv engine.Advisor
	if g.pol != nil && g.pol.active() {
		adv = g.pol
	}
	w := e.WalkerAdvised(s.ix, data.IsReadOnly(), adv)
	if g.unknowns {
		w.TrackUnknowns(true, g.unknownValues)
	}
	walk(w, data)
	// One tally feeds both sinks: :8888 and the extension's report.
	b := w.Batch()
	g.tel.record(b)
	if g.pol != nil {
		g.pol.record(b)
	}
	if g.ext != nil {
		b.Generation = s.generation
		g.ext.Report(b)
	}
	e.Release(w)
	return data, nil
}

func (g *governor) processTraces(ctx context.Context, td ptrace.Traces) (ptrace.Traces, error) {
	if g.shadow != nil {
		g.shadow.traces(td)
	}
	return govern(ctx, g, td, (*engine.Walker).Traces)
}

func (g *governor) processMetrics(ctx context.Context, md pmetric.Metrics) (pmetric.Metrics, error) {
	if g.shadow != nil {
		g.shadow.metrics(md)
	}
	return govern(ctx, g, md, (*engine.Walker).Metrics)
}

func (g *governor) processLogs(ctx context.Context, ld plog.Logs) (plog.Logs, error) {
	if g.shadow != nil {
		g.shadow.logs(ld)
	}
	ld, err := govern(ctx, g, ld, (*engine.Walker).Logs)
	if err == nil && g.findingLog != nil && !ld.IsReadOnly() {
		g.findingLog.drainInto(ld)
	}
	return ld, err
}
