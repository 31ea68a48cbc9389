package governanceprocessor

import (
	"testing"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/engine/enginetest"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/policy"
	"github.com/otelgov/otelcol-governance/vocab"
)

// newTestGovernor builds a processor instance the way the factory does.
func newTestGovernor(tb testing.TB, cfg *config, sig vocab.Kind, set component.TelemetrySettings) *governor {
	tb.Helper()
	ix, err := cfg.Registry.load()
	require.NoError(tb, err)
	var pol *policy.Set
	if len(cfg.Findings.Policies) > 0 {
		pol, err = policy.LoadDirs(ix, policy.Options{}, cfg.Findings.Policies...)
		require.NoError(tb, err)
	}
	g, err := newGovernor(set, component.MustNewID("governance"), cfg, ix, pol, sig, nil)
	require.NoError(tb, err)
	return g
}

func defaultTestConfig() *config {
	return createDefaultConfig().(*config)
}

func nopTelemetry() component.TelemetrySettings {
	return componenttest.NewNopTelemetrySettings()
}

// The shared fixtures of engine/enginetest, under the names these tests use.
type attrMix = enginetest.Mix

const attrsPerItem = enginetest.AttrsPerItem

var (
	mixConformant = enginetest.MixConformant
	mixDeprecated = enginetest.MixDeprecated
	mixUnknown    = enginetest.MixUnknown

	putResourceAttrs = enginetest.PutResourceAttrs
	genTraces        = enginetest.GenTraces
	genMetrics       = enginetest.GenMetrics
	genLogs          = enginetest.GenLogs
	wireTraces       = enginetest.WireTraces
	wireMetrics      = enginetest.WireMetrics
	wireLogs         = enginetest.WireLogs
	startCPU         = enginetest.StartCPU
)

func withConfig(f func(*config)) *config {
	cfg := defaultTestConfig()
	if f != nil {
		f(cfg)
	}
	return cfg
}

func orgRegistry(c *config) {
	c.Registry.OrgRegistries = []string{"testdata/org"}
	c.Registry.RulesFiles = []string{"testdata/rules.yaml"}
}

// walkBatch runs one walk through the governor's engine and returns a copy
// of the batch's tally.
func walkBatch(g *governor, batch any) engine.Batch {
	var w *engine.Walker
	ix := g.snap.Load().ix
	switch b := batch.(type) {
	case ptrace.Traces:
		w = g.engine.Walker(ix, b.IsReadOnly())
		w.Traces(b)
	case pmetric.Metrics:
		w = g.engine.Walker(ix, b.IsReadOnly())
		w.Metrics(b)
	case plog.Logs:
		w = g.engine.Walker(ix, b.IsReadOnly())
		w.Logs(b)
	}
	c := *w.Batch()
	c.Services = append([]engine.ServiceTally(nil), c.Services...)
	c.Keys, c.Findings, c.Signals = nil, nil, nil
	g.engine.Release(w)
	return c
}

// outcomes sums a tally over locations, by outcome name, leaving out zeros.
func outcomes(c engine.Batch) map[string]int64 {
	out := map[string]int64{}
	for l := range c.Attrs {
		for o, n := range c.Attrs[l] {
			if n > 0 {
				out[vocab.Outcome(o).String()] += n
			}
		}
	}
	return out
}
