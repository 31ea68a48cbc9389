package queries

import (
	"testing"

	"github.com/otelgov/otelcol-governance/queryfile"
)

// BenchmarkExtract50MB reads the expressions of a 50 MB dashboard.
func BenchmarkExtract50MB(b *testing.B) {
	d := bigDashboard(50 << 20)
	b.SetBytes(int64(len(d)))
	b.ReportAllocs()
	for b.Loop() {
		if f := queryfile.Extract("big.json", d); len(f.Queries) == 0 {
			b.Fatal("no queries")
		}
	}
}
