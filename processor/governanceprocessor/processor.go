package governanceprocessor // import "github.com/otelgov/otelcol-governance/processor/governanceprocessor"

import (
	"context"
	"sync"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/zap"

	"github.com/otelgov/otelcol-governance/registry"
)

// staticGeneration is the registry generation of a registry loaded once at
// start; a reloading registry source would count up from here.
const staticGeneration = 1

// governor is one processor instance: one signal of one configured processor.
type governor struct {
	cfg    *config
	ix     *registry.Index
	sig    signal
	tel    *telemetry
	logger *zap.Logger

	// Compiled from the configuration and the registry once.
	mutates bool
	// renamesCurrent is set when some rule renames a key that is neither
	// deprecated nor a placeholder; only then must every key ask Target.
	renamesCurrent bool

	allowKeys     map[string]struct{}
	allowPrefixes []string
	include       []includeRule

	walkers sync.Pool // *walker; one per concurrent batch
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
		ix:            ix,
		sig:           sig,
		tel:           tel,
		logger:        set.Logger,
		mutates:       cfg.mutates(),
		allowKeys:     make(map[string]struct{}, len(cfg.Allow.Keys)),
		allowPrefixes: append([]string(nil), cfg.Allow.Prefixes...),
	}
	for _, a := range ix.Attributes() {
		if a.Deprecation.Reason == registry.NotDeprecated && !a.Placeholder && a.Renamed() {
			g.renamesCurrent = true
			break
		}
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

func (g *governor) start(ctx context.Context, _ component.Host) error {
	g.tel.recordRegistry(ctx, g.ix, staticGeneration)
	// The collector's logger already names the component, pipeline and signal.
	g.logger.Info("Governance processor started",
		zap.String("schema_url", g.ix.SchemaURL()),
		zap.String("registry_digest", g.ix.Digest()),
		zap.String("deprecated", string(g.cfg.Deprecated)),
		zap.String("unknown", string(g.cfg.Unknown)),
		zap.Bool("mutates_data", g.mutates))
	return nil
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

func (g *governor) walker(readOnly bool) *walker {
	w := g.walkers.Get().(*walker)
	w.mutate = g.mutates && !readOnly
	return w
}

func (g *governor) release(w *walker) {
	w.reset()
	g.walkers.Put(w)
}

func (g *governor) processTraces(ctx context.Context, td ptrace.Traces) (ptrace.Traces, error) {
	w := g.walker(td.IsReadOnly())
	w.traces(td)
	g.tel.record(ctx, &w.counts)
	g.release(w)
	return td, nil
}

func (g *governor) processMetrics(ctx context.Context, md pmetric.Metrics) (pmetric.Metrics, error) {
	w := g.walker(md.IsReadOnly())
	w.metrics(md)
	g.tel.record(ctx, &w.counts)
	g.release(w)
	return md, nil
}

func (g *governor) processLogs(ctx context.Context, ld plog.Logs) (plog.Logs, error) {
	w := g.walker(ld.IsReadOnly())
	w.logs(ld)
	g.tel.record(ctx, &w.counts)
	g.release(w)
	return ld, nil
}
