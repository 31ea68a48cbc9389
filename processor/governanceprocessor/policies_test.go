package governanceprocessor

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/otelgov/otelcol-governance/policy"
	"github.com/otelgov/otelcol-governance/processor/governanceprocessor/internal/metadata"
	"github.com/otelgov/otelcol-governance/processor/governanceprocessor/internal/metadatatest"
)

// policySpans are n spans that break both rules of testdata/policies: a
// key with "test" (by name) and a url.full with credentials (by value).
func policySpans(n int) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "shop")
	ss := rs.ScopeSpans().AppendEmpty().Spans()
	for range n {
		s := ss.AppendEmpty()
		s.SetName("GET /cart")
		s.Attributes().PutStr("url.full", "https://bob:secret@shop.example/cart")
		s.Attributes().PutStr("acme.test_run", "42")
	}
	return td
}

// The processor's findings::policies count on :8888 under their own IDs,
// with the evaluations, memo hits and budget skips; the data passes
// unchanged.
func TestPoliciesTelemetry(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	cfg := withConfig(func(c *config) {
		c.Findings.Policies = []string{"testdata/policies"}
		c.Findings.PolicyBudgetPerSecond = 1_000_000
		c.Findings.LevelOverrides = map[string]string{"acme_url_credentials": "improvement"}
	})
	sink := &consumertest.TracesSink{}
	tp, err := NewFactory().CreateTraces(context.Background(), metadatatest.NewSettings(tel), cfg, sink)
	require.NoError(t, err)
	require.NoError(t, tp.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, tp.Shutdown(context.Background())) })

	td := policySpans(3)
	want := ptrace.NewTraces()
	td.CopyTo(want)
	require.NoError(t, tp.ConsumeTraces(context.Background(), td))
	require.Len(t, sink.AllTraces(), 1)
	got := sink.AllTraces()[0].ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	for i := range got.Len() {
		v, ok := got.At(i).Attributes().Get("url.full")
		require.True(t, ok, "policies never change data")
		assert.Equal(t, "https://bob:secret@shop.example/cart", v.Str())
	}

	set := func(kvs ...attribute.KeyValue) attribute.Set { return attribute.NewSet(kvs...) }
	proc := attribute.String("processor", "governance")
	sig := attribute.String("otel.signal", "traces")
	pf := func(id string) attribute.KeyValue { return attribute.String("policy_finding", id) }
	lv := attribute.String("level", "violation")
	opts := []metricdatatest.Option{metricdatatest.IgnoreTimestamp()}
	metadatatest.AssertEqualProcessorGovernancePolicyFindings(t, tel, []metricdata.DataPoint[int64]{
		{Attributes: set(proc, sig, pf("acme_no_test_keys"), lv), Value: 3},
		{Attributes: set(proc, sig, pf("acme_url_credentials"), attribute.String("level", "improvement")), Value: 3},
	}, opts...)
	// Samples offered: the policies fire on attributes only
	// (policy.Set.FiresOn), so the resource's 1 attribute and the 3 spans'
	// 2 attributes each: 7. The value-free group is evaluated once per
	// distinct key (service.name, url.full, acme.test_run: 3) and answered
	// from the memo for the other 4; the value-dependent group is
	// evaluated on all 7.
	metadatatest.AssertEqualProcessorGovernancePolicyMemoHits(t, tel, []metricdata.DataPoint[int64]{
		{Attributes: set(proc, sig), Value: 4},
	}, opts...)
	metadatatest.AssertEqualProcessorGovernancePolicyEvaluations(t, tel, []metricdata.DataPoint[int64]{
		{Attributes: set(proc, sig), Value: 3 + 7},
	}, opts...)
}

