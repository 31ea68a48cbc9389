package otlpfile

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// BenchmarkReader reads a recording of 300 requests (traces, metrics and
// logs mixed) in each format, plain and gzip.
func BenchmarkReader(b *testing.B) {
	var recs []Record
	for range 100 {
		recs = append(recs, mixed()...)
	}
	for _, f := range []Format{FormatJSON, FormatProtoFixed} {
		for _, gz := range []bool{false, true} {
			in := encode(b, f, gz, recs)
			b.Run(f.String()+map[bool]string{true: " gzip"}[gz], func(b *testing.B) {
				b.SetBytes(int64(len(in)))
				b.ReportAllocs()
				for b.Loop() {
					r, err := NewReader(bytes.NewReader(in), Options{})
					if err != nil {
						b.Fatal(err)
					}
					for {
						if _, err := r.Next(); err != nil {
							if !errors.Is(err, io.EOF) {
								b.Fatal(err)
							}
							break
						}
					}
				}
			})
		}
	}
}
