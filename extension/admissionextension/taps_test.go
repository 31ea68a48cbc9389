package admissionextension

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"
	"go.uber.org/zap"
)

// TestSecondTapPanicsAtStart pins what README.md says of grpc-go's one tap
// per server: two tap-setting middlewares on one gRPC server (here two
// admission instances) make the OTLP receiver's Start panic with grpc-go's
// message, so the collector does not start.
func TestSecondTapPanicsAtStart(t *testing.T) {
	cfg := &Config{MaxRequestsInFlight: 1, MaxBytesInFlight: 1, RetryAfter: time.Second}
	first, err := newAdmission(settingsWithLogger(zap.NewNop()), cfg)
	require.NoError(t, err)
	second, err := newAdmission(settingsWithLogger(zap.NewNop()), cfg)
	require.NoError(t, err)
	host := extHost{exts: map[component.ID]component.Component{
		component.MustNewID("admission"):                first,
		component.MustNewIDWithName("admission", "two"): second,
	}}
	rf := otlpreceiver.NewFactory()
	rcfg := rf.CreateDefaultConfig()
	require.NoError(t, confmap.NewFromStringMap(map[string]any{"protocols": map[string]any{"grpc": map[string]any{
		"endpoint":    freeAddr(t),
		"middlewares": []any{map[string]any{"id": "admission"}, map[string]any{"id": "admission/two"}},
	}}}).Unmarshal(rcfg))
	rcv, err := rf.CreateTraces(context.Background(), receivertest.NewNopSettings(rf.Type()), rcfg, consumertest.NewNop())
	require.NoError(t, err)
	defer func() {
		assert.NoError(t, rcv.Shutdown(context.Background()))
		assert.NoError(t, first.Shutdown(context.Background()))
		assert.NoError(t, second.Shutdown(context.Background()))
	}()
	assert.PanicsWithValue(t, "The tap handle was already set and may not be reset.", func() {
		_ = rcv.Start(context.Background(), host)
	})
}
