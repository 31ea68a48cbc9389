package governanceprocessor

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/findingrules"
	"github.com/otelgov/otelcol-governance/processor/governanceprocessor/internal/metadata"
	"github.com/otelgov/otelcol-governance/processor/governanceprocessor/internal/metadatatest"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// durationMetric is http.server.request.duration in unit with the required
// attributes (unless missingMethod) and user.id when extra.
func durationMetric(unit string, missingMethod, extra bool) pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "checkout")
	m := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("http.server.request.duration")
	m.SetUnit(unit)
	attrs := m.SetEmptyHistogram().DataPoints().AppendEmpty().Attributes()
	if !missingMethod {
		attrs.PutStr("http.request.method", "GET")
	}
	attrs.PutStr("url.scheme", "https")
	attrs.PutStr("http.route", "/cart")
	attrs.PutInt("http.response.status_code", 200)
	attrs.PutStr("network.protocol.name", "http")
	attrs.PutStr("network.protocol.version", "1.1")
	attrs.PutStr("error.type", "_OTHER")
	attrs.PutStr("server.address", "shop")
	attrs.PutInt("server.port", 443)
	if extra {
		attrs.PutStr("user.id", "u-1")
	}
	return md
}

func TestFindingsTelemetry(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	cfg := withConfig(func(c *config) {
		c.Findings.Profile = "extended" // unexpected_attribute on a v1 metric
		c.Findings.LevelOverrides = map[string]string{"unexpected_attribute": "violation"}
		c.Findings.DropUnexpectedAttributes = true
	})
	sink := &consumertest.MetricsSink{}
	mp, err := NewFactory().CreateMetrics(context.Background(), metadatatest.NewSettings(tel), cfg, sink)
	require.NoError(t, err)
	require.NoError(t, mp.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, mp.Shutdown(context.Background())) })

	require.NoError(t, mp.ConsumeMetrics(context.Background(), durationMetric("ms", true, true)))
	require.NoError(t, mp.ConsumeMetrics(context.Background(), durationMetric("s", false, false)))

	set := func(kvs ...attribute.KeyValue) attribute.Set { return attribute.NewSet(kvs...) }
	proc := attribute.String("processor", "governance")
	sig := attribute.String("otel.signal", "metrics")
	fnd := func(f, l string) []attribute.KeyValue {
		return []attribute.KeyValue{attribute.String("finding", f), attribute.String("level", l)}
	}
	svc := attribute.String("service.name", "checkout")
	opts := []metricdatatest.Option{metricdatatest.IgnoreTimestamp()}
	metadatatest.AssertEqualProcessorGovernanceFindings(t, tel, []metricdata.DataPoint[int64]{
		{Attributes: set(append([]attribute.KeyValue{proc, sig}, fnd("unit_mismatch", "violation")...)...), Value: 1},
		{Attributes: set(append([]attribute.KeyValue{proc, sig}, fnd("required_attribute_not_present", "violation")...)...), Value: 1},
		{Attributes: set(append([]attribute.KeyValue{proc, sig}, fnd("unexpected_attribute", "violation")...)...), Value: 1},
		// user.id is a development attribute.
		{Attributes: set(append([]attribute.KeyValue{proc, sig}, fnd("not_stable", "improvement")...)...), Value: 1},
		// user_agent.synthetic.type is opt-in and absent from both.
		{Attributes: set(append([]attribute.KeyValue{proc, sig}, fnd("opt_in_attribute_not_present", "information")...)...), Value: 2},
	}, opts...)
	metadatatest.AssertEqualProcessorGovernanceServiceFindings(t, tel, []metricdata.DataPoint[int64]{
		{Attributes: set(append([]attribute.KeyValue{proc, sig, svc}, fnd("unit_mismatch", "violation")...)...), Value: 1},
		{Attributes: set(append([]attribute.KeyValue{proc, sig, svc}, fnd("required_attribute_not_present", "violation")...)...), Value: 1},
		{Attributes: set(append([]attribute.KeyValue{proc, sig, svc}, fnd("unexpected_attribute", "violation")...)...), Value: 1},
		{Attributes: set(append([]attribute.KeyValue{proc, sig, svc}, fnd("not_stable", "improvement")...)...), Value: 1},
		{Attributes: set(append([]attribute.KeyValue{proc, sig, svc}, fnd("opt_in_attribute_not_present", "information")...)...), Value: 2},
	}, opts...)
	metadatatest.AssertEqualProcessorGovernanceAttributesDropped(t, tel, []metricdata.DataPoint[int64]{
		{Attributes: set(proc, sig, attribute.String("reason", "unexpected")), Value: 1},
	}, opts...)
	got := sink.AllMetrics()
	require.Len(t, got, 2)
	_, ok := got[0].ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(0).Histogram().DataPoints().At(0).Attributes().Get("user.id")
	require.False(t, ok, "the cardinality guard dropped user.id")
}

