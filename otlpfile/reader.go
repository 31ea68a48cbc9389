// Package otlpfile reads and writes recorded OTLP telemetry in the formats
// people actually have: the collector file exporter's JSON lines (one
// Export*ServiceRequest per line, traces, metrics and logs mixed),
// otlpjsonfile-style JSON (one or more requests, pretty-printed or not),
// binary protobuf (length-prefixed as the file exporter writes it,
// varint-delimited, or a single message), and gzip-compressed variants of
// each. Formats are detected from the content, never from the file name.
//
// Reading streams: memory is bounded by the largest single request
// (Options.MaxRecordBytes), whatever the size of the input, and time by the
// input's size: gzip input may expand at most Options.MaxDecompressionRatio
// times, and a run of more than MaxEmptyRun requests without a resource (a
// stretch of NUL bytes reads as one zero-length request per 4 bytes) is
// corrupt input, not a recording.
package otlpfile // import "github.com/otelgov/otelcol-governance/otlpfile"

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/vocab"
)

// Format is the framing of a file's records.
type Format uint8

const (
	// FormatJSON is one JSON Export*ServiceRequest after another: the file
	// exporter's JSON lines, or otlpjsonfile-style (pretty-printed) JSON.
	FormatJSON Format = iota
	// FormatProtoFixed is binary protobuf, each request prefixed with its
	// length as a 4-byte big-endian integer: the file exporter's
	// `format: proto`.
	FormatProtoFixed
	// FormatProtoVarint is binary protobuf, each request prefixed with its
	// length as a varint (protodelim, Java's writeDelimitedTo).
	FormatProtoVarint
	// FormatProtoSingle is one binary protobuf request, the whole input.
	FormatProtoSingle
)

// String names the format.
func (f Format) String() string {
	switch f {
	case FormatJSON:
		return "json"
	case FormatProtoFixed:
		return "proto (4-byte length prefix)"
	case FormatProtoVarint:
		return "proto (varint length prefix)"
	case FormatProtoSingle:
		return "proto (single message)"
	}
	return "invalid"
}

// DefaultMaxRecordBytes bounds one request, and so the reader's memory.
const DefaultMaxRecordBytes = 64 << 20

// DefaultMaxDecompressionRatio bounds how many times gzip input may expand.
// The collector's file exporter's recordings measured 7 to 15 times (gzip
// -9); synthetic recordings of one request repeated, up to 162 times. A
// gzip bomb expands about 1,000 times (deflate's limit is 1,032).
const DefaultMaxDecompressionRatio = 200

// decompressionGrace is how much gzip input may expand before the ratio is
// checked, so that a small, very repetitive file is never refused.
const decompressionGrace = 16 << 20

// MaxEmptyRun is how many requests without a resource may follow one
// another. Such requests are valid OTLP, and a writer may produce one now
// and then (an export call with nothing in it), but not a run: a run is
// what a stretch of NUL bytes (a preallocated or zero-filled file, a
// crash) reads as in the 4-byte length-prefixed format, one zero-length
// request per 4 bytes, and what a file of "{}" lines reads as. Requests
// without a resource are skipped; one more than MaxEmptyRun in a row is an
// ErrCorrupt.
const MaxEmptyRun = 64

// Options configure a Reader.
type Options struct {
	// Name is the input's name in error messages ("-" for stdin).
	Name string
	// Kind is the telemetry kind of binary protobuf records, which do not say it
	// themselves. vocab.KindUnknown: detected from the content, with the file
	// name as a tie-breaker. JSON records always say their signal.
	Kind vocab.Kind
	// MaxRecordBytes bounds one request. Zero: DefaultMaxRecordBytes.
	MaxRecordBytes int
	// MaxDecompressionRatio bounds gzip input: once more than 16 MiB have
	// been decompressed, the decompressed bytes may be at most this many
	// times the compressed bytes read. Zero: DefaultMaxDecompressionRatio;
	// negative: no limit.
	MaxDecompressionRatio int
}

// Record is one Export*ServiceRequest. Exactly one of Traces, Metrics and
// Logs is set, as Kind says.
type Record struct {
	Kind    vocab.Kind
	Traces  ptrace.Traces
	Metrics pmetric.Metrics
	Logs    plog.Logs
	// Line (1-based; 0 for binary formats) and Offset (bytes into the
	// uncompressed input) of the record's first byte.
	Line   int
	Offset int64
}

