package change_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/otelgov/otelcol-governance/registry/change"
)

func TestUnitFactor(t *testing.T) {
	tests := []struct {
		from, to string
		factor   float64
		ok       bool
	}{
		{"ms", "s", 0.001, true},
		{"s", "ms", 1000, true},
		{"us", "s", 1e-6, true},
		{"ns", "ms", 1e-6, true},
		{"By", "KiBy", 1.0 / 1024, true},
		{"MiBy", "By", 1024 * 1024, true},
		{"By/s", "KiBy/s", 1.0 / 1024, true},
		{"{request}", "1", 1, true},
		{"{count}", "{worker}", 1, true},
		{"s", "s", 1, true},
		{"ms", "By", 0, false},
		{"s", "{request}", 0, false},
		{"min", "s", 0, false}, // not a prefixed base unit: no factor claimed
		{"Cel", "K", 0, false},
		{"", "s", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.from+"->"+tt.to, func(t *testing.T) {
			f, ok := change.UnitFactor(tt.from, tt.to)
			assert.Equal(t, tt.ok, ok)
			assert.InEpsilon(t, tt.factor+1, f+1, 1e-12)
		})
	}
}

func TestKindNames(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range change.Kinds() {
		name := k.String()
		assert.False(t, seen[name], "duplicate name %s", name)
		seen[name] = true
		got, ok := change.ParseKind(name)
		assert.True(t, ok, name)
		assert.Equal(t, k, got)
	}
	_, ok := change.ParseKind("unknown")
	assert.False(t, ok)
	assert.Equal(t, change.MetricRenamed, change.Lifecycle(change.ItemMetric, change.OpRenamed))
	assert.Equal(t, change.EntityUncategorized, change.Lifecycle(change.ItemEntity, change.OpUncategorized))
	item, op, ok := change.LifecycleOf(change.SpanRemoved)
	assert.True(t, ok)
	assert.Equal(t, [2]any{change.ItemSpan, change.OpRemoved}, [2]any{item, op})
	_, _, ok = change.LifecycleOf(change.UnitChanged)
	assert.False(t, ok)
}
