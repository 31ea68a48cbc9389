package testbench

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/engine/enginetest"
	"github.com/otelgov/otelcol-governance/registry"
)

func TestMedianCI95(t *testing.T) {
	seq := func(n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = float64(i + 1)
		}
		return out
	}
	_, _, ok := medianCI95(seq(5)) // P(all 5 on one side) = 1/32 > 2.5%
	assert.False(t, ok)
	lo, hi, ok := medianCI95(seq(7)) // 1 - 2/128 = 98.4%
	require.True(t, ok)
	assert.Equal(t, [2]float64{1, 7}, [2]float64{lo, hi})
	lo, hi, ok = medianCI95(seq(9)) // 1 - 2·10/512 = 96.1%
	require.True(t, ok)
	assert.Equal(t, [2]float64{2, 8}, [2]float64{lo, hi})
	lo, hi, ok = medianCI95(seq(20)) // k = 6: 1 - 2·0.0207 = 95.9%
	require.True(t, ok)
	assert.Equal(t, [2]float64{6, 15}, [2]float64{lo, hi})
}

// A session of 7 rounds where governance costs 0.5 µs/span over bare,
// policies 0.00–0.03 over governance, and bare2 differs from bare by at
// most 0.02: the figures are the paired medians, a failed run is left out
// and counted, and the floor resolves 1%.
func TestLineRateSummary(t *testing.T) {
	l := LineRate{
		Options:   LineOptions{Rounds: 7, CollectorCPU: "0", ClientCPU: "1"},
		Workloads: LineWorkloads[:1],
		Variants:  append(LineVariants(nil)[:3], PoliciesVariant([]string{"/p"})),
	}
	noise := []float64{0.01, -0.02, 0.0, 0.02, -0.01, 0.01, 0.0}
	policies := []float64{0.02, 0.01, 0.03, 0.02, 0.0, 0.02, 0.01}
	for round := range 7 {
		bare := 4.0 + 0.1*float64(round) // drifts from round to round
		for _, v := range []struct {
			name string
			us   float64
		}{{VariantBare, bare}, {VariantBare2, bare + noise[round]}, {VariantGovernance, bare + 0.5}, {VariantPolicies, bare + 0.5 + policies[round]}} {
			l.Runs = append(l.Runs, LineRun{Workload: "conforming", Variant: v.name, Round: round, Spans: 1000, CPUPerSpanUS: v.us})
		}
	}
	l.Runs = append(l.Runs, LineRun{Workload: "conforming", Variant: VariantGovernance, Round: 7, Spans: 1000, CPUPerSpanUS: 99, Violations: []string{"lost spans"}})
	l.Summarize()

	require.Len(t, l.Rows, 1)
	r := l.Rows[0]
	assert.Equal(t, uint64(1), l.Lost)
	g := r.Figures[VariantGovernance]
	assert.InDelta(t, 0.5, g.DeltaUS, 1e-9)
	assert.Equal(t, 7, g.N)
	assert.InDelta(t, 100*0.5/4.3, g.PctOfBare, 1e-9)
	require.NotNil(t, g.CI95)
	assert.InDelta(t, 0.5, g.CI95[0], 1e-9)
	floor := r.Figures[VariantBare2]
	assert.InDelta(t, 0.0, floor.DeltaUS, 1e-9)
	assert.InDelta(t, -0.02, floor.MinUS, 1e-9)
	assert.InDelta(t, 0.02, floor.MaxUS, 1e-9)
	p := r.Over[VariantPolicies]
	assert.InDelta(t, 0.02, p.DeltaUS, 1e-9, "paired with governance")
	assert.InDelta(t, 100*0.02/4.3, p.PctOfBare, 1e-9, "in % of bare")
	require.NotNil(t, p.CI95)
	assert.InDelta(t, 0.0, p.CI95[0], 1e-9)
	assert.InDelta(t, 0.03, p.CI95[1], 1e-9)
	assert.InDelta(t, 0.52, r.Figures[VariantPolicies].DeltaUS, 1e-9, "paired with bare")
	require.NotNil(t, r.ResolutionPct)
	assert.InDelta(t, 100*0.02/4.3, *r.ResolutionPct, 1e-9)

	md := l.Markdown()
	assert.Contains(t, md, "| conforming: 13 current keys | 4.300 | +0.000 (+0.0%) [-0.020, +0.020] | +0.500 (+11.6%) [+0.500, +0.500] | not run |")
	assert.Contains(t, md, "yes (±0.47%)")
	assert.Contains(t, md, "29 runs, 1 of them failed")
	assert.Contains(t, md, "| conforming | governance-policies | governance | +0.020 | +0.5% | [+0.000, +0.030] | +0.000, +0.030 | 7 |")
	assert.Contains(t, md, "- conforming: policies ≤ 1% of bare over governance (issue 20): met (CI up to +0.7%)")
	assert.Contains(t, md, "- conforming: governance ≤ 3% of bare: not met (CI from +11.6%)")
	assert.NotContains(t, md, "Disturbed")
	for i := range l.Runs {
		l.Runs[i].WaitShare = 0.5
	}
	assert.Contains(t, l.Markdown(), "**Disturbed session**: the collector was runnable but without its CPU 50% of the time")
}

