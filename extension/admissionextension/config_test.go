package admissionextension

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"

	"github.com/otelgov/otelcol-governance/extension/admissionextension/internal/metadata"
)

func TestLoadConfig(t *testing.T) {
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)

	tests := []struct {
		name     string
		expected *Config
		errMsg   string
	}{
		{name: "", expected: &Config{MaxRequestsInFlight: 6, MaxBytesInFlight: 24 << 20, RetryAfter: time.Second}},
		{name: "custom", expected: &Config{MaxRequestsInFlight: 32, MaxBytesInFlight: 64 << 20, RetryAfter: 2500 * time.Millisecond}},
		{name: "zero_requests", errMsg: "max_requests_in_flight: must be positive, got 0"},
		{name: "negative_requests", errMsg: "max_requests_in_flight: must be positive, got -4"},
		{name: "zero_bytes", errMsg: "max_bytes_in_flight: must be positive, got 0"},
		{name: "negative_bytes", errMsg: "max_bytes_in_flight: must be positive, got -1"},
		{name: "zero_retry_after", errMsg: "retry_after: must be positive, got 0s"},
		{name: "negative_retry_after", errMsg: "retry_after: must be positive, got -1s"},
	}
	for _, tt := range tests {
		id := component.NewIDWithName(metadata.Type, tt.name)
		t.Run(id.String(), func(t *testing.T) {
			cfg := createDefaultConfig()
			sub, err := cm.Sub(id.String())
			require.NoError(t, err)
			require.NoError(t, sub.Unmarshal(cfg))

			err = confmap.Validate(cfg)
			if tt.errMsg != "" {
				require.ErrorIs(t, err, errNotPositive)
				require.ErrorContains(t, err, tt.errMsg)
				assert.NotRegexp(t, `\.$`, err.Error(), "no trailing period")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.expected, cfg)
		})
	}
}
