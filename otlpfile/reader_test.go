package otlpfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/engine/enginetest"
	"github.com/otelgov/otelcol-governance/otlpfile/otlpfiletest"
	"github.com/otelgov/otelcol-governance/vocab"
)

// mixed returns one traces, one metrics and one logs record.
func mixed() []Record {
	return []Record{
		{Kind: vocab.KindTraces, Traces: enginetest.GenTraces(3, enginetest.MixDeprecated)},
		{Kind: vocab.KindMetrics, Metrics: enginetest.GenMetrics(2, enginetest.MixConformant)},
		{Kind: vocab.KindLogs, Logs: enginetest.GenLogs(4, enginetest.MixUnknown)},
	}
}

func encode(t testing.TB, f Format, gz bool, recs []Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf, f, gz)
	for i := range recs {
		require.NoError(t, w.Write(&recs[i]))
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

func readAll(t testing.TB, in []byte, opts Options) ([]Record, *Reader, error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(in), opts)
	if err != nil {
		return nil, nil, err
	}
	var out []Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, r, nil
		}
		if err != nil {
			return out, r, err
		}
		out = append(out, rec)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, f := range []Format{FormatJSON, FormatProtoFixed, FormatProtoVarint} {
		for _, gz := range []bool{false, true} {
			t.Run(f.String()+map[bool]string{true: " gzip"}[gz], func(t *testing.T) {
				want := mixed()
				got, r, err := readAll(t, encode(t, f, gz, want), Options{Name: "x"})
				require.NoError(t, err)
				assert.Equal(t, f, r.Format())
				assert.Equal(t, gz, r.Gzip())
				require.Len(t, got, 3)
				for i := range want {
					assert.Equal(t, want[i].Kind, got[i].Kind)
					assert.Equal(t, want[i].Items(), got[i].Items())
				}
			})
		}
	}
}

func TestSingleProto(t *testing.T) {
	for _, rec := range mixed() {
		t.Run(rec.Kind.String(), func(t *testing.T) {
			got, r, err := readAll(t, encode(t, FormatProtoSingle, false, []Record{rec}), Options{})
			require.NoError(t, err)
			assert.Equal(t, FormatProtoSingle, r.Format())
			require.Len(t, got, 1)
			assert.Equal(t, rec.Kind, got[0].Kind, "detected from the content")
			assert.Equal(t, rec.Items(), got[0].Items())
		})
	}
}

func TestJSONLinesAndPretty(t *testing.T) {
	in := encode(t, FormatJSON, false, mixed())
	got, _, err := readAll(t, in, Options{})
	require.NoError(t, err)
	require.Len(t, got, 3)
	assert.Equal(t, []int{1, 2, 3}, []int{got[0].Line, got[1].Line, got[2].Line})
	assert.Equal(t, int64(0), got[0].Offset)

	// otlpjsonfile style: pretty-printed, several lines per request, leading blank lines.
	pretty := "\n\n{\n  \"resourceSpans\": [\n    {\"scopeSpans\": [{\"spans\": [{\"name\": \"a\", \"attributes\": [{\"key\": \"http.method\", \"value\": {\"stringValue\": \"}{\"}}]}]}]}\n  ]\n}\n{\"resourceLogs\":[{\"scopeLogs\":[{\"logRecords\":[{}]}]}]}{}"
	got, _, err = readAll(t, []byte(pretty), Options{})
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, 3, got[0].Line)
	assert.Equal(t, 1, got[0].Items())
	assert.Equal(t, 8, got[1].Line)
	assert.Equal(t, vocab.KindLogs, got[1].Kind)
}

