package conformance

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
