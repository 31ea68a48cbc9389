package testbench

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// SidecarConfig is the sidecar shape: memory_limiter, governance and batch
// in front of an otlp exporter.
func SidecarConfig() Config {
	return withBatch(Config{
		Name:         "sidecar",
		Distribution: "governance",
		Expect:       Expectation{Rename: true},
		Processors: "  memory_limiter:\n    check_interval: 1s\n    limit_mib: 200\n    spike_limit_mib: 50\n" +
			"  governance:\n    deprecated: rename\n    unknown: keep\n",
		Pipeline: []string{"memory_limiter", "governance"},
	})
}

// StartupResult is the start-up time and idle footprint of a configuration.
type StartupResult struct {
	Config string `json:"config"`
	// Startups are the times from process start until health_check on its
	// port answered 200 (polled every 2ms).
	Startups      []time.Duration `json:"startups_ns"`
	StartupMedian time.Duration   `json:"startup_median_ns"`
	// Idle footprint of the last start, after Idle of no traffic.
	Idle         time.Duration `json:"idle_ns"`
	IdleRSSMiB   float64       `json:"idle_rss_mib"`
	IdlePeakMiB  float64       `json:"idle_peak_rss_mib"`
	IdleCPUShare float64       `json:"idle_cpu_share"` // cores used while idle
}

func (r StartupResult) String() string {
	return fmt.Sprintf("%s: start-up median %s over %d starts %v; idle %s: RSS %.1f MiB (peak %.1f MiB), CPU %.4f cores",
		r.Config, r.StartupMedian.Round(time.Millisecond), len(r.Startups), roundAll(r.Startups), r.Idle,
		r.IdleRSSMiB, r.IdlePeakMiB, r.IdleCPUShare)
}

func roundAll(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(time.Millisecond)
	}
	return out
}

// MeasureStartup starts cfg runs times and measures each start-up, then
// leaves the last one idle for idle and reads its footprint.
func MeasureStartup(tb testing.TB, dist Distribution, cfg Config, runs int, idle time.Duration) StartupResult {
	tb.Helper()
	res := StartupResult{Config: cfg.Name, Idle: idle}
	backend := StartBackend(tb, nil, cfg.Expect)
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
		col := dist.Start(tb, cfg.YAML(ports, OTLPExporter(backend.Endpoint), Traces, Metrics, Logs), ports, e2e.Options{})
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
			res.IdleCPUShare = (after.CPU - before.CPU).Seconds() / after.At.Sub(before.At).Seconds()
		}
		col.Stop()
	}
	sorted := slices.Clone(res.Startups)
	slices.Sort(sorted)
	res.StartupMedian = sorted[len(sorted)/2]
	return res
}