func TestBadInput(t *testing.T) {
	lines := encode(t, FormatJSON, false, mixed())
	fixed := encode(t, FormatProtoFixed, false, mixed())
	gz := encode(t, FormatJSON, true, mixed())
	tests := []struct {
		name      string
		in        []byte
		truncated bool
		want      string
	}{
		{"json truncated", lines[:len(lines)-10], true, "x:3 ("},
		{"json garbage line", append(append([]byte{}, lines...), "{\"resourceSpans\": 5}\n"...), false, "x:4 ("},
		{"json not an object", []byte("{\"resourceSpans\":[]}\nhello\n"), false, "x:2 ("},
		{"proto truncated", fixed[:len(fixed)-3], true, "x: byte "},
		{"proto huge length", []byte{0, 0xff, 0xff, 0xff, 1, 2}, false, "exceeds the limit"},
		{"proto garbage", append([]byte{0, 0, 0, 4}, 0xff, 0xff, 0xff, 0xff), false, "invalid OTLP protobuf"},
		{"gzip truncated", gz[:len(gz)/2], true, "x:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := readAll(t, tt.in, Options{Name: "x", MaxRecordBytes: 1 << 20})
			require.Error(t, err)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Contains(t, err.Error(), tt.want)
			assert.Equal(t, tt.truncated, errors.Is(err, ErrTruncated), err.Error())
		})
	}
}

func TestEmpty(t *testing.T) {
	for _, in := range []string{"", "\n\n  \n"} {
		got, _, err := readAll(t, []byte(in), Options{})
		require.NoError(t, err)
		assert.Empty(t, got)
	}
}

func TestRecordLimit(t *testing.T) {
	in := encode(t, FormatJSON, false, mixed())
	_, _, err := readAll(t, in, Options{MaxRecordBytes: 100})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "larger than 100 bytes")
	assert.True(t, strings.HasPrefix(err.Error(), "-:1 "), err.Error())
}

func TestNotOTLPJSON(t *testing.T) {
	long := strings.Repeat("k", 500)
	tests := []struct {
		name, in, want string
	}{
		{"foreign object", `{"foo":1}`, `x:1 (byte 0): not an OTLP request: a JSON object with none of resourceSpans, resourceMetrics and resourceLogs (1 key(s), the first "foo")`},
		{"after a request", "{\"resourceLogs\":[{\"scopeLogs\":[{\"logRecords\":[{}]}]}]}\n\n{\"a\":{\"b\":[1]},\"c\":2}\n", `x:3 (byte 56): not an OTLP request: a JSON object with none of resourceSpans, resourceMetrics and resourceLogs (2 key(s), the first "a")`},
		{"array", `[{"resourceSpans":[]}]`, "x:1 (byte 0): not an OTLP request: expected a JSON object"},
		{"long key echoed bounded", `{"` + long + `":1}`, `the first "` + strings.Repeat("k", maxKeyEcho) + `..."`},
		{"text", "hello, world\n", `x:1 (byte 0): not an OTLP request: text that is not JSON, starting "hello, world" (want OTLP JSON or binary protobuf)`},
		{"YAML after blank lines", "\n\nreceivers:\n  otlp: {}\n", `x:3 (byte 2): not an OTLP request: text that is not JSON, starting "receivers:"`},
		{"long text line echoed bounded", "é" + long, `starting "é` + strings.Repeat("k", maxKeyEcho-2) + `..."`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := readAll(t, []byte(tt.in), Options{Name: "x"})
			require.ErrorIs(t, err, ErrNotOTLP)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), strings.Repeat("k", maxKeyEcho+1))
		})
	}
}

