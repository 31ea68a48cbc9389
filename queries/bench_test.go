package queries

import (
	"strings"
	"testing"
)

// BenchmarkScanPromQL is one dashboard-sized expression.
func BenchmarkScanPromQL(b *testing.B) {
	n := names(&testing.T{})
	expr := `sum by (http_method) (rate(http_server_request_duration_seconds_count{job=~"$job", http_method="GET"}[$__rate_interval]))`
	b.ReportAllocs()
	for b.Loop() {
		if _, err := scanPromQL(expr, n); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScanPromQL20k is one expression of 20,000 selectors.
func BenchmarkScanPromQL20k(b *testing.B) {
	n := names(&testing.T{})
	var sb strings.Builder
	for i := range 20000 {
		if i > 0 {
			sb.WriteString(" or ")
		}
		sb.WriteString(`x{http_method="GET"}`)
	}
	expr := sb.String()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := scanPromQL(expr, n); err != nil {
			b.Fatal(err)
		}
	}
}
