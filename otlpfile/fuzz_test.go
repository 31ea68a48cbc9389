package otlpfile

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/otelgov/otelcol-governance/otlpfile/otlpfiletest"
)

// seeds are the corpus of both fuzz targets: every format, plain and gzip,
// broken variants, and the inputs the fail-closed checks refuse (runs of
// empty requests, NUL bytes, JSON or text that is not OTLP, a gzip bomb).
func seeds(f *testing.F) {
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
	f.Add([]byte(`{"foo":1}`))
	f.Add([]byte("\n\nreceivers:\n  otlp: {}\n"))
	f.Add([]byte(strings.Repeat(" \n", 3000) + "x"))
	f.Add([]byte(`[{"resourceSpans":[]}]`))
	f.Add([]byte(strings.Repeat("{}\n", MaxEmptyRun+1)))
	f.Add([]byte(strings.Repeat(`{"resourceLogs":[]}`, MaxEmptyRun) + `{"resourceLogs":[{}]}`))
	f.Add(make([]byte, 4*(MaxEmptyRun+1)))
	f.Add(append(encode(f, FormatProtoVarint, false, mixed()), make([]byte, MaxEmptyRun+1)...))
	f.Add(otlpfiletest.GzipMembers(encode(f, FormatJSON, false, mixed()[:1]), '\n', 1))
	f.Add(otlpfiletest.GzipMembers(nil, 0, 1))
}

// read reads in to the end: the records' locations and the error, checking
// the reader's promises on the way: errors are located *Error, no record
// without a resource is returned, and the reader stops.
func read(t *testing.T, in []byte, gz bool) (locs []int64, err error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(in), Options{Name: "fuzz", MaxRecordBytes: 1 << 20})
	if err == nil && r.Gzip() != gz {
		t.Fatalf("gzip detected: %v, want %v", r.Gzip(), gz)
	}
	for err == nil {
		if len(locs) > len(in)+2 {
			t.Fatalf("more records than input bytes")
		}
		var rec Record
		rec, err = r.Next()
		if err == nil {
			if rec.resources() == 0 {
				t.Fatalf("a record without a resource at byte %d", rec.Offset)
			}
			locs = append(locs, rec.Offset, int64(rec.Line))
		}
	}
	if errors.Is(err, io.EOF) {
		return locs, nil
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error without location: %v", err)
	}
	return locs, err
}

// FuzzReader feeds arbitrary bytes to the reader: it must return records or
// a located *Error, never panic, and stop. The seed corpus runs with
// `go test`.
func FuzzReader(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		_, _ = read(t, in, bytes.HasPrefix(in, []byte{0x1f, 0x8b}))
	})
}

// FuzzReaderGzip reads arbitrary bytes gzip-compressed: the gzip path
// (the compressed-byte counter, the ratio guard, the buffering over the
// decompressor) must read exactly what the plain path reads, with the same
// records at the same places and the same error.
func FuzzReaderGzip(f *testing.F) {
	seeds(f)
	zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed) // reused: a worker runs inputs one at a time
	f.Fuzz(func(t *testing.T, in []byte) {
		if bytes.HasPrefix(in, []byte{0x1f, 0x8b}) {
			return // gzip inside gzip is not unwrapped twice
		}
		var buf bytes.Buffer
		zw.Reset(&buf)
		_, _ = zw.Write(in)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		plain, perr := read(t, in, false)
		zipped, zerr := read(t, buf.Bytes(), true)
		if (perr == nil) != (zerr == nil) || (perr != nil && perr.Error() != zerr.Error()) {
			t.Fatalf("plain: %v\ngzip:  %v", perr, zerr)
		}
		if len(plain) != len(zipped) {
			t.Fatalf("plain read %d records, gzip %d", len(plain)/2, len(zipped)/2)
		}
		for i := range plain {
			if plain[i] != zipped[i] {
				t.Fatalf("record %d: plain at %d, gzip at %d", i/2, plain[i], zipped[i])
			}
		}
	})
}
