package policy_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/policy"
)

// Weaver's instrumentation scope samples (afa9700c): its OTLP ingester
// offers one Sample::InstrumentationScope per scope, after the resource's
// and before the scope's signals (src/registry/otlp/otlp_ingester.rs and
// its test of the order), and the scope's attributes are attribute samples
// under it (crates/weaver_live_check/src/sample_instrumentation_scope.rs).
// A root resource or scope sample has no resource or scope of its own
// (Sample::resource and instrumentation_scope are None): input.resource
// and input.instrumentation_scope are null for them and their attributes,
// and set for a signal's samples (live_checker.rs, the test of
// instrumentation_scope_seen). The scope is Weaver's test's
// (tests/instrumentation_scope.rs).

const (
	scopeName    = "library"
	scopeVersion = "1.2.3"
	scopeSchema  = "https://opentelemetry.io/schemas/1.32.0"
)

// scopePolicy's IDs say which context each sample had.
const scopePolicy = header + `
# The scope sample, as Weaver serializes it, with no context of its own.
deny contains {"id": "scope_sample", "level": "information", "message": s.name} if {
	s := input.sample.instrumentation_scope
	s.version == "` + scopeVersion + `"
	s.schema_url == "` + scopeSchema + `"
	s.attributes[0].name == "scope.environment"
	s.attributes[0].value == "test"
	s.dropped_attributes_count == 2
	input.resource == null
	input.instrumentation_scope == null
}

deny contains {"id": "scope_sample_other", "level": "information", "message": s.name} if {
	s := input.sample.instrumentation_scope
	s.name != "` + scopeName + `"
}

deny contains {"id": "attribute_alone", "level": "information", "message": input.sample.attribute.name} if {
	input.sample.attribute
	input.resource == null
	input.instrumentation_scope == null
}

deny contains {"id": "attribute_in_signal", "level": "information", "message": input.sample.attribute.name} if {
	input.sample.attribute
	input.resource.attributes[_].name == "service.name"
	input.instrumentation_scope.name == "` + scopeName + `"
	input.instrumentation_scope.schema_url == "` + scopeSchema + `"
}

# Weaver's instrumentation_scope_seen, on every signal.
deny contains {"id": "instrumentation_scope_seen", "level": "information", "message": "m"} if {
	not input.sample.attribute
	not input.sample.resource
	not input.sample.instrumentation_scope
	input.instrumentation_scope.name == "` + scopeName + `"
	input.instrumentation_scope.version == "` + scopeVersion + `"
}
`

// weaverScope fills s as Weaver's test's scope, with its attribute.
func weaverScope(s pcommon.InstrumentationScope) {
	s.SetName(scopeName)
	s.SetVersion(scopeVersion)
	s.Attributes().PutStr("scope.environment", "test")
	s.SetDroppedAttributesCount(2)
}

func scopeResource(r pcommon.Resource) { r.Attributes().PutStr("service.name", "checkout") }

// scopeBatches are a traces, a metrics and a logs batch: each one resource
// with Weaver's scope (one span, metric or log with one attribute) and an
// empty scope after it (one more signal, no attribute).
func scopeBatches() (ptrace.Traces, pmetric.Metrics, plog.Logs) {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	scopeResource(rs.Resource())
	ss := rs.ScopeSpans().AppendEmpty()
	ss.SetSchemaUrl(scopeSchema)
	weaverScope(ss.Scope())
	sp := ss.Spans().AppendEmpty()
	sp.SetName("GET /")
	sp.Attributes().PutStr("http.request.method", "GET")
	rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty().SetName("other")

	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	scopeResource(rm.Resource())
	sm := rm.ScopeMetrics().AppendEmpty()
	sm.SetSchemaUrl(scopeSchema)
	weaverScope(sm.Scope())
	m := sm.Metrics().AppendEmpty()
	m.SetName("requests")
	m.SetEmptySum().SetIsMonotonic(true)
	m.Sum().DataPoints().AppendEmpty().Attributes().PutStr("http.request.method", "GET")
	om := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	om.SetName("other")
	om.SetEmptyGauge().DataPoints().AppendEmpty()

	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	scopeResource(rl.Resource())
	sl := rl.ScopeLogs().AppendEmpty()
	sl.SetSchemaUrl(scopeSchema)
	weaverScope(sl.Scope())
	lr := sl.LogRecords().AppendEmpty()
	lr.SetEventName("request.completed")
	lr.Attributes().PutStr("http.request.method", "GET")
	rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	return td, md, ld
}