// TestFindingRulesTelemetry: findings::finding_filters drops a finding
// from the :8888 counters (unit_mismatch, scoped to metrics), and a scoped
// finding_level_overrides entry counts not_stable at violation on the
// user.* attribute samples only; the deprecated level_overrides still
// applies after it.
func TestFindingRulesTelemetry(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	cfg := withConfig(func(c *config) {
		c.Findings.Profile = "extended"
		c.Findings.FindingFilters = []findingrules.Filter{{Exclude: []string{"unit_mismatch"}, SignalType: "metric"}}
		c.Findings.FindingLevelOverrides = []findingrules.LevelOverride{
			{IDs: []string{"not_stable"}, Level: "violation", SignalType: "metric", SampleNames: []string{"user.*"}},
		}
		c.Findings.LevelOverrides = map[string]string{"unexpected_attribute": "information"}
	})
	require.NoError(t, cfg.Validate())
	mp, err := NewFactory().CreateMetrics(context.Background(), metadatatest.NewSettings(tel), cfg, &consumertest.MetricsSink{})
	require.NoError(t, err)
	require.NoError(t, mp.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, mp.Shutdown(context.Background())) })

	require.NoError(t, mp.ConsumeMetrics(context.Background(), durationMetric("ms", true, true)))
	// A development attribute not under user.*: not_stable at its own level.
	md := durationMetric("s", false, false)
	md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(0).Histogram().DataPoints().At(0).Attributes().PutStr("url.template", "/cart/{id}")
	require.NoError(t, mp.ConsumeMetrics(context.Background(), md))

	set := func(kvs ...attribute.KeyValue) attribute.Set { return attribute.NewSet(kvs...) }
	proc := attribute.String("processor", "governance")
	sig := attribute.String("otel.signal", "metrics")
	svc := attribute.String("service.name", "checkout")
	fnd := func(f, l string) []attribute.KeyValue {
		return []attribute.KeyValue{attribute.String("finding", f), attribute.String("level", l)}
	}
	want := func(extra ...attribute.KeyValue) []metricdata.DataPoint[int64] {
		kv := func(f, l string) attribute.Set {
			return set(append(append([]attribute.KeyValue{proc, sig}, extra...), fnd(f, l)...)...)
		}
		return []metricdata.DataPoint[int64]{
			{Attributes: kv("required_attribute_not_present", "violation"), Value: 1},
			{Attributes: kv("unexpected_attribute", "information"), Value: 2},
			{Attributes: kv("not_stable", "violation"), Value: 1},
			{Attributes: kv("not_stable", "improvement"), Value: 1},
			{Attributes: kv("opt_in_attribute_not_present", "information"), Value: 2},
		}
	}
	opts := []metricdatatest.Option{metricdatatest.IgnoreTimestamp()}
	metadatatest.AssertEqualProcessorGovernanceFindings(t, tel, want(), opts...)
	metadatatest.AssertEqualProcessorGovernanceServiceFindings(t, tel, want(svc), opts...)
}

