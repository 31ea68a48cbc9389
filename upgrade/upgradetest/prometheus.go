// Package upgradetest runs a real Prometheus for the upgrade package's and
// otelgov's tests, scraping a stand-in for a collector's :8888 that serves
// the governance processor's per-service series.
package upgradetest // import "github.com/otelgov/otelcol-governance/upgrade/upgradetest"

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Collector serves :8888-shaped text: the governance processor's
// per-service series, as the collector's Prometheus exporter writes them.
// While sending, each scrape adds 10 to the old service's
// deprecated_names counter (and its shadow's changes).
type Collector struct {
	mu      sync.Mutex
	sending bool
	count   int
	scrapes int
	// Names serves the deprecated_names series at all.
	Names bool
	// Bare serves neither registry_info nor the transition series: only
	// the per-service counters.
	Bare bool
	// Transition is the transition the instance says it runs
	// (transition_info, deprecated_names_in_force); nil: a collector built
	// before those series, with registry_info only.
	Transition *Transition
	// Extra is served verbatim after the governance series: the services'
	// own metrics, as a fleet Prometheus also holds them.
	Extra string
}

// Transition is what a Collector's transition series say.
type Transition struct {
	// Digest is the registry in force's digest.
	Digest string
	// Deprecated is the deprecated mode; "" is rename.
	Deprecated string
	// Names are the deprecated_names (all copy): whether the registry in
	// force deprecates each.
	Names map[string]bool
	// Candidate is the shadow's candidate digest; "" is none. With one,
	// the shadow's batches grow every scrape, and its attribute_renamed
	// changes of the old service while sending.
	Candidate string
}

// SetNames starts or stops serving the deprecated_names series.
func (f *Collector) SetNames(on bool) {
	f.mu.Lock()
	f.Names = on
	f.mu.Unlock()
}

// SetTransition replaces the transition the instance says it runs.
func (f *Collector) SetTransition(t *Transition) {
	f.mu.Lock()
	f.Transition = t
	f.mu.Unlock()
}

func (f *Collector) writeTransition(w io.Writer, l string, t *Transition, n, scrapes int) {
	dig := "sha256:test"
	if t != nil && t.Digest != "" {
		dig = t.Digest
	}
	fmt.Fprintf(w, "# TYPE otelcol_processor_governance_registry_info gauge\n")
	fmt.Fprintf(w, "otelcol_processor_governance_registry_info{%s,schema_url=\"https://opentelemetry.io/schemas/test\",digest=%q,generation=\"1\"} 1\n", l, dig)
	if t == nil {
		return
	}
	mode, cand, names := cmp.Or(t.Deprecated, "rename"), cmp.Or(t.Candidate, "none"), "none"
	counted := 0
	keys := slices.Sorted(maps.Keys(t.Names))
	if len(keys) > 0 {
		names = fmt.Sprintf("%x", sha256.Sum256([]byte(strings.Join(keys, ","))))[:16]
	}
	for _, k := range keys {
		if t.Names[k] {
			counted++
		}
	}
	fmt.Fprintf(w, "# TYPE otelcol_processor_governance_transition_info gauge\n")
	fmt.Fprintf(w, "otelcol_processor_governance_transition_info{%s,schema_url=\"https://opentelemetry.io/schemas/test\",digest=%q,deprecated=%q,deprecated_names_digest=%q,candidate_digest=%q} %d\n", l, dig, mode, names, cand, counted)
	if len(keys) > 0 {
		fmt.Fprintf(w, "# TYPE otelcol_processor_governance_deprecated_names_in_force gauge\n")
		for _, k := range keys {
			v := 0
			if t.Names[k] {
				v = 1
			}
			fmt.Fprintf(w, "otelcol_processor_governance_deprecated_names_in_force{%s,deprecated_name=%q,mode=\"copy\"} %d\n", l, k, v)
		}
	}
	if t.Candidate != "" {
		fmt.Fprintf(w, "# TYPE otelcol_processor_governance_shadow_batches counter\n")
		fmt.Fprintf(w, "otelcol_processor_governance_shadow_batches{%s} %d\n", l, scrapes)
		if n > 0 {
			fmt.Fprintf(w, "# TYPE otelcol_processor_governance_shadow_changes counter\n")
			fmt.Fprintf(w, "otelcol_processor_governance_shadow_changes{%s,service_name=\"old\",change_kind=\"attribute_renamed\"} %d\n", l, n)
		}
	}
}

func (f *Collector) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	f.mu.Lock()
	if f.sending {
		f.count += 10
	}
	f.scrapes++
	n, scrapes := f.count, f.scrapes
	names, extra, tr, bare := f.Names, f.Extra, f.Transition, f.Bare
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
	if !bare {
		f.writeTransition(w, l, tr, n, scrapes)
	}
	fmt.Fprint(w, extra)
}

// Send starts or stops the old service sending.
func (f *Collector) Send(on bool) {
	f.mu.Lock()
	f.sending = on
	f.mu.Unlock()
}

// FreePort returns a free loopback port.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	return port
}

// StartPrometheus runs the real Prometheus (the Debian package's binary,
// installed by make test-deps) on loopback with a temporary storage
// directory, scraping the targets every second. It stops with the test, and
// in any case after two minutes. Without the binary the test is skipped.
func StartPrometheus(t testing.TB, targets ...string) string {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus binary not found (make test-deps installs the Debian package prometheus): skipping the real-Prometheus test")
	}
	dir := t.TempDir()
	quoted := make([]string, len(targets))
	for i, tg := range targets {
		quoted[i] = strconv.Quote(tg)
	}
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: collector\n    honor_labels: true\n    static_configs:\n      - targets: [%s]\n", strings.Join(quoted, ", "))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o600))
	addr := fmt.Sprintf("127.0.0.1:%d", FreePort(t))
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

// ServeConformance serves doc (a conformance.Document) as a running
// collector's governance_registry extension serves GET /conformance; other
// paths are 404. It stops with the test.
func ServeConformance(t testing.TB, doc any) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/conformance" {
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(doc)
	}))
	t.Cleanup(srv.Close)
	return srv
}
