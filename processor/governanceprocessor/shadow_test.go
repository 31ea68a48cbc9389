package governanceprocessor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/extension/extensiontest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/otelgov/otelcol-governance/extension/registryextension"
	"github.com/otelgov/otelcol-governance/extension/registryextension/registryapi"
	"github.com/otelgov/otelcol-governance/processor/governanceprocessor/internal/metadatatest"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/registry/change"
	"github.com/otelgov/otelcol-governance/vocab"
)

// nextSemconv is ../shared/semconv/next-384d661: unreleased main after
// v1.44.0, which renames rpc.response.status_code to rpc.status_code (and so
// moves the target of rpc.connect_rpc.error_code's older rename).
func nextSemconv(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "semconv", "next-384d661")
	if _, err := os.Stat(filepath.Join(dir, "model")); err != nil {
		tb.Skipf("semantic conventions next-384d661 not available: %v", err)
	}
	return dir
}

// startRegistryExtension starts the real governance_registry extension on
// the embedded registry, with the given candidate (none when nil), without
// HTTP or polling.
func startRegistryExtension(tb testing.TB, candidate *registryextension.CandidateConfig) component.Component {
	tb.Helper()
	return startPollingExtension(tb, candidate, 0)
}

// startPollingExtension is startRegistryExtension with a poll interval.
func startPollingExtension(tb testing.TB, candidate *registryextension.CandidateConfig, poll time.Duration) component.Component {
	tb.Helper()
	f := registryextension.NewFactory()
	cfg := f.CreateDefaultConfig().(*registryextension.Config)
	cfg.PollInterval = poll
	cfg.HTTP = configoptional.None[confighttp.ServerConfig]()
	if candidate != nil {
		cfg.Candidate = configoptional.Some(*candidate)
	}
	ext, err := f.Create(context.Background(), extensiontest.NewNopSettings(f.Type()), cfg)
	require.NoError(tb, err)
	require.NoError(tb, ext.Start(context.Background(), componenttest.NewNopHost()))
	tb.Cleanup(func() { require.NoError(tb, ext.Shutdown(context.Background())) })
	return ext
}

// shadowTraces is live-shaped traffic: checkout (an RPC server on v1.44.0's
// rpc.response.status_code, and a deprecated rpc.connect_rpc.error_code)
// and cart (HTTP only, which the candidate does not change).
func shadowTraces() ptrace.Traces {
	td := ptrace.NewTraces()
	for _, svc := range []string{"checkout", "cart", "checkout"} {
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", svc)
		rs.Resource().Attributes().PutStr("host.name", "node-1")
		spans := rs.ScopeSpans().AppendEmpty().Spans()
		for i := range 4 {
			sp := spans.AppendEmpty()
			sp.SetName("GET /cart")
			sp.SetKind(ptrace.SpanKindServer)
			sp.Attributes().PutStr("http.request.method", "GET")
			if svc == "checkout" {
				sp.SetName("shop.Checkout/Pay")
				sp.Attributes().PutStr("rpc.response.status_code", "OK")
				if i == 0 {
					sp.Attributes().PutStr("rpc.connect_rpc.error_code", "unavailable")
				}
			}
		}
	}
	return td
}

// candidateChanges is change.Diff(embedded registry, semconvDir): the set
// the extension's shadow indexes, for the tests' expectations.
func candidateChanges(t *testing.T, semconvDir string) *change.Set {
	t.Helper()
	active, err := registry.Default()
	require.NoError(t, err)
	cand, err := registry.Load(registry.Sources{SemconvDir: semconvDir})
	require.NoError(t, err)
	set, err := change.Diff(active, cand)
	require.NoError(t, err)
	return set
}

type shadowRun struct {
	tel  *componenttest.Telemetry
	sink *consumertest.TracesSink
	tp   processor.Traces
}

// startShadowProcessor starts a traces processor on the extension ext.
func startShadowProcessor(tb testing.TB, ext component.Component, configure func(*config)) *shadowRun {
	tb.Helper()
	r := &shadowRun{tel: componenttest.NewTelemetry(), sink: &consumertest.TracesSink{}}
	tb.Cleanup(func() { require.NoError(tb, r.tel.Shutdown(context.Background())) })
	cfg := extensionConfig()
	if configure != nil {
		configure(cfg)
	}
	require.NoError(tb, cfg.Validate())
	tp, err := NewFactory().CreateTraces(context.Background(), metadatatest.NewSettings(r.tel), cfg, r.sink)
	require.NoError(tb, err)
	host := fakeHost{exts: map[component.ID]component.Component{registryExtID: ext}}
	require.NoError(tb, tp.Start(context.Background(), host))
	tb.Cleanup(func() { require.NoError(tb, tp.Shutdown(context.Background())) })
	r.tp = tp
	return r
}