func TestFindingLogRateLimit(t *testing.T) {
	now := time.Unix(100, 0)
	fl := newFindingLog(2, func() time.Time { return now })
	ev := &engine.FindingEvent{
		Finding: vocab.FindingUnitMismatch, Level: vocab.LevelViolation, Subject: vocab.SubjectMetric,
		Name: "http.server.request.duration", SampleType: "metric", SignalType: "metric",
		SignalName: "http.server.request.duration", Service: "checkout",
	}
	assert.True(t, fl.Emit(ev))
	assert.True(t, fl.Emit(ev))
	assert.False(t, fl.Emit(ev), "burst spent")
	now = now.Add(500 * time.Millisecond)
	assert.False(t, fl.Emit(ev), "buffer full until drained")
	ld := plog.NewLogs()
	fl.drainInto(ld)
	assert.Equal(t, 2, ld.LogRecordCount())
	assert.True(t, fl.Emit(ev), "refilled one token in half a second")
	assert.False(t, fl.Emit(ev))

	lr := ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0)
	assert.Equal(t, "weaver.live_check.finding", lr.EventName())
	assert.Equal(t, plog.SeverityNumberError, lr.SeverityNumber())
	assert.Equal(t, map[string]any{
		"weaver.finding.id":                              "unit_mismatch",
		"weaver.finding.level":                           "violation",
		"weaver.finding.sample.type":                     "metric",
		"weaver.finding.signal.type":                     "metric",
		"weaver.finding.signal.name":                     "http.server.request.duration",
		"weaver.finding.context.metric_name":             "http.server.request.duration",
		"weaver.finding.resource.attribute.service.name": "checkout",
	}, lr.Attributes().AsRaw())
}

// TestFindingLogsPipeline: findings of the metrics pipeline arrive as log
// records in the logs pipeline of the same configured processor.
func TestFindingLogsPipeline(t *testing.T) {
	cfg := withConfig(func(c *config) {
		c.Findings.Logs = findingLogsConfig{Enabled: true, MaxPerSecond: 1000}
		c.Findings.Profile = "extended" // unexpected_attribute on a v1 metric
	})
	f := NewFactory()
	set := processortest.NewNopSettings(metadata.Type)
	msink, lsink := &consumertest.MetricsSink{}, &consumertest.LogsSink{}
	mp, err := f.CreateMetrics(context.Background(), set, cfg, msink)
	require.NoError(t, err)
	lp, err := f.CreateLogs(context.Background(), set, cfg, lsink)
	require.NoError(t, err)
	for _, c := range []component.Component{mp, lp} {
		require.NoError(t, c.Start(context.Background(), componenttest.NewNopHost()))
		t.Cleanup(func() { require.NoError(t, c.Shutdown(context.Background())) })
	}
	assert.True(t, lp.Capabilities().MutatesData)

	require.NoError(t, mp.ConsumeMetrics(context.Background(), durationMetric("ms", true, true)))
	require.NoError(t, lp.ConsumeLogs(context.Background(), plog.NewLogs()))
	require.Len(t, lsink.AllLogs(), 1)
	ids := map[string]bool{}
	ld := lsink.AllLogs()[0]
	for _, rl := range ld.ResourceLogs().All() {
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				assert.Equal(t, "weaver.live_check.finding", lr.EventName())
				id, _ := lr.Attributes().Get("weaver.finding.id")
				ids[id.Str()] = true
			}
		}
	}
	assert.True(t, ids["unit_mismatch"] && ids["required_attribute_not_present"] && ids["unexpected_attribute"], "%v", ids)

	// Off by default: no records.
	lsink2 := &consumertest.LogsSink{}
	lp2, err := f.CreateLogs(context.Background(), processortest.NewNopSettings(metadata.Type), defaultTestConfig(), lsink2)
	require.NoError(t, err)
	require.NoError(t, lp2.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, lp2.Shutdown(context.Background())) })
	require.NoError(t, lp2.ConsumeLogs(context.Background(), plog.NewLogs()))
	assert.Zero(t, lsink2.AllLogs()[0].LogRecordCount())
}

