package upgrade

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeCollector serves :8888-shaped text: the governance processor's
// per-service series, as the collector's Prometheus exporter writes them.
// While sending, each scrape adds 10 to the old service's
// deprecated_names counter.
type fakeCollector struct {
	mu      sync.Mutex
	sending bool
	count   int
	// names: serve the deprecated_names series at all.
	names bool
}

func (f *fakeCollector) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	f.mu.Lock()
	if f.sending {
		f.count += 10
	}
	n := f.count
	names := f.names
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	l := `processor="governance",otel_signal="traces"`
	fmt.Fprintf(w, "# TYPE otelcol_processor_governance_service_attributes counter\n")
	fmt.Fprintf(w, "otelcol_processor_governance_service_attributes{%s,service_name=\"old\",outcome=\"copied\"} %d\n", l, n)
	fmt.Fprintf(w, "otelcol_processor_governance_service_attributes{%s,service_name=\"new\",outcome=\"conformant\"} 100\n", l)
	fmt.Fprintf(w, "# TYPE otelcol_processor_governance_attributes counter\n")
	fmt.Fprintf(w, "otelcol_processor_governance_attributes{%s,location=\"span\",outcome=\"copied\"} %d\n", l, n)
	if names && n > 0 {
		fmt.Fprintf(w, "# TYPE otelcol_processor_governance_service_deprecated_names counter\n")
		fmt.Fprintf(w, "otelcol_processor_governance_service_deprecated_names{%s,service_name=\"old\",deprecated_name=\"rpc.response.status_code\"} %d\n", l, n)
	}
}

func (f *fakeCollector) send(on bool) {
	f.mu.Lock()
	f.sending = on
	f.mu.Unlock()
}

// freePort returns a free loopback port.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	return port
}

// startPrometheus runs the real Prometheus (the Debian package's binary,
// installed by make test-deps) on loopback with a temporary storage
// directory, scraping target every second. It stops with the test, and
// in any case after two minutes. Without the binary the test is skipped.
func startPrometheus(t *testing.T, target string) string {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus binary not found (make test-deps installs the Debian package prometheus): skipping the real-Prometheus test")
	}
	dir := t.TempDir()
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: collector\n    static_configs:\n      - targets: [%q]\n", target)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o600))
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	cmd := exec.CommandContext(ctx, bin, //nolint:gosec // the test's own binary and arguments
		"--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr,
		"--storage.tsdb.retention.time=1h",
	)
	cmd.Stdout, cmd.Stderr = nil, nil
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	url := "http://" + addr
	require.Eventually(t, func() bool {
		resp, err := http.Get(url + "/-/ready") //nolint:noctx // a readiness poll
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 30*time.Second, 200*time.Millisecond, "prometheus did not become ready")
	return url
}

// TestFleetRealPrometheus: a real Prometheus scrapes a collector's :8888
// text. While the old service sends rpc.response.status_code, the fleet
// says so with its rate; once it stopped for a window, nothing is sent,
// and both services are still listed.
func TestFleetRealPrometheus(t *testing.T) {
	_, _, set := loadPair(t)
	fc := &fakeCollector{names: true}
	fc.send(true)
	srv := httptest.NewServer(fc)
	t.Cleanup(srv.Close)
	p, err := NewPrometheus(startPrometheus(t, srv.Listener.Addr().String()))
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

	fc.send(false)
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
	p, err := NewPrometheus(startPrometheus(t, empty.Listener.Addr().String()))
	require.NoError(t, err)
	time.Sleep(2 * time.Second)
	_, err = p.Fleet(context.Background(), NewTouches(set), time.Minute, time.Now())
	require.ErrorIs(t, err, ErrNoSeries)
	assert.Contains(t, err.Error(), "no otelcol_processor_governance_service_attributes over the last 1m")

	down, err := NewPrometheus(fmt.Sprintf("http://127.0.0.1:%d", freePort(t)))
	require.NoError(t, err)
	_, err = down.Fleet(context.Background(), NewTouches(set), time.Minute, time.Now())
	require.ErrorIs(t, err, ErrUnreachable)
}
