package admissionextension

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/extension"
	"go.opentelemetry.io/collector/extension/extensiontest"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.uber.org/zap"

	"github.com/otelgov/otelcol-governance/extension/admissionextension/internal/metadata"
)

// extHost hands the receiver the extensions its middlewares name.
type extHost struct {
	exts map[component.ID]component.Component
}

func (h extHost) GetExtensions() map[component.ID]component.Component { return h.exts }

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// fixture is a real OTLP receiver (the otlpreceiver factory, gRPC and HTTP)
// whose servers list a real admission extension under middlewares, the way
// the gateway's config does.
type fixture struct {
	ext      *admission
	tel      *componenttest.Telemetry
	grpcAddr string
	httpAddr string
}

func startFixture(t *testing.T, cfg *Config, next consumer.Traces) *fixture {
	t.Helper()
	require.NoError(t, cfg.Validate())
	f := &fixture{tel: componenttest.NewTelemetry(), grpcAddr: freeAddr(t), httpAddr: freeAddr(t)}
	t.Cleanup(func() { require.NoError(t, f.tel.Shutdown(context.Background())) })

	set := extensiontest.NewNopSettings(metadata.Type)
	set.TelemetrySettings = f.tel.NewTelemetrySettings()
	ext, err := newAdmission(set, cfg)
	require.NoError(t, err)
	f.ext = ext
	host := extHost{exts: map[component.ID]component.Component{component.NewID(metadata.Type): ext}}
	require.NoError(t, ext.Start(context.Background(), host))
	t.Cleanup(func() { require.NoError(t, ext.Shutdown(context.Background())) })

	rf := otlpreceiver.NewFactory()
	rcfg := rf.CreateDefaultConfig()
	middlewares := []any{map[string]any{"id": "admission"}}
	require.NoError(t, confmap.NewFromStringMap(map[string]any{
		"protocols": map[string]any{
			"grpc": map[string]any{"endpoint": f.grpcAddr, "middlewares": middlewares},
			"http": map[string]any{"endpoint": f.httpAddr, "middlewares": middlewares},
		},
	}).Unmarshal(rcfg))
	rcv, err := rf.CreateTraces(context.Background(), receivertest.NewNopSettings(rf.Type()), rcfg, next)
	require.NoError(t, err)
	require.NoError(t, rcv.Start(context.Background(), host))
	t.Cleanup(func() { require.NoError(t, rcv.Shutdown(context.Background())) })
	return f
}

// sum is the value of a counter's data point with exactly these attribute
// values (protocol, then reason), 0 if it has none.
func (f *fixture) sum(t *testing.T, name string, attrs ...string) int64 {
	t.Helper()
	m, err := f.tel.GetMetric(name)
	if err != nil {
		return 0 // not recorded yet
	}
	keys := []string{"protocol", "reason"}
	var total int64
	for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
		match := dp.Attributes.Len() == len(attrs)
		for i, v := range attrs {
			got, ok := dp.Attributes.Value(attribute.Key(keys[i]))
			match = match && ok && got.AsString() == v
		}
		if match {
			total += dp.Value
		}
	}
	return total
}

// waitFor polls cond every 5 ms until it holds or 10 s have passed.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	require.Eventually(t, cond, 10*time.Second, 5*time.Millisecond, what)
}

func settingsWithLogger(l *zap.Logger) extension.Settings {
	set := extensiontest.NewNopSettings(metadata.Type)
	set.Logger = l
	return set
}
