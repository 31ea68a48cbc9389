package governanceprocessor

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/otelgov/otelcol-governance/engine"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/otelgov/otelcol-governance/processor/governanceprocessor/internal/metadatatest"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

func TestCapabilities(t *testing.T) {
	tests := []struct {
		name    string
		cfg     func(*config)
		mutates bool
	}{
		{name: "default renames", mutates: true},
		{name: "observe only", cfg: func(c *config) { c.Deprecated = engine.DeprecatedOff }, mutates: false},
		{name: "unknown drop", cfg: func(c *config) { c.Deprecated = engine.DeprecatedOff; c.Unknown = engine.UnknownDrop }, mutates: true},
		{name: "coerce", cfg: func(c *config) { c.Deprecated = engine.DeprecatedOff; c.TypeMismatch = engine.TypeMismatchCoerce }, mutates: true},
		{name: "enum drop", cfg: func(c *config) {
			c.Deprecated = engine.DeprecatedOff
			c.EnumViolation = engine.EnumViolationDrop
			c.ClosedEnums = []string{"http.request.method"}
		}, mutates: true},
		// Open enums are never dropped: without closed_enums, drop changes nothing.
		{name: "enum drop without closed enums", cfg: func(c *config) { c.Deprecated = engine.DeprecatedOff; c.EnumViolation = engine.EnumViolationDrop }, mutates: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFactory()
			cfg := withConfig(tt.cfg)
			set := processortest.NewNopSettings(f.Type())
			tp, err := f.CreateTraces(context.Background(), set, cfg, consumertest.NewNop())
			require.NoError(t, err)
			mp, err := f.CreateMetrics(context.Background(), set, cfg, consumertest.NewNop())
			require.NoError(t, err)
			lp, err := f.CreateLogs(context.Background(), set, cfg, consumertest.NewNop())
			require.NoError(t, err)
			assert.Equal(t, tt.mutates, tp.Capabilities().MutatesData)
			assert.Equal(t, tt.mutates, mp.Capabilities().MutatesData)
			assert.Equal(t, tt.mutates, lp.Capabilities().MutatesData)
		})
	}
}

// TestSharedIndex loads the registry once per configured processor.
func TestSharedIndex(t *testing.T) {
	f := &factory{indexes: map[component.ID]sharedIndex{}}
	cfg := withConfig(orgRegistry)
	id := component.MustNewID("governance")
	a, err := f.index(id, cfg)
	require.NoError(t, err)
	b, err := f.index(id, cfg)
	require.NoError(t, err)
	assert.Same(t, a.ix, b.ix)
	c, err := f.index(id, withConfig(orgRegistry))
	require.NoError(t, err)
	assert.NotSame(t, a.ix, c.ix, "a new configuration (reload) loads again")
}

