// Package otlpfiletest builds pathological inputs for the otlpfile reader's
// tests and the end-to-end tests of otelgov check.
package otlpfiletest // import "github.com/otelgov/otelcol-governance/otlpfile/otlpfiletest"

import (
	"bytes"
	"compress/gzip"
	"slices"
)

// GzipMembers is gzip input of prefix followed by mib MiB of fill, one gzip
// member per MiB: a multi-member stream, as gzip(1) and Go's gzip.Reader
// read it. A 1 GiB bomb costs one compression of 1 MiB to build and about
// 1 MB of memory.
func GzipMembers(prefix []byte, fill byte, mib int) []byte {
	out := member(prefix)
	m := member(bytes.Repeat([]byte{fill}, 1<<20))
	out = slices.Grow(out, len(m)*mib)
	for range mib {
		out = append(out, m...)
	}
	return out
}

func member(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // a valid level: no error
	_, _ = zw.Write(b)                                       // writes to a bytes.Buffer do not fail
	_ = zw.Close()
	return buf.Bytes()
}
