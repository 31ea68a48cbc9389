package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/engine/enginetest"
	"github.com/otelgov/otelcol-governance/findingrules"
	"github.com/otelgov/otelcol-governance/vocab"
)

func rules(t testing.TB, filters []findingrules.Filter, overrides []findingrules.LevelOverride) *findingrules.Rules {
	t.Helper()
	r, err := findingrules.Compile(filters, overrides)
	require.NoError(t, err)
	return r
}

func TestLevelOverrides(t *testing.T) {
	e := New(Options{Rules: rules(t, nil, []findingrules.LevelOverride{{IDs: []string{"unexpected_attribute"}, Level: "violation"}})})
	assert.Equal(t, vocab.LevelViolation, e.Level(vocab.FindingUnexpectedAttribute))
	assert.Equal(t, vocab.LevelInformation, e.Level(vocab.FindingOptInAttributeNotPresent))
	assert.Equal(t, vocab.LevelImprovement, vocab.DefaultLevel(vocab.FindingUnexpectedAttribute))
	assert.False(t, e.LevelScoped())
}

// A metric with a deprecated attribute on its data point (deprecated,
// attribute sample named by the key), a required attribute missing
// (required_attribute_not_present, on the data point) and a wrong unit (unit_mismatch, on
// the metric sample named by the metric); a span with the same attribute.
func ruledSamples(t *testing.T) []sample {
	return []sample{
		metricSample(t, "http.server.request.duration", "histogram", "ms", with(without(fullDuration(), "url.scheme"), "http.method", "GET")),
		spanSample(t, ptrace.SpanKindServer, map[string]any{"http.method": "GET"}),
	}
}

func walkRuled(t *testing.T, r *findingrules.Rules) (counts, *Batch, []FindingEvent) {
	t.Helper()
	sink := &recordingSink{limit: 1000}
	opts := findingOptions()
	opts.Rules, opts.Sink = r, sink
	e, ix := newTestEngine(t, opts)
	w := e.Walker(ix, false)
	t.Cleanup(func() { e.Release(w) })
	for _, s := range ruledSamples(t) {
		s(w)
	}
	return countsOf(w.Batch()), w.Batch(), sink.got
}

func TestRulesApplied(t *testing.T) {
	base, _, baseEvents := walkRuled(t, nil)
	require.Equal(t, int64(2), base.Findings[vocab.FindingDeprecated], "the metric's and the span's")
	require.Equal(t, int64(1), base.Findings[vocab.FindingUnitMismatch])

	t.Run("unscoped exclude", func(t *testing.T) {
		c, b, evs := walkRuled(t, rules(t, []findingrules.Filter{{Exclude: []string{"deprecated"}}}, nil))
		assert.Zero(t, c.Findings[vocab.FindingDeprecated])
		assert.Equal(t, base.Findings[vocab.FindingUnitMismatch], c.Findings[vocab.FindingUnitMismatch])
		assert.Len(t, evs, len(baseEvents)-2)
		for _, f := range b.Findings {
			assert.NotEqual(t, vocab.FindingDeprecated, f.Finding)
		}
	})
	t.Run("scoped exclude by signal_type", func(t *testing.T) {
		c, _, evs := walkRuled(t, rules(t, []findingrules.Filter{{Exclude: []string{"deprecated"}, SignalType: "span"}}, nil))
		assert.Equal(t, int64(1), c.Findings[vocab.FindingDeprecated], "the metric's is kept")
		for _, ev := range evs {
			if ev.Finding == vocab.FindingDeprecated {
				assert.Equal(t, "metric", ev.SignalType)
			}
		}
	})
	t.Run("exclude_samples by attribute key", func(t *testing.T) {
		c, _, _ := walkRuled(t, rules(t, []findingrules.Filter{{ExcludeSamples: []string{"http.m*"}}}, nil))
		assert.Zero(t, c.Findings[vocab.FindingDeprecated])
		assert.Equal(t, int64(1), c.Findings[vocab.FindingUnitMismatch], "the metric sample is not named http.m*")
	})
	t.Run("sample_names on the metric's name", func(t *testing.T) {
		c, _, _ := walkRuled(t, rules(t, []findingrules.Filter{{MinLevel: "violation", SampleNames: []string{"http.server.*"}}}, nil))
		assert.Equal(t, int64(1), c.Findings[vocab.FindingUnitMismatch], "a violation")
		assert.Equal(t, int64(2), c.Findings[vocab.FindingDeprecated], "on attribute samples, not named http.server.*")
	})
	t.Run("scoped override relevels", func(t *testing.T) {
		c, b, evs := walkRuled(t, rules(t, nil, []findingrules.LevelOverride{{IDs: []string{"deprecated"}, Level: "information", SignalType: "metric"}}))
		assert.Equal(t, int64(2), c.Findings[vocab.FindingDeprecated])
		levels := map[string]vocab.Level{}
		for _, ev := range evs {
			if ev.Finding == vocab.FindingDeprecated {
				levels[ev.SignalType] = ev.Level
			}
		}
		assert.Equal(t, map[string]vocab.Level{"metric": vocab.LevelInformation, "span": vocab.DefaultLevel(vocab.FindingDeprecated)}, levels)
		require.Len(t, b.Relevelled, 1)
		assert.Equal(t, LevelCount{Service: b.Relevelled[0].Service, Finding: vocab.FindingDeprecated, Level: vocab.LevelInformation, Count: 1}, b.Relevelled[0])
		var atInfo, atDefault int64
		for _, f := range b.Findings {
			if f.Finding == vocab.FindingDeprecated {
				if f.Level == vocab.LevelInformation {
					atInfo += f.Count
				} else {
					atDefault += f.Count
				}
			}
		}
		assert.Equal(t, [2]int64{1, 1}, [2]int64{atInfo, atDefault})
	})
	t.Run("requirement findings go through the rules one by one", func(t *testing.T) {
		require.Equal(t, int64(1), base.Findings[vocab.FindingRequiredAttributeNotPresent])
		c, _, _ := walkRuled(t, rules(t, []findingrules.Filter{{Exclude: []string{"required_attribute_not_present"}, SignalType: "metric"}}, nil))
		assert.Zero(t, c.Findings[vocab.FindingRequiredAttributeNotPresent])
		c, _, _ = walkRuled(t, rules(t, []findingrules.Filter{{Exclude: []string{"required_attribute_not_present"}, SignalType: "span"}}, nil))
		assert.Equal(t, int64(1), c.Findings[vocab.FindingRequiredAttributeNotPresent])
	})
}