// TestFindingsV2: findings::v2 reads a registry as Weaver's --v2 does: the
// legacy registry's metric and attribute state no stability, which v2
// reads as development (not_stable); v1 reports nothing for them.
func TestFindingsV2(t *testing.T) {
	for _, v2 := range []bool{false, true} {
		tel := componenttest.NewTelemetry()
		cfg := withConfig(func(c *config) {
			c.Registry.Embedded = false
			c.Registry.OrgRegistries = []string{"../../checker/weaversuite/testdata/registries/legacy"}
			c.Findings.V2 = v2
		})
		require.NoError(t, cfg.Validate())
		mp, err := NewFactory().CreateMetrics(context.Background(), metadatatest.NewSettings(tel), cfg, &consumertest.MetricsSink{})
		require.NoError(t, err)
		require.NoError(t, mp.Start(context.Background(), componenttest.NewNopHost()))
		md := pmetric.NewMetrics()
		rm := md.ResourceMetrics().AppendEmpty()
		m := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
		m.SetName("legacy.requests")
		m.SetUnit("{request}")
		s := m.SetEmptySum()
		s.SetIsMonotonic(true)
		s.DataPoints().AppendEmpty().Attributes().PutStr("legacy.name", "a")
		require.NoError(t, mp.ConsumeMetrics(context.Background(), md))
		t.Cleanup(func() { require.NoError(t, mp.Shutdown(context.Background())) })

		got, err := tel.GetMetric("otelcol_processor_governance_findings")
		if !v2 {
			require.Error(t, err, "no finding in v1 mode")
			continue
		}
		require.NoError(t, err)
		sum, ok := got.Data.(metricdata.Sum[int64])
		require.True(t, ok)
		byFinding := map[string]int64{}
		for _, dp := range sum.DataPoints {
			f, _ := dp.Attributes.Value("finding")
			byFinding[f.AsString()] += dp.Value
		}
		assert.Equal(t, map[string]int64{"not_stable": 2}, byFinding, "the metric and its attribute")
	}
}

// TestEntityAssociationsTelemetry: an entity_association_not_satisfied is
// counted on :8888 with the association's entity types (Weaver's context
// entity_type), registry names: Weaver's sample registry
// (crates/weaver_live_check/data/model/entity_associations/registry.yaml,
// an all_of[tenant, one_of[host, container]]) and its first resource, which
// has none of them.
func TestEntityAssociationsTelemetry(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	cfg := withConfig(func(c *config) {
		c.Registry.Embedded = false
		c.Registry.OrgRegistries = []string{"../../checker/weaversuite/testdata/registries/entity_associations"}
		c.Registry.RulesFiles = nil
	})
	require.NoError(t, cfg.Validate())
	lp, err := NewFactory().CreateLogs(context.Background(), metadatatest.NewSettings(tel), cfg, &consumertest.LogsSink{})
	require.NoError(t, err)
	require.NoError(t, lp.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, lp.Shutdown(context.Background())) })
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "my-service")
	lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
	lrs.AppendEmpty().SetEventName("thing.happened")
	lrs.AppendEmpty().SetEventName("thing.happened")
	require.NoError(t, lp.ConsumeLogs(context.Background(), ld))

	metadatatest.AssertEqualProcessorGovernanceEntityAssociationsNotSatisfied(t, tel, []metricdata.DataPoint[int64]{
		{Attributes: attribute.NewSet(attribute.String("processor", "governance"), attribute.String("otel.signal", "logs"),
			attribute.String("entity_types", "host,container")), Value: 2},
	}, metricdatatest.IgnoreTimestamp())
}

// TestAssociationCountersBounded: past maxAssociations distinct
// associations, the label is _other.
func TestAssociationCountersBounded(t *testing.T) {
	a := newAssociationCounters(nil)
	for i := range maxAssociations + 3 {
		as := []registry.EntityAssociation{{Entity: fmt.Sprintf("e%d", i)}}
		a.add([]engine.AssociationTally{{Association: as, Count: 1}})
	}
	assert.Len(t, a.byName, maxAssociations+1)
	require.Contains(t, a.byName, vocab.ServiceOther)
	assert.Equal(t, int64(3), a.byName[vocab.ServiceOther].n.Load())
}
