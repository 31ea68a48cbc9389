package conformance

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/otelgov/otelcol-governance/engine"
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

func TestEntry(t *testing.T) {
	r := New(Limits{MaxServices: 1, TopKeys: 5}, time.Now())
	r.Add(&engine.Batch{Services: []engine.ServiceTally{{Service: "a"}, {Service: "b"}, {Service: ""}}}, time.Now())
	assert.Equal(t, "a", r.Entry("a"))
	assert.Equal(t, "_other", r.Entry("b"), "beyond max_services")
	assert.Equal(t, "_other", r.Entry("never-seen"))
	assert.Equal(t, "_missing", r.Entry(""))
	long := strings.Repeat("x", MaxKeyLength+10)
	r2 := New(Limits{MaxServices: 5, TopKeys: 5}, time.Now())
	r2.Add(&engine.Batch{Services: []engine.ServiceTally{{Service: long}}}, time.Now())
	assert.Equal(t, long[:MaxKeyLength], r2.Entry(long), "cut like the report's own entry")
}
