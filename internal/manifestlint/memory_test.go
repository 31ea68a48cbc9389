package manifestlint

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseGoMemLimit(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "1048576": 1 << 20, "100B": 100, "64KiB": 64 << 10, "256MiB": 256 << 20, "2GiB": 2 << 30, "1TiB": 1 << 40, "off": math.MaxInt64,
	} {
		got, err := ParseGoMemLimit(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "256Mi", "1Gi", "256M", "256 MiB", "-1", "1.5GiB", "99999999999TiB"} {
		_, err := ParseGoMemLimit(bad)
		assert.Error(t, err, bad)
	}
}

func TestMemoryLimiters(t *testing.T) {
	cfg := map[string]any{
		"processors": map[string]any{
			"memory_limiter":        map[string]any{"limit_mib": 100},
			"memory_limiter/pct":    map[string]any{"limit_percentage": 80, "spike_limit_percentage": 20},
			"memory_limiter/unused": map[string]any{"limit_mib": 1},
		},
		"service": map[string]any{"pipelines": map[string]any{
			"traces": map[string]any{"processors": []any{"memory_limiter", "governance"}},
			"logs":   map[string]any{"processors": []any{"memory_limiter/pct"}},
		}},
	}
	got := memoryLimiters(cfg, 512<<20)
	assert.Equal(t, []memoryLimiter{
		{id: "memory_limiter", hard: 100 * mib, spike: 20 * mib}, // spike defaults to 20 % of the limit
		{id: "memory_limiter/pct", hard: 409 * mib, spike: 102 * mib},
	}, got)
	assert.Equal(t, int64(307*mib), got[1].soft())
	assert.Len(t, memoryLimiters(cfg, 0), 1, "percentages without limits.memory cannot be resolved")
}
