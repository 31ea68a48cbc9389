package otlpfile

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/vocab"
)

// Writer writes records in one of the Reader's formats, so that a file
// read, changed and written keeps its format and compression.
type Writer struct {
	format  Format
	bw      *bufio.Writer
	gz      *gzip.Writer
	written int
	hdr     [binary.MaxVarintLen64]byte
}

// ErrSingle is returned when a second record is written in
// FormatProtoSingle.
var ErrSingle = errors.New("the single-message protobuf format holds one request")

// NewWriter writes records to w in format, gzip-compressed when gz is set.
func NewWriter(w io.Writer, format Format, gz bool) *Writer {
	out := &Writer{format: format}
	if gz {
		out.gz = gzip.NewWriter(w)
		w = out.gz
	}
	out.bw = bufio.NewWriterSize(w, 256<<10)
	return out
}

// Write writes one record.
func (w *Writer) Write(rec *Record) error {
	if w.format == FormatJSON {
		b, err := marshal(rec, true)
		if err != nil {
			return err
		}
		_, _ = w.bw.Write(b)
		return w.bw.WriteByte('\n')
	}
	if w.format == FormatProtoSingle && w.written > 0 {
		return ErrSingle
	}
	b, err := marshal(rec, false)
	if err != nil {
		return err
	}
	switch w.format {
	case FormatProtoFixed:
		if len(b) > int(^uint32(0)) {
			return fmt.Errorf("request of %d bytes does not fit a 4-byte length", len(b))
		}
		binary.BigEndian.PutUint32(w.hdr[:4], uint32(len(b))) //nolint:gosec // len(b) fits, checked above
		_, _ = w.bw.Write(w.hdr[:4])
	case FormatProtoVarint:
		n := binary.PutUvarint(w.hdr[:], uint64(len(b)))
		_, _ = w.bw.Write(w.hdr[:n])
	case FormatProtoSingle, FormatJSON:
	}
	w.written++
	_, err = w.bw.Write(b)
	return err
}

func marshal(rec *Record, asJSON bool) ([]byte, error) {
	switch rec.Kind {
	case vocab.KindTraces:
		if asJSON {
			return (&ptrace.JSONMarshaler{}).MarshalTraces(rec.Traces)
		}
		return (&ptrace.ProtoMarshaler{}).MarshalTraces(rec.Traces)
	case vocab.KindMetrics:
		if asJSON {
			return (&pmetric.JSONMarshaler{}).MarshalMetrics(rec.Metrics)
		}
		return (&pmetric.ProtoMarshaler{}).MarshalMetrics(rec.Metrics)
	case vocab.KindLogs:
		if asJSON {
			return (&plog.JSONMarshaler{}).MarshalLogs(rec.Logs)
		}
		return (&plog.ProtoMarshaler{}).MarshalLogs(rec.Logs)
	case vocab.KindUnknown, vocab.NumKinds:
	}
	return nil, errors.New("record without a signal")
}

// Close flushes buffered data and ends the gzip stream; it does not close
// the underlying writer.
func (w *Writer) Close() error {
	err := w.bw.Flush()
	if w.gz != nil {
		err = errors.Join(err, w.gz.Close())
	}
	return err
}
