package infer

import (
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/infer/infertest"
	"github.com/otelgov/otelcol-governance/registry"
)

// This file holds Weaver's registry infer as a small oracle, derived from
// its code at afa9700c (crates/weaver_infer/src/lib.rs, "lib.rs", and
// src/registry/infer.rs, "infer.rs"), and compares it with Propose on the
// same input: every item Weaver's registry.yaml would have is proposed
// (or, where a loaded registry defines it, deliberately not), with the
// same type, instrument, unit, attribute set and examples; the test then
// checks what Weaver's output lacks.

// oracleAttr is one attribute of one group in Weaver's accumulator: the
// type of the first sample (attribute_spec_from_sample, lib.rs:341; no
// type is string) and its examples (add_example, lib.rs:387: values of
// the first value's kind, distinct, at most MAX_EXAMPLES = 5, lib.rs:28;
// arrays and maps are none).
type oracleAttr struct {
	typ      string
	examples []any
}

type oracleGroup struct {
	kind  string // span kind or instrument
	unit  string
	attrs map[string]*oracleAttr
}

type oracle struct {
	resources map[string]*oracleAttr  // add_resource, lib.rs:115
	spans     map[string]*oracleGroup // add_span, lib.rs:121: by name, first kind
	metrics   map[string]*oracleGroup // add_metric, lib.rs:144: by name, first instrument and unit
	events    map[string]*oracleGroup // add_event, lib.rs:183, and span events (lib.rs:286-304)
}

func newOracle() *oracle {
	return &oracle{resources: map[string]*oracleAttr{}, spans: map[string]*oracleGroup{}, metrics: map[string]*oracleGroup{}, events: map[string]*oracleGroup{}}
}

// accumulate is accumulate_attribute (lib.rs:375).
func accumulate(m map[string]*oracleAttr, attrs pcommon.Map) {
	for k, v := range attrs.All() {
		a := m[k]
		if a == nil {
			t := engine.InferredType(v)
			if t == "" {
				t = "string"
			}
			a = &oracleAttr{typ: t}
			m[k] = a
		}
		var x any
		switch v.Type() {
		case pcommon.ValueTypeStr:
			x = v.Str()
		case pcommon.ValueTypeInt:
			x = v.Int()
		case pcommon.ValueTypeDouble:
			x = v.Double()
		case pcommon.ValueTypeBool:
			x = v.Bool()
		default:
			continue
		}
		if len(a.examples) > 0 && !sameKind(a.examples[0], x) {
			continue // add_to_existing_examples: a mismatch is ignored
		}
		if len(a.examples) < 5 && !slices.Contains(a.examples, x) {
			a.examples = append(a.examples, x)
		}
	}
}

func group(m map[string]*oracleGroup, name, kind, unit string) *oracleGroup {
	g := m[name]
	if g == nil {
		g = &oracleGroup{kind: kind, unit: unit, attrs: map[string]*oracleAttr{}}
		m[name] = g
	}
	return g
}

// addTraces is process_otlp_request's traces arm (infer.rs:82): the resource,
// then each span with its events; links and scopes are not read.
func (o *oracle) addTraces(td ptrace.Traces) {
	for _, rs := range td.ResourceSpans().All() {
		accumulate(o.resources, rs.Resource().Attributes())
		for _, ss := range rs.ScopeSpans().All() {
			for _, sp := range ss.Spans().All() {
				kind := map[ptrace.SpanKind]string{ptrace.SpanKindServer: "server", ptrace.SpanKindClient: "client", ptrace.SpanKindProducer: "producer", ptrace.SpanKindConsumer: "consumer"}[sp.Kind()]
				if kind == "" {
					kind = "internal" // span_kind_from_otlp_kind
				}
				g := group(o.spans, sp.Name(), kind, "")
				accumulate(g.attrs, sp.Attributes())
				for _, e := range sp.Events().All() {
					accumulate(group(o.events, e.Name(), "", "").attrs, e.Attributes())
				}
			}
		}
	}
}