func everyBatch(c *config) { c.Shadow.SampleEvery = 1 }

func shadowSet(svc, kind string) attribute.Set {
	return attribute.NewSet(attribute.String("processor", "governance"), attribute.String("otel.signal", "traces"),
		attribute.String("service.name", svc), attribute.String("change_kind", kind))
}

func tracesSet(kvs ...attribute.KeyValue) attribute.Set {
	return attribute.NewSet(append([]attribute.KeyValue{attribute.String("processor", "governance"), attribute.String("otel.signal", "traces")}, kvs...)...)
}

// TestShadowCountsCandidateChanges: with the embedded v1.44.0 in force and
// next-384d661 as the candidate, :8888 counts per service and change kind
// what the candidate would change on the sampled batches: every
// occurrence of a key the change set touches, once per kind of change on
// it (the kinds come from change.Diff, so the expectation is derived from
// the same set, plus the rename this pair is known for).
func TestShadowCountsCandidateChanges(t *testing.T) {
	next := nextSemconv(t)
	ext := startRegistryExtension(t, &registryextension.CandidateConfig{SemconvDir: next})
	r := startShadowProcessor(t, ext, everyBatch)

	require.NoError(t, r.tp.ConsumeTraces(context.Background(), shadowTraces()))
	require.NoError(t, r.tp.ConsumeTraces(context.Background(), shadowTraces()))

	set := candidateChanges(t, next)
	// Per batch, checkout sends rpc.response.status_code on 8 spans and
	// rpc.connect_rpc.error_code on 2; cart and the resource keys are
	// unchanged by this pair.
	perKind := map[change.Kind]int64{}
	for name, n := range map[string]int64{"rpc.response.status_code": 8, "rpc.connect_rpc.error_code": 2} {
		for _, c := range set.Changes {
			if c.Item == change.ItemAttribute && c.Name == name && c.Member == "" &&
				c.Kind != change.RequirementLevelChanged && c.Kind != change.AttributeSetChanged {
				perKind[c.Kind] += 2 * n // two batches
			}
		}
	}
	require.Equal(t, int64(2*(8+2)), perKind[change.AttributeRenamed], "both keys are renamed by the candidate")
	want := make([]metricdata.DataPoint[int64], 0, len(perKind))
	for k, n := range perKind {
		want = append(want, metricdata.DataPoint[int64]{Attributes: shadowSet("checkout", k.String()), Value: n})
	}
	t.Logf("expected shadow changes: %v", perKind)
	metadatatest.AssertEqualProcessorGovernanceShadowChanges(t, r.tel, want, metricdatatest.IgnoreTimestamp())
	metadatatest.AssertEqualProcessorGovernanceShadowBatches(t, r.tel, []metricdata.DataPoint[int64]{
		{Attributes: tracesSet(), Value: 2},
	}, metricdatatest.IgnoreTimestamp())
	metadatatest.AssertEqualProcessorGovernanceShadowItems(t, r.tel, []metricdata.DataPoint[int64]{
		{Attributes: tracesSet(), Value: 2 * 12},
	}, metricdatatest.IgnoreTimestamp())
	metadatatest.AssertEqualProcessorGovernanceShadowCandidate(t, r.tel, []metricdata.DataPoint[int64]{
		{Attributes: tracesSet(attribute.String("candidate_status", "loaded")), Value: 1},
	}, metricdatatest.IgnoreTimestamp())
}

