package policy_test

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
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
		b.ReportAllocs()
		for b.Loop() {
			k := fmt.Sprintf("http.request.x%d", evalSeq.Add(1))
			in := policy.Input{Sample: policy.Attribute(k, pcommon.NewValueStr("GET"))}
			if _, err := s.Eval(ctx, &in); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// evalSeq makes every evaluated key new, across runs of the benchmark.
var evalSeq atomic.Int64

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

// Loading otel.rego against semantic conventions v1.44.0: time, and the heap
// the compiled set keeps (B-retained, after a collection).
func BenchmarkLoadOtelRego(b *testing.B) {
	ix, err := registry.Default()
	if err != nil {
		b.Fatal(err)
	}
	var before, after runtime.MemStats
	for b.Loop() {
		runtime.GC() // the previous iteration's set is garbage here
		runtime.ReadMemStats(&before)
		keep := load(b, ix, policy.Options{}, weaverPolicies+"/default")
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(keep)
	}
	b.ReportMetric(float64(after.HeapAlloc)-float64(before.HeapAlloc), "B-retained")
}