// TestTelemetry asserts every internal metric through the generated helpers.
func TestTelemetry(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	f := NewFactory()
	cfg := withConfig(func(c *config) {
		c.ServiceLimit = 1
		c.Unknown = engine.UnknownDrop
	})
	sink := &consumertest.TracesSink{}
	tp, err := f.CreateTraces(context.Background(), metadatatest.NewSettings(tel), cfg, sink)
	require.NoError(t, err)
	require.NoError(t, tp.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, tp.Shutdown(context.Background())) })

	td := ptrace.NewTraces()
	for _, svc := range []string{"checkout", "payment"} {
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", svc)
		s := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		s.Attributes().PutStr("http.method", "GET")
		s.Attributes().PutStr("acme.team", "cart")
	}
	require.NoError(t, tp.ConsumeTraces(context.Background(), td))

	ix, err := registry.Default()
	require.NoError(t, err)
	set := func(kvs ...attribute.KeyValue) attribute.Set { return attribute.NewSet(kvs...) }
	proc := attribute.String("processor", "governance")
	sig := attribute.String("otel.signal", "traces")
	loc := func(l string) attribute.KeyValue { return attribute.String("location", l) }
	out := func(o string) attribute.KeyValue { return attribute.String("outcome", o) }
	svc := func(s string) attribute.KeyValue { return attribute.String("service.name", s) }
	opts := []metricdatatest.Option{metricdatatest.IgnoreTimestamp()}

	metadatatest.AssertEqualProcessorGovernanceAttributes(t, tel, []metricdata.DataPoint[int64]{
		{Attributes: set(proc, sig, loc("resource"), out("conformant")), Value: 2},
		{Attributes: set(proc, sig, loc("span"), out("renamed")), Value: 2},
		{Attributes: set(proc, sig, loc("span"), out("dropped")), Value: 2},
	}, opts...)
	metadatatest.AssertEqualProcessorGovernanceAttributesDropped(t, tel, []metricdata.DataPoint[int64]{
		{Attributes: set(proc, sig, attribute.String("reason", "unknown")), Value: 2},
	}, opts...)
	metadatatest.AssertEqualProcessorGovernanceServiceAttributes(t, tel, []metricdata.DataPoint[int64]{
		{Attributes: set(proc, sig, svc("checkout"), out("conformant")), Value: 1},
		{Attributes: set(proc, sig, svc("checkout"), out("renamed")), Value: 1},
		{Attributes: set(proc, sig, svc("checkout"), out("dropped")), Value: 1},
		{Attributes: set(proc, sig, svc("_other"), out("conformant")), Value: 1},
		{Attributes: set(proc, sig, svc("_other"), out("renamed")), Value: 1},
		{Attributes: set(proc, sig, svc("_other"), out("dropped")), Value: 1},
	}, opts...)
	metadatatest.AssertEqualProcessorGovernanceServiceOverflow(t, tel, []metricdata.DataPoint[int64]{
		{Attributes: set(proc, sig), Value: 1},
	}, opts...)
	metadatatest.AssertEqualProcessorGovernanceRegistryInfo(t, tel, []metricdata.DataPoint[int64]{
		{Attributes: set(proc, sig,
			attribute.String("schema_url", ix.SchemaURL()),
			attribute.String("digest", ix.Digest()),
			attribute.Int64("generation", 1),
		), Value: 1},
	}, opts...)
	assert.Equal(t, 2, sink.SpanCount())
}

func TestMetricNamesTelemetry(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	f := NewFactory()
	mp, err := f.CreateMetrics(context.Background(), metadatatest.NewSettings(tel), createDefaultConfig(), consumertest.NewNop())
	require.NoError(t, err)
	md := pmetric.NewMetrics()
	ms := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics()
	m := ms.AppendEmpty()
	m.SetName("db.client.connections.usage")
	m.SetUnit("{connection}")
	m.SetEmptySum().DataPoints().AppendEmpty().SetIntValue(1)
	h := ms.AppendEmpty()
	h.SetName("http.server.duration")
	h.SetUnit("ms")
	h.SetEmptyHistogram().DataPoints().AppendEmpty()
	require.NoError(t, mp.ConsumeMetrics(context.Background(), md))
	proc := attribute.String("processor", "governance")
	sig := attribute.String("otel.signal", "metrics")
	metadatatest.AssertEqualProcessorGovernanceMetricNames(t, tel, []metricdata.DataPoint[int64]{
		{Attributes: attribute.NewSet(proc, sig, attribute.String("outcome", "renamed")), Value: 1},
		{Attributes: attribute.NewSet(proc, sig, attribute.String("outcome", "incompatible")), Value: 1},
	}, metricdatatest.IgnoreTimestamp())
	assert.Equal(t, "db.client.connection.count", m.Name())
	assert.Equal(t, "http.server.duration", h.Name(), "unit ms differs from the target's s")
}

// Deprecated keys in the large batch, renamed in every context.
var lossRenames = map[string]string{
	"http.method":      "http.request.method",
	"http.status_code": "http.response.status_code",
	"http.url":         "url.full",
	"net.transport":    "network.transport",
}