// Items is the number of spans, data points or log records in the record.
func (r *Record) Items() int {
	switch r.Kind {
	case vocab.KindTraces:
		return r.Traces.SpanCount()
	case vocab.KindMetrics:
		return r.Metrics.DataPointCount()
	case vocab.KindLogs:
		return r.Logs.LogRecordCount()
	case vocab.KindUnknown, vocab.NumKinds:
	}
	return 0
}

// resources is the number of resources in the record.
func (r *Record) resources() int {
	switch r.Kind {
	case vocab.KindTraces:
		return r.Traces.ResourceSpans().Len()
	case vocab.KindMetrics:
		return r.Metrics.ResourceMetrics().Len()
	case vocab.KindLogs:
		return r.Logs.ResourceLogs().Len()
	case vocab.KindUnknown, vocab.NumKinds:
	}
	return 0
}

// Error is bad input, with its location.
type Error struct {
	Name   string
	Line   int   // 1-based; 0 when the format has no lines
	Offset int64 // bytes into the uncompressed input
	Err    error
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d (byte %d): %v", e.Name, e.Line, e.Offset, e.Err)
	}
	return fmt.Sprintf("%s: byte %d: %v", e.Name, e.Offset, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Errors wrapped by *Error, for errors.Is.
var (
	// ErrTruncated: the input ends inside a record.
	ErrTruncated = errors.New("truncated input")
	// ErrNotOTLP: a JSON value that is not an OTLP Export*ServiceRequest,
	// or text that is not JSON.
	ErrNotOTLP = errors.New("not an OTLP request")
	// ErrCorrupt: more than MaxEmptyRun requests without a resource in a row.
	ErrCorrupt = errors.New("corrupt input")
	// ErrDecompressionRatio: gzip input that expands more than
	// Options.MaxDecompressionRatio times.
	ErrDecompressionRatio = errors.New("decompression limit exceeded")
)

// Reader reads records from one input.
type Reader struct {
	opts   Options
	src    *bufio.Reader
	gz     *gzip.Reader
	gzip   bool
	format Format
	max    int

	offset int64 // bytes consumed from the uncompressed stream
	line   int   // current line (JSON), 1-based
	buf    []byte
	hdr    [4]byte
	done   bool

	// emptyRun counts the requests without a resource since the last one
	// with; emptyLine and emptyStart are where the run began. empty counts
	// them all.
	emptyRun   int
	emptyLine  int
	emptyStart int64
	empty      int64

	// single holds the whole input of FormatProtoSingle until Next
	// decodes it.
	single []byte
}

// NewReader detects the input's compression and format from its first bytes.
// An empty input is valid and has no records: whether a run that read
// nothing passes is the caller's decision.
func NewReader(r io.Reader, opts Options) (*Reader, error) {
	if opts.Name == "" {
		opts.Name = "-"
	}
	rd := &Reader{opts: opts, max: opts.MaxRecordBytes, line: 1}
	if rd.max <= 0 {
		rd.max = DefaultMaxRecordBytes
	}
	br := bufio.NewReaderSize(r, 256<<10)
	magic, _ := br.Peek(2)
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		// The gzip reader reads the compressed bytes through a counter
		// (a ByteReader, so that flate reads it unbuffered and the count
		// is exact), and the guard compares what comes out with it.
		in := &countingReader{r: br}
		gz, err := gzip.NewReader(in)
		if err != nil {
			return nil, &Error{Name: opts.Name, Err: fmt.Errorf("gzip header: %w", err)}
		}
		rd.gz, rd.gzip = gz, true
		ratio := opts.MaxDecompressionRatio
		if ratio == 0 {
			ratio = DefaultMaxDecompressionRatio
		}
		var out io.Reader = gz
		if ratio > 0 {
			out = &ratioGuard{r: gz, in: in, ratio: int64(ratio)}
		}
		br = bufio.NewReaderSize(out, 256<<10)
	}
	rd.src = br
	if err := rd.detect(); err != nil {
		return nil, err
	}
	return rd, nil
}

// Format is the detected framing.
func (r *Reader) Format() Format { return r.format }

// Gzip reports whether the input was gzip-compressed.
func (r *Reader) Gzip() bool { return r.gzip }

// Empty is the number of requests without a resource read so far: valid
// OTLP that Next skips.
func (r *Reader) Empty() int64 { return r.empty }

