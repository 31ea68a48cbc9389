package upgrade

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
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
	_, newIx, set := loadPair(t)
	fc := &upgradetest.Collector{Names: true, Transition: &upgradetest.Transition{Digest: newIx.Digest(), Names: map[string]bool{"rpc.response.status_code": true}}}
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
		f, err = p.Fleet(ctx, touches, newIx.Digest(), window, time.Now())
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
	assert.True(t, f.InForce, "%v", f.Why)
	require.Len(t, f.Instances, 1)
	assert.Empty(t, f.Unknown)

	fc.Send(false)
	require.Eventually(t, func() bool {
		f, err = p.Fleet(ctx, touches, newIx.Digest(), window, time.Now())
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
	_, err = p.Fleet(context.Background(), NewTouches(set), "", time.Minute, time.Now())
	require.ErrorIs(t, err, ErrNoSeries)
	assert.Contains(t, err.Error(), "no otelcol_processor_governance_service_attributes over the last 1m")

	down, err := NewPrometheus(fmt.Sprintf("http://127.0.0.1:%d", upgradetest.FreePort(t)))
	require.NoError(t, err)
	_, err = down.Fleet(context.Background(), NewTouches(set), "", time.Minute, time.Now())
	require.ErrorIs(t, err, ErrUnreachable)
}

// TestPrometheusErrors: each way a --prometheus URL fails has its own
// error: nothing listening is unreachable, a server answering 404 (or a
// page that is not the API's JSON) is not a Prometheus API, a 5xx without
// the API's body is unreachable, and the API's own error is a rejected
// query.
func TestPrometheusErrors(t *testing.T) {
	_, _, set := loadPair(t)
	serve := func(code int, body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(code)
			fmt.Fprint(w, body)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	tests := []struct {
		name, url string
		want      error
		msg       string
	}{
		{"nothing listening", fmt.Sprintf("http://127.0.0.1:%d", upgradetest.FreePort(t)), ErrUnreachable, "connection refused"},
		{"404", serve(http.StatusNotFound, "404 page not found"), ErrNotPrometheus, "answered client error: 404 to /api/v1/query"},
		{"html page", serve(http.StatusOK, "<html>Grafana</html>"), ErrNotPrometheus, "not a Prometheus HTTP API"},
		{"bad gateway", serve(http.StatusBadGateway, "bad gateway"), ErrUnreachable, "server error: 502"},
		{"rejected", serve(http.StatusBadRequest, `{"status":"error","errorType":"bad_data","error":"parse error"}`), ErrQueryRejected, "bad_data: parse error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewPrometheus(tt.url)
			require.NoError(t, err)
			_, err = p.Fleet(context.Background(), NewTouches(set), "", time.Minute, time.Now())
			require.ErrorIs(t, err, tt.want)
			for _, other := range []error{ErrUnreachable, ErrNotPrometheus, ErrQueryRejected, ErrNoSeries} {
				if !errors.Is(other, tt.want) {
					require.NotErrorIs(t, err, other)
				}
			}
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}

// waitCovered waits until Prometheus holds more than a window of history
// of the fleet and returns the last answer.
func waitCovered(t *testing.T, p *Prometheus, touches *Touches, digest string, window time.Duration, ok func(*Fleet) bool) *Fleet {
	t.Helper()
	var (
		f   *Fleet
		err error
	)
	done := assert.Eventually(t, func() bool {
		f, err = p.Fleet(context.Background(), touches, digest, window, time.Now())
		return err == nil && f.Covered && ok(f)
	}, 40*time.Second, 500*time.Millisecond)
	require.True(t, done, "last: %+v %v", f, err) // the last answer, not the first
	return f
}

// TestFleetTransitionNotInForce: a real Prometheus scrapes collectors
// that are not on the transition. Whatever they count, the absence of an
// old name proves nothing there: InForce is false, each instance is named
// with why, and the services are unknown, never "sends no name".
func TestFleetTransitionNotInForce(t *testing.T) {
	oldIx, newIx, set := loadPair(t)
	touches := NewTouches(set)
	const window = 3 * time.Second
	start := func(fcs ...*upgradetest.Collector) *Prometheus {
		var targets []string
		for _, fc := range fcs {
			srv := httptest.NewServer(fc)
			t.Cleanup(srv.Close)
			targets = append(targets, srv.Listener.Addr().String())
		}
		p, err := NewPrometheus(upgradetest.StartPrometheus(t, targets...))
		require.NoError(t, err)
		return p
	}

	t.Run("no deprecated_names", func(t *testing.T) {
		p := start(&upgradetest.Collector{Transition: &upgradetest.Transition{Digest: oldIx.Digest()}})
		f := waitCovered(t, p, touches, newIx.Digest(), window, func(*Fleet) bool { return true })
		assert.False(t, f.InForce)
		require.Len(t, f.Instances, 1)
		assert.Contains(t, f.Why[0], "the transition configuration is not in force on 1 of 1 instance(s)")
		assert.Contains(t, f.Why[1], "does not count rpc.response.status_code")
		assert.Equal(t, []string{"new", "old"}, f.Unknown)
	})

	t.Run("built before the transition series", func(t *testing.T) {
		p := start(&upgradetest.Collector{})
		f := waitCovered(t, p, touches, newIx.Digest(), window, func(*Fleet) bool { return true })
		assert.False(t, f.InForce)
		assert.Contains(t, strings.Join(f.Why, "\n"), "does not say which transition it runs")
	})

	t.Run("no instance says anything", func(t *testing.T) {
		p := start(&upgradetest.Collector{Bare: true})
		f := waitCovered(t, p, touches, newIx.Digest(), window, func(*Fleet) bool { return true })
		assert.False(t, f.InForce)
		assert.Empty(t, f.Instances)
		require.Len(t, f.Why, 1)
		assert.Contains(t, f.Why[0], "no collector says which transition it runs")
		assert.False(t, Evaluate(f, nil, window).Done)
	})

	t.Run("listed but not deprecated by its registry", func(t *testing.T) {
		p := start(&upgradetest.Collector{Transition: &upgradetest.Transition{Digest: oldIx.Digest(), Names: map[string]bool{"rpc.response.status_code": false}}})
		f := waitCovered(t, p, touches, newIx.Digest(), window, func(*Fleet) bool { return true })
		assert.False(t, f.InForce)
		assert.Contains(t, strings.Join(f.Why, "\n"), "lists rpc.response.status_code in deprecated_names, but its registry")
	})

	// A sidecar on the new registry renames before the gateway, which has
	// the transition but never sees an old name.
	t.Run("sidecar renames before the gateway", func(t *testing.T) {
		gateway := &upgradetest.Collector{Names: true, Transition: &upgradetest.Transition{Digest: newIx.Digest(), Names: map[string]bool{"rpc.response.status_code": true}}}
		sidecar := &upgradetest.Collector{Transition: &upgradetest.Transition{Digest: newIx.Digest()}}
		p := start(gateway, sidecar)
		f := waitCovered(t, p, touches, newIx.Digest(), window, func(f *Fleet) bool { return len(f.Instances) == 2 })
		assert.False(t, f.InForce)
		assert.Contains(t, f.Why[0], "not in force on 1 of 2 instance(s)")
		why := strings.Join(f.Why, "\n")
		assert.Contains(t, why, "renames rpc.response.status_code without counting them")
		var off []string
		for _, in := range f.Instances {
			if !in.InForce() {
				off = append(off, in.ID)
			}
		}
		require.Len(t, off, 1)
		assert.Contains(t, why, off[0]+": renames")
	})

	t.Run("transition changed within the window", func(t *testing.T) {
		fc := &upgradetest.Collector{Transition: &upgradetest.Transition{Digest: oldIx.Digest()}}
		p := start(fc)
		waitCovered(t, p, touches, newIx.Digest(), window, func(*Fleet) bool { return true })
		fc.SetTransition(&upgradetest.Transition{Digest: newIx.Digest(), Names: map[string]bool{"rpc.response.status_code": true}})
		f := waitCovered(t, p, touches, newIx.Digest(), window, func(f *Fleet) bool {
			return strings.Contains(strings.Join(f.Why, "\n"), "changed within the window")
		})
		assert.False(t, f.InForce)
		// Once a whole window has passed on it, it is in force.
		f = waitCovered(t, p, touches, newIx.Digest(), window, func(f *Fleet) bool { return f.InForce })
		assert.Empty(t, f.Why)
	})
}

// TestFleetShadowEvidence: an instance on the old registry whose shadow's
// candidate is the new registry is evidence, sampled: its shadow's renames
// count per service, and a note says the figure is a sample.
func TestFleetShadowEvidence(t *testing.T) {
	oldIx, newIx, set := loadPair(t)
	fc := &upgradetest.Collector{Transition: &upgradetest.Transition{Digest: oldIx.Digest(), Candidate: newIx.Digest()}}
	fc.Send(true)
	srv := httptest.NewServer(fc)
	t.Cleanup(srv.Close)
	p, err := NewPrometheus(upgradetest.StartPrometheus(t, srv.Listener.Addr().String()))
	require.NoError(t, err)
	f := waitCovered(t, p, NewTouches(set), newIx.Digest(), 3*time.Second, func(f *Fleet) bool { return len(f.Sent) > 0 })
	assert.True(t, f.InForce, "%v", f.Why)
	require.Len(t, f.Sent, 1)
	assert.Equal(t, "old", f.Sent[0].Service)
	assert.True(t, f.Sent[0].Sampled)
	assert.Equal(t, []string{"attribute_renamed"}, f.Sent[0].Kinds)
	require.Len(t, f.Notes, 1)
	assert.Contains(t, f.Notes[0], "evaluates a sample of the batches")
	st := Evaluate(f, nil, 3*time.Second)
	assert.False(t, st.Done)
	assert.Contains(t, strings.Join(st.Reasons, "\n"), `service "old" sent names the change renames: the shadow counted`)

	// Another candidate is no evidence.
	fc.SetTransition(&upgradetest.Transition{Digest: oldIx.Digest(), Candidate: "sha256:other"})
	fc.Send(false)
	f = waitCovered(t, p, NewTouches(set), newIx.Digest(), 3*time.Second, func(f *Fleet) bool {
		return len(f.Sent) == 0 && !strings.Contains(strings.Join(f.Why, " "), "changed within")
	})
	assert.False(t, f.InForce)
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