// attributes and transform do exactly the renames the registry gives the
// deprecated workload's keys (old-values: its own), and the variants pair
// with the bare pipeline of their own binary.
func TestLineVariants(t *testing.T) {
	ix, err := registry.Default()
	require.NoError(t, err)
	renames, err := lineRenames(ix, LineWorkloads[1])
	require.NoError(t, err)
	byName := map[string]LineVariant{}
	for _, v := range append(LineVariants(renames), BeforeVariants()...) {
		byName[v.Name] = v
		if v.Bare != "" {
			assert.Equal(t, v.Config.Distribution, byName[v.Bare].Config.Distribution, v.Name)
		}
		assert.NotContains(t, v.Config.Pipeline, "batch", v.Name)
	}
	assert.Len(t, byName, 11)
	assert.Equal(t, byName[VariantGovernance].Config.Processors, byName[VariantGovernanceBefore].Config.Processors,
		"before and after run the same configuration")
	for _, r := range renames {
		to := r.SpanTo[2] // server spans
		require.NotEmpty(t, to, r.From)
		assert.Contains(t, byName[VariantAttributes].Config.Processors, `key: "`+to+`"`+"\n        from_attribute: \""+r.From+`"`)
		assert.Contains(t, byName[VariantTransform].Config.Processors, `set(attributes[\"`+to+`\"], attributes[\"`+r.From+`\"])`)
	}
	// The mixed workload is the deprecated one plus 4 unknown keys and a
	// template instance; every workload sends 100 spans.
	for _, w := range LineWorkloads {
		td := w.Traces()
		assert.Equal(t, LineSpansPerRequest, td.SpanCount())
		n := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes().Len()
		assert.Equal(t, map[string]int{"conforming": 13, "deprecated": 13, "mixed": 18, "old-values": 13}[w.Name], n, w.Name)
		r, err := lineRenames(ix, w)
		require.NoError(t, err, w.Name)
		if w.Name != "old-values" {
			assert.Equal(t, renames, r, "%s: the deprecated workload's renames", w.Name)
		}
	}
}

// TestLineOldValues: the old-values workload is the deprecated one with
// its last four deprecated keys replaced by keys whose values migrate
// (enginetest.OldValues), and attributes and transform rename all ten of
// its deprecated keys, those four included, on it alone.
func TestLineOldValues(t *testing.T) {
	ix, err := registry.Default()
	require.NoError(t, err)
	w := LineWorkloads[3]
	require.Equal(t, "old-values", w.Name)
	renames, err := lineRenames(ix, w)
	require.NoError(t, err)
	variants := withRenames(LineVariants(nil), renames)
	byName := map[string]LineVariant{}
	for _, v := range variants {
		byName[v.Name] = v
	}
	attrs := w.Traces().ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes()
	for _, o := range enginetest.OldValues {
		v, ok := attrs.Get(o.Key)
		require.True(t, ok, o.Key)
		assert.EqualValues(t, o.Value, v.AsRaw(), o.Key)
		i := slices.IndexFunc(renames, func(r Rename) bool { return r.From == o.Key })
		require.GreaterOrEqual(t, i, 0, "%s renamed", o.Key)
		assert.Equal(t, o.To, renames[i].SpanTo[ptrace.SpanKindServer], o.Key)
		assert.Contains(t, byName[VariantAttributes].Config.Processors, `key: "`+o.To+`"`+"\n        from_attribute: \""+o.Key+`"`)
		assert.Contains(t, byName[VariantTransform].Config.Processors, `set(attributes[\"`+o.To+`\"], attributes[\"`+o.Key+`\"])`)
	}
	deprecated, err := lineRenames(ix, LineWorkloads[1])
	require.NoError(t, err)
	assert.Equal(t, deprecated[:6], renames[:6], "the deprecated workload's first six renames")
	at := slices.IndexFunc(LineVariants(nil), func(v LineVariant) bool { return v.Name == VariantAttributes })
	require.GreaterOrEqual(t, at, 0)
	assert.Equal(t, LineVariants(deprecated)[at].Config, withRenames(LineVariants(nil), deprecated)[at].Config, "withRenames configures attributes as LineVariants does")
}