// skipEmpty reports whether rec has no resource, and so is skipped; it
// fails on the request that makes the run longer than MaxEmptyRun.
func (r *Reader) skipEmpty(rec *Record, line int, off int64) (bool, error) {
	if rec.resources() > 0 {
		r.emptyRun = 0
		return false, nil
	}
	if r.emptyRun == 0 {
		r.emptyLine, r.emptyStart = line, off
	}
	r.emptyRun++
	r.empty++
	if r.emptyRun > MaxEmptyRun {
		return true, r.errorf(r.emptyLine, r.emptyStart, fmt.Errorf("%w: more than %d requests without a resource in a row from byte %d (%s): not a recording",
			ErrCorrupt, MaxEmptyRun, r.emptyStart, r.emptyHint()))
	}
	return true, nil
}

func (r *Reader) emptyHint() string {
	switch r.format {
	case FormatProtoFixed:
		return "4-byte lengths of 0: NUL bytes?"
	case FormatProtoVarint:
		return "varint lengths of 0: NUL bytes?"
	case FormatJSON:
		return "requests like {} with no resourceSpans, resourceMetrics or resourceLogs"
	case FormatProtoSingle:
	}
	return "empty requests"
}

func (r *Reader) errorf(line int, off int64, err error) error {
	return &Error{Name: r.opts.Name, Line: line, Offset: off, Err: err}
}

// readErr turns a read error inside a record into a located error.
func (r *Reader) readErr(line int, off int64, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return r.errorf(line, off, fmt.Errorf("%w: the input ends inside a record", ErrTruncated))
	}
	return r.errorf(line, off, err)
}

// detect reads the first meaningful byte: '{' is JSON; a zero byte is the
// file exporter's 4-byte big-endian length (a request below 16 MiB); 0x0a
// (field 1, length-delimited: resource_spans/metrics/logs) is a single
// message; anything else a varint length.
func (r *Reader) detect() error {
	head, err := r.src.Peek(4096)
	if len(head) == 0 {
		if errors.Is(err, io.EOF) {
			r.done = true
			return nil
		}
		return r.readErr(0, 0, err)
	}
	// JSON may start with whitespace, which is not a protobuf start except
	// for 0x0a, handled by the scan: a JSON input's first non-space byte is
	// a brace.
	for _, c := range head {
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			continue
		}
		if c == '{' || c == '[' {
			r.format = FormatJSON
			return nil
		}
		break
	}
	text := bytes.TrimLeft(head, " \t\r\n")
	if len(text) == 0 {
		if errors.Is(err, io.EOF) {
			r.done = true // only whitespace
			return nil
		}
		r.format = FormatJSON // whitespace, then JSON or an error at its line
		return nil
	}
	if looksText(text) {
		skipped := head[:len(head)-len(text)]
		line := 1 + bytes.Count(skipped, []byte{'\n'})
		first, _, _ := bytes.Cut(text, []byte{'\n'})
		if len(first) > maxKeyEcho {
			first = append(bytes.ToValidUTF8(first[:maxKeyEcho], nil), "..."...)
		}
		return r.errorf(line, int64(len(skipped)), fmt.Errorf("%w: text that is not JSON, starting %q (want OTLP JSON or binary protobuf)", ErrNotOTLP, first))
	}
	switch head[0] {
	case 0:
		r.format = FormatProtoFixed
	case 0x0a:
		r.format = FormatProtoSingle
		return r.readSingle()
	default:
		r.format = FormatProtoVarint
	}
	return nil
}

// looksText reports whether b is UTF-8 text without control characters
// other than tab, CR and LF (a rune cut at the end of b is allowed).
// Binary OTLP never is: its field tags (0x12, 0x1a, ...), length and
// fixed-width fields hold control bytes.
func looksText(b []byte) bool {
	for len(b) > 0 {
		c, size := utf8.DecodeRune(b)
		switch {
		case c == utf8.RuneError && size <= 1:
			return len(b) < utf8.UTFMax && !utf8.FullRune(b)
		case c < 0x20 && c != '\t' && c != '\n' && c != '\r', c == 0x7f:
			return false
		}
		b = b[size:]
	}
	return true
}

// readSingle reads a whole single-message input; when it is not one message
// but varint-delimited ones (a first length of 10), it switches format.
func (r *Reader) readSingle() error {
	lr := io.LimitReader(r.src, int64(r.max)+1)
	b, err := io.ReadAll(lr)
	if err != nil {
		return r.readErr(0, r.offset, err)
	}
	if len(b) > r.max {
		return r.errorf(0, 0, fmt.Errorf("a single protobuf message larger than %d bytes (raise --max-record-size)", r.max))
	}
	if _, _, err := decodeProto(b, r.opts.Kind, r.opts.Name); err != nil {
		if vr, ok := varintFramed(b); ok {
			r.format = FormatProtoVarint
			r.src = bufio.NewReader(bytes.NewReader(vr))
			return nil
		}
	}
	r.single = b
	return nil
}

