package infer

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// TestEnumsAReviewerKeeps: the demo, where every key had few
// values sent many times: of seven, only the log level is an enum; the
// identifier, the coordinates, the durations, the query text, the
// numbers written as strings and the free text are not, each with its
// reason in the summary's why.
func TestEnumsAReviewerKeeps(t *testing.T) {
	cases := map[string][]string{
		"app.log.level":    {"INFO", "WARN", "ERROR"},
		"app.orderID":      {"o-1", "o-2", "o-3"},
		"app.geo":          {"52.52,13.40", "48.85,2.35", "40.71,-74.00"},
		"app.wait":         {"150ms", "2s", "1.5s"},
		"app.lookup":       {"SELECT * FROM carts WHERE id = ?", "SELECT 1", "DELETE FROM carts"},
		"app.count_str":    {"1", "2", "3"},
		"app.note":         {"user added an item", "user removed an item", "checkout started"},
		"app.when":         {"2026-12-07T05:00:00Z", "2026-12-07", "12:30"},
		"app.site":         {"https://a.example", "https://b.example", "https://c.example"},
		"app.asset":        {"/img/a.png", "/img/b.png", "/img/c.png"},
		"app.session_uuid": {"a", "b", "c"},
	}
	acc := New(Limits{})
	acc.Traces(spans("demo", 90, func(i int, sp ptrace.Span) {
		for k, vals := range cases {
			sp.Attributes().PutStr(k, vals[i%len(vals)])
		}
	}), "t")
	p := Propose(acc.Evidence(), defaultIndex(t), Options{})
	got := map[string]ProposedAttribute{}
	for _, a := range p.Attributes {
		got[a.Key] = a
	}
	for k := range cases {
		require.Contains(t, got, k)
		if k == "app.log.level" {
			assert.Equal(t, []any{"ERROR", "INFO", "WARN"}, got[k].Enum, k)
			assert.Contains(t, got[k].Why, "enum: 3 value(s) over 90 occurrence(s)", "the evidence stays in the why")
			continue
		}
		assert.Nil(t, got[k].Enum, k)
		assert.Contains(t, got[k].Why, "not an enum: ", k)
	}
	assert.Contains(t, got["app.orderID"].Why, "names an identifier")
	assert.Contains(t, got["app.geo"].Why, "a coordinate")
	assert.Contains(t, got["app.wait"].Why, "a duration")
	assert.Contains(t, got["app.lookup"].Why, "query text")
}

// TestIdentifierKey: the spellings of an identifier, and words
// that only end in "id".
func TestIdentifierKey(t *testing.T) {
	for _, k := range []string{"fooID", "foo_id", "foo.id", "param.fooID", "fooId", "app.userid", "request.uuid", "session_guid", "id"} {
		assert.True(t, IdentifierKey(k), k)
	}
	for _, k := range []string{"app.paid", "form.valid", "os.android", "app.kind", "app.level", "ui.grid"} {
		assert.False(t, IdentifierKey(k), k)
	}
}

// TestValueShape: each shape that no enum has, and labels that are.
func TestValueShape(t *testing.T) {
	for v, want := range map[string]string{
		"42": "a number written as a string", "-1.5": "a number written as a string",
		"150ms": "a duration", "3 seconds": "a duration",
		"52.52,13.40": "a coordinate", "(52.5200, 13.4050)": "a coordinate",
		"2026-12-07T05:00:00Z": "a timestamp", "12:30": "a timestamp",
		"0f8fad5b-d9cb-469f-a165-70867728950e": "an identifier",
		"https://example.com/a":                "a URL",
		"SELECT * FROM t":                      "query text", "a=1&b=2": "query text",
		"/users/42": "a path", "handling this request": "free text", "done.": "free text",
	} {
		assert.Equal(t, want, valueShape(v), v)
	}
	for _, v := range []string{"INFO", "in_progress", "GET", "credit card", "SENT", "eu-west-1"} {
		assert.Empty(t, valueShape(v), v)
	}
	_ = fmt.Sprint
}