// putMixed fills a map with conforming, deprecated and unknown keys whose
// values cover every pdata type, nested ones included.
func putMixed(m pcommon.Map, i int) {
	m.PutStr("http.method", "GET")
	m.PutInt("http.status_code", int64(200+i%5))
	m.PutStr("http.url", fmt.Sprintf("https://shop.example.com/item/%d?q=%d", i, i*7))
	m.PutStr("net.transport", "ip_tcp")
	m.PutStr("server.address", "shop.example.com")
	m.PutDouble("acme.ratio", float64(i)/3)
	m.PutBool("acme.flag", i%2 == 0)
	m.PutEmptyBytes("acme.blob").FromRaw(append([]byte{0, 0xff, 0x80}, strconv.Itoa(i)...))
	s := m.PutEmptySlice("acme.list")
	s.AppendEmpty().SetStr("a")
	s.AppendEmpty().SetInt(int64(i))
	s.AppendEmpty().SetEmptyMap().PutStr("deep", "yes")
	nested := m.PutEmptyMap("acme.nested")
	nested.PutStr("http.method", "stays: nested maps are values, not attributes")
	nested.PutEmptySlice("bytes").AppendEmpty().SetEmptyBytes().FromRaw([]byte("\x00\x01"))
	m.PutStr("acme.\xff\xfe.invalid_utf8", "k")
	m.PutStr("http.request.header.x-trace", "not an array")
}

// expectMixed is putMixed after default processing.
func expectMixed(before pcommon.Map) map[string]any {
	out := before.AsRaw()
	for old, cur := range lossRenames {
		if v, ok := out[old]; ok {
			delete(out, old)
			out[cur] = v
		}
	}
	return out
}

// zipMaps walks two batches of the same shape and hands out their maps pairwise.
func traceMaps(td ptrace.Traces) []pcommon.Map {
	var out []pcommon.Map
	for _, rs := range td.ResourceSpans().All() {
		out = append(out, rs.Resource().Attributes())
		for _, ss := range rs.ScopeSpans().All() {
			out = append(out, ss.Scope().Attributes())
			for _, s := range ss.Spans().All() {
				out = append(out, s.Attributes())
				for _, e := range s.Events().All() {
					out = append(out, e.Attributes())
				}
				for _, l := range s.Links().All() {
					out = append(out, l.Attributes())
				}
			}
		}
	}
	return out
}

func metricMaps(md pmetric.Metrics) []pcommon.Map {
	var out []pcommon.Map
	for _, rm := range md.ResourceMetrics().All() {
		out = append(out, rm.Resource().Attributes())
		for _, sm := range rm.ScopeMetrics().All() {
			out = append(out, sm.Scope().Attributes())
			for _, m := range sm.Metrics().All() {
				switch m.Type() {
				case pmetric.MetricTypeSum:
					for _, dp := range m.Sum().DataPoints().All() {
						out = append(out, dp.Attributes())
						for _, ex := range dp.Exemplars().All() {
							out = append(out, ex.FilteredAttributes())
						}
					}
				case pmetric.MetricTypeGauge:
					for _, dp := range m.Gauge().DataPoints().All() {
						out = append(out, dp.Attributes())
					}
				case pmetric.MetricTypeHistogram:
					for _, dp := range m.Histogram().DataPoints().All() {
						out = append(out, dp.Attributes())
						for _, ex := range dp.Exemplars().All() {
							out = append(out, ex.FilteredAttributes())
						}
					}
				case pmetric.MetricTypeExponentialHistogram:
					for _, dp := range m.ExponentialHistogram().DataPoints().All() {
						out = append(out, dp.Attributes())
					}
				case pmetric.MetricTypeSummary:
					for _, dp := range m.Summary().DataPoints().All() {
						out = append(out, dp.Attributes())
					}
				case pmetric.MetricTypeEmpty:
				}
			}
		}
	}
	return out
}

func logMaps(ld plog.Logs) []pcommon.Map {
	var out []pcommon.Map
	for _, rl := range ld.ResourceLogs().All() {
		out = append(out, rl.Resource().Attributes())
		for _, sl := range rl.ScopeLogs().All() {
			out = append(out, sl.Scope().Attributes())
			for _, lr := range sl.LogRecords().All() {
				out = append(out, lr.Attributes())
			}
		}
	}
	return out
}

