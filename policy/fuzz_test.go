package policy_test

import (
	"context"
	"os"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelgov/otelcol-governance/policy"
	"github.com/otelgov/otelcol-governance/registry"
)

// Any policy text compiles or fails with an error, never a panic; one that
// compiles evaluates or fails with an error.
func FuzzCompile(f *testing.F) {
	for _, p := range []string{
		"testdata/weaver/default/otel.rego", "testdata/weaver/live_check_advice/test.rego",
		"testdata/weaver/bad_advice/bad.rego", "testdata/weaver/entity_advice/entities.rego",
		"testdata/example/names.rego", "testdata/example/values.rego",
	} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	ix, err := registry.Load(registry.Sources{OrgRegistries: []string{suite + "/registries/comprehensive"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := policy.Compile(ix, policy.Options{}, policy.Source{File: "fuzz.rego", Text: text})
		if err != nil {
			return
		}
		in := policy.Input{Sample: policy.Attribute("test.x", pcommon.NewValueStr("v")), Attribute: ix.Lookup("test.string")}
		_, _ = s.Eval(context.Background(), &in)
	})
}