func TestEmptyRequests(t *testing.T) {
	fixed := encode(t, FormatProtoFixed, false, mixed())
	varint := encode(t, FormatProtoVarint, false, mixed())
	resourceOnly := `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"a"}}]}}]}` + "\n"
	tests := []struct {
		name    string
		in      []byte
		records int   // read before the end or the error
		empty   int64 // skipped
		want    string
	}{
		{"a run of empty requests, then data", append(make([]byte, 4*MaxEmptyRun), fixed...), 3, MaxEmptyRun, ""},
		{"one empty request too many", make([]byte, 4*(MaxEmptyRun+1)), 0, MaxEmptyRun + 1, "x: byte 0: corrupt input: more than 64 requests without a resource in a row from byte 0 (4-byte lengths of 0: NUL bytes?)"},
		{"10 MB of NUL bytes", make([]byte, 10_000_000), 0, MaxEmptyRun + 1, "from byte 0 (4-byte lengths of 0: NUL bytes?)"},
		{"NUL bytes after data", append(append([]byte{}, fixed...), make([]byte, 1<<20)...), 3, MaxEmptyRun + 1, fmt.Sprintf("x: byte %d: corrupt input", len(fixed))},
		{"varint zeros after data", append(append([]byte{}, varint...), make([]byte, 1<<10)...), 3, MaxEmptyRun + 1, "(varint lengths of 0: NUL bytes?)"},
		{"empty JSON requests", []byte(strings.Repeat("{}\n", 100)), 0, MaxEmptyRun + 1, "x:1 (byte 0): corrupt input: more than 64 requests without a resource in a row from byte 0 (requests like {}"},
		{"JSON without resources", []byte(strings.Repeat(`{"resourceMetrics":[]}`, 70)), 0, MaxEmptyRun + 1, "corrupt input"},
		{"empty requests apart", []byte(strings.Repeat(strings.Repeat("{}\n", MaxEmptyRun)+resourceOnly, 3)), 3, 3 * MaxEmptyRun, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, r, err := readAll(t, tt.in, Options{Name: "x"})
			if tt.want == "" {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, ErrCorrupt)
				var e *Error
				require.ErrorAs(t, err, &e)
				assert.Contains(t, err.Error(), tt.want)
			}
			assert.Len(t, got, tt.records)
			assert.Equal(t, tt.empty, r.Empty())
			for i := range got {
				assert.Positive(t, got[i].resources(), "requests without a resource are never returned")
			}
		})
	}
}

func TestLongWhitespace(t *testing.T) {
	pad := strings.Repeat(" \n", 5000) // past the bytes format detection peeks at
	got, _, err := readAll(t, []byte(pad+`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{}]}]}]}`), Options{Name: "x"})
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, 5001, got[0].Line)

	got, _, err = readAll(t, []byte(pad), Options{Name: "x"})
	require.NoError(t, err)
	assert.Empty(t, got)

	_, _, err = readAll(t, []byte(pad+"hello"), Options{Name: "x"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `x:5001 (byte 10000): expected a JSON object, found 'h'`)
}

func TestResourcesWithoutItems(t *testing.T) {
	// Valid, and not empty: a resource is something to check. Whether a
	// run that checked no item passes is the caller's decision.
	in := `{"resourceSpans":[{"resource":{},"scopeSpans":[{"scope":{}}]}]}` + "\n" + `{"resourceLogs":[{}]}`
	got, r, err := readAll(t, []byte(in), Options{Name: "x"})
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Zero(t, got[0].Items()+got[1].Items())
	assert.Zero(t, r.Empty())
}

func TestDecompressionRatio(t *testing.T) {
	line := encode(t, FormatJSON, false, mixed()[:1])
	bomb := otlpfiletest.GzipMembers(line, '\n', 32) // 32 MiB of newlines after one request
	t.Logf("bomb: %d bytes of gzip", len(bomb))

	_, _, err := readAll(t, bomb, Options{Name: "bomb.gz"})
	require.ErrorIs(t, err, ErrDecompressionRatio)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "bomb.gz", e.Name)
	assert.Regexp(t, `^bomb.gz:\d+ \(byte \d+\): decompression limit exceeded: gzip input expands more than 200 times \(\d+ bytes from \d+\): a decompression bomb\? \(raise --max-decompression-ratio\)$`, err.Error())

	for _, ratio := range []int{-1, 5000} {
		got, _, err := readAll(t, bomb, Options{Name: "bomb.gz", MaxDecompressionRatio: ratio})
		require.NoError(t, err, "ratio %d", ratio)
		assert.Len(t, got, 1)
	}
	_, _, err = readAll(t, bomb, Options{Name: "bomb.gz", MaxDecompressionRatio: 500})
	require.ErrorIs(t, err, ErrDecompressionRatio)
	assert.Contains(t, err.Error(), "more than 500 times")

	// Below the grace, a very repetitive file is read whatever its ratio.
	small := otlpfiletest.GzipMembers(line, '\n', 8)
	got, _, err := readAll(t, small, Options{Name: "small.gz", MaxDecompressionRatio: 2})
	require.NoError(t, err)
	assert.Len(t, got, 1)
}