// compareMaps checks every map key by key, then clears both sides so that
// the caller can compare everything else byte for byte.
func compareMaps(t *testing.T, before, after []pcommon.Map) {
	t.Helper()
	require.Len(t, after, len(before))
	for i := range before {
		require.Equal(t, expectMixedOrSame(before[i]), after[i].AsRaw(), "map %d", i)
		before[i].Clear()
		after[i].Clear()
	}
}

func expectMixedOrSame(m pcommon.Map) map[string]any {
	if _, ok := m.Get("acme.blob"); ok {
		return expectMixed(m)
	}
	return m.AsRaw()
}

func bigTraces() ptrace.Traces {
	td := ptrace.NewTraces()
	for r := range 20 {
		rs := td.ResourceSpans().AppendEmpty()
		putResourceAttrs(rs.Resource().Attributes(), fmt.Sprintf("svc-%d", r%7))
		putMixed(rs.Resource().Attributes(), r)
		for sc := range 2 {
			ss := rs.ScopeSpans().AppendEmpty()
			ss.Scope().SetName(fmt.Sprintf("lib-%d", sc))
			putMixed(ss.Scope().Attributes(), sc)
			for i := range 25 {
				s := ss.Spans().AppendEmpty()
				s.SetName(fmt.Sprintf("op-%d", i))
				s.SetKind(ptrace.SpanKind(i % 6))
				s.SetTraceID(pcommon.TraceID{byte(r), byte(sc), byte(i)})
				s.SetSpanID(pcommon.SpanID{byte(i), 1})
				s.SetStartTimestamp(pcommon.Timestamp(1_700_000_000_000_000_000 + i))
				s.Status().SetCode(ptrace.StatusCodeError)
				s.Status().SetMessage("boom")
				putMixed(s.Attributes(), i)
				e := s.Events().AppendEmpty()
				e.SetName("exception")
				putMixed(e.Attributes(), i)
				l := s.Links().AppendEmpty()
				l.SetTraceID(pcommon.TraceID{9})
				putMixed(l.Attributes(), i)
			}
		}
	}
	return td
}

func bigMetrics() pmetric.Metrics {
	md := pmetric.NewMetrics()
	for r := range 10 {
		rm := md.ResourceMetrics().AppendEmpty()
		putResourceAttrs(rm.Resource().Attributes(), fmt.Sprintf("svc-%d", r))
		sm := rm.ScopeMetrics().AppendEmpty()
		putMixed(sm.Scope().Attributes(), r)
		for i := range 10 {
			sum := sm.Metrics().AppendEmpty()
			sum.SetName(fmt.Sprintf("acme.sum.%d", i))
			sum.SetUnit("{item}")
			dp := sum.SetEmptySum().DataPoints().AppendEmpty()
			dp.SetDoubleValue(float64(i) * 1.5)
			putMixed(dp.Attributes(), i)
			ex := dp.Exemplars().AppendEmpty()
			ex.SetIntValue(int64(i))
			putMixed(ex.FilteredAttributes(), i)
			g := sm.Metrics().AppendEmpty()
			g.SetName(fmt.Sprintf("acme.gauge.%d", i))
			putMixed(g.SetEmptyGauge().DataPoints().AppendEmpty().Attributes(), i)
			h := sm.Metrics().AppendEmpty()
			h.SetName(fmt.Sprintf("acme.hist.%d", i))
			hdp := h.SetEmptyHistogram().DataPoints().AppendEmpty()
			hdp.BucketCounts().FromRaw([]uint64{1, 2, 3})
			hdp.ExplicitBounds().FromRaw([]float64{1, 2})
			putMixed(hdp.Attributes(), i)
			putMixed(hdp.Exemplars().AppendEmpty().FilteredAttributes(), i)
			eh := sm.Metrics().AppendEmpty()
			eh.SetName(fmt.Sprintf("acme.exphist.%d", i))
			edp := eh.SetEmptyExponentialHistogram().DataPoints().AppendEmpty()
			edp.Positive().BucketCounts().FromRaw([]uint64{4, 5})
			putMixed(edp.Attributes(), i)
			su := sm.Metrics().AppendEmpty()
			su.SetName(fmt.Sprintf("acme.summary.%d", i))
			sdp := su.SetEmptySummary().DataPoints().AppendEmpty()
			sdp.QuantileValues().AppendEmpty().SetQuantile(0.99)
			putMixed(sdp.Attributes(), i)
		}
	}
	return md
}

