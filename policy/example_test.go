package policy_test

import (
	"context"
	"fmt"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/policy"
	"github.com/otelgov/otelcol-governance/registry"
)

// The worked example of docs/policies.md: a policy directory with a rule by name and a
// rule by value, Weaver's default policy next to it, over one span.
func Example() {
	ix, err := registry.Default()
	if err != nil {
		panic(err)
	}
	s, err := policy.LoadDirs(ix, policy.Options{}, "testdata/example", "testdata/weaver/default")
	if err != nil {
		panic(err)
	}
	for _, m := range s.Modules() {
		fmt.Printf("%s reads values: %v\n", m.File, m.ReadsValues)
	}
	td := ptrace.NewTraces()
	sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetName("GET /cart")
	sp.Attributes().PutStr("url.full", "https://bob:secret@shop.example/cart")
	sp.Attributes().PutStr("acme.test_run", "42")
	err = s.Traces(context.Background(), ix, td, func(ev *policy.Event) {
		fmt.Printf("%s %s on %s %q (%s %q): %s\n", ev.Level, ev.ID, ev.Sample, ev.Name, ev.SignalType, ev.SignalName, ev.Message)
	})
	if err != nil {
		panic(err)
	}
	// Unordered output:
	// testdata/example/names.rego reads values: false
	// testdata/example/values.rego reads values: true
	// testdata/weaver/default/otel.rego reads values: false
	// violation acme_url_credentials on attribute "url.full" (span "GET /cart"): url.full carries credentials
	// violation acme_no_test_keys on attribute "acme.test_run" (span "GET /cart"): Attribute key 'acme.test_run' must not contain 'test'
}
