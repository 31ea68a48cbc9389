package governanceprocessor

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/extension/registryextension"
	"github.com/otelgov/otelcol-governance/extension/registryextension/registryapi"
	"github.com/otelgov/otelcol-governance/processor/governanceprocessor/internal/metadatatest"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// transitionInfo is the expected transition_info point of a traces instance.
func transitionInfo(ix *registry.Index, deprecated, namesDigest, candidate string, value int64) metricdata.DataPoint[int64] {
	return metricdata.DataPoint[int64]{Attributes: attribute.NewSet(
		attribute.String(processorKey, "governance"),
		attribute.String(signalKey, "traces"),
		attribute.String("schema_url", ix.SchemaURL()),
		attribute.String("digest", ix.Digest()),
		attribute.String("deprecated", deprecated),
		attribute.String("deprecated_names_digest", namesDigest),
		attribute.String("candidate_digest", candidate),
	), Value: value}
}

func nameInForcePoint(name, mode string, value int64) metricdata.DataPoint[int64] {
	return metricdata.DataPoint[int64]{Attributes: attribute.NewSet(
		attribute.String(processorKey, "governance"),
		attribute.String(signalKey, "traces"),
		attribute.String("deprecated_name", name),
		attribute.String("mode", mode),
	), Value: value}
}

// TestTransitionSeries: every started instance says which transition it
// runs, with no deprecated_names too (value 0, digest none), and one series
// per listed name; nothing before start.
func TestTransitionSeries(t *testing.T) {
	ix, err := registry.Default()
	require.NoError(t, err)
	opts := []metricdatatest.Option{metricdatatest.IgnoreTimestamp()}
	ctx := context.Background()

	t.Run("no deprecated_names", func(t *testing.T) {
		tel := componenttest.NewTelemetry()
		t.Cleanup(func() { require.NoError(t, tel.Shutdown(ctx)) })
		g, err := newGovernor(tel.NewTelemetrySettings(), component.MustNewID("governance"), withConfig(nil), ix, nil, vocab.KindTraces, nil)
		require.NoError(t, err)
		_, err = tel.GetMetric("otelcol_processor_governance_transition_info")
		require.Error(t, err, "no series before start")
		require.NoError(t, g.start(ctx, componenttest.NewNopHost()))
		t.Cleanup(func() { require.NoError(t, g.shutdown(ctx)) })
		metadatatest.AssertEqualProcessorGovernanceTransitionInfo(t, tel, []metricdata.DataPoint[int64]{
			transitionInfo(ix, "rename", "none", "none", 0),
		}, opts...)
		_, err = tel.GetMetric("otelcol_processor_governance_deprecated_names_in_force")
		assert.Error(t, err, "no name series without deprecated_names")
	})

	t.Run("deprecated_names", func(t *testing.T) {
		tel := componenttest.NewTelemetry()
		t.Cleanup(func() { require.NoError(t, tel.Shutdown(ctx)) })
		cfg := withConfig(func(c *config) {
			c.DeprecatedNames = map[string]engine.DeprecatedMode{"http.method": engine.DeprecatedCopy, "db.client.connections.usage": engine.DeprecatedOff}
		})
		g, err := newGovernor(tel.NewTelemetrySettings(), component.MustNewID("governance"), cfg, ix, nil, vocab.KindTraces, nil)
		require.NoError(t, err)
		require.NoError(t, g.start(ctx, componenttest.NewNopHost()))
		t.Cleanup(func() { require.NoError(t, g.shutdown(ctx)) })
		digest := deprecatedNamesDigest(cfg)
		require.Len(t, digest, 16)
		metadatatest.AssertEqualProcessorGovernanceTransitionInfo(t, tel, []metricdata.DataPoint[int64]{
			transitionInfo(ix, "rename", digest, "none", 2),
		}, opts...)
		metadatatest.AssertEqualProcessorGovernanceDeprecatedNamesInForce(t, tel, []metricdata.DataPoint[int64]{
			nameInForcePoint("db.client.connections.usage", "off", 1),
			nameInForcePoint("http.method", "copy", 1),
		}, opts...)
		// The digest names the list: another mode is another digest.
		other := withConfig(func(c *config) {
			c.DeprecatedNames = map[string]engine.DeprecatedMode{"http.method": engine.DeprecatedRename, "db.client.connections.usage": engine.DeprecatedOff}
		})
		assert.NotEqual(t, digest, deprecatedNamesDigest(other))
	})
}

// rpcTraces is one span of service checkout carrying
// rpc.response.status_code, current in v1.44.0 and renamed in next-384d661.
func rpcTraces() ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "checkout")
	rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty().Attributes().PutStr("rpc.response.status_code", "OK")
	return td
}