// TestShadowMetricsAndLogs: the metrics walk counts a metric whose
// definition the candidate changes once per metric (next-384d661 makes
// error.type conditionally required on otel.sdk.exporter.span.exported),
// and data point attributes once each; the logs walk counts log record
// attributes.
func TestShadowMetricsAndLogs(t *testing.T) {
	next := nextSemconv(t)
	ext := startRegistryExtension(t, &registryextension.CandidateConfig{SemconvDir: next})
	host := fakeHost{exts: map[component.ID]component.Component{registryExtID: ext}}
	cfg := extensionConfig()
	everyBatch(cfg)
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	ctx := context.Background()

	mp, err := NewFactory().CreateMetrics(ctx, metadatatest.NewSettings(tel), cfg, &consumertest.MetricsSink{})
	require.NoError(t, err)
	require.NoError(t, mp.Start(ctx, host))
	t.Cleanup(func() { require.NoError(t, mp.Shutdown(ctx)) })
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "sdk")
	ms := rm.ScopeMetrics().AppendEmpty().Metrics()
	m := ms.AppendEmpty()
	m.SetName("otel.sdk.exporter.span.exported")
	m.SetUnit("{span}")
	sum := m.SetEmptySum()
	sum.SetIsMonotonic(true)
	for range 3 {
		sum.DataPoints().AppendEmpty().Attributes().PutStr("otel.component.type", "otlp_grpc_span_exporter")
	}
	g := ms.AppendEmpty()
	g.SetName("acme.queue.depth")
	gauge := g.SetEmptyGauge()
	for range 2 {
		gauge.DataPoints().AppendEmpty().Attributes().PutStr("rpc.response.status_code", "OK")
	}
	require.NoError(t, mp.ConsumeMetrics(ctx, md))

	lp, err := NewFactory().CreateLogs(ctx, metadatatest.NewSettings(tel), cfg, &consumertest.LogsSink{})
	require.NoError(t, err)
	require.NoError(t, lp.Start(ctx, host))
	t.Cleanup(func() { require.NoError(t, lp.Shutdown(ctx)) })
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "checkout")
	rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Attributes().PutStr("rpc.response.status_code", "OK")
	require.NoError(t, lp.ConsumeLogs(ctx, ld))

	set := candidateChanges(t, next)
	metricKinds := map[change.Kind]int64{}
	for _, c := range set.Changes {
		perSignal := c.Kind == change.RequirementLevelChanged || c.Kind == change.AttributeSetChanged
		if c.Item == change.ItemMetric && ((perSignal && c.Context == m.Name()) || (!perSignal && c.Name == m.Name())) {
			metricKinds[c.Kind] = 1
		}
	}
	require.Equal(t, int64(1), metricKinds[change.RequirementLevelChanged], "error.type becomes conditionally required")
	metricKinds[change.AttributeRenamed] += 2 // the gauge's two data points
	set2 := func(sig, svc, kind string) attribute.Set {
		return attribute.NewSet(attribute.String("processor", "governance"), attribute.String("otel.signal", sig),
			attribute.String("service.name", svc), attribute.String("change_kind", kind))
	}
	var want []metricdata.DataPoint[int64]
	for k, n := range metricKinds {
		want = append(want, metricdata.DataPoint[int64]{Attributes: set2("metrics", "sdk", k.String()), Value: n})
	}
	want = append(want, metricdata.DataPoint[int64]{Attributes: set2("logs", "checkout", "attribute_renamed"), Value: 1})
	metadatatest.AssertEqualProcessorGovernanceShadowChanges(t, tel, want, metricdatatest.IgnoreTimestamp())
}

// TestShadowByteEqual: the output of a processor evaluating the candidate on
// every batch is byte-for-byte the output of one without a candidate, and
// the shadow's walk alone leaves its input as it was.
func TestShadowByteEqual(t *testing.T) {
	next := nextSemconv(t)
	with := startShadowProcessor(t, startRegistryExtension(t, &registryextension.CandidateConfig{SemconvDir: next}), everyBatch)
	without := startShadowProcessor(t, startRegistryExtension(t, nil), everyBatch)

	var m ptrace.ProtoMarshaler
	for range 3 {
		require.NoError(t, with.tp.ConsumeTraces(context.Background(), shadowTraces()))
		require.NoError(t, without.tp.ConsumeTraces(context.Background(), shadowTraces()))
	}
	require.Len(t, with.sink.AllTraces(), 3)
	require.Len(t, without.sink.AllTraces(), 3)
	for i := range 3 {
		a, err := m.MarshalTraces(with.sink.AllTraces()[i])
		require.NoError(t, err)
		b, err := m.MarshalTraces(without.sink.AllTraces()[i])
		require.NoError(t, err)
		assert.Equal(t, b, a, "batch %d", i)
	}
	// The processor did rewrite (deprecated: rename), so equality is not
	// that of two untouched batches.
	in, err := m.MarshalTraces(shadowTraces())
	require.NoError(t, err)
	out, err := m.MarshalTraces(without.sink.AllTraces()[0])
	require.NoError(t, err)
	require.NotEqual(t, in, out)

	// The shadow's own walk, on its own: the input is unchanged.
	sh := startRegistryExtension(t, &registryextension.CandidateConfig{SemconvDir: next}).(registryapi.Shadower)
	g := newTestGovernor(t, extensionConfig(), vocab.KindTraces, nopTelemetry())
	s := newShadow(sh, &shadowConfig{SampleEvery: 1, MaxBatchesPerSecond: 10}, g.tel.services, g.tel.base, time.Now)
	td := shadowTraces()
	s.traces(td)
	after, err := m.MarshalTraces(td)
	require.NoError(t, err)
	assert.Equal(t, in, after)
	assert.Equal(t, int64(1), s.batches.n.Load())
}

