package policy_test

import (
	"context"
	"fmt"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelgov/otelcol-governance/policy"
	"github.com/otelgov/otelcol-governance/registry"
)

// otel.rego on one attribute sample against semantic conventions v1.44.0:
// answered from the memo (the line-rate case: few distinct keys), and
// evaluated (every key new: the memo is bypassed by a fresh key per call).
func BenchmarkOtelRego(b *testing.B) {
	ix, err := registry.Default()
	if err != nil {
		b.Fatal(err)
	}
	s := load(b, ix, policy.Options{Memo: policy.MemoLimits{Entries: 1 << 20, Bytes: 1 << 30}}, weaverPolicies+"/default")
	ctx := context.Background()
	b.Run("memo_hit", func(b *testing.B) {
		in := policy.Input{Sample: policy.Attribute("http.request.method", pcommon.NewValueStr("GET")), Attribute: ix.Lookup("http.request.method")}
		if _, err := s.Eval(ctx, &in); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Eval(ctx, &in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("evaluated", func(b *testing.B) {
		keys := make([]string, 1<<14)
		for i := range keys {
			keys[i] = fmt.Sprintf("http.request.x%d", i)
		}
		i := 0
		b.ReportAllocs()
		for b.Loop() {
			k := keys[i%len(keys)] + fmt.Sprint(i/len(keys))
			i++
			in := policy.Input{Sample: policy.Attribute(k, pcommon.NewValueStr("GET"))}
			if _, err := s.Eval(ctx, &in); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Weaver's example policy (value-dependent) on one attribute sample: a
// full evaluation per sample.
func BenchmarkValueDependent(b *testing.B) {
	ix, err := registry.Default()
	if err != nil {
		b.Fatal(err)
	}
	s := load(b, ix, policy.Options{}, weaverPolicies+"/live_check_advice")
	in := policy.Input{Sample: policy.Attribute("http.request.method", pcommon.NewValueStr("GET"))}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Eval(ctx, &in); err != nil {
			b.Fatal(err)
		}
	}
}