// TestDeprecatedNamesRefusedAtStart: with the registry from the extension,
// which Validate cannot see, a listed name the extension's registry does
// not deprecate (rpc.response.status_code is current in the embedded
// v1.44.0) is refused at start, naming the name and the extension.
func TestDeprecatedNamesRefusedAtStart(t *testing.T) {
	def, err := registry.Default()
	require.NoError(t, err)
	cfg := extensionConfig()
	cfg.DeprecatedNames = map[string]engine.DeprecatedMode{"rpc.response.status_code": engine.DeprecatedCopy, "http.method": engine.DeprecatedCopy}
	require.NoError(t, cfg.Validate(), "validate cannot see the extension's registry")
	ext := &fakeRegistry{}
	ext.cur.Store(&registryapi.Snapshot{Index: def, Generation: 1, LoadedAt: time.Now()})
	host := fakeHost{exts: map[component.ID]component.Component{registryExtID: ext}}
	g, err := newGovernor(nopTelemetry(), component.MustNewID("governance"), cfg, nil, nil, vocab.KindTraces, nil)
	require.NoError(t, err)
	err = g.start(context.Background(), host)
	require.ErrorIs(t, err, errNamesNotInForce)
	assert.Contains(t, err.Error(), `registry::extension "governance_registry"`)
	assert.Contains(t, err.Error(), ": rpc.response.status_code (registry schema_url")
	assert.NotContains(t, err.Error(), "http.method")
	require.NoError(t, g.shutdown(context.Background()))
}

// TestDeprecatedNamesReload: on the new registry (next-384d661) the listed
// rpc.response.status_code is counted; a reload back to the embedded
// v1.44.0, which does not deprecate it, is logged once, and :8888 shows it:
// its in_force series drops to 0 and transition_info counts 0 names.
func TestDeprecatedNamesReload(t *testing.T) {
	next, err := registry.Load(registry.Sources{SemconvDir: nextSemconv(t)})
	require.NoError(t, err)
	def, err := registry.Default()
	require.NoError(t, err)
	cfg := extensionConfig()
	cfg.DeprecatedNames = map[string]engine.DeprecatedMode{"rpc.response.status_code": engine.DeprecatedCopy}
	ext := &fakeRegistry{}
	ext.cur.Store(&registryapi.Snapshot{Index: next, Generation: 1, LoadedAt: time.Now()})
	host := fakeHost{exts: map[component.ID]component.Component{registryExtID: ext}}
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	set := tel.NewTelemetrySettings()
	core, logs := observer.New(zapcore.WarnLevel)
	set.Logger = zap.New(core)
	g, err := newGovernor(set, component.MustNewID("governance"), cfg, nil, nil, vocab.KindTraces, nil)
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, g.start(ctx, host))
	t.Cleanup(func() { require.NoError(t, g.shutdown(ctx)) })
	opts := []metricdatatest.Option{metricdatatest.IgnoreTimestamp()}
	digest := deprecatedNamesDigest(cfg)

	_, err = g.processTraces(ctx, rpcTraces())
	require.NoError(t, err)
	metadatatest.AssertEqualProcessorGovernanceDeprecatedNamesInForce(t, tel, []metricdata.DataPoint[int64]{
		nameInForcePoint("rpc.response.status_code", "copy", 1),
	}, opts...)
	metadatatest.AssertEqualProcessorGovernanceTransitionInfo(t, tel, []metricdata.DataPoint[int64]{
		transitionInfo(next, "rename", digest, "none", 1),
	}, opts...)
	assert.Zero(t, logs.Len())

	ext.cur.Store(&registryapi.Snapshot{Index: def, Generation: 2, LoadedAt: time.Now()})
	out, err := g.processTraces(ctx, rpcTraces())
	require.NoError(t, err)
	attrs := out.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes().AsRaw()
	assert.Equal(t, map[string]any{"rpc.response.status_code": "OK"}, attrs, "passes as sent")
	metadatatest.AssertEqualProcessorGovernanceDeprecatedNamesInForce(t, tel, []metricdata.DataPoint[int64]{
		nameInForcePoint("rpc.response.status_code", "copy", 0),
	}, opts...)
	metadatatest.AssertEqualProcessorGovernanceTransitionInfo(t, tel, []metricdata.DataPoint[int64]{
		transitionInfo(def, "rename", digest, "none", 0),
	}, opts...)
	warned := logs.FilterMessageSnippet("no longer deprecates").All()
	require.Len(t, warned, 1)
	assert.Contains(t, warned[0].ContextMap()["error"], "rpc.response.status_code")
}

// TestTransitionNamesCandidate: with the extension's candidate loaded (the
// new registry), transition_info names it by its digest beside the registry
// in force, so that otelgov upgrade status can take the shadow's counts as
// (sampled) evidence.
func TestTransitionNamesCandidate(t *testing.T) {
	next := nextSemconv(t)
	ext := startRegistryExtension(t, &registryextension.CandidateConfig{SemconvDir: next})
	r := startShadowProcessor(t, ext, nil)
	cand, err := registry.Load(registry.Sources{SemconvDir: next})
	require.NoError(t, err)
	def, err := registry.Default()
	require.NoError(t, err)
	require.NotEqual(t, def.Digest(), cand.Digest())
	metadatatest.AssertEqualProcessorGovernanceTransitionInfo(t, r.tel, []metricdata.DataPoint[int64]{
		transitionInfo(def, "rename", "none", cand.Digest(), 0),
	}, metricdatatest.IgnoreTimestamp())
}
