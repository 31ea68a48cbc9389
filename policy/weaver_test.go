package policy_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/otelgov/otelcol-governance/policy"
	"github.com/otelgov/otelcol-governance/vocab"
)

// Weaver's tests of its example policy (crates/weaver_live_check/data/
// policies/live_check_advice/test.rego) in
// crates/weaver_live_check/src/live_checker.rs, on the same samples.

// run_custom_rego_test: custom.string=hello has no advice, test.string gets
// contains_test with Weaver's context and message.
func TestWeaverCustomRego(t *testing.T) {
	ix := suiteRegistry(t, "comprehensive")
	s := load(t, ix, policy.Options{}, weaverPolicies+"/live_check_advice")
	ctx := context.Background()

	in := policy.Input{Sample: policy.Attribute("custom.string", pcommon.NewValueStr("hello"))}
	fs, err := s.Eval(ctx, &in)
	require.NoError(t, err)
	assert.Empty(t, fs)

	in = policy.Input{Sample: policy.Attribute("test.string", pcommon.NewValueEmpty())}
	fs, err = s.Eval(ctx, &in)
	require.NoError(t, err)
	require.Len(t, fs, 1)
	assert.Equal(t, "contains_test", fs[0].ID)
	assert.Equal(t, vocab.LevelViolation, fs[0].Level)
	assert.JSONEq(t, `{"attribute_key": "test.string"}`, fs[0].Context)
	assert.Equal(t, "Attribute name must not contain 'test', but was 'test.string'", fs[0].Message)
	assert.False(t, fs[0].Finding.Builtin(), "a policy's own ID")
}

// run_json_span_rego_test (data/span.json): one contains_test_in_status.
func TestWeaverSpanRego(t *testing.T) {
	ix := suiteRegistry(t, "comprehensive")
	s := load(t, ix, policy.Options{}, weaverPolicies+"/live_check_advice")
	n := countIDs(t, s, ix, "span.json")
	assert.Equal(t, 1, n["contains_test_in_status"], "%v", n)
}

// run_json_metric_custom_rego_test (data/metrics.json): one
// invalid_data_point_value, from the registry_group's unit.
func TestWeaverMetricRego(t *testing.T) {
	ix := suiteRegistry(t, "metrics")
	s := load(t, ix, policy.Options{}, weaverPolicies+"/live_check_advice")
	n := countIDs(t, s, ix, "metrics.json")
	assert.Equal(t, 1, n["invalid_data_point_value"], "%v", n)
}

// run_json_log_custom_rego_test (data/logs.json, Weaver's JSON samples
// as log records with string bodies): one empty_body, for the record with
// neither event name nor body. Its required_phrase_missing reads an
// annotation of the event's definition, which the registry model does not
// hold: not asserted.
func TestWeaverLogRego(t *testing.T) {
	ix := suiteRegistry(t, "events")
	s := load(t, ix, policy.Options{}, weaverPolicies+"/live_check_advice")
	ld := plog.NewLogs()
	lrs := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
	for _, r := range []struct{ event, body string }{
		{"session.start", ""}, {"session.test", ""}, {"example.event", "hello world"}, {"", ""},
	} {
		lr := lrs.AppendEmpty()
		lr.SetEventName(r.event)
		lr.Body().SetStr(r.body)
		lr.SetSeverityNumber(plog.SeverityNumberInfo)
		lr.Attributes().PutStr("session.id", "00112233-4455-6677-8899-aabbccddeeff")
	}
	n := map[string]int{}
	require.NoError(t, s.Logs(context.Background(), ix, ld, func(ev *policy.Event) { n[ev.ID]++ }))
	assert.Equal(t, 1, n["empty_body"], "%v", n)
	assert.Zero(t, n["required_phrase_missing"], "annotations are not in the registry model")
}

// The bad policy (use of an undefined variable) must not compile, and the
// error names the file and line.
func TestWeaverBadPolicy(t *testing.T) {
	err := policy.Check(weaverPolicies + "/bad_advice")
	require.ErrorIs(t, err, policy.ErrCompile)
	assert.Contains(t, err.Error(), "testdata/weaver/bad_advice/bad.rego:16:")
	assert.Contains(t, err.Error(), "attribu1te_name")
	_, err = policy.LoadDirs(suiteRegistry(t, "comprehensive"), policy.Options{}, weaverPolicies+"/bad_advice")
	require.ErrorIs(t, err, policy.ErrCompile)
}