// varintFramed reports whether b is a sequence of varint-delimited records
// that fill it exactly.
func varintFramed(b []byte) ([]byte, bool) {
	rest := b
	for len(rest) > 0 {
		n, k := binary.Uvarint(rest)
		if k <= 0 || n > uint64(len(rest)-k) { //nolint:gosec // len-k >= 0: k <= len(rest)
			return nil, false
		}
		rest = rest[k+int(n):] //nolint:gosec // n <= len(rest)-k, checked above
	}
	return b, true
}

// Next returns the next record, or io.EOF after the last one. Requests
// without a resource are skipped (see MaxEmptyRun). Errors are *Error;
// after an error the Reader must not be used.
func (r *Reader) Next() (Record, error) {
	if r.done {
		return Record{}, io.EOF
	}
	switch r.format {
	case FormatJSON:
		return r.nextJSON()
	case FormatProtoFixed:
		return r.nextFixed()
	case FormatProtoVarint:
		return r.nextVarint()
	case FormatProtoSingle:
		r.done = true
		b := r.single
		r.single = nil
		rec, err := r.decode(b, 0, 0)
		if err != nil {
			return Record{}, err
		}
		if skip, err := r.skipEmpty(&rec, 0, 0); err != nil || skip {
			return Record{}, cmp.Or(err, io.EOF)
		}
		return rec, nil
	}
	return Record{}, io.EOF
}

func (r *Reader) decode(b []byte, line int, off int64) (Record, error) {
	rec, _, err := decodeProto(b, r.opts.Kind, r.opts.Name)
	if err != nil {
		return Record{}, r.errorf(line, off, err)
	}
	rec.Line, rec.Offset = line, off
	return rec, nil
}

func (r *Reader) nextFixed() (Record, error) {
	for {
		start := r.offset
		n, err := io.ReadFull(r.src, r.hdr[:])
		if n == 0 && errors.Is(err, io.EOF) {
			r.done = true
			return Record{}, io.EOF
		}
		if err != nil {
			return Record{}, r.readErr(0, start, err)
		}
		size := binary.BigEndian.Uint32(r.hdr[:])
		if int64(size) > int64(r.max) {
			return Record{}, r.errorf(0, start, fmt.Errorf("record length %d exceeds the limit of %d bytes (not a 4-byte length prefix, or raise --max-record-size)", size, r.max))
		}
		r.offset += 4
		if rec, ok, err := r.frame(int(size), start); ok || err != nil {
			return rec, err
		}
	}
}

func (r *Reader) nextVarint() (Record, error) {
	for {
		start := r.offset
		cr := countingByteReader{r: r.src}
		size, err := binary.ReadUvarint(&cr)
		r.offset += int64(cr.n)
		if cr.n == 0 && errors.Is(err, io.EOF) {
			r.done = true
			return Record{}, io.EOF
		}
		if err != nil {
			return Record{}, r.readErr(0, start, err)
		}
		if size > uint64(r.max) { //nolint:gosec // r.max > 0
			return Record{}, r.errorf(0, start, fmt.Errorf("record length %d exceeds the limit of %d bytes (not a varint length prefix, or raise --max-record-size)", size, r.max))
		}
		if rec, ok, err := r.frame(int(size), start); ok || err != nil { //nolint:gosec // size <= r.max, checked above
			return rec, err
		}
	}
}

// frame reads and decodes one length-prefixed request of size bytes; ok is
// false for a request without a resource, which is skipped. A zero-length
// request is not decoded at all: it is empty whatever its signal.
func (r *Reader) frame(size int, start int64) (Record, bool, error) {
	var rec Record
	if size > 0 {
		var err error
		if rec, err = r.body(size, start); err != nil {
			return Record{}, false, err
		}
	}
	skip, err := r.skipEmpty(&rec, 0, start)
	if err != nil {
		return Record{}, false, err
	}
	return rec, !skip, nil
}

func (r *Reader) body(size int, start int64) (Record, error) {
	if cap(r.buf) < size {
		r.buf = make([]byte, size)
	}
	b := r.buf[:size]
	n, err := io.ReadFull(r.src, b)
	r.offset += int64(n)
	if err != nil {
		return Record{}, r.readErr(0, start, err)
	}
	return r.decode(b, 0, start)
}

