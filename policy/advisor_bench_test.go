package policy_test

import (
	"testing"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/engine/enginetest"
	"github.com/otelgov/otelcol-governance/policy"
	"github.com/otelgov/otelcol-governance/registry"
)

// The engine's walk of 64 conforming spans (read-only, the processor's
// checks on) without policies, and with otel.rego, otel.rego and the
// docs/policies.md's name rule (value-free: the engine's shape memo keeps their
// attribute findings; memo=off hides the engine.ShapeAdvisor, as before it
// did), then otel.rego and docs/policies.md's example rules (one by name, one by
// value: the shape memo is off). The memos are warm: after the first
// batches every value-free evaluation is a hit; the value rule is evaluated
// on every sample (no budget).
//
// Run: go test ./policy/ -run '^$' -bench EngineAdvisor -benchtime 2000x
func BenchmarkEngineAdvisor(b *testing.B) {
	ix, err := registry.Default()
	if err != nil {
		b.Fatal(err)
	}
	td := enginetest.GenTraces(64, enginetest.MixConformant)
	names := nameRuleDir(b)
	for _, tc := range []struct {
		name    string
		dirs    []string
		memoOff bool
	}{
		{"policies=none", nil, false},
		{"policies=otel.rego/memo=on", []string{weaverPolicies + "/default"}, false},
		{"policies=otel.rego+names/memo=on", []string{weaverPolicies + "/default", names}, false},
		{"policies=otel.rego+names/memo=off", []string{weaverPolicies + "/default", names}, true},
		{"policies=otel.rego+example", []string{weaverPolicies + "/default", "testdata/example"}, false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			o := engine.Options{
				Deprecated: engine.DeprecatedOff, Unknown: engine.UnknownKeep, TypeMismatch: engine.TypeMismatchKeep,
				EnumViolation: engine.EnumViolationKeep, Findings: true,
			}
			if tc.dirs != nil {
				a := policy.NewAdvisor(load(b, ix, policy.Options{}, tc.dirs...), policy.AdvisorOptions{})
				o.Advisor = a
				if tc.memoOff {
					o.Advisor = plainAdvisor{a}
				}
			}
			e := engine.New(o)
			walk := func() {
				w := e.Walker(ix, true)
				w.Traces(td)
				e.Release(w)
			}
			for range 20 {
				walk() // warms the memos (shapes are admitted on a later sighting) and the walker pool
			}
			b.ReportAllocs()
			for b.Loop() {
				walk()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/64, "ns/span")
		})
	}
}