// TestShadowFailedCandidate: a candidate that does not load starts nothing
// it could change: the collector starts, nothing is counted, the output is
// that of a processor without a candidate, and the candidate gauge reports
// it failed.
func TestShadowFailedCandidate(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.yaml"), []byte("groups:\n  - id: [broken\n"), 0o600))
	ext := startRegistryExtension(t, &registryextension.CandidateConfig{OrgRegistries: []string{dir}})
	r := startShadowProcessor(t, ext, everyBatch)
	without := startShadowProcessor(t, startRegistryExtension(t, nil), everyBatch)

	require.NoError(t, r.tp.ConsumeTraces(context.Background(), shadowTraces()))
	require.NoError(t, without.tp.ConsumeTraces(context.Background(), shadowTraces()))
	var m ptrace.ProtoMarshaler
	a, err := m.MarshalTraces(r.sink.AllTraces()[0])
	require.NoError(t, err)
	b, err := m.MarshalTraces(without.sink.AllTraces()[0])
	require.NoError(t, err)
	assert.Equal(t, b, a)

	metadatatest.AssertEqualProcessorGovernanceShadowCandidate(t, r.tel, []metricdata.DataPoint[int64]{
		{Attributes: tracesSet(attribute.String("candidate_status", "failed")), Value: 0},
	}, metricdatatest.IgnoreTimestamp())
	_, err = r.tel.GetMetric("otelcol_processor_governance_shadow_batches")
	require.Error(t, err, "a failed candidate samples nothing")
	_, err = r.tel.GetMetric("otelcol_processor_governance_shadow_changes")
	require.Error(t, err)
	assert.Contains(t, ext.(registryapi.Shadower).Shadow().Err, "broken.yaml")
}

// TestShadowOffByDefault: without a candidate the processor has no shadow
// and exports none of its series.
func TestShadowOffByDefault(t *testing.T) {
	r := startShadowProcessor(t, startRegistryExtension(t, nil), nil)
	require.NoError(t, r.tp.ConsumeTraces(context.Background(), shadowTraces()))
	for _, name := range []string{"shadow_changes", "shadow_batches", "shadow_items", "shadow_candidate"} {
		_, err := r.tel.GetMetric("otelcol_processor_governance_" + name)
		require.Error(t, err, name)
	}
	g := newTestGovernor(t, extensionConfig(), vocab.KindTraces, nopTelemetry())
	host := fakeHost{exts: map[component.ID]component.Component{registryExtID: startRegistryExtension(t, nil)}}
	require.NoError(t, g.start(context.Background(), host))
	assert.Nil(t, g.shadow, "no candidate, no shadow")

	cfg := defaultTestConfig()
	assert.Equal(t, defaultShadowEvery, cfg.Shadow.SampleEvery)
	assert.Equal(t, defaultShadowRate, cfg.Shadow.MaxBatchesPerSecond)
}

// fixedShadow is a Shadower with a fixed candidate.
type fixedShadow struct{ s *registryapi.Shadow }

func (f fixedShadow) Shadow() *registryapi.Shadow { return f.s }

// TestShadowSample: one batch in sample_every, at most
// max_batches_per_second per second.
func TestShadowSample(t *testing.T) {
	l := change.NewLookup(&change.Set{Changes: []change.Change{{Kind: change.AttributeRemoved, Item: change.ItemAttribute, Name: "http.request.method"}}})
	src := fixedShadow{&registryapi.Shadow{Changes: l, Generation: 1, ActiveGeneration: 1}}
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	g := newTestGovernor(t, defaultTestConfig(), vocab.KindTraces, nopTelemetry())
	s := newShadow(src, &shadowConfig{SampleEvery: 3, MaxBatchesPerSecond: 2}, g.tel.services, g.tel.base, clock)
	for range 9 {
		s.traces(shadowTraces())
	}
	assert.Equal(t, int64(2), s.batches.n.Load(), "3 of 9 batches sampled, 2 within the second's cap")
	now = now.Add(time.Second)
	for range 3 {
		s.traces(shadowTraces())
	}
	assert.Equal(t, int64(3), s.batches.n.Load(), "the next second allows more")
	assert.Equal(t, int64(3*12), s.items.n.Load())
	// 12 spans with http.request.method per batch, under three services'
	// slots: checkout 8, cart 4.
	var total int64
	for _, slot := range g.tel.services.snapshot() {
		total += slot.shadow[change.AttributeRemoved].n.Load()
	}
	assert.Equal(t, int64(3*12), total)
}

// TestShadowServiceNameBounded: the shadow files a resource under the same
// bounded service name as the engine, without counting the bounding twice.
func TestShadowServiceNameBounded(t *testing.T) {
	next := nextSemconv(t)
	r := startShadowProcessor(t, startRegistryExtension(t, &registryextension.CandidateConfig{SemconvDir: next}), everyBatch)
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	long := strings.Repeat("s", 300)
	rs.Resource().Attributes().PutStr("service.name", long)
	rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty().Attributes().PutStr("rpc.response.status_code", "OK")
	require.NoError(t, r.tp.ConsumeTraces(context.Background(), td))
	metadatatest.AssertEqualProcessorGovernanceServiceNameBounded(t, r.tel, []metricdata.DataPoint[int64]{
		{Attributes: tracesSet(), Value: 1},
	}, metricdatatest.IgnoreTimestamp())
	bounded, _ := vocab.Bound(long)
	metadatatest.AssertEqualProcessorGovernanceShadowChanges(t, r.tel, []metricdata.DataPoint[int64]{
		{Attributes: shadowSet(bounded, "attribute_renamed"), Value: 1},
	}, metricdatatest.IgnoreTimestamp())
}

// TestShadowConcurrentReload: batches sampled on several goroutines while
// the extension's poller reloads a candidate that alternates between
// loading and not, and the SDK collects: run with -race.
func TestShadowConcurrentReload(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cart.yaml")
	good := "groups:\n  - id: registry.acme.cart\n    type: attribute_group\n    brief: Cart.\n    attributes:\n      - id: acme.cart.state\n        type: string\n        stability: development\n        brief: State.\n"
	broken := "groups:\n  - id: [broken\n"
	require.NoError(t, os.WriteFile(file, []byte(good), 0o600))
	ext := startPollingExtension(t, &registryextension.CandidateConfig{OrgRegistries: []string{dir}}, 100*time.Millisecond)
	r := startShadowProcessor(t, ext, everyBatch)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				assert.NoError(t, r.tp.ConsumeTraces(context.Background(), shadowTraces()))
			}
		}()
	}
	for i := range 8 {
		content := good
		if i%2 == 0 {
			content = broken
		}
		require.NoError(t, os.WriteFile(file+".tmp", []byte(content), 0o600))
		require.NoError(t, os.Rename(file+".tmp", file))
		time.Sleep(150 * time.Millisecond)
		_, _ = r.tel.GetMetric("otelcol_processor_governance_shadow_changes")
	}
	close(stop)
	wg.Wait()
	// The last content written loads: once the poller has seen it (a busy
	// machine may delay it), a batch is sampled again.
	src := ext.(registryapi.Shadower)
	require.Eventually(t, func() bool { return !src.Shadow().Failed() }, 10*time.Second, 20*time.Millisecond)
	assert.Positive(t, src.Shadow().Generation)
	require.NoError(t, r.tp.ConsumeTraces(context.Background(), shadowTraces()))
	_, err := r.tel.GetMetric("otelcol_processor_governance_shadow_batches")
	require.NoError(t, err, "batches are sampled while the candidate loads")
}

func TestShadowConfigValidate(t *testing.T) {
	cfg := withConfig(func(c *config) { c.Shadow = shadowConfig{SampleEvery: 0, MaxBatchesPerSecond: maxShadowPerSecond + 1} })
	err := cfg.Validate()
	require.ErrorIs(t, err, errNotPositive)
	require.ErrorIs(t, err, errOutOfRange)
	assert.Contains(t, err.Error(), "shadow::sample_every: must be positive, got 0")
	assert.Contains(t, err.Error(), "shadow::max_batches_per_second: out of range: 10001, want 1 to 10000")
}