type countingByteReader struct {
	r *bufio.Reader
	n int
}

func (c *countingByteReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

// nextJSON splits the next top-level JSON value off the stream with a small
// state machine (strings and escapes aware), so that lines and offsets are
// exact and memory is bounded by one value, then hands it to pdata.
func (r *Reader) nextJSON() (Record, error) {
	for {
		more, err := r.skipSpace()
		if err != nil {
			return Record{}, r.readErr(r.line, r.offset, err)
		}
		if !more {
			r.done = true
			return Record{}, io.EOF
		}
		line, start := r.line, r.offset
		val, err := r.splitJSON()
		if err != nil {
			return Record{}, err
		}
		rec, err := decodeJSON(val)
		if err != nil {
			return Record{}, r.errorf(line, start, err)
		}
		if skip, err := r.skipEmpty(&rec, line, start); err != nil || skip {
			if err != nil {
				return Record{}, err
			}
			continue // {} or a request without a resource
		}
		rec.Line, rec.Offset = line, start
		return rec, nil
	}
}

// skipSpace consumes the whitespace between JSON values a buffer at a time,
// counting lines; more is false at the end of the input.
func (r *Reader) skipSpace() (more bool, err error) {
	for {
		if _, err := r.src.Peek(1); err != nil {
			if errors.Is(err, io.EOF) {
				return false, nil
			}
			return false, err
		}
		chunk, _ := r.src.Peek(r.src.Buffered())
		n := 0
	scan:
		for ; n < len(chunk); n++ {
			switch chunk[n] {
			case '\n':
				r.line++
			case ' ', '\t', '\r':
			default:
				break scan
			}
		}
		_, _ = r.src.Discard(n)
		r.offset += int64(n)
		if n < len(chunk) {
			return true, nil
		}
	}
}

// splitJSON reads one JSON object or array into r.buf, scanning the
// reader's buffer in place and consuming exactly the value's bytes.
func (r *Reader) splitJSON() ([]byte, error) {
	line, start := r.line, r.offset
	buf := r.buf[:0]
	depth := 0
	inString, escaped := false, false
	first := true
	for {
		if _, err := r.src.Peek(1); err != nil {
			if errors.Is(err, io.EOF) {
				return nil, r.errorf(line, start, fmt.Errorf("%w: the input ends inside a JSON value (line %d)", ErrTruncated, r.line))
			}
			return nil, r.readErr(line, start, err)
		}
		chunk, _ := r.src.Peek(r.src.Buffered())
		end := -1
		for i, c := range chunk {
			if first {
				first = false
				if c != '{' && c != '[' {
					return nil, r.errorf(r.line, r.offset, fmt.Errorf("expected a JSON object, found %q", c))
				}
			}
			switch {
			case inString:
				switch {
				case escaped:
					escaped = false
				case c == '\\':
					escaped = true
				case c == '"':
					inString = false
				}
			case c == '"':
				inString = true
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				depth--
			case c == '\n':
				r.line++
			}
			if depth == 0 {
				end = i + 1
				break
			}
		}
		n := len(chunk)
		if end >= 0 {
			n = end
		}
		if len(buf)+n > r.max {
			return nil, r.errorf(line, start, fmt.Errorf("a JSON value larger than %d bytes (raise --max-record-size)", r.max))
		}
		buf = append(buf, chunk[:n]...)
		_, _ = r.src.Discard(n)
		r.offset += int64(n)
		r.buf = buf
		if end >= 0 {
			return buf, nil
		}
	}
}

// decodeJSON decodes one request. A request without a data key ({}) is a
// Record without a signal; an object whose keys are all foreign is
// ErrNotOTLP.
func decodeJSON(b []byte) (Record, error) {
	sig, err := jsonSignal(b)
	if err != nil {
		return Record{}, err
	}
	var rec Record
	rec.Kind = sig
	switch sig {
	case vocab.KindTraces:
		rec.Traces, err = (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(b)
	case vocab.KindMetrics:
		rec.Metrics, err = (&pmetric.JSONUnmarshaler{}).UnmarshalMetrics(b)
	case vocab.KindLogs:
		rec.Logs, err = (&plog.JSONUnmarshaler{}).UnmarshalLogs(b)
	case vocab.KindUnknown, vocab.NumKinds:
		return Record{}, nil
	}
	if err != nil {
		return Record{}, fmt.Errorf("invalid OTLP JSON %s request: %w", sig, err)
	}
	return rec, nil
}

// maxKeyEcho bounds a foreign key echoed in an error message.
const maxKeyEcho = 64

// jsonSignal finds the kind from the request's top-level keys: unknown
// for {}, ErrNotOTLP for an object without any of the three data keys.
func jsonSignal(b []byte) (vocab.Kind, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	t, err := dec.Token()
	if err != nil {
		return vocab.KindUnknown, fmt.Errorf("invalid JSON: %w", err)
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return vocab.KindUnknown, fmt.Errorf("%w: expected a JSON object (an Export*ServiceRequest), found an array", ErrNotOTLP)
	}
	first := ""
	keys := 0
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return vocab.KindUnknown, fmt.Errorf("invalid JSON: %w", err)
		}
		key, _ := t.(string)
		switch key {
		case "resourceSpans", "resource_spans":
			return vocab.KindTraces, nil
		case "resourceMetrics", "resource_metrics":
			return vocab.KindMetrics, nil
		case "resourceLogs", "resource_logs":
			return vocab.KindLogs, nil
		}
		if keys == 0 {
			first = key
		}
		keys++
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return vocab.KindUnknown, fmt.Errorf("invalid JSON: %w", err)
		}
	}
	if keys > 0 {
		if len(first) > maxKeyEcho {
			first = strings.ToValidUTF8(first[:maxKeyEcho], "") + "..."
		}
		return vocab.KindUnknown, fmt.Errorf("%w: a JSON object with none of resourceSpans, resourceMetrics and resourceLogs (%d key(s), the first %q)", ErrNotOTLP, keys, first)
	}
	return vocab.KindUnknown, nil
}

