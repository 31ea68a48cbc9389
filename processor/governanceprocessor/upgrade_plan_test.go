package governanceprocessor

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/registry/change"
	"github.com/otelgov/otelcol-governance/upgrade"
)

// TestUpgradePlanConfigValidates: the configuration `otelgov upgrade plan`
// writes for v1.44.0 -> next-384d661 unmarshals into this processor's
// config, passes its Validate (deprecated_names checked against the new
// registry), and, applied, makes rpc.response.status_code and
// rpc.status_code arrive together while other deprecated names are
// renamed.
func TestUpgradePlanConfigValidates(t *testing.T) {
	p, cfg := planConfig(t, "v1.44.0", "next-384d661")
	require.Contains(t, p.Copy, "rpc.response.status_code")
	assert.Equal(t, engine.DeprecatedRename, cfg.Deprecated)
	assert.Equal(t, engine.DeprecatedCopy, cfg.DeprecatedNames["rpc.response.status_code"])
	assert.Len(t, cfg.DeprecatedNames, len(p.Copy))

	sink := &consumertest.TracesSink{}
	tp, err := NewFactory().CreateTraces(context.Background(), processortest.NewNopSettings(NewFactory().Type()), cfg, sink)
	require.NoError(t, err)
	require.NoError(t, tp.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, tp.Shutdown(context.Background())) })
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "old")
	sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.Attributes().PutStr("rpc.response.status_code", "OK")
	sp.Attributes().PutStr("http.method", "GET")
	require.NoError(t, tp.ConsumeTraces(context.Background(), td))
	got := sink.AllTraces()[0].ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes().AsRaw()
	assert.Equal(t, map[string]any{"rpc.response.status_code": "OK", "rpc.status_code": "OK", "http.request.method": "GET"}, got)
}

// TestUpgradePlanSixMonths: the plan for v1.40.0 -> v1.44.0 (dozens of
// gen_ai deprecations, metric renames) validates too: every name it copies
// is one the new registry deprecates.
func TestUpgradePlanSixMonths(t *testing.T) {
	p, cfg := planConfig(t, "v1.40.0", "v1.44.0")
	require.GreaterOrEqual(t, len(p.Copy), 10)
	assert.Len(t, cfg.DeprecatedNames, len(p.Copy))
}

// planConfig writes the plan from the shared release oldRel to newRel
// and loads its configuration as the collector does: unmarshalled into
// this processor's config and validated.
func planConfig(t *testing.T, oldRel, newRel string) (*upgrade.Plan, *config) {
	t.Helper()
	const shared = "../../../shared/semconv/"
	oldIx, err := registry.Load(registry.Sources{SemconvDir: shared + oldRel})
	require.NoError(t, err)
	newIx, err := registry.Load(registry.Sources{SemconvDir: shared + newRel})
	require.NoError(t, err)
	set, err := change.Diff(oldIx, newIx)
	require.NoError(t, err)
	p, err := upgrade.NewPlan(upgrade.NewTouches(set), upgrade.PlanInput{Registry: registry.Sources{SemconvDir: shared + newRel}})
	require.NoError(t, err)
	var raw map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(p.Config), &raw))
	sub, err := confmap.NewFromStringMap(raw).Sub("processors::" + upgrade.ProcessorName)
	require.NoError(t, err)
	cfg := createDefaultConfig().(*config)
	require.NoError(t, sub.Unmarshal(cfg))
	require.NoError(t, confmap.Validate(cfg))
	return p, cfg
}
