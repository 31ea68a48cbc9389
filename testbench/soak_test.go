//go:build loadtest

package testbench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// Soak (`make loadtest`; not in CI): a long run at half of the measured
// capacity, with the org registry rewritten every 10 s, alternating a good
// version (two in turn, so each good one is a real reload) and a broken one,
// and 1,000 services sending 20 attributes per span. It samples the
// collector's RSS and goroutine count, requires zero loss, and records the
// final /conformance size. Knobs (environment):
//   SOAK_DURATION  length of the soak (default 30m)
//   SOAK_RATE      spans/s (default: half of a 5 s full-speed run)
//   SOAK_TOGGLE    registry rewrite interval (default 10s)

// SoakResult is the soak's record; benchmarks/report charts it.
type SoakResult struct {
	Machine         Machine       `json:"machine"`
	Duration        time.Duration `json:"duration_ns"`
	CapacityRate    float64       `json:"capacity_rate"` // full-speed spans/s measured first (0: SOAK_RATE given)
	Rate            int           `json:"rate"`
	Services        int           `json:"services"`
	AttrsPerItem    int           `json:"attrs_per_item"`
	Sent            uint64        `json:"sent"`
	Received        uint64        `json:"received"`
	Lost            uint64        `json:"lost"`
	Reloads         int           `json:"reloads"` // registry rewrites (good and bad)
	Generation      int64         `json:"final_generation"`
	ConformanceSize int           `json:"conformance_bytes"`
	NewShapes       bool          `json:"new_shapes"` // every span had a shape never seen before (Mix.NewShapes)
	Samples         []SoakSample  `json:"samples"`
	Problems        []string      `json:"problems,omitempty"`
}

// SoakSample is one point of the soak's time series.
type SoakSample struct {
	At         float64 `json:"t_s"`
	RSSMiB     float64 `json:"rss_mib"`
	Goroutines int     `json:"goroutines"`
	Good       bool    `json:"registry_good"` // the org registry on disk is the good one
	// Memo is every series of the collector's :8888 whose name holds
	// "memo" (the engine's shape memo: hits, misses, evictions, bytes),
	// summed over its labels.
	Memo map[string]float64 `json:"memo,omitempty"`
}

const (
	soakGoodA = `groups:
  - id: registry.acme.soak
    type: attribute_group
    brief: Soak attributes.
    attributes:
      - id: acme.soak.state
        type: string
        stability: development
        brief: State.
`
	soakGoodB = soakGoodA + `      - id: acme.soak.size
        type: int
        stability: development
        brief: Size.
`
	soakBad = "groups:\n  - id: [registry.acme.soak\n"
)

func TestSoak(t *testing.T) {
	runSoak(t, "soak", envDuration("SOAK_DURATION", 30*time.Minute), Mix{Services: 1000, AttrsPerItem: 20, Profiles: 1000, DeprecatedPool: envInt("TESTBENCH_POOL", 24)})
}

// TestSoakAdversarial is the soak with a client whose every span has a shape
// never seen before (Mix.NewShapes): the engine's shape memo must keep its
// memory bounded and lose nothing. Knobs as TestSoak's, with
// SOAK_ADVERSARIAL_DURATION (default 10m) for the length.
func TestSoakAdversarial(t *testing.T) {
	runSoak(t, "soak_adversarial", envDuration("SOAK_ADVERSARIAL_DURATION", 10*time.Minute), Mix{Services: 1000, AttrsPerItem: 20, Profiles: 1000, DeprecatedPool: envInt("TESTBENCH_POOL", 24), NewShapes: true})
}

