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

	"go.yaml.in/yaml/v3"

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
	return moveListeners(tb, src, string(b), []replacement{
		{"endpoint: localhost:13133", "endpoint: 127.0.0.1:" + strconv.Itoa(p.Health)},
		{"endpoint: localhost:4317", "endpoint: 127.0.0.1:" + strconv.Itoa(p.GRPC)},
		{"endpoint: localhost:4318", "endpoint: 127.0.0.1:" + strconv.Itoa(p.HTTP)},
		{"port: 8888", "port: " + strconv.Itoa(p.Metrics)},
		{"governance_registry: {}", "governance_registry:\n    http:\n      endpoint: 127.0.0.1:" + strconv.Itoa(registryPort)},
	})
}

// SidecarConfig writes the collector configuration of the sidecar CR
// (distribution/k8s/collector/sidecar.yaml's spec.config, what the
// Operator hands every injected sidecar) with its listeners moved to the
// free loopback ports of p and its gateway exporter pointed at exporter
// (host:port of a local OTLP/gRPC sink). Nothing else changes. It fails tb
// when the CR no longer has exactly one of each address it moves.
func SidecarConfig(tb testing.TB, p Ports, exporter string) string {
	tb.Helper()
	src := filepath.Join(e2e.RepoRoot(tb), "distribution", "k8s", "collector", "sidecar.yaml")
	cfg, err := crConfig(src)
	if err != nil {
		tb.Fatal(err)
	}
	return moveListeners(tb, src, cfg, []replacement{
		{"endpoint: 0.0.0.0:13133", "endpoint: 127.0.0.1:" + strconv.Itoa(p.Health)},
		{"endpoint: 127.0.0.1:4317", "endpoint: 127.0.0.1:" + strconv.Itoa(p.GRPC)},
		{"endpoint: 127.0.0.1:4318", "endpoint: 127.0.0.1:" + strconv.Itoa(p.HTTP)},
		{"host: 0.0.0.0", "host: 127.0.0.1"},
		{"port: 8888", "port: " + strconv.Itoa(p.Metrics)},
		{"endpoint: gateway-collector.observability.svc:4317", "endpoint: " + exporter},
	})
}

