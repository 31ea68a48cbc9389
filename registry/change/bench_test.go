package change_test

import (
	"testing"

	"github.com/otelgov/otelcol-governance/registry/change"
)

// BenchmarkDiff: six months of semantic conventions (v1.40.0 to v1.44.0),
// both registries loaded outside the loop.
func BenchmarkDiff(b *testing.B) {
	oldIx, newIx := load(b, "v1.40.0"), load(b, "v1.44.0")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := change.Diff(oldIx, newIx); err != nil {
			b.Fatal(err)
		}
	}
}