func runSoak(t *testing.T, name string, dur time.Duration, mix Mix) {
	toggle := envDuration("SOAK_TOGGLE", 10*time.Second)
	w := testWorkload(t, mix)
	out := SoakResult{Machine: DescribeMachine(), Duration: dur, Services: mix.Services, AttrsPerItem: mix.AttrsPerItem, NewShapes: mix.NewShapes}

	org := t.TempDir()
	orgFile := filepath.Join(org, "soak.yaml")
	write := func(content string) {
		tmp := orgFile + ".tmp"
		if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
			t.Fatalf("write org registry: %v", err)
		}
		if err := os.Rename(tmp, orgFile); err != nil {
			t.Fatalf("write org registry: %v", err)
		}
	}
	write(soakGoodA)

	cfg := GovernanceConfig(false)
	cfg.Name = "governance-" + strings.ReplaceAll(name, "_", "-")
	cfg.Processors = strings.Replace(cfg.Processors, "  governance:\n", "  governance:\n    registry:\n      extension: governance_registry\n", 1)
	backend := StartBackend(t, w, cfg.Expect)
	ports := FreePorts(t)
	pprofPort, regPort := e2e.FreePort(t), e2e.FreePort(t)
	y := cfg.YAML(ports, OTLPExporter(backend.Endpoint), Traces)
	y = strings.Replace(y, "extensions:\n  health_check:", fmt.Sprintf(
		"extensions:\n  pprof:\n    endpoint: 127.0.0.1:%d\n  governance_registry:\n    org_registries: [%s]\n    poll_interval: 1s\n    http:\n      endpoint: 127.0.0.1:%d\n  health_check:",
		pprofPort, org, regPort), 1)
	y = strings.Replace(y, "extensions: [health_check]", "extensions: [health_check, pprof, governance_registry]", 1)
	col := Governance(t).Start(t, y, ports, e2e.Options{})
	client, err := e2e.NewClient(ports.GRPCEndpoint(), "")
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	defer client.Close()
	ctx := context.Background()

	// One generator for the capacity probe and the soak, so that the
	// backend verifies every span either sent.
	gen := NewGenerator(w, client, LoadOptions{Signal: Traces, BatchSize: 100, Workers: 4})
	rate := envInt("SOAK_RATE", 0)
	if rate == 0 {
		st := gen.Run(ctx, 5*time.Second)
		out.CapacityRate = st.Rate()
		rate = max(int(out.CapacityRate/2), 100)
		if !backend.WaitDrained(Traces, gen.Stats().Sent, time.Minute, 0) {
			t.Fatalf("capacity probe: backend received %d of %d", backend.Received(Traces), gen.Stats().Sent)
		}
		t.Logf("capacity %.0f spans/s: soaking at %d spans/s", out.CapacityRate, rate)
	}
	out.Rate = rate
	gen.opts.Rate = rate
	done := make(chan LoadStats)
	go func() { done <- gen.Run(ctx, dur) }()
	start := time.Now()
	good := true
	version := 0
	sample := func() {
		u, err := ReadUsage(col.PID())
		if err != nil {
			out.Problems = append(out.Problems, "usage: "+err.Error())
			return
		}
		g, err := goroutines(pprofPort)
		if err != nil {
			out.Problems = append(out.Problems, "goroutines: "+err.Error())
		}
		memo, err := memoSeries(ports.Metrics)
		if err != nil {
			out.Problems = append(out.Problems, "memo metrics: "+err.Error())
		}
		out.Samples = append(out.Samples, SoakSample{At: time.Since(start).Seconds(), RSSMiB: float64(u.RSS) / (1 << 20), Goroutines: g, Good: good, Memo: memo})
	}
	sample()
	tick := time.NewTicker(toggle)
	var st LoadStats
