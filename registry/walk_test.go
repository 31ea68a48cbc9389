package registry_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/registry"
)

// TestShippedRulesInTheWalk walks hostmetrics-shaped data points through the
// engine the governance processor runs, with the processor's default modes,
// against the embedded registry: the shipped rules that mend the schema
// file's broken chains (system.{disk,network}.direction, protocol, daemon)
// make the old keys reach the current ones on the schema's metrics, and
// only there.
func TestShippedRulesInTheWalk(t *testing.T) {
	ix, err := registry.Default()
	require.NoError(t, err)
	e := engine.New(engine.Options{
		Deprecated:    engine.DeprecatedRename,
		Unknown:       engine.UnknownKeep,
		TypeMismatch:  engine.TypeMismatchKeep,
		EnumViolation: engine.EnumViolationKeep,
	})

	tests := []struct {
		metric, unit, key string
		value             any
		updown            bool   // an updowncounter: a non-monotonic sum
		wantMetric        string // the metric's name after the walk
		wantKey           string // the key after the walk
	}{
		{"system.network.io", "By", "direction", "transmit", false, "system.network.io", "network.io.direction"},
		{"system.network.dropped", "{packet}", "direction", "receive", false, "system.network.packet.dropped", "network.io.direction"},
		{"system.network.errors", "{error}", "direction", "receive", false, "system.network.errors", "network.io.direction"},
		{"system.disk.io", "By", "direction", "read", false, "system.disk.io", "disk.io.direction"},
		{"system.disk.operations", "{operation}", "direction", "write", false, "system.disk.operations", "disk.io.direction"},
		// What semconv v1.22.0 to v1.23.1 instrumentations sent.
		{"system.network.io", "By", "system.network.direction", "transmit", false, "system.network.io", "network.io.direction"},
		{"system.disk.io", "By", "system.disk.direction", "write", false, "system.disk.io", "disk.io.direction"},
		// hostmetrics' connections and the JVM agent's old threads metric.
		{"system.network.connections", "{connection}", "protocol", "tcp", true, "system.network.connection.count", "network.transport"},
		{"process.runtime.jvm.threads.count", "{thread}", "daemon", true, true, "jvm.thread.count", "jvm.thread.daemon"},
		// Not a hostmetrics metric the schema scopes: kept.
		{"hw.network.io", "By", "direction", "transmit", false, "hw.network.io", "direction"},
		{"acme.queue.depth", "By", "direction", "transmit", false, "acme.queue.depth", "direction"},
	}
	for _, tt := range tests {
		t.Run(tt.metric+"/"+tt.key, func(t *testing.T) {
			md := pmetric.NewMetrics()
			m := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
			m.SetName(tt.metric)
			m.SetUnit(tt.unit) // the unit of the current metric: a rename needs it
			s := m.SetEmptySum()
			s.SetIsMonotonic(!tt.updown)
			attrs := s.DataPoints().AppendEmpty().Attributes()
			require.NoError(t, attrs.FromRaw(map[string]any{tt.key: tt.value}))

			w := e.Walker(ix, false)
			w.Metrics(md)
			e.Release(w)

			assert.Equal(t, tt.wantMetric, m.Name())
			assert.Equal(t, map[string]any{tt.wantKey: tt.value}, attrs.AsRaw())
		})
	}
}