// The budget bounds the evaluations per second, value-dependent ones and
// the value-free ones' memo misses, and the skipped samples are counted;
// value-free findings answered from the memo cost no budget.
func TestPoliciesBudget(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	cfg := withConfig(func(c *config) {
		c.Findings.Policies = []string{"testdata/policies"}
		c.Findings.PolicyBudgetPerSecond = 8
	})
	g := newTestGovernor(t, cfg, 0, tel.NewTelemetrySettings())
	require.NotNil(t, g.pol)
	// A fixed clock: one second's budget.
	now := time.Unix(1000, 0)
	a := policy.NewAdvisor(g.pol.cur.Load().Set(), policy.AdvisorOptions{BudgetPerSecond: 8, Now: func() time.Time { return now }})
	g.pol.cur.Store(a)
	_, err := g.processTraces(context.Background(), policySpans(3))
	require.NoError(t, err)
	// The policies fire on attributes only (policy.Set.FiresOn): the
	// resource and the spans are not offered. In order: service.name,
	// url.full and acme.test_run miss the memo and take 2 each (6); the
	// second span's attributes' value rules take the last 2; the value
	// rules of span 3's 2 attributes are skipped.
	st := g.pol.stats()
	assert.Equal(t, int64(2), st.BudgetSkips)
	n := map[string]int64{}
	for k, c := range g.pol.findings {
		n[k.id] += c.n.Load()
	}
	assert.Equal(t, int64(3), n["acme_no_test_keys"], "value-free: 1 evaluation, 2 from the memo")
	assert.Equal(t, int64(2), n["acme_url_credentials"], "url.full of span 3 skipped")
}

// Without policies the processor walks with no Advisor.
func TestNoPoliciesNoAdvisor(t *testing.T) {
	g := newTestGovernor(t, defaultTestConfig(), 0, nopTelemetry())
	assert.Nil(t, g.pol)
}

// Policy findings reach the finding records under their own IDs.
func TestPoliciesFindingLogs(t *testing.T) {
	cfg := withConfig(func(c *config) {
		c.Findings.Logs = findingLogsConfig{Enabled: true, MaxPerSecond: 1000}
		c.Findings.Policies = []string{"testdata/policies"}
	})
	f := NewFactory()
	set := processortest.NewNopSettings(metadata.Type)
	tsink, lsink := &consumertest.TracesSink{}, &consumertest.LogsSink{}
	tp, err := f.CreateTraces(context.Background(), set, cfg, tsink)
	require.NoError(t, err)
	lp, err := f.CreateLogs(context.Background(), set, cfg, lsink)
	require.NoError(t, err)
	for _, c := range []component.Component{tp, lp} {
		require.NoError(t, c.Start(context.Background(), componenttest.NewNopHost()))
		t.Cleanup(func() { require.NoError(t, c.Shutdown(context.Background())) })
	}
	require.NoError(t, tp.ConsumeTraces(context.Background(), policySpans(1)))
	require.NoError(t, lp.ConsumeLogs(context.Background(), plog.NewLogs()))
	bodies := map[string]string{}
	for _, rl := range lsink.AllLogs()[0].ResourceLogs().All() {
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				id, _ := lr.Attributes().Get("weaver.finding.id")
				bodies[id.Str()] = lr.Body().Str()
			}
		}
	}
	assert.Equal(t, "acme_no_test_keys: key 'acme.test_run'", bodies["acme_no_test_keys"], "%v", bodies)
	assert.Equal(t, "acme_url_credentials: key 'url.full'", bodies["acme_url_credentials"], "%v", bodies)
}