// addMetrics: otlp_data_to_instrument (src/registry/otlp/conversion.rs:150);
// a summary is skipped (lib.rs:148).
func (o *oracle) addMetrics(md pmetric.Metrics) {
	for _, rm := range md.ResourceMetrics().All() {
		accumulate(o.resources, rm.Resource().Attributes())
		for _, sm := range rm.ScopeMetrics().All() {
			for _, m := range sm.Metrics().All() {
				var inst string
				var points []pcommon.Map
				switch m.Type() {
				case pmetric.MetricTypeSum:
					inst = "updowncounter"
					if m.Sum().IsMonotonic() {
						inst = "counter"
					}
					for _, dp := range m.Sum().DataPoints().All() {
						points = append(points, dp.Attributes())
					}
				case pmetric.MetricTypeGauge:
					inst = "gauge"
					for _, dp := range m.Gauge().DataPoints().All() {
						points = append(points, dp.Attributes())
					}
				case pmetric.MetricTypeHistogram:
					inst = "histogram"
					for _, dp := range m.Histogram().DataPoints().All() {
						points = append(points, dp.Attributes())
					}
				default:
					continue
				}
				g := group(o.metrics, m.Name(), inst, m.Unit())
				for _, p := range points {
					accumulate(g.attrs, p)
				}
			}
		}
	}
}

// addLogs: a log record without an event name is ignored (lib.rs:184).
func (o *oracle) addLogs(ld plog.Logs) {
	for _, rl := range ld.ResourceLogs().All() {
		accumulate(o.resources, rl.Resource().Attributes())
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				if lr.EventName() == "" {
					continue
				}
				accumulate(group(o.events, lr.EventName(), "", "").attrs, lr.Attributes())
			}
		}
	}
}

// attributes is to_semconv_spec's flat attribute list (lib.rs:220,
// collect_attribute_defs lib.rs:536): one definition per key, taken from
// the first group visited. The groups are visited in HashMap order, so
// each key has a set of possible definitions: one per group holding it.
func (o *oracle) attributes() map[string][]*oracleAttr {
	out := map[string][]*oracleAttr{}
	add := func(m map[string]*oracleAttr) {
		for k, a := range m {
			out[k] = append(out[k], a)
		}
	}
	add(o.resources)
	for _, gs := range []map[string]*oracleGroup{o.spans, o.metrics, o.events} {
		for _, g := range gs {
			add(g.attrs)
		}
	}
	return out
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func refKeys(rs []ProposedRef) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.Key)
	}
	sort.Strings(out)
	return out
}