func bigLogs() plog.Logs {
	ld := plog.NewLogs()
	for r := range 10 {
		rl := ld.ResourceLogs().AppendEmpty()
		putResourceAttrs(rl.Resource().Attributes(), fmt.Sprintf("svc-%d", r))
		sl := rl.ScopeLogs().AppendEmpty()
		for i := range 50 {
			lr := sl.LogRecords().AppendEmpty()
			lr.Body().SetEmptyMap().PutStr("http.method", "a body is not governed")
			lr.SetSeverityText("INFO")
			putMixed(lr.Attributes(), i)
		}
	}
	return ld
}

// TestNoDataLoss sends large mixed batches through the real processors: items
// in equal items out, renamed values are moved byte for byte, and everything
// else, nested values and bytes included, is unchanged.
// testSchemaURL is the embedded registry's schema URL.
const testSchemaURL = "https://opentelemetry.io/schemas/1.44.0"

func TestNoDataLoss(t *testing.T) {
	f := NewFactory()
	set := processortest.NewNopSettings(f.Type())
	ctx := context.Background()

	t.Run("traces", func(t *testing.T) {
		sink := &consumertest.TracesSink{}
		p, err := f.CreateTraces(ctx, set, createDefaultConfig(), sink)
		require.NoError(t, err)
		in := bigTraces()
		before := ptrace.NewTraces()
		in.CopyTo(before)
		require.NoError(t, p.ConsumeTraces(ctx, in))
		require.Len(t, sink.AllTraces(), 1)
		out := sink.AllTraces()[0]
		assert.Equal(t, before.SpanCount(), out.SpanCount())
		compareMaps(t, traceMaps(before), traceMaps(out))
		// Every resource and scope carries renamed keys: their schema_url
		// moves to the registry's.
		for _, r := range out.ResourceSpans().All() {
			assert.Equal(t, testSchemaURL, r.SchemaUrl())
			r.SetSchemaUrl("")
			for _, sc := range r.ScopeSpans().All() {
				assert.Equal(t, testSchemaURL, sc.SchemaUrl())
				sc.SetSchemaUrl("")
			}
		}
		assert.Equal(t, before, out)
	})
	t.Run("metrics", func(t *testing.T) {
		sink := &consumertest.MetricsSink{}
		p, err := f.CreateMetrics(ctx, set, createDefaultConfig(), sink)
		require.NoError(t, err)
		in := bigMetrics()
		before := pmetric.NewMetrics()
		in.CopyTo(before)
		require.NoError(t, p.ConsumeMetrics(ctx, in))
		require.Len(t, sink.AllMetrics(), 1)
		out := sink.AllMetrics()[0]
		assert.Equal(t, before.DataPointCount(), out.DataPointCount())
		compareMaps(t, metricMaps(before), metricMaps(out))
		// Every resource and scope carries renamed keys: their schema_url
		// moves to the registry's.
		for _, r := range out.ResourceMetrics().All() {
			assert.Equal(t, testSchemaURL, r.SchemaUrl())
			r.SetSchemaUrl("")
			for _, sc := range r.ScopeMetrics().All() {
				assert.Equal(t, testSchemaURL, sc.SchemaUrl())
				sc.SetSchemaUrl("")
			}
		}
		assert.Equal(t, before, out)
	})
	t.Run("logs", func(t *testing.T) {
		sink := &consumertest.LogsSink{}
		p, err := f.CreateLogs(ctx, set, createDefaultConfig(), sink)
		require.NoError(t, err)
		in := bigLogs()
		before := plog.NewLogs()
		in.CopyTo(before)
		require.NoError(t, p.ConsumeLogs(ctx, in))
		require.Len(t, sink.AllLogs(), 1)
		out := sink.AllLogs()[0]
		assert.Equal(t, before.LogRecordCount(), out.LogRecordCount())
		compareMaps(t, logMaps(before), logMaps(out))
		// Every resource and scope carries renamed keys: their schema_url
		// moves to the registry's.
		for _, r := range out.ResourceLogs().All() {
			assert.Equal(t, testSchemaURL, r.SchemaUrl())
			r.SetSchemaUrl("")
			for _, sc := range r.ScopeLogs().All() {
				assert.Equal(t, testSchemaURL, sc.SchemaUrl())
				sc.SetSchemaUrl("")
			}
		}
		assert.Equal(t, before, out)
	})
}