// crConfig returns the spec.config of the OpenTelemetryCollector CR in
// file path, as YAML.
func crConfig(path string) (string, error) {
	b, err := os.ReadFile(path) //nolint:gosec // the repository's own file
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	var cr struct {
		Kind string `yaml:"kind"`
		Spec struct {
			Config yaml.Node `yaml:"config"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(b, &cr); err != nil {
		return "", fmt.Errorf("parse %s: %w", path, err)
	}
	if cr.Kind != "OpenTelemetryCollector" || cr.Spec.Config.Kind != yaml.MappingNode {
		return "", fmt.Errorf("%s: kind %q, want an OpenTelemetryCollector with a spec.config mapping", path, cr.Kind)
	}
	out, err := yaml.Marshal(&cr.Spec.Config)
	if err != nil {
		return "", fmt.Errorf("%s: spec.config: %w", path, err)
	}
	return string(out), nil
}

// replacement is one listener moved by moveListeners.
type replacement struct{ old, new string }

// moveListeners applies rs to cfg (read from src), each of which must
// end exactly one line, and writes the result into the test's temp dir.
func moveListeners(tb testing.TB, src, cfg string, rs []replacement) string {
	tb.Helper()
	for _, r := range rs {
		// Whole line ends: a port moved earlier ("127.0.0.1:43175") must
		// not read as a later listener's old address ("127.0.0.1:4317").
		old, repl := r.old+"\n", r.new+"\n"
		if n := strings.Count(cfg, old); n != 1 {
			tb.Fatalf("%s: %d lines ending in %q, want 1 (update the testbench's copy of it)", src, n, r.old)
		}
		cfg = strings.Replace(cfg, old, repl, 1)
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
	// SideBySide is the footprint of SideBySide collectors of the same
	// configuration idling together for SideBySideIdle, the last start
	// first: what each of the sidecars of one image on a node costs it.
	// Their anonymous memory is each one's own; their PSS counts the
	// binary's shared pages a fraction to each.
	SideBySide     []Footprint   `json:"side_by_side"`
	SideBySideIdle time.Duration `json:"side_by_side_idle_ns"`
	// AnonGoalMet tells whether every collector side by side held at most
	// SidecarAnonGoalMiB of anonymous memory (#38's goal for a sidecar).
	AnonGoalMet bool `json:"anon_goal_met"`
}

// Footprint is one idle collector's memory among others of its image.
type Footprint struct {
	// RSSMiB, AnonMiB: VmRSS and RssAnon (Usage.RSS, Usage.RSSAnon).
	RSSMiB  float64 `json:"rss_mib"`
	AnonMiB float64 `json:"rss_anon_mib"`
	// PSSMiB is the proportional set size (ReadPSS).
	PSSMiB float64 `json:"pss_mib"`
}

// SideBySide is how many collectors the idle footprint runs together.
const SideBySide = 4

// SidecarAnonGoalMiB is #38's goal for an idle sidecar's anonymous memory,
// its own share of the node whatever the image's size.
const SidecarAnonGoalMiB = 12.0

func (r StartupResult) String() string {
	var side strings.Builder
	for i, f := range r.SideBySide {
		if i > 0 {
			side.WriteString(", ")
		}
		fmt.Fprintf(&side, "anonymous %.1f PSS %.1f", f.AnonMiB, f.PSSMiB)
	}
	return fmt.Sprintf("%s: start-up median %s over %d starts %v; idle %s: RSS %.1f MiB (anonymous %.1f, file %.1f; peak %.1f MiB), CPU %.4f cores; %d side by side, %s later (MiB): %s; anonymous ≤ %.0f MiB each: %s",
		r.Config, r.StartupMedian.Round(time.Millisecond), len(r.Startups), roundAll(r.Startups), r.Idle,
		r.IdleRSSMiB, r.IdleAnonMiB, r.IdleFileMiB, r.IdlePeakMiB, r.IdleCPUShare, len(r.SideBySide), r.SideBySideIdle, side.String(),
		SidecarAnonGoalMiB, map[bool]string{true: "met", false: "missed"}[r.AnonGoalMet])
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
// leaves the last one idle for idle and reads its footprint, and then
// starts SideBySide-1 more beside it and reads each one's footprint after
// sideIdle more.
func MeasureStartup(tb testing.TB, name string, runs int, idle, sideIdle time.Duration, start func(testing.TB, Ports) *e2e.Collector) StartupResult {
	tb.Helper()
	res := StartupResult{Config: name, Idle: idle, SideBySideIdle: sideIdle}
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
			res.SideBySide = sideBySide(tb, col, start, sideIdle)
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

// sideBySide starts SideBySide-1 more collectors beside col with start
// (each on its own ports), lets them all idle for idle and reads each
// one's footprint, col's first.
func sideBySide(tb testing.TB, col *e2e.Collector, start func(testing.TB, Ports) *e2e.Collector, idle time.Duration) []Footprint {
	tb.Helper()
	cols := []*e2e.Collector{col}
	for range SideBySide - 1 {
		c := start(tb, FreePorts(tb))
		defer c.Stop()
		cols = append(cols, c)
	}
	time.Sleep(idle)
	out := make([]Footprint, 0, len(cols))
	for _, c := range cols {
		u, err := ReadUsage(c.PID())
		if err != nil {
			tb.Fatalf("read usage: %v", err)
		}
		pss, err := ReadPSS(c.PID())
		if err != nil {
			tb.Fatalf("read PSS: %v", err)
		}
		out = append(out, Footprint{RSSMiB: mib(u.RSS), AnonMiB: mib(u.RSSAnon), PSSMiB: mib(pss)})
	}
	return out
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// SteadyIdle is how long the side-by-side collectors of TestStartupAndIdle
// idle before their reading: past the Go runtime's periodic GC, which
// runs 2 minutes after the last one when nothing else triggers one, and
// the scavenger that returns freed pages after it, so that the start-up's
// garbage has been collected. At 10 s the heap may still hold up to 3 MiB
// of it.
const SteadyIdle = 2*time.Minute + 30*time.Second
