package otlpfile

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// BenchmarkReader reads a recording of 300 requests (traces, metrics and
// logs mixed) in each format, plain and gzip; MB/s are of the uncompressed
// recording.
func BenchmarkReader(b *testing.B) {
	var recs []Record
	for range 100 {
		recs = append(recs, mixed()...)
	}
	for _, f := range []Format{FormatJSON, FormatProtoFixed} {
		for _, gz := range []bool{false, true} {
			in := encode(b, f, gz, recs)
			plain := len(encode(b, f, false, recs))
			b.Run(f.String()+map[bool]string{true: " gzip"}[gz], func(b *testing.B) {
				b.SetBytes(int64(plain))
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
