package policy_test

import (
	"testing"

	"github.com/otelgov/otelcol-governance/engine/enginetest"
	"github.com/otelgov/otelcol-governance/policy"
	"github.com/otelgov/otelcol-governance/registry"
)

// The engine's walk of 64 conforming spans (read-only, the processor's
// checks on) without policies, and with otel.rego, then otel.rego and the
// README's example rules (one by name, one by value) as its Advisor. The
// memo is warm: after the first batch every value-free evaluation is a
// hit; the value rule is evaluated on every sample (no budget).
//
// Run: go test ./policy/ -run '^$' -bench EngineAdvisor -benchtime 200x
func BenchmarkEngineAdvisor(b *testing.B) {
	ix, err := registry.Default()
	if err != nil {
		b.Fatal(err)
	}
	td := enginetest.GenTraces(64, enginetest.MixConformant)
	for _, tc := range []struct {
		name string
		dirs []string
	}{
		{"policies=none", nil},
		{"policies=otel.rego", []string{weaverPolicies + "/default"}},
		{"policies=otel.rego+example", []string{weaverPolicies + "/default", "testdata/example"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var a *policy.Advisor
			if tc.dirs != nil {
				a = policy.NewAdvisor(load(b, ix, policy.Options{}, tc.dirs...), policy.AdvisorOptions{})
			}
			e := readOnlyEngine(a, false)
			walk := func() {
				w := e.Walker(ix, true)
				w.Traces(td)
				e.Release(w)
			}
			walk() // warms the memo and the walker pool
			b.ReportAllocs()
			for b.Loop() {
				walk()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/64, "ns/span")
		})
	}
}
