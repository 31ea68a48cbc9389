package upgrade

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/registry/change"
	"github.com/otelgov/otelcol-governance/upgrade/upgradetest"
)

// TestFleetRealPrometheus: a real Prometheus scrapes a collector's :8888
// text. While the old service sends rpc.response.status_code, the fleet
// says so with its rate; once it stopped for a window, nothing is sent,
// and both services are still listed.
func TestFleetRealPrometheus(t *testing.T) {
	_, _, set := loadPair(t)
	fc := &upgradetest.Collector{Names: true}
	fc.Send(true)
	srv := httptest.NewServer(fc)
	t.Cleanup(srv.Close)
	p, err := NewPrometheus(upgradetest.StartPrometheus(t, srv.Listener.Addr().String()))
	require.NoError(t, err)
	ctx := context.Background()
	const window = 4 * time.Second
	touches := NewTouches(set)

	// Wait until Prometheus holds more than a window of history.
	var f *Fleet
	require.Eventually(t, func() bool {
		f, err = p.Fleet(ctx, touches, window, time.Now())
		return err == nil && f.Covered && len(f.Sent) == 1 && f.Sent[0].Rate > 0
	}, 40*time.Second, 500*time.Millisecond, "last: %+v %v", f, err)
	assert.Equal(t, []string{"new", "old"}, f.Services)
	s := f.Sent[0]
	assert.Equal(t, "old", s.Service)
	assert.Equal(t, "rpc.response.status_code", s.Name)
	assert.Equal(t, "rpc.status_code", s.NewName)
	assert.Equal(t, []string{"attribute_renamed"}, s.Kinds)
	assert.InDelta(t, 10, s.Rate, 5, "10 per one-second scrape")
	assert.Positive(t, f.Copied)

	fc.Send(false)
	require.Eventually(t, func() bool {
		f, err = p.Fleet(ctx, touches, window, time.Now())
		return err == nil && len(f.Sent) == 0
	}, 30*time.Second, 500*time.Millisecond, "last: %+v %v", f, err)
	assert.Equal(t, []string{"new", "old"}, f.Services)
	assert.Zero(t, f.Copied)
}

// TestFleetNoSeries: a Prometheus that scrapes nothing of the governance
// processor answers ErrNoSeries, and one that does not answer
// ErrUnreachable: never an empty, "no impact" answer.
func TestFleetNoSeries(t *testing.T) {
	_, _, set := loadPair(t)
	empty := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "# TYPE up_other gauge\nup_other 1")
	}))
	t.Cleanup(empty.Close)
	p, err := NewPrometheus(upgradetest.StartPrometheus(t, empty.Listener.Addr().String()))
	require.NoError(t, err)
	time.Sleep(2 * time.Second)
	_, err = p.Fleet(context.Background(), NewTouches(set), time.Minute, time.Now())
	require.ErrorIs(t, err, ErrNoSeries)
	assert.Contains(t, err.Error(), "no otelcol_processor_governance_service_attributes over the last 1m")

	down, err := NewPrometheus(fmt.Sprintf("http://127.0.0.1:%d", upgradetest.FreePort(t)))
	require.NoError(t, err)
	_, err = down.Fleet(context.Background(), NewTouches(set), time.Minute, time.Now())
	require.ErrorIs(t, err, ErrUnreachable)
}

// TestMetricSeriesRealPrometheus: the series a fleet's Prometheus holds
// under a touched metric's old name, per service (job), as the OTLP
// translation names them; a histogram counts by its _count series.
func TestMetricSeriesRealPrometheus(t *testing.T) {
	oldIx, err := registry.Default()
	require.NoError(t, err)
	touches := &Touches{Attributes: map[string]*Touch{}, Metrics: map[string]*Touch{
		"db.client.connections.usage":  {Item: change.ItemMetric, Name: "db.client.connections.usage", NewName: "db.client.connection.count", Rewritten: true, Kinds: []change.Kind{change.MetricRenamed}},
		"http.server.request.duration": {Item: change.ItemMetric, Name: "http.server.request.duration", Kinds: []change.Kind{change.UnitChanged}},
		"no.such.metric":               {Item: change.ItemMetric, Name: "no.such.metric", Kinds: []change.Kind{change.MetricRemoved}},
	}}
	fc := &upgradetest.Collector{Extra: `# TYPE db_client_connections_usage gauge
db_client_connections_usage{job="cart",state="idle"} 3
db_client_connections_usage{job="cart",state="used"} 2
db_client_connections_usage{job="checkout",state="idle"} 1
# TYPE http_server_request_duration_seconds histogram
http_server_request_duration_seconds_bucket{job="cart",le="+Inf"} 4
http_server_request_duration_seconds_sum{job="cart"} 1
http_server_request_duration_seconds_count{job="cart"} 4
`}
	srv := httptest.NewServer(fc)
	t.Cleanup(srv.Close)
	p, err := NewPrometheus(upgradetest.StartPrometheus(t, srv.Listener.Addr().String()))
	require.NoError(t, err)
	var got []Sent
	require.Eventually(t, func() bool {
		got, err = p.MetricSeries(context.Background(), touches, oldIx, time.Now())
		return err == nil && len(got) == 3
	}, 30*time.Second, 500*time.Millisecond, "last: %+v %v", got, err)
	series := map[string]int{}
	for _, s := range got {
		series[s.Service+" "+s.Name] = s.Series
		assert.Equal(t, "metric", s.Item)
	}
	assert.Equal(t, map[string]int{
		"cart db.client.connections.usage":     2,
		"checkout db.client.connections.usage": 1,
		"cart http.server.request.duration":    1,
	}, series)
}