// decodeProto decodes one binary request. With no signal given it tries the
// three request types, hinted by the file name, and keeps the first that
// decodes with items (protobuf requests do not name their signal).
func decodeProto(b []byte, sig vocab.Kind, name string) (Record, vocab.Kind, error) {
	order := []vocab.Kind{vocab.KindTraces, vocab.KindMetrics, vocab.KindLogs}
	if sig != vocab.KindUnknown {
		order = []vocab.Kind{sig}
	} else if h := nameHint(name); h != vocab.KindUnknown {
		order = append([]vocab.Kind{h}, order...)
	}
	var firstOK *Record
	var errs []error
	for _, s := range order {
		rec := Record{Kind: s}
		var err error
		switch s {
		case vocab.KindTraces:
			rec.Traces, err = (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(b)
		case vocab.KindMetrics:
			rec.Metrics, err = (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics(b)
		case vocab.KindLogs:
			rec.Logs, err = (&plog.ProtoUnmarshaler{}).UnmarshalLogs(b)
		case vocab.KindUnknown, vocab.NumKinds:
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("as %s: %w", s, err))
			continue
		}
		if rec.Items() > 0 || sig != vocab.KindUnknown {
			return rec, s, nil
		}
		if firstOK == nil {
			firstOK = &rec
		}
	}
	if firstOK != nil {
		return *firstOK, firstOK.Kind, nil
	}
	return Record{}, vocab.KindUnknown, fmt.Errorf("invalid OTLP protobuf request: %w", errors.Join(errs...))
}

func nameHint(name string) vocab.Kind {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "trace") || strings.Contains(n, "span"):
		return vocab.KindTraces
	case strings.Contains(n, "metric"):
		return vocab.KindMetrics
	case strings.Contains(n, "log"):
		return vocab.KindLogs
	}
	return vocab.KindUnknown
}

// countingReader counts the compressed bytes the gzip reader consumes. It
// is an io.ByteReader, so that flate does not buffer it.
type countingReader struct {
	r *bufio.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

// ratioGuard fails decompression that expands more than ratio times, once
// past decompressionGrace: a gzip bomb is refused after its first 16 MiB,
// in milliseconds, instead of being read to its end.
type ratioGuard struct {
	r     io.Reader
	in    *countingReader
	out   int64
	ratio int64
}

func (g *ratioGuard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	g.out += int64(n)
	if g.out > decompressionGrace && g.out > g.ratio*g.in.n {
		return n, fmt.Errorf("%w: gzip input expands more than %d times (%d bytes from %d): a decompression bomb? (raise --max-decompression-ratio)",
			ErrDecompressionRatio, g.ratio, g.out, g.in.n)
	}
	return n, err
}

// Close releases the gzip reader; it does not close the underlying input.
func (r *Reader) Close() error {
	if r.gz != nil {
		return r.gz.Close()
	}
	return nil
}
