package governanceprocessor // import "github.com/otelgov/otelcol-governance/processor/governanceprocessor"

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/zap"

	"github.com/otelgov/otelcol-governance/extension/registryextension/registryapi"
	"github.com/otelgov/otelcol-governance/registry"
)

// staticGeneration is the registry generation of a registry loaded once at
// start; a reloading registry source would count up from here.
const staticGeneration = 1

// governor is one processor instance: one signal of one configured processor.
type governor struct {
	cfg    *config
	sig    signal
	tel    *telemetry
	logger *zap.Logger

	// snap is the registry in force. A static registry is set once at
	// construction; with an extension it follows the extension's Current,
	// and every batch uses the one snapshot it loaded at its start.
	snap  atomic.Pointer[snapshot]
	ext   registryapi.Registry // nil without a registry extension
	swapM sync.Mutex           // serialises snapshot swaps (rare: one per reload)

	// Compiled from the configuration once.
	mutates bool

	allowKeys     map[string]struct{}
	allowPrefixes []string
	include       []includeRule

	walkers sync.Pool // *walker; one per concurrent batch
}

// snapshot is one registry in force and what the walk derives from it.
type snapshot struct {
	ix         *registry.Index
	generation int64
	src        *registryapi.Snapshot // the extension's snapshot; nil when static
	// renamesCurrent is set when some rule renames a key that is neither
	// deprecated nor a placeholder; only then must every key ask Target.
	renamesCurrent bool
}

func newSnapshot(ix *registry.Index, generation int64, src *registryapi.Snapshot) *snapshot {
	s := &snapshot{ix: ix, generation: generation, src: src}
	for _, a := range ix.Attributes() {
		if a.Deprecation.Reason == registry.NotDeprecated && !a.Placeholder && a.Renamed() {
			s.renamesCurrent = true
			break
		}
	}
	return s
}

// includeRule is one key of include_resources.
type includeRule struct {
	key    string
	values map[string]struct{}
}

func newGovernor(set component.TelemetrySettings, id component.ID, cfg *config, ix *registry.Index, sig signal) (*governor, error) {
	tel, err := newTelemetry(set, id, sig, cfg.ServiceLimit)
	if err != nil {
		return nil, err
	}
	g := &governor{
		cfg:           cfg,
		sig:           sig,
		tel:           tel,
		logger:        set.Logger,
		mutates:       cfg.mutates(),
		allowKeys:     make(map[string]struct{}, len(cfg.Allow.Keys)),
		allowPrefixes: append([]string(nil), cfg.Allow.Prefixes...),
	}
	if ix != nil {
		g.snap.Store(newSnapshot(ix, staticGeneration, nil))
	}
	for _, k := range cfg.Allow.Keys {
		g.allowKeys[k] = struct{}{}
	}
	for k, vs := range cfg.IncludeResources {
		r := includeRule{key: k, values: make(map[string]struct{}, len(vs))}
		for _, v := range vs {
			r.values[v] = struct{}{}
		}
		g.include = append(g.include, r)
	}
	g.walkers.New = func() any { return newWalker(g) }
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
		zap.Bool("mutates_data", g.mutates))
	return nil
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
	s := newSnapshot(src.Index, src.Generation, src)
	if old != nil {
		g.tel.recordRegistry(ctx, old.ix, old.generation, 0)
	}
	g.tel.recordRegistry(ctx, s.ix, s.generation, 1)
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

// included reports whether a resource is governed under include_resources.
func (g *governor) included(attrs pcommon.Map) bool {
	for i := range g.include {
		r := &g.include[i]
		v, ok := attrs.Get(r.key)
		if !ok || v.Type() != pcommon.ValueTypeStr {
			return false
		}
		if _, ok := r.values[v.Str()]; !ok {
			return false
		}
	}
	return true
}

// allowed reports whether an unknown key is on the allow list.
func (g *governor) allowed(key string) bool {
	if _, ok := g.allowKeys[key]; ok {
		return true
	}
	for _, p := range g.allowPrefixes {
		if len(key) >= len(p) && key[:len(p)] == p {
			return true
		}
	}
	return false
}

func (g *governor) walker(readOnly bool, s *snapshot) *walker {
	w := g.walkers.Get().(*walker)
	w.mutate = g.mutates && !readOnly
	w.ix = s.ix
	w.renamesCurrent = s.renamesCurrent
	return w
}

// finish records one batch's counts, hands them to the extension's report,
// and returns the walker to the pool.
func (g *governor) finish(ctx context.Context, w *walker, s *snapshot) {
	g.tel.record(ctx, &w.counts)
	if g.ext != nil {
		w.report.flush()
		w.report.batch.Generation = s.generation
		g.ext.Report(&w.report.batch)
	}
	g.release(w)
}

func (g *governor) release(w *walker) {
	w.reset()
	g.walkers.Put(w)
}

// errNotStarted is returned for data that arrives before Start, which the
// collector never does; it guards against a nil registry.
var errNotStarted = errors.New("governance processor: registry extension not resolved: processor not started")

// govern walks one batch of any signal against the registry in force.
func govern[T interface{ IsReadOnly() bool }](ctx context.Context, g *governor, data T, walk func(*walker, T)) (T, error) {
	s := g.current(ctx)
	if s == nil {
		return data, errNotStarted
	}
	w := g.walker(data.IsReadOnly(), s)
	walk(w, data)
	g.finish(ctx, w, s)
	return data, nil
}

func (g *governor) processTraces(ctx context.Context, td ptrace.Traces) (ptrace.Traces, error) {
	return govern(ctx, g, td, (*walker).traces)
}

func (g *governor) processMetrics(ctx context.Context, md pmetric.Metrics) (pmetric.Metrics, error) {
	return govern(ctx, g, md, (*walker).metrics)
}

func (g *governor) processLogs(ctx context.Context, ld plog.Logs) (plog.Logs, error) {
	return govern(ctx, g, ld, (*walker).logs)
}
