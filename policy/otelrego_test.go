package policy_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/checker/weaversuite"
	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/otlpfile"
	"github.com/otelgov/otelcol-governance/policy"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// The engine applies Weaver's default policy (otel.rego) as built-in name
// rules (engine/weaver.go), so that the hot path never evaluates Rego for
// them. These tests prove the two equal: otel.rego, unchanged, through this
// package, and the engine give the same name findings (missing_namespace,
// invalid_format, illegal_namespace, extends_namespace) on every attribute
// key and metric name of the Weaver conformance suite, against each case's
// registry, and on seeded random names.

var nameRules = []vocab.Finding{
	vocab.FindingMissingNamespace, vocab.FindingInvalidFormat,
	vocab.FindingIllegalNamespace, vocab.FindingExtendsNamespace,
}

// nameSink keeps the engine's name-rule findings.
type nameSink struct{ ids []string }

func (s *nameSink) Emit(ev *engine.FindingEvent) bool {
	if slices.Contains(nameRules, ev.Finding) {
		s.ids = append(s.ids, ev.Finding.String()+"@"+ev.Level.String())
	}
	return true
}

// equivalence holds otel.rego's Set and an engine for one registry.
type equivalence struct {
	ix        *registry.Index
	set       *policy.Set
	e         *engine.Engine
	snk       *nameSink
	templates []string
	// prefixOnly counts the keys of the one known difference (rawTemplate).
	prefixOnly int
}

// rawTemplate reports the one known difference: Weaver matches a template
// by plain prefix (otel.rego's is_template_type, LiveChecker::find_template),
// the registry on a '.' boundary (registry.Index.Lookup). A key that starts
// with a template key but not at a boundary (test.template_x.Z1 under the
// template test.template) is a template for otel.rego, which skips its
// invalid_format and extends_namespace, and none for the engine.
func (q *equivalence) rawTemplate(k string) bool {
	if a := q.ix.Lookup(k); a != nil && a.Template {
		return false
	}
	for _, t := range q.templates {
		if strings.HasPrefix(k, t) {
			return true
		}
	}
	return false
}

func newEquivalence(t testing.TB, ix *registry.Index) *equivalence {
	snk := &nameSink{}
	e := engine.New(engine.Options{
		Deprecated: engine.DeprecatedOff, Unknown: engine.UnknownKeep,
		TypeMismatch: engine.TypeMismatchKeep, EnumViolation: engine.EnumViolationKeep,
		Findings: true, Sink: snk,
	})
	q := &equivalence{ix: ix, set: load(t, ix, policy.Options{}, weaverPolicies+"/default"), e: e, snk: snk}
	for _, a := range ix.Attributes() {
		if a.Template {
			q.templates = append(q.templates, a.Key)
		}
	}
	return q
}

// key compares the findings on attribute key k: the engine's on a log
// record without event name holding k alone (Weaver's attribute sample),
// otel.rego's on the attribute sample.
func (q *equivalence) key(t *testing.T, k string) {
	ld := plog.NewLogs()
	ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Attributes().PutEmpty(k)
	q.snk.ids = q.snk.ids[:0]
	w := q.e.Walker(q.ix, true)
	w.Logs(ld)
	q.e.Release(w)
	if q.rawTemplate(k) {
		q.prefixOnly++
		q.snk.ids = slices.DeleteFunc(q.snk.ids, func(id string) bool {
			return strings.HasPrefix(id, "invalid_format@") || strings.HasPrefix(id, "extends_namespace@")
		})
	}
	in := policy.Input{Sample: policy.Attribute(k, pcommon.NewValueEmpty()), Attribute: q.ix.Lookup(k)}
	q.compare(t, "key "+k, &in)
}

// metric compares the findings on a metric name.
func (q *equivalence) metric(t *testing.T, name string) {
	md := pmetric.NewMetrics()
	m := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName(name)
	m.SetEmptyGauge().DataPoints().AppendEmpty().SetIntValue(1)
	q.snk.ids = q.snk.ids[:0]
	w := q.e.Walker(q.ix, true)
	w.Metrics(md)
	q.e.Release(w)
	in := policy.Input{Sample: policy.Metric(m), Group: q.ix.MetricGroup(name)}
	q.compare(t, "metric "+name, &in)
}

func (q *equivalence) compare(t *testing.T, what string, in *policy.Input) {
	fs, err := q.set.Eval(context.Background(), in)
	require.NoError(t, err, what)
	got := make([]string, 0, len(fs))
	for _, f := range fs {
		require.True(t, f.Finding.Builtin(), "%s: otel.rego reported %s", what, f.ID)
		got = append(got, f.ID+"@"+f.Level.String())
	}
	want := append([]string{}, q.snk.ids...)
	sort.Strings(got)
	sort.Strings(want)
	assert.Equal(t, want, got, "%s: engine (want) vs otel.rego (got)", what)
}

// names collects the attribute keys and metric names of a suite OTLP file.
func names(t testing.TB, file string) (keys, metrics []string) {
	seenK, seenM := map[string]bool{}, map[string]bool{}
	add := func(m pcommon.Map) {
		for k := range m.All() {
			if !seenK[k] {
				seenK[k] = true
				keys = append(keys, k)
			}
		}
	}
	readOTLP(t, file, func(r *otlpfile.Record) {
		switch r.Kind {
		case vocab.KindTraces:
			for _, rs := range r.Traces.ResourceSpans().All() {
				add(rs.Resource().Attributes())
				for _, ss := range rs.ScopeSpans().All() {
					for _, sp := range ss.Spans().All() {
						spanKeys(sp, add)
					}
				}
			}
		case vocab.KindMetrics:
			for _, rm := range r.Metrics.ResourceMetrics().All() {
				add(rm.Resource().Attributes())
				for _, sm := range rm.ScopeMetrics().All() {
					for _, m := range sm.Metrics().All() {
						if !seenM[m.Name()] {
							seenM[m.Name()] = true
							metrics = append(metrics, m.Name())
						}
						pointKeys(m, add)
					}
				}
			}
		case vocab.KindLogs:
			for _, rl := range r.Logs.ResourceLogs().All() {
				add(rl.Resource().Attributes())
				for _, sl := range rl.ScopeLogs().All() {
					for _, lr := range sl.LogRecords().All() {
						add(lr.Attributes())
					}
				}
			}
		case vocab.KindUnknown, vocab.NumKinds:
		}
	})
	return keys, metrics
}

