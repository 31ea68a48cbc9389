package conformance

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

func TestSketch(t *testing.T) {
	s := sketch{capacity: 3}
	s.add("a", 5)
	s.add("b", 3)
	s.add("c", 1)
	s.add("d", 1) // evicts c (1): d = 2, error 1
	s.add("a", 1)
	assert.Equal(t, []KeyCount{
		{Key: "a", Count: 6}, {Key: "b", Count: 3}, {Key: "d", Count: 2, MaxError: 1},
	}, s.top(5))
	assert.Len(t, s.top(1), 1)
	empty := sketch{}
	empty.add("a", 1)
	assert.Empty(t, empty.top(10))
}

// TestReportBoundsHostileInput: keys and service names a client sent are
// bounded and valid UTF-8 in the report document, and the JSON stays small.
func TestReportBoundsHostileInput(t *testing.T) {
	ix, err := registry.Default()
	require.NoError(t, err)
	mb := strings.Repeat("x", 1<<20)
	r := New(Limits{MaxServices: 10, TopKeys: 10}, time.Unix(0, 0))
	b := &engine.Batch{
		Services: []engine.ServiceTally{{Service: mb}, {Service: "bad\xff"}},
		Keys: []engine.KeyTally{
			{Service: 0, Key: mb, Kind: engine.KeyUnknown, Count: 1},
			{Service: 0, Key: "k\xfe", Kind: engine.KeyUnknown, Count: 1},
			{Service: 1, Key: "", Kind: engine.KeyUnknown, Count: 1},
			{Service: 1, Key: mb + "\xff", Kind: engine.KeyDeprecated, Count: 1},
		},
	}
	r.Add(b, time.Unix(1, 0))
	doc := r.Document(ix, 1, "", time.Unix(2, 0))
	js, err := json.Marshal(doc)
	require.NoError(t, err)
	assert.Less(t, len(js), 8<<10)
	require.Len(t, doc.Services, 2)
	for _, s := range doc.Services {
		assert.LessOrEqual(t, len(s.Service), vocab.MaxKeyLength)
		assert.True(t, utf8.ValidString(s.Service))
		for _, k := range append(s.UnknownKeys, s.DeprecatedKeys...) {
			assert.LessOrEqual(t, len(k.Key), vocab.MaxKeyLength)
			assert.True(t, utf8.ValidString(k.Key), "%q", k.Key)
		}
	}
}

func TestEntry(t *testing.T) {
	r := New(Limits{MaxServices: 1, TopKeys: 5}, time.Now())
	r.Add(&engine.Batch{Services: []engine.ServiceTally{{Service: "a"}, {Service: "b"}, {Service: ""}}}, time.Now())
	assert.Equal(t, "a", r.Entry("a"))
	assert.Equal(t, "_other", r.Entry("b"), "beyond max_services")
	assert.Equal(t, "_other", r.Entry("never-seen"))
	assert.Equal(t, "_missing", r.Entry(""))
	long := strings.Repeat("x", vocab.MaxKeyLength+10)
	r2 := New(Limits{MaxServices: 5, TopKeys: 5}, time.Now())
	r2.Add(&engine.Batch{Services: []engine.ServiceTally{{Service: long}}}, time.Now())
	assert.Equal(t, long[:vocab.MaxKeyLength], r2.Entry(long), "cut like the report's own entry")
}
