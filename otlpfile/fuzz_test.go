package otlpfile

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzReader feeds arbitrary bytes to the reader: it must return records or
// a located *Error, never panic, and stop. The seed corpus (every format,
// plain and gzip, and broken variants) runs with `go test`.
func FuzzReader(f *testing.F) {
	for _, format := range []Format{FormatJSON, FormatProtoFixed, FormatProtoVarint} {
		for _, gz := range []bool{false, true} {
			b := encode(f, format, gz, mixed())
			f.Add(b)
			f.Add(b[:len(b)/2])
		}
	}
	for _, rec := range mixed() {
		f.Add(encode(f, FormatProtoSingle, false, []Record{rec}))
	}
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"\"}"}]}]}]}`))
	f.Add([]byte("{\"a\":[1,2,{\"resourceLogs\":3}]}\n{"))
	f.Add([]byte{0x1f, 0x8b})
	f.Add([]byte{0x0a, 0x0a, 0x0a})
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := NewReader(bytes.NewReader(in), Options{Name: "fuzz", MaxRecordBytes: 1 << 20})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error without location: %v", err)
			}
			return
		}
		for range len(in) + 2 {
			_, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("error without location: %v", err)
				}
				return
			}
		}
		t.Fatalf("more records than input bytes")
	})
}