// TestConcurrentBatches shares one processor between goroutines, as a
// receiver with many connections does. Run with -race.
func TestConcurrentBatches(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	g := newTestGovernor(t, withConfig(func(c *config) { c.ServiceLimit = 3 }), vocab.KindTraces, tel.NewTelemetrySettings())
	const workers, batches = 4, 20
	done := make(chan struct{})
	for w := range workers {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range batches {
				td := genTraces(5, mixDeprecated)
				td.ResourceSpans().At(0).Resource().Attributes().PutStr("service.name", fmt.Sprintf("svc-%d", (w+i)%6))
				_, err := g.processTraces(context.Background(), td)
				assert.NoError(t, err)
			}
		}()
	}
	for range workers {
		<-done
	}
	var total int64
	m, err := tel.GetMetric("otelcol_processor_governance_attributes")
	require.NoError(t, err)
	for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
		total += dp.Value
	}
	assert.Equal(t, int64(workers*batches*(5*attrsPerItem+6)), total)
}

// TestMemoTelemetry: the engine's shape memo counters reach :8888. Ten
// batches of one shape (a resource and a span map each): every map is a
// hit or a miss, the two shapes end up in the memo, and later batches hit.
// With policies in force the walk uses the policy engine's memo, which
// counts the same.
func TestMemoTelemetry(t *testing.T) {
	for _, tc := range []struct {
		name     string
		policies []string
	}{
		{"policies=none", nil},
		{"policies=otel.rego", []string{"../../policy/testdata/weaver/default"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testMemoTelemetry(t, withConfig(func(c *config) { c.Findings.Policies = tc.policies }))
		})
	}
}

func testMemoTelemetry(t *testing.T, cfg *config) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	tp, err := NewFactory().CreateTraces(context.Background(), metadatatest.NewSettings(tel), cfg, &consumertest.TracesSink{})
	require.NoError(t, err)
	require.NoError(t, tp.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, tp.Shutdown(context.Background())) })
	for range 10 {
		td := ptrace.NewTraces()
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", "checkout")
		s := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		s.Attributes().PutStr("http.method", "GET")
		s.Attributes().PutStr("url.path", "/cart")
		require.NoError(t, tp.ConsumeTraces(context.Background(), td))
	}
	value := func(name string) int64 {
		m, err := tel.GetMetric("otelcol_processor_governance_" + name)
		require.NoError(t, err, name)
		switch d := m.Data.(type) {
		case metricdata.Sum[int64]:
			require.Len(t, d.DataPoints, 1, name)
			return d.DataPoints[0].Value
		case metricdata.Gauge[int64]:
			require.Len(t, d.DataPoints, 1, name)
			return d.DataPoints[0].Value
		}
		t.Fatalf("%s: unexpected data %T", name, m.Data)
		return 0
	}
	hits, misses := value("memo_hits"), value("memo_misses")
	assert.Equal(t, int64(20), hits+misses, "every map is a hit or a miss")
	assert.GreaterOrEqual(t, hits, int64(8), "hits once the shapes are known")
	assert.Equal(t, int64(2), value("memo_entries"))
	assert.Positive(t, value("memo_bytes"))
	assert.Zero(t, value("memo_evictions"))
}