// TestLineRateOverFloor: governance ÷ floor is taken round by round, each
// overhead over its own binary's bare pipeline, and its median and CI are
// those of the per-round ratios; a round in which the floor measured
// nothing above its bare pipeline counts as +∞ (it widens the interval),
// and the conforming target (≤ 1.5) is judged on the CI.
func TestLineRateOverFloor(t *testing.T) {
	variants := slices.DeleteFunc(LineVariants(nil), func(v LineVariant) bool { return v.Config.Distribution == "baseline" })
	run := func(gov, floor []float64) LineRate {
		l := LineRate{Options: LineOptions{Rounds: len(gov)}, Workloads: LineWorkloads[:1], Variants: variants}
		for round := range gov {
			bare := 4.0 + 0.1*float64(round) // this binary's bare drifts
			bareFloor := 3.0 - 0.1*float64(round)
			for _, v := range []struct {
				name string
				us   float64
			}{{VariantBare, bare}, {VariantGovernance, bare + gov[round]}, {VariantBareFloor, bareFloor}, {VariantFloor, bareFloor + floor[round]}} {
				l.Runs = append(l.Runs, LineRun{Workload: "conforming", Variant: v.name, Round: round, Spans: 1000, CPUPerSpanUS: v.us})
			}
		}
		l.Summarize()
		require.Len(t, l.Rows, 1)
		return l
	}
	// Per-round ratios 2, 1, 3, 1.2, 1.4, 1.1, 1.3 (sorted 1, 1.1, 1.2,
	// 1.3, 1.4, 2, 3): median 1.3, CI95 of 7 rounds [x(1), x(7)] = [1, 3].
	// The ratio of the medians of the overheads would be 0.26 ÷ 0.2 = 1.3
	// too, but not its interval.
	l := run([]float64{0.4, 0.2, 0.3, 0.24, 0.28, 0.22, 0.26}, []float64{0.2, 0.2, 0.1, 0.2, 0.2, 0.2, 0.2})
	r := l.Rows[0].OverFloor
	require.NotNil(t, r)
	assert.Equal(t, 7, r.N)
	assert.InDelta(t, 1.3, r.Median, 1e-9)
	require.NotNil(t, r.CI95)
	assert.InDelta(t, 1.0, r.CI95[0], 1e-9)
	assert.InDelta(t, 3.0, r.CI95[1], 1e-9)
	md := l.Markdown()
	assert.Contains(t, md, "| 1.30× [1.00, 3.00] |")
	assert.Contains(t, md, "- conforming: governance ÷ floor ≤ 1.5 (issue 38): not resolved by this session (1.30×, CI 1.00× to 3.00×)")

	// Nine rounds, the floor at 0 above its bare in two of them: those
	// are +∞, the top of the sorted ratios; CI95 of 9 is [x(2), x(8)].
	l = run([]float64{0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2}, []float64{0.2, 0.1, 0.2, 0.2, 0, 0.2, 0.2, -0.1, 0.2})
	r = l.Rows[0].OverFloor
	require.NotNil(t, r)
	assert.InDelta(t, 1.0, r.Median, 1e-9)
	require.NotNil(t, r.CI95)
	assert.InDelta(t, 1.0, r.CI95[0], 1e-9)
	assert.True(t, math.IsInf(r.CI95[1], 1), "upper end %v", r.CI95[1])
	assert.Contains(t, l.Markdown(), "- conforming: governance ÷ floor ≤ 1.5 (issue 38): not resolved")

	// Governance at 1.2× the floor in every round: met.
	l = run([]float64{0.24, 0.24, 0.24, 0.24, 0.24, 0.24, 0.24}, []float64{0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2})
	assert.Contains(t, l.Markdown(), "- conforming: governance ÷ floor ≤ 1.5 (issue 38): met (1.20×, CI up to 1.20×)")

	// Without the floor's runs there is no ratio.
	l = run([]float64{0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2}, []float64{0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2})
	l.Runs = slices.DeleteFunc(l.Runs, func(r LineRun) bool { return r.Variant == VariantFloor })
	l.Summarize()
	assert.Nil(t, l.Rows[0].OverFloor)
	assert.Contains(t, l.Markdown(), "| not run | n/a |")
}

func TestParseCollectorEnv(t *testing.T) {
	got, err := ParseCollectorEnv("  GOGC=off\tGOMEMLIMIT=64MiB GODEBUG= ")
	require.NoError(t, err)
	assert.Equal(t, []string{"GOGC=off", "GOMEMLIMIT=64MiB", "GODEBUG="}, got)
	got, err = ParseCollectorEnv("")
	require.NoError(t, err)
	assert.Empty(t, got)
	for _, bad := range []string{"GOGC", "=off", "GOGC=off GOMAXPROCS=2"} {
		_, err := ParseCollectorEnv(bad)
		assert.Error(t, err, bad)
	}
}