func spanKeys(sp ptrace.Span, add func(pcommon.Map)) {
	add(sp.Attributes())
	for _, e := range sp.Events().All() {
		add(e.Attributes())
	}
	for _, l := range sp.Links().All() {
		add(l.Attributes())
	}
}

func pointKeys(m pmetric.Metric, add func(pcommon.Map)) {
	switch m.Type() {
	case pmetric.MetricTypeGauge:
		for _, p := range m.Gauge().DataPoints().All() {
			add(p.Attributes())
		}
	case pmetric.MetricTypeSum:
		for _, p := range m.Sum().DataPoints().All() {
			add(p.Attributes())
		}
	case pmetric.MetricTypeHistogram:
		for _, p := range m.Histogram().DataPoints().All() {
			add(p.Attributes())
		}
	case pmetric.MetricTypeExponentialHistogram:
		for _, p := range m.ExponentialHistogram().DataPoints().All() {
			add(p.Attributes())
		}
	case pmetric.MetricTypeSummary:
		for _, p := range m.Summary().DataPoints().All() {
			add(p.Attributes())
		}
	case pmetric.MetricTypeEmpty:
	}
}

func caseRegistry(t testing.TB, name string) *registry.Index {
	if name == "embedded" {
		ix, err := registry.Default()
		require.NoError(t, err)
		return ix
	}
	return suiteRegistry(t, name)
}

// Every attribute key and metric name of every suite case.
func TestOtelRegoEqualsNameRulesOnSuite(t *testing.T) {
	s, err := weaversuite.Load(suite)
	require.NoError(t, err)
	byRegistry := map[string]*equivalence{}
	checked := 0
	for _, c := range s.Cases {
		t.Run(c.Name, func(t *testing.T) {
			q := byRegistry[c.Registry]
			if q == nil {
				q = newEquivalence(t, caseRegistry(t, c.Registry))
				byRegistry[c.Registry] = q
			}
			keys, metrics := names(t, c.Input)
			for _, k := range keys {
				q.key(t, k)
			}
			for _, m := range metrics {
				q.metric(t, m)
			}
			checked += len(keys) + len(metrics)
		})
	}
	assert.Greater(t, checked, 100, "names compared")
}

// randomName builds a name from registry keys' segments and random
// segments, joined by separators that are valid or not, so that
// namespaces collide, extend and break the format.
func randomName(r *rand.Rand, segs []string) string {
	const alphabet = "abcxyzAZ019_-. "
	n := 1 + r.IntN(4)
	parts := make([]string, n)
	for i := range parts {
		if r.IntN(3) > 0 && len(segs) > 0 {
			parts[i] = segs[r.IntN(len(segs))]
			continue
		}
		b := make([]byte, 1+r.IntN(6))
		for j := range b {
			b[j] = alphabet[r.IntN(len(alphabet))]
		}
		parts[i] = string(b)
	}
	seps := []string{".", ".", ".", "_", "..", ""}
	var sb strings.Builder
	for i, p := range parts {
		if i > 0 {
			sb.WriteString(seps[r.IntN(len(seps))])
		}
		sb.WriteString(p)
	}
	return sb.String()
}

// Seeded random names against the comprehensive registry and semantic
// conventions v1.44.0: registry keys, their prefixes and extensions, and
// noise.
func TestOtelRegoEqualsNameRulesRandom(t *testing.T) {
	emb, err := registry.Default()
	require.NoError(t, err)
	for _, tt := range []struct {
		name string
		ix   *registry.Index
	}{{"comprehensive", suiteRegistry(t, "comprehensive")}, {"semconv", emb}} {
		t.Run(tt.name, func(t *testing.T) {
			q := newEquivalence(t, tt.ix)
			var keys []string
			for _, a := range tt.ix.Attributes() {
				keys = append(keys, a.Key)
			}
			for _, m := range tt.ix.Metrics() {
				keys = append(keys, m.Name)
			}
			sort.Strings(keys)
			r := rand.New(rand.NewPCG(20, 44)) //nolint:gosec // seeded on purpose: reproducible names
			for i := range 3000 {
				var name string
				switch i % 3 {
				case 0: // a registry key, extended or cut
					k := keys[r.IntN(len(keys))]
					if r.IntN(2) == 0 {
						name = k + "." + randomName(r, nil)
					} else if d := strings.LastIndexByte(k, '.'); d > 0 {
						name = k[:d]
					} else {
						name = k
					}
				case 1: // segments of registry keys
					var segs []string
					for range 4 {
						segs = append(segs, strings.Split(keys[r.IntN(len(keys))], ".")...)
					}
					name = randomName(r, segs)
				default:
					name = randomName(r, nil)
				}
				t.Run(fmt.Sprint(i), func(t *testing.T) {
					q.key(t, name)
					q.metric(t, name)
				})
			}
			t.Logf("%d names; %d start with a template key off a '.' boundary (the known difference)", 3000, q.prefixOnly)
		})
	}
}
