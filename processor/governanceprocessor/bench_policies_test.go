package governanceprocessor

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/engine/enginetest"
	"github.com/otelgov/otelcol-governance/vocab"
)

// logValueRule is a value-dependent policy that fires on logs only: it
// must cost traces nothing (package policy evaluates each group on the
// kinds its rules can fire on).
const logValueRule = `package live_check_advice

import rego.v1

deny contains {"id": "acme_log_severity", "level": "information", "message": "a log without severity", "context": {}} if {
	input.sample.log
	input.sample.log.severity_number == 0
}
`

// BenchmarkPolicies is the processor's cost per span of advice policies,
// on the line rate's conforming request (testbench: 100 server spans of 13
// current keys, one resource), each batch fresh from OTLP bytes outside the
// timer, in thread CPU time: without policies, with Weaver's otel.rego and
// the line rate's name rule (value-free: the shape memo keeps their
// findings), and with otel.rego and a value rule on logs. The difference
// to policies=none is what policies add to the processor; the whole
// process's is testbench's governance-policies variant.
//
// The host's speed drifts between runs: interleave the variants, pinned,
// and take per-round differences, e.g.
//
//	go test -c -o /tmp/proc.test ./processor/governanceprocessor
//	cd processor/governanceprocessor # the policy directories are relative to it
//	for r in 1 2 3 4 5 6 7; do for v in none otel_rego_names otel_rego_log_value_rule; do
//	  taskset -c 1 /tmp/proc.test -test.run '^$' -test.bench "Policies/policies=$v\$" -test.benchtime 4000x -test.cpu 1
//	done; done
func BenchmarkPolicies(b *testing.B) {
	logs := b.TempDir()
	require.NoError(b, os.WriteFile(filepath.Join(logs, "logs.rego"), []byte(logValueRule), 0o600))
	wire := enginetest.TracesBytes(lineConformingTraces())
	for _, tc := range []struct {
		name string
		dirs []string
	}{
		{"none", nil},
		{"otel_rego_names", []string{"../../policy/testdata/weaver/default", "../../testbench/testdata/policy-name"}},
		{"otel_rego_log_value_rule", []string{"../../policy/testdata/weaver/default", logs}},
	} {
		b.Run("policies="+tc.name, func(b *testing.B) {
			tel := componenttest.NewTelemetry()
			defer func() { _ = tel.Shutdown(context.Background()) }()
			g := newTestGovernor(b, withConfig(func(c *config) { c.Findings.Policies = tc.dirs }), vocab.KindTraces, tel.NewTelemetrySettings())
			timeFreshBatches(b, g, wire, 100, false, 20) // 20 warm: a shape is admitted on a later sighting
			if tc.dirs != nil && g.engine.MemoStats().Hits == 0 {
				b.Fatalf("the shape memo is off with %v: %+v", tc.dirs, g.engine.MemoStats())
			}
		})
	}
}

// lineConformingTraces is the line rate's conforming request
// (testbench.LineWorkloads): one resource, 100 server spans of 13 current
// keys.
func lineConformingTraces() ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	enginetest.PutResourceAttrs(rs.Resource().Attributes(), "checkout")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("linerate")
	for range 100 {
		sp := ss.Spans().AppendEmpty()
		sp.SetName("GET /api/cart")
		sp.SetKind(ptrace.SpanKindServer)
		enginetest.PutConformantSpanAttrs(sp.Attributes(), 0)
	}
	return td
}