// Each batch, by ID: the scope sample once (the empty scope is offered
// too: pdata cannot tell it from an absent one), the resource's and the
// scope's attribute with no context, the signal's attribute with both,
// and the signal under Weaver's scope (its data point too, for the
// metric) sees the scope.
var scopeWant = map[string]map[string]int{
	"traces":  {"scope_sample": 1, "scope_sample_other": 1, "attribute_alone": 2, "attribute_in_signal": 1, "instrumentation_scope_seen": 1},
	"metrics": {"scope_sample": 1, "scope_sample_other": 1, "attribute_alone": 2, "attribute_in_signal": 1, "instrumentation_scope_seen": 2},
	"logs":    {"scope_sample": 1, "scope_sample_other": 1, "attribute_alone": 2, "attribute_in_signal": 1, "instrumentation_scope_seen": 1},
}

func TestScopeSamples(t *testing.T) {
	ix := suiteRegistry(t, "comprehensive")
	s, err := source(t, ix, policy.Options{}, scopePolicy)
	require.NoError(t, err)
	td, md, ld := scopeBatches()
	ctx := context.Background()
	for name, run := range map[string]func(policy.Emit) error{
		"traces":  func(e policy.Emit) error { return s.Traces(ctx, ix, td, e) },
		"metrics": func(e policy.Emit) error { return s.Metrics(ctx, ix, md, e) },
		"logs":    func(e policy.Emit) error { return s.Logs(ctx, ix, ld, e) },
	} {
		t.Run(name, func(t *testing.T) {
			n := map[string]int{}
			var order []string
			require.NoError(t, run(func(ev *policy.Event) {
				n[ev.ID]++
				if ev.ID == "scope_sample" {
					// Weaver's SampleRef: the scope's name is the sample's;
					// a root scope sample has no signal type or name.
					assert.Equal(t, engine.SampleScope, ev.Sample)
					assert.Equal(t, scopeName, ev.Name)
					assert.Empty(t, ev.SignalType)
					assert.Empty(t, ev.SignalName)
				}
				if ev.ID == "attribute_alone" && ev.Message == "scope.environment" {
					assert.Empty(t, ev.SignalType, "a scope attribute has the scope's (no) signal")
				}
				order = append(order, ev.ID+" "+ev.Message)
			}))
			assert.Equal(t, scopeWant[name], n)
			// The ingester's order: resource, scope, then the scope's signals.
			require.GreaterOrEqual(t, len(order), 4)
			assert.Equal(t, []string{
				"attribute_alone service.name", "scope_sample " + scopeName,
				"attribute_alone scope.environment",
			}, order[:3])
			assert.Equal(t, "instrumentation_scope_seen m", order[3])
		})
	}
}

// scopeKeyPolicy is value-free (it reads keys only), so the engine's
// shape memo records and replays its findings on scope attributes.
const scopeKeyPolicy = header + `deny contains {"id": "environment_key", "level": "information", "message": "m"} if {
	input.sample.attribute
	endswith(input.sample.attribute.name, ".environment")
}
`

// The engine's walk offers the same samples in the same contexts: the
// processor's findings by ID are the policy walk's, with the shape memo
// off (scopePolicy reads values) and on (scopeKeyPolicy), through its
// hits.
func TestScopeSamplesThroughEngine(t *testing.T) {
	ix := suiteRegistry(t, "comprehensive")
	td, md, ld := scopeBatches()
	for _, tc := range []struct {
		text string
		want map[string]map[string]int
		memo bool
	}{
		{scopePolicy, scopeWant, false},
		{scopeKeyPolicy, map[string]map[string]int{
			"traces": {"environment_key": 1}, "metrics": {"environment_key": 1}, "logs": {"environment_key": 1},
		}, true},
	} {
		s, err := source(t, ix, policy.Options{}, tc.text)
		require.NoError(t, err)
		e := readOnlyEngine(policy.NewAdvisor(s, policy.AdvisorOptions{}), true)
		for name, walk := range map[string]func(*engine.Walker){
			"traces":  func(w *engine.Walker) { w.Traces(td) },
			"metrics": func(w *engine.Walker) { w.Metrics(md) },
			"logs":    func(w *engine.Walker) { w.Logs(ld) },
		} {
			want := tc.want[name]
			for i := range 4 { // the memo records a shape at its second sighting
				w := e.Walker(ix, true)
				walk(w)
				n := map[string]int{}
				for _, f := range w.Batch().Findings {
					if _, ok := want[f.ID]; ok {
						n[f.ID] += int(f.Count)
					}
				}
				e.Release(w)
				assert.Equal(t, want, n, "%s, walk %d", name, i)
			}
		}
		if st := e.MemoStats(); tc.memo {
			assert.Positive(t, st.Hits, "the memo replays the findings")
		} else {
			assert.Zero(t, st.Hits+st.Misses, "a value-dependent policy turns the memo off")
		}
	}
}
