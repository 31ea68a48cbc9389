package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// defaultOptions are the processor's defaults.
func defaultOptions() Options {
	return Options{
		Deprecated:    DeprecatedRename,
		Unknown:       UnknownKeep,
		TypeMismatch:  TypeMismatchKeep,
		EnumViolation: EnumViolationKeep,
	}
}

// newTestEngine compiles opts against the embedded default registry.
func newTestEngine(tb testing.TB, opts Options) (*Engine, *registry.Index) {
	tb.Helper()
	ix, err := registry.Default()
	require.NoError(tb, err)
	return New(opts), ix
}

func TestCoerce(t *testing.T) {
	tests := []struct {
		in   any
		want registry.Type
		out  any // nil: not coercible
	}{
		{"200", registry.TypeInt, int64(200)},
		{"-7", registry.TypeInt, int64(-7)},
		{"0", registry.TypeInt, int64(0)},
		{"-0", registry.TypeInt, nil},
		{"007", registry.TypeInt, nil},
		{"+7", registry.TypeInt, nil},
		{"1e3", registry.TypeInt, nil},
		{"99999999999999999999", registry.TypeInt, nil},
		{"", registry.TypeInt, nil},
		{"0.5", registry.TypeDouble, 0.5},
		{"0.50", registry.TypeDouble, nil},
		{"NaN", registry.TypeDouble, nil},
		{int64(3), registry.TypeDouble, 3.0},
		{int64(1<<53 + 1), registry.TypeDouble, nil},
		{"true", registry.TypeBoolean, true},
		{"True", registry.TypeBoolean, nil},
		{int64(42), registry.TypeString, "42"},
		{true, registry.TypeString, "true"},
		{[]any{"a"}, registry.TypeString, nil},
		{"a", registry.TypeStringArray, nil},
	}
	for _, tt := range tests {
		v := pcommon.NewValueEmpty()
		require.NoError(t, v.FromRaw(tt.in))
		c, ok := coerce(v, tt.want)
		if tt.out == nil {
			assert.False(t, ok, "%v", tt.in)
			continue
		}
		require.True(t, ok, "%v", tt.in)
		c.set(v)
		assert.Equal(t, tt.out, v.AsRaw())
	}
}

// counts is a batch's tally with its finding totals summed over services.
type counts struct {
	*Batch
	Findings [vocab.NumFindings]int64
}

func countsOf(b *Batch) counts { return counts{b, b.FindingTotals()} }