// TestZeroAllocsRules: rules, scoped or not, cost no allocation on a walk.
func TestZeroAllocsRules(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	for name, r := range map[string]*findingrules.Rules{
		"unscoped": rules(t, []findingrules.Filter{{Exclude: []string{"deprecated"}}}, nil),
		"scoped":   rules(t, []findingrules.Filter{{ExcludeSamples: []string{"http.*"}}}, []findingrules.LevelOverride{{Level: "information", SignalType: "metric"}}),
	} {
		t.Run(name, func(t *testing.T) {
			opts := findingOptions()
			opts.Rules = r
			e, ix := newTestEngine(t, opts)
			ss := ruledSamples(t)
			run := func() {
				w := e.Walker(ix, true)
				for _, s := range ss {
					s(w)
				}
				_ = w.Batch()
				e.Release(w)
			}
			run()
			assert.Zero(t, testing.AllocsPerRun(100, run))
		})
	}
}

// BenchmarkFindingRules is the cost of Options.Rules per item on a batch
// that has findings (100 spans and 100 data points of the realistic mix:
// deprecated and unknown keys), read-only, with the report: no rules,
// rules without scope (a per-ID table), and scoped rules (matched per
// finding against the walk's sample context).
//
// Run: go test ./engine -run '^$' -bench FindingRules -benchtime 3000x
func BenchmarkFindingRules(b *testing.B) {
	td := enginetest.WireTraces(enginetest.GenTraces(100, enginetest.MixRealistic))
	md := enginetest.WireMetrics(enginetest.GenMetrics(100, enginetest.MixRealistic))
	for name, r := range map[string]*findingrules.Rules{
		"none":     nil,
		"unscoped": rules(b, []findingrules.Filter{{Exclude: []string{"not_stable"}}}, []findingrules.LevelOverride{{IDs: []string{"missing_attribute"}, Level: "information"}}),
		"scoped": rules(b, []findingrules.Filter{{ExcludeSamples: []string{"acme.*"}, SignalType: "span"}},
			[]findingrules.LevelOverride{{IDs: []string{"deprecated"}, Level: "information", SampleNames: []string{"http.*"}}}),
	} {
		b.Run(name, func(b *testing.B) {
			opts := findingOptions()
			opts.Rules = r
			e, ix := newTestEngine(b, opts)
			b.ReportAllocs()
			for b.Loop() {
				w := e.Walker(ix, true)
				w.Traces(td)
				w.Metrics(md)
				_ = w.Batch()
				e.Release(w)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/200, "ns/item")
		})
	}
}
