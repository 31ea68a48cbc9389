package governanceprocessor

import (
	"testing"

	"github.com/otelgov/otelcol-governance/engine/enginetest"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"

	"github.com/otelgov/otelcol-governance/vocab"
)

// newTestGovernor builds a processor instance the way the factory does.
func newTestGovernor(tb testing.TB, cfg *config, sig vocab.Kind, set component.TelemetrySettings) *governor {
	tb.Helper()
	ix, err := cfg.Registry.load()
	require.NoError(tb, err)
	g, err := newGovernor(set, component.MustNewID("governance"), cfg, ix, sig, nil)
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
