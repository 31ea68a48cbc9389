package testbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// PrometheusBinaryEnv overrides the path of the prometheus server binary.
const PrometheusBinaryEnv = "TESTBENCH_PROMETHEUS"

// prometheusConfig has no scrape jobs: the server only receives remote
// writes. The out-of-order window admits samples that concurrent exporter
// workers deliver out of time order.
const prometheusConfig = `global:
  scrape_interval: 1h
scrape_configs: []
storage:
  tsdb:
    out_of_order_time_window: 1h
`

// Prometheus is a real Prometheus server (Debian's prometheus package) run as
// a child process on a free loopback port, with the remote-write receiver on
// and a temporary TSDB.
type Prometheus struct {
	URL string // http://127.0.0.1:port

	cmd  *exec.Cmd
	log  *lockedBuffer
	done chan struct{}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// StartPrometheus starts prometheus and waits until it is ready. It fails the
// test, with how to fix it, when no prometheus binary is installed.
func StartPrometheus(tb testing.TB) *Prometheus {
	tb.Helper()
	bin := os.Getenv(PrometheusBinaryEnv)
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("prometheus"); err != nil {
			tb.Fatalf("prometheus not found (apt-get install -y prometheus, or set %s): %v", PrometheusBinaryEnv, err)
		}
	}
	dir := tb.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(prometheusConfig), 0o600); err != nil {
		tb.Fatalf("write prometheus config: %v", err)
	}
	port := e2e.FreePort(tb)
	p := &Prometheus{URL: "http://127.0.0.1:" + strconv.Itoa(port), log: &lockedBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(bin, //nolint:gosec // the prometheus binary from PATH or the operator
		"--config.file="+cfg,
		"--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address=127.0.0.1:"+strconv.Itoa(port),
		"--web.enable-remote-write-receiver",
		"--log.level=warn",
	)
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		tb.Fatalf("start prometheus: %v", err)
	}
	go func() {
		_ = p.cmd.Wait()
		close(p.done)
	}()
	tb.Cleanup(func() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(15 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		if tb.Failed() {
			tb.Logf("prometheus log:\n%s", p.log.String())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(p.URL + "/-/ready") //nolint:gosec // loopback URL
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		select {
		case <-p.done:
			tb.Fatalf("prometheus exited during start-up:\n%s", p.log.String())
		default:
		}
		if time.Now().After(deadline) {
			tb.Fatalf("prometheus not ready within 30s: %v\n%s", err, p.log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// WriteURL is the remote-write endpoint.
func (p *Prometheus) WriteURL() string { return p.URL + "/api/v1/write" }

// Series is one series of an instant-query result.
type Series struct {
	Labels map[string]string
	Value  float64
}

// Query evaluates promql at t through the HTTP API.
func (p *Prometheus) Query(ctx context.Context, promql string, t time.Time) ([]Series, error) {
	v := url.Values{}
	v.Set("query", promql)
	v.Set("time", strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', 3, 64))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+"/api/v1/query?"+v.Encode(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string `json:"resultType"`
			Result     []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("query %q: %w", promql, err)
	}
	if body.Status != "success" {
		return nil, fmt.Errorf("query %q: %s", promql, body.Error)
	}
	out := make([]Series, 0, len(body.Data.Result))
	for _, r := range body.Data.Result {
		s, _ := r.Value[1].(string)
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("query %q: value %v: %w", promql, r.Value[1], err)
		}
		out = append(out, Series{Labels: r.Metric, Value: f})
	}
	return out, nil
}

// LabelNames returns every label name Prometheus holds.
func (p *Prometheus) LabelNames(ctx context.Context) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+"/api/v1/labels", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var body struct {
		Status string   `json:"status"`
		Data   []string `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, err
	}
	if body.Status != "success" {
		return nil, fmt.Errorf("labels: status %s", body.Status)
	}
	return body.Data, nil
}

// PromLabel is the Prometheus label name the remote-write exporter gives an
// attribute key: every character outside [A-Za-z0-9_] becomes '_', and a
// leading digit gets a "key_" prefix.
func PromLabel(key string) string {
	b := []byte(key)
	for i, c := range b {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			b[i] = '_'
		}
	}
	s := string(b)
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		s = "key_" + s
	}
	return s
}

// PRWExporter writes to a Prometheus remote-write endpoint.
func PRWExporter(endpoint string) Exporter {
	return Exporter{ID: "prometheus_remote_write", YAML: fmt.Sprintf(`  prometheus_remote_write:
    endpoint: %s
    target_info:
      enabled: false
    remote_write_queue:
      enabled: true
      queue_size: 100000
      num_consumers: 2
    retry_on_failure:
      enabled: true
      max_elapsed_time: 0
`, endpoint)}
}

// PromSeries is what Prometheus must hold after the data points accepted by
// gen went through a pipeline that does e: the sample count of each series,
// keyed by CanonicalLabels. The job label is the service.name.
func (w *Workload) PromSeries(gen *Generator, e Expectation) map[string]int {
	accepted := gen.AcceptedSet()
	profiles := w.profiles[Metrics]
	labels := make([]string, len(profiles))
	for i := range profiles {
		// The exporter adds the instrumentation scope as a label.
		m := map[string]string{"otel_scope_name": scopeName}
		for _, a := range profiles[i].want[expectationIndex(e)] {
			m[PromLabel(a.key)] = a.val.AsString()
		}
		labels[i] = CanonicalLabels(m)
	}
	out := map[string]int{}
	for wi, x := range accepted.w {
		for ; x != 0; x &= x - 1 {
			bit := uint64(0)
			for y := x; y&1 == 0; y >>= 1 {
				bit++
			}
			seq := uint64(wi)*64 + bit
			out["job="+w.services[w.ServiceOf(seq)]+","+labels[w.ProfileOf(seq)]]++
		}
	}
	return out
}

// CanonicalLabels renders a label set as sorted name=value pairs, without
// __name__, job and instance (job is prefixed by PromSeries).
func CanonicalLabels(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != "__name__" && k != "job" && k != "instance" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(m[k])
	}
	return b.String()
}