// With value-free policies only, a span sample that repeats an earlier
// one's key in the batch is answered by the engine, and counted as a
// policy memo hit: the evaluations and memo hits still add up to the
// samples offered.
func TestPoliciesTelemetryRepeats(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	// docs/policies.md's name rule and one on span names: the policies fire on
	// attributes and spans (policy.Set.FiresOn), so the resource is not
	// offered.
	dir := t.TempDir()
	rule, err := os.ReadFile("../../testbench/testdata/policy-name/acme_names.rego")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "names.rego"), rule, 0o600)) //nolint:gosec // a test's temporary directory
	require.NoError(t, os.WriteFile(filepath.Join(dir, "spans.rego"), []byte(`package live_check_advice

import rego.v1

deny contains {"id": "acme_span_tmp", "level": "improvement", "message": "m", "context": {}} if {
	startswith(input.sample.span.name, "tmp ")
}
`), 0o600))
	cfg := withConfig(func(c *config) {
		c.Findings.Policies = []string{dir}
		c.Findings.PolicyBudgetPerSecond = 1_000_000
	})
	tp, err := NewFactory().CreateTraces(context.Background(), metadatatest.NewSettings(tel), cfg, &consumertest.TracesSink{})
	require.NoError(t, err)
	require.NoError(t, tp.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, tp.Shutdown(context.Background())) })
	// One batch: 1 resource, its 1 attribute, 5 spans named alike with
	// 2 attributes each. The shape memo admits the spans' shape at its
	// third sighting: the attributes of the first three spans are offered,
	// the last two maps are hits. Distinct keys: service.name, the span,
	// url.full, acme.test_run: 4 evaluations. The 4 repeated spans are the
	// engine's; the 4 repeated attributes the policies' memo's.
	require.NoError(t, tp.ConsumeTraces(context.Background(), policySpans(5)))
	set := attribute.NewSet(attribute.String("processor", "governance"), attribute.String("otel.signal", "traces"))
	opts := []metricdatatest.Option{metricdatatest.IgnoreTimestamp()}
	metadatatest.AssertEqualProcessorGovernancePolicyEvaluations(t, tel, []metricdata.DataPoint[int64]{{Attributes: set, Value: 4}}, opts...)
	metadatatest.AssertEqualProcessorGovernancePolicyMemoHits(t, tel, []metricdata.DataPoint[int64]{{Attributes: set, Value: 4 + 4}}, opts...)
}

// findings::advice_data and advice_preprocessor reach the policies: a
// user.id outside data.user.allowed_ids (advice data) and a user.* key
// outside data.user_keys (the preprocessor's result over the registry) are
// found, each once.
func TestPoliciesAdviceInputs(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	cfg := withConfig(func(c *config) {
		c.Findings.Policies = []string{"testdata/advice/policies"}
		c.Findings.AdviceData = "testdata/advice/data/*.json"
		c.Findings.AdvicePreprocessor = "testdata/advice/user.jq"
		c.Findings.PolicyBudgetPerSecond = 1_000_000
	})
	sink := &consumertest.TracesSink{}
	tp, err := NewFactory().CreateTraces(context.Background(), metadatatest.NewSettings(tel), cfg, sink)
	require.NoError(t, err)
	require.NoError(t, tp.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, tp.Shutdown(context.Background())) })

	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "shop")
	ss := rs.ScopeSpans().AppendEmpty().Spans()
	for k, v := range map[string]string{"user.id": "usr_999", "user.nope": "x"} {
		s := ss.AppendEmpty()
		s.SetName("GET /cart")
		s.Attributes().PutStr(k, v)
	}
	s := ss.AppendEmpty()
	s.SetName("GET /cart")
	s.Attributes().PutStr("user.id", "usr_123")
	require.NoError(t, tp.ConsumeTraces(context.Background(), td))

	set := func(kvs ...attribute.KeyValue) attribute.Set { return attribute.NewSet(kvs...) }
	proc := attribute.String("processor", "governance")
	sig := attribute.String("otel.signal", "traces")
	pf := func(id string) attribute.KeyValue { return attribute.String("policy_finding", id) }
	metadatatest.AssertEqualProcessorGovernancePolicyFindings(t, tel, []metricdata.DataPoint[int64]{
		{Attributes: set(proc, sig, pf("invalid_user_id"), attribute.String("level", "violation")), Value: 1},
		{Attributes: set(proc, sig, pf("unknown_user_key"), attribute.String("level", "improvement")), Value: 1},
	}, metricdatatest.IgnoreTimestamp())
}
