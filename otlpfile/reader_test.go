package otlpfile

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/engine/enginetest"
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