func TestBesideWeaverInfer(t *testing.T) {
	td, md, ld := infertest.Traces(), infertest.Metrics(), infertest.Logs()
	o := newOracle()
	o.addTraces(td)
	o.addMetrics(md)
	o.addLogs(ld)

	acc := New(Limits{})
	acc.Traces(td, "t")
	acc.Metrics(md, "m")
	acc.Logs(ld, "l")
	ix, err := registry.Default()
	require.NoError(t, err)
	p := Propose(acc.Evidence(), ix, Options{})

	proposed := map[string]ProposedAttribute{}
	for _, a := range append(slices.Clone(p.Attributes), p.Renames...) {
		proposed[a.Key] = a
	}
	// Every attribute of Weaver's output: proposed with a type and
	// examples Weaver could have written, or defined by the registry.
	wa := o.attributes()
	for _, k := range keys(wa) {
		defs := wa[k]
		pa, ok := proposed[k]
		if !ok {
			assert.NotNil(t, ix.Lookup(k), "%s: in Weaver's output, neither proposed nor defined by the registry", k)
			continue
		}
		var types []string
		var exampleSets [][]any
		for _, d := range defs {
			types = append(types, d.typ)
			exampleSets = append(exampleSets, d.examples)
		}
		assert.Contains(t, types, pa.Type, "%s: type", k)
		if pa.Enum == nil {
			assert.Contains(t, exampleSets, pa.Examples, "%s: examples", k)
		}
	}
	// Metrics: name, instrument, unit, attribute set.
	got := map[string]ProposedGroup{}
	for _, g := range p.Metrics {
		got[g.Name] = g
	}
	for _, n := range keys(o.metrics) {
		w := o.metrics[n]
		g, ok := got[n]
		if !ok {
			assert.NotNil(t, ix.MetricGroup(n), "metric %s: neither proposed nor defined", n)
			continue
		}
		assert.Equal(t, w.kind, g.Instrument, n)
		assert.Equal(t, w.unit, g.Unit, n)
		assert.Equal(t, keys(w.attrs), refKeys(g.Attributes), n)
	}
	assert.Len(t, p.Metrics, len(o.metrics)-1, "all but the semconv metric")
	// Spans: Weaver's type is the span name, its note too.
	got = map[string]ProposedGroup{}
	for _, g := range p.Spans {
		got[g.Name] = g
	}
	require.Len(t, got, len(o.spans))
	for _, n := range keys(o.spans) {
		w, g := o.spans[n], got[n]
		assert.Equal(t, w.kind, g.SpanKind, n)
		assert.Equal(t, keys(w.attrs), refKeys(g.Attributes), n)
		assert.Equal(t, SpanType(n), g.Type, "a registry ID where Weaver writes the raw name")
	}
	// Events: log events and span events merged by name.
	got = map[string]ProposedGroup{}
	for _, g := range p.Events {
		got[g.Name] = g
	}
	require.Len(t, got, len(o.events))
	for _, n := range keys(o.events) {
		assert.Equal(t, keys(o.events[n].attrs), refKeys(got[n].Attributes), n)
	}

	// What Weaver's output lacks.
	kinds := map[string]string{}
	for _, w := range p.Warnings {
		kinds[w.Name] = w.Kind
	}
	assert.Equal(t, WarnTypeConflict, kinds[infertest.Build], "int from checkout, string from payments")
	assert.Equal(t, WarnHighCardinality, kinds[infertest.RequestID])
	assert.Equal(t, []any{"acme", "globex", "initech"}, proposed[infertest.Tenant].Enum)
	assert.Nil(t, proposed[infertest.Sku].Enum, "40 distinct values: no enum")
	assert.Equal(t, []string{"checkout", "payments"}, proposed[infertest.Tenant].Services)
	assert.Equal(t, "http.request.method", proposed[infertest.NearCamel].RenamedTo)
	levels := map[string]string{}
	for _, g := range p.Metrics {
		for _, r := range g.Attributes {
			levels[g.Name+" "+r.Key] = r.RequirementLevel
		}
	}
	assert.Equal(t, "recommended", levels[infertest.MetricCharges+" "+infertest.Tenant], "on one data point in four")
	assert.Equal(t, "required", levels[infertest.MetricCharges+" "+infertest.CardBrand])
	assert.Contains(t, p.NameFindings, NameFinding{ID: "extends_namespace", Level: "information", Name: infertest.Tenant, What: "attribute"})
	assert.Contains(t, p.NameFindings, NameFinding{ID: "missing_namespace", Level: "improvement", Name: infertest.NearCamel, What: "attribute"})
	assert.Contains(t, p.NameFindings, NameFinding{ID: "invalid_format", Level: "violation", Name: infertest.NearCamel, What: "attribute"})
	_, ok := wa[infertest.LogComponent]
	assert.False(t, ok, "Weaver ignores a log record without an event name")
	assert.Contains(t, proposed, infertest.LogComponent, "the engine checks it, so it is proposed")
	assert.Equal(t, 2, p.Defined.Attributes, "service.name and http.request.method come from the registry")
}