loop:
	for {
		select {
		case st = <-done:
			break loop
		case <-tick.C:
			if good {
				write(soakBad)
			} else {
				version++
				write([]string{soakGoodA, soakGoodB}[version%2])
			}
			good = !good
			out.Reloads++
			sample()
		}
	}
	tick.Stop()
	if !good {
		write(soakGoodA)
	}
	total := gen.Stats().Sent
	if !backend.WaitDrained(Traces, total, 2*time.Minute, 300*time.Millisecond) {
		out.Problems = append(out.Problems, fmt.Sprintf("backend received %d of %d", backend.Received(Traces), total))
	}
	sample()
	out.Sent = total
	out.Received = backend.Received(Traces)
	if out.Sent > out.Received {
		out.Lost = out.Sent - out.Received
	}
	if rep := backend.Verify(Traces, gen); !rep.OK() {
		out.Problems = append(out.Problems, rep.String())
	}
	if st.Failed > 0 {
		out.Problems = append(out.Problems, fmt.Sprintf("generator gave up on %d spans: %s", st.Failed, st.LastError))
	}
	body, err := httpGet(fmt.Sprintf("http://127.0.0.1:%d/conformance", regPort))
	if err != nil {
		out.Problems = append(out.Problems, "conformance: "+err.Error())
	}
	out.ConformanceSize = len(body)
	if info, err := httpGet(fmt.Sprintf("http://127.0.0.1:%d/registry", regPort)); err == nil {
		if i := strings.Index(string(info), `"generation": `); i >= 0 {
			f := strings.FieldsFunc(string(info)[i+len(`"generation": `):], func(r rune) bool { return r == ',' || r == '\n' })
			if len(f) > 0 {
				out.Generation, _ = strconv.ParseInt(strings.TrimSpace(f[0]), 10, 64)
			}
		}
	}
	if col.Exited() {
		out.Problems = append(out.Problems, "collector exited")
	}
	out.Problems = append(out.Problems, flatness(out.Samples)...)
	out.Machine.Finish()
	SaveResult(t, name, out)
	first0, last := out.Samples[0], out.Samples[len(out.Samples)-1]
	t.Logf("%s %s at %d spans/s: sent %d, lost %d, %d registry rewrites, generation %d, RSS %.1f -> %.1f MiB, goroutines %d -> %d, /conformance %d bytes; memo %v -> %v",
		name, dur, rate, out.Sent, out.Lost, out.Reloads, out.Generation, first0.RSSMiB, last.RSSMiB, first0.Goroutines, last.Goroutines, out.ConformanceSize, first0.Memo, last.Memo)
	for _, p := range out.Problems {
		t.Error(p)
	}
	if out.Lost > 0 {
		t.Errorf("lost %d spans", out.Lost)
	}
	col.Stop()
}

// goroutines reads the goroutine count from the pprof extension.
func goroutines(port int) (int, error) {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/goroutine?debug=1", port)) //nolint:gosec // loopback
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil {
		return 0, err
	}
	// "goroutine profile: total 123"
	f := strings.Fields(line)
	if len(f) == 0 {
		return 0, fmt.Errorf("unexpected %q", line)
	}
	return strconv.Atoi(f[len(f)-1])
}

func httpGet(url string) ([]byte, error) {
	resp, err := http.Get(url) //nolint:gosec // loopback
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// memoSeries sums, by metric name, the collector's :8888 series whose name
// holds "memo".
func memoSeries(port int) (map[string]float64, error) {
	body, err := httpGet(fmt.Sprintf("http://127.0.0.1:%d/metrics", port))
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for line := range strings.SplitSeq(string(body), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		name, rest, _ := strings.Cut(line, " ")
		if i := strings.IndexByte(name, '{'); i >= 0 {
			name = name[:i]
			if j := strings.LastIndexByte(line, '}'); j >= 0 {
				rest = strings.TrimSpace(line[j+1:])
			}
		}
		if !strings.Contains(name, "memo") {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", line, err)
		}
		out[name] += v
	}
	return out, nil
}

// flatness compares the second half of a soak with the first (after the
// first sample, taken before the load): RSS may not grow by more than 20%
// plus 8 MiB, nor goroutines by more than 10 (a leak per reload or per
// shape shows as a steady climb that this catches over a long soak).
func flatness(ss []SoakSample) []string {
	if len(ss) < 5 {
		return []string{fmt.Sprintf("only %d samples: too short to judge RSS and goroutines", len(ss))}
	}
	body := ss[1:]
	half := len(body) / 2
	var rss1, rss2 float64
	var g1, g2 int
	for i, x := range body {
		if i < half {
			rss1, g1 = max(rss1, x.RSSMiB), max(g1, x.Goroutines)
		} else {
			rss2, g2 = max(rss2, x.RSSMiB), max(g2, x.Goroutines)
		}
	}
	var p []string
	if rss2 > rss1*1.2+8 {
		p = append(p, fmt.Sprintf("RSS grew: %.1f MiB at most in the first half, %.1f MiB in the second", rss1, rss2))
	}
	if g2 > g1+10 {
		p = append(p, fmt.Sprintf("goroutines grew: %d at most in the first half, %d in the second", g1, g2))
	}
	return p
}
