package enginetest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// TestFloorWalk: the floor learns a batch's keys per location and, on a
// fresh copy of it, finds every key where it expects it and reads every
// value's type; a key changed or moved in one span's map is counted, and a
// map longer than the expected one counts its extra key.
func TestFloorWalk(t *testing.T) {
	wire := TracesBytes(GenTracesWith(10, PutMix(MixConformant)))
	keys := LearnFloor(UnmarshalTraces(wire))

	same := FloorWalk{Keys: keys}
	same.Walk(UnmarshalTraces(wire))
	assert.Zero(t, same.Miss)
	attrs := 0
	types := 0
	EachFloorMap(UnmarshalTraces(wire), func(_ FloorLocation, m pcommon.Map) {
		for _, v := range m.All() {
			attrs++
			types += int(v.Type())
		}
	})
	require.Positive(t, attrs)
	assert.Equal(t, types, same.Types, "the sum of every value's type")

	for _, tt := range []struct {
		name string
		edit func(pcommon.Map)
		miss int
	}{
		{"last key changed", func(m pcommon.Map) {
			var last string
			for k := range m.All() {
				last = k
			}
			m.Remove(last)
			m.PutStr("acme.other", "1")
		}, 1},
		{"one key added at the end", func(m pcommon.Map) { m.PutStr("acme.extra", "1") }, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			td := UnmarshalTraces(wire)
			span := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(3).Attributes()
			tt.edit(span)
			w := FloorWalk{Keys: keys}
			w.Walk(td)
			assert.Equal(t, tt.miss, w.Miss)
		})
	}
}
