package testbench

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// DistributionConfig writes distribution/config.yaml, the embedded default
// configuration, with its listeners moved to the free loopback ports of p
// (and registryPort for the registry extension's report), so that a
// measurement cannot collide with another collector on the fixed ports.
// Nothing else changes. It fails tb when the file no longer has exactly one
// of each listener it moves.
func DistributionConfig(tb testing.TB, p Ports, registryPort int) string {
	tb.Helper()
	src := filepath.Join(e2e.RepoRoot(tb), "distribution", "config.yaml")
	b, err := os.ReadFile(src) //nolint:gosec // the repository's own file
	if err != nil {
		tb.Fatalf("read %s: %v", src, err)
	}
	cfg := string(b)
	for _, r := range []struct{ old, new string }{
		{"endpoint: localhost:13133", "endpoint: 127.0.0.1:" + strconv.Itoa(p.Health)},
		{"endpoint: localhost:4317", "endpoint: 127.0.0.1:" + strconv.Itoa(p.GRPC)},
		{"endpoint: localhost:4318", "endpoint: 127.0.0.1:" + strconv.Itoa(p.HTTP)},
		{"port: 8888", "port: " + strconv.Itoa(p.Metrics)},
		{"governance_registry: {}", "governance_registry:\n    http:\n      endpoint: 127.0.0.1:" + strconv.Itoa(registryPort)},
	} {
		if n := strings.Count(cfg, r.old); n != 1 {
			tb.Fatalf("%s: %d occurrences of %q, want 1 (update DistributionConfig)", src, n, r.old)
		}
		cfg = strings.Replace(cfg, r.old, r.new, 1)
	}
	path := filepath.Join(tb.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil { //nolint:gosec // a file in the test's temp dir
		tb.Fatalf("write %s: %v", path, err)
	}
	return path
}

// StartupResult is the start-up time and idle footprint of a configuration.
type StartupResult struct {
	Config string `json:"config"`
	// Startups are the times from process start until health_check on its
	// port answered 200 (polled every 2ms).
	Startups      []time.Duration `json:"startups_ns"`
	StartupMedian time.Duration   `json:"startup_median_ns"`
	// Idle footprint of the last start, after Idle of no traffic.
	Idle        time.Duration `json:"idle_ns"`
	IdleRSSMiB  float64       `json:"idle_rss_mib"`
	IdlePeakMiB float64       `json:"idle_peak_rss_mib"`
	// IdleAnonMiB and IdleFileMiB split IdleRSSMiB (Usage.RSSAnon,
	// Usage.RSSFile): what this collector holds itself, and the pages of
	// its binary that every collector on the node shares.
	IdleAnonMiB  float64 `json:"idle_rss_anon_mib"`
	IdleFileMiB  float64 `json:"idle_rss_file_mib"`
	IdleCPUShare float64 `json:"idle_cpu_share"` // cores used while idle
	// IdlePairPSSMiB is the proportional set size (ReadPSS) of the last
	// start while a second collector of the same configuration idles
	// beside it: what each of two sidecars costs the node, the binary's
	// pages counted half to each.
	IdlePairPSSMiB float64 `json:"idle_pair_pss_mib"`
}

func (r StartupResult) String() string {
	return fmt.Sprintf("%s: start-up median %s over %d starts %v; idle %s: RSS %.1f MiB (anonymous %.1f, file %.1f; peak %.1f MiB), CPU %.4f cores; PSS beside a second one %.1f MiB",
		r.Config, r.StartupMedian.Round(time.Millisecond), len(r.Startups), roundAll(r.Startups), r.Idle,
		r.IdleRSSMiB, r.IdleAnonMiB, r.IdleFileMiB, r.IdlePeakMiB, r.IdleCPUShare, r.IdlePairPSSMiB)
}

func roundAll(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(time.Millisecond)
	}
	return out
}

// startupSettle is how long a start-up measurement waits after ready
// before it stops the collector.
const startupSettle = 200 * time.Millisecond

// MeasureStartup starts the collector runs times with start, which must
// put health_check on ports.Health, and measures each start-up; then it
// leaves the last one idle for idle and reads its footprint.
func MeasureStartup(tb testing.TB, name string, runs int, idle time.Duration, start func(testing.TB, Ports) *e2e.Collector) StartupResult {
	tb.Helper()
	res := StartupResult{Config: name, Idle: idle}
	for i := range runs {
		ports := FreePorts(tb)
		healthy := make(chan time.Time, 1)
		stop := make(chan struct{})
		url := "http://127.0.0.1:" + strconv.Itoa(ports.Health) + "/"
		client := &http.Client{Timeout: time.Second}
		go func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if resp, err := client.Get(url); err == nil {
					_ = resp.Body.Close()
					if resp.StatusCode == http.StatusOK {
						healthy <- time.Now()
						return
					}
				}
				time.Sleep(2 * time.Millisecond)
			}
		}()
		t0 := time.Now()
		col := start(tb, ports)
		var t1 time.Time
		select {
		case t1 = <-healthy:
		case <-time.After(5 * time.Second):
			close(stop)
			tb.Fatalf("start %d: health_check answered the harness but not the 2ms poller", i)
		}
		res.Startups = append(res.Startups, t1.Sub(t0))
		if i == runs-1 {
			before, err := ReadUsage(col.PID())
			if err != nil {
				tb.Fatalf("read usage: %v", err)
			}
			time.Sleep(idle)
			after, err := ReadUsage(col.PID())
			if err != nil {
				tb.Fatalf("read usage: %v", err)
			}
			res.IdleRSSMiB = float64(after.RSS) / (1 << 20)
			res.IdlePeakMiB = float64(after.PeakRSS) / (1 << 20)
			res.IdleAnonMiB = float64(after.RSSAnon) / (1 << 20)
			res.IdleFileMiB = float64(after.RSSFile) / (1 << 20)
			res.IdlePairPSSMiB = pairPSS(tb, col, start)
			res.IdleCPUShare = (after.CPU - before.CPU).Seconds() / after.At.Sub(before.At).Seconds()
		} else {
			// The collector answers ready before it handles SIGTERM
			// (otelcol's Collector.Run starts the service, then calls
			// signal.Notify): a SIGTERM in between kills it by the default
			// action, and Stop reports an unclean exit. CI met it once.
			time.Sleep(startupSettle)
		}
		col.Stop()
	}
	sorted := slices.Clone(res.Startups)
	slices.Sort(sorted)
	res.StartupMedian = sorted[len(sorted)/2]
	return res
}

// pairPSS starts a second collector beside col with start (its own ports),
// lets both idle for startupPairIdle and returns col's proportional set
// size in MiB.
func pairPSS(tb testing.TB, col *e2e.Collector, start func(testing.TB, Ports) *e2e.Collector) float64 {
	tb.Helper()
	second := start(tb, FreePorts(tb))
	defer second.Stop()
	time.Sleep(startupPairIdle)
	pss, err := ReadPSS(col.PID())
	if err != nil {
		tb.Fatalf("read PSS: %v", err)
	}
	return float64(pss) / (1 << 20)
}

// startupPairIdle is how long the two collectors of pairPSS idle before
// the reading: the second's start-up settles.
const startupPairIdle = 2 * time.Second
