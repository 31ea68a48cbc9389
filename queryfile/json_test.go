package queryfile

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestJSONEscapeFast: the plain-ASCII fast path writes what encoding/json
// (HTML escaping off) writes.
func TestJSONEscapeFast(t *testing.T) {
	for _, s := range []string{`a"b\c`, `sum by (x) (rate(y{a="b\\.c"}[5m]))`, "tab\there", "é", "<>&", "\u2028", ""} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		out := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
		if want := string(out[1 : len(out)-1]); jsonEscape(s) != want {
			t.Errorf("%q: got %q want %q", s, jsonEscape(s), want)
		}
	}
}
