package governanceprocessor // import "github.com/otelgov/otelcol-governance/processor/governanceprocessor"

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processorhelper"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/policy"
	"github.com/otelgov/otelcol-governance/processor/governanceprocessor/internal/metadata"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// Defaults of every option; createDefaultConfig is the only place that uses them.
const (
	defaultEmbedded      = true
	defaultDeprecated    = engine.DeprecatedRename
	defaultUnknown       = engine.UnknownKeep
	defaultTypeMismatch  = engine.TypeMismatchKeep
	defaultEnumViolation = engine.EnumViolationKeep
	defaultServiceLimit  = 100
	defaultFindings      = true
	defaultFindingLogs   = 100 // records per second
	defaultProfile       = "weaver"
	defaultPolicyBudget  = 1000 // value-dependent evaluations per second
	defaultShadowEvery   = 100  // one batch in 100
	defaultShadowRate    = 10   // sampled batches per second
)

// NewFactory returns the factory of the governance processor.
func NewFactory() processor.Factory {
	f := &factory{indexes: map[component.ID]sharedIndex{}, findingLogs: map[component.ID]sharedFindingLog{}}
	return processor.NewFactory(
		metadata.Type,
		createDefaultConfig,
		processor.WithTraces(f.createTraces, metadata.TracesStability),
		processor.WithMetrics(f.createMetrics, metadata.MetricsStability),
		processor.WithLogs(f.createLogs, metadata.LogsStability),
	)
}

func createDefaultConfig() component.Config {
	return &config{
		Registry: registryConfig{
			Embedded: defaultEmbedded,
		},
		Deprecated:    defaultDeprecated,
		Unknown:       defaultUnknown,
		TypeMismatch:  defaultTypeMismatch,
		EnumViolation: defaultEnumViolation,
		ServiceLimit:  defaultServiceLimit,
		Findings: findingsConfig{
			Enabled:               defaultFindings,
			Profile:               defaultProfile,
			PolicyBudgetPerSecond: defaultPolicyBudget,
			Logs:                  findingLogsConfig{MaxPerSecond: defaultFindingLogs},
		},
		Shadow: shadowConfig{SampleEvery: defaultShadowEvery, MaxBatchesPerSecond: defaultShadowRate},
	}
}

// factory keeps the loaded registry once per component ID, so that the traces,
// metrics and logs pipelines of one configured processor share one index (the
// memory limiter's pattern). The index is immutable, so sharing needs no lock
// on the hot path.
type factory struct {
	mu      sync.Mutex
	indexes map[component.ID]sharedIndex
	// findingLogs holds one findingLog per configured processor, shared by
	// its traces, metrics and logs instances.
	findingLogs map[component.ID]sharedFindingLog
}

type sharedFindingLog struct {
	cfg *config
	fl  *findingLog
}

// findingLog returns the shared finding-record buffer of one configured
// processor, or nil when finding records are off.
func (f *factory) findingLog(id component.ID, cfg *config) *findingLog {
	if !cfg.Findings.Enabled || !cfg.Findings.Logs.Enabled {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if s, ok := f.findingLogs[id]; ok && s.cfg == cfg {
		return s.fl
	}
	fl := newFindingLog(cfg.Findings.Logs.MaxPerSecond, time.Now)
	f.findingLogs[id] = sharedFindingLog{cfg: cfg, fl: fl}
	return fl
}

type sharedIndex struct {
	cfg *config
	ix  *registry.Index
	pol *policy.Set // findings::policies compiled against ix; nil when none
}

// index returns the registry and the policies for one configured
// processor, loading them once (the signals share the policies' memo). A
// new configuration under the same ID (a reload) replaces the old entry.
func (f *factory) index(id component.ID, cfg *config) (sharedIndex, error) {
	if cfg.Registry.Extension != nil {
		// The extension supplies the registry and policies from Start on.
		return sharedIndex{}, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if s, ok := f.indexes[id]; ok && s.cfg == cfg {
		return s, nil
	}
	ix, err := cfg.Registry.load()
	if err != nil {
		return sharedIndex{}, fmt.Errorf("load registry: %w", err)
	}
	s := sharedIndex{cfg: cfg, ix: ix}
	if len(cfg.Findings.Policies) > 0 && cfg.Findings.Enabled {
		if s.pol, err = cfg.Findings.policySources().Load(ix, policy.Options{Timeout: policy.CollectorTimeout}); err != nil {
			return sharedIndex{}, fmt.Errorf("findings: %w: %w", errPolicy, err)
		}
	}
	f.indexes[id] = s
	return s, nil
}

func (f *factory) newGovernor(set processor.Settings, cfg component.Config, sig vocab.Kind) (*governor, error) {
	pCfg := cfg.(*config)
	s, err := f.index(set.ID, pCfg)
	if err != nil {
		return nil, err
	}
	return newGovernor(set.TelemetrySettings, set.ID, pCfg, s.ix, s.pol, sig, f.findingLog(set.ID, pCfg))
}

func capabilities(cfg component.Config) processorhelper.Option {
	return processorhelper.WithCapabilities(consumer.Capabilities{MutatesData: cfg.(*config).mutates()})
}

func (f *factory) createTraces(ctx context.Context, set processor.Settings, cfg component.Config, next consumer.Traces) (processor.Traces, error) {
	g, err := f.newGovernor(set, cfg, vocab.KindTraces)
	if err != nil {
		return nil, err
	}
	return processorhelper.NewTraces(ctx, set, cfg, next, g.processTraces,
		capabilities(cfg), processorhelper.WithStart(g.start), processorhelper.WithShutdown(g.shutdown))
}

func (f *factory) createMetrics(ctx context.Context, set processor.Settings, cfg component.Config, next consumer.Metrics) (processor.Metrics, error) {
	g, err := f.newGovernor(set, cfg, vocab.KindMetrics)
	if err != nil {
		return nil, err
	}
	return processorhelper.NewMetrics(ctx, set, cfg, next, g.processMetrics,
		capabilities(cfg), processorhelper.WithStart(g.start), processorhelper.WithShutdown(g.shutdown))
}

func (f *factory) createLogs(ctx context.Context, set processor.Settings, cfg component.Config, next consumer.Logs) (processor.Logs, error) {
	g, err := f.newGovernor(set, cfg, vocab.KindLogs)
	if err != nil {
		return nil, err
	}
	return processorhelper.NewLogs(ctx, set, cfg, next, g.processLogs,
		capabilities(cfg), processorhelper.WithStart(g.start), processorhelper.WithShutdown(g.shutdown))
}
