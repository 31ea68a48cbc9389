//go:build loadtest

package testbench

import (
	"context"
	"fmt"
	"io"
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

// Full-sized measured scenarios (`make loadtest`, `make bench`). They need
// both distributions: _build/otelcol-governance and _baseline/otelcol-baseline.
// Knobs, all optional:
//   TESTBENCH_ROUNDS    interleaved rounds per configuration (default 3)
//   TESTBENCH_DURATION  measured load per run (default 10s)
//   TESTBENCH_RATES     fixed rates in items/s (default 10000,50000)
//   TESTBENCH_POOL      distinct renames the workload draws (default 24; 0 = all)
//   TESTBENCH_RESULTS   directory for the JSON results

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if v, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func envRates(name string, def []int) []int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err == nil {
			out = append(out, n)
		}
	}
	return out
}

// Comparison is a results set of interleaved fixed-rate runs.
type Comparison struct {
	Scenario  string        `json:"scenario"`
	Machine   Machine       `json:"machine"`
	Mix       Mix           `json:"mix"`
	Renames   int           `json:"renames"`
	Rounds    int           `json:"rounds"`
	Duration  time.Duration `json:"duration_ns"`
	Warmup    time.Duration `json:"warmup_ns"`
	Rates     []int         `json:"rates"`
	BatchSize int           `json:"batch_size"`
	Workers   int           `json:"workers"`
	Configs   []Config      `json:"configs"`
	Runs      []Result      `json:"runs"`
	Failures  []string      `json:"failures,omitempty"`
	Behind    []string      `json:"behind,omitempty"`
}

// interleaved runs every config once per round and rate, rotating the order
// each round, so that each configuration's runs are spread over the session
// (A B C, B C A, ...) and slow drifts of the machine hit all alike.
func interleaved(t *testing.T, name string, sig Signal, configs []Config, rates []int) Comparison {
	dists := map[string]Distribution{"governance": Governance(t)}
	for _, c := range configs {
		if c.Distribution == "baseline" {
			dists["baseline"] = Baseline(t)
		}
	}
	w := testWorkload(t, Mix{DeprecatedPool: envInt("TESTBENCH_POOL", 24)})
	cmp := Comparison{
		Scenario: name, Machine: DescribeMachine(), Mix: w.Mix, Renames: len(w.Renames),
		Rounds: envInt("TESTBENCH_ROUNDS", 3), Duration: envDuration("TESTBENCH_DURATION", 10*time.Second),
		Warmup: 2 * time.Second, Rates: rates, BatchSize: 200, Workers: 8, Configs: configs,
	}
	for round := range cmp.Rounds {
		for _, rate := range rates {
			for i := range configs {
				c := configs[(i+round)%len(configs)]
				t.Run(fmt.Sprintf("round%d/%d/%s", round, rate, c.Name), func(t *testing.T) {
					res := Run{
						Dist: dists[c.Distribution], Config: c, Workload: w, Signal: sig,
						Load:     LoadOptions{Rate: rate, BatchSize: cmp.BatchSize, Workers: cmp.Workers},
						Warmup:   cmp.Warmup,
						Duration: cmp.Duration,
						// Ceilings: an order of magnitude above what a sane
						// pipeline uses here, to catch runaways only.
						MaxCPUPerItem: 200 * time.Microsecond,
						MaxPeakRSS:    1 << 30,
					}.Execute(t)
					res.Round = round
					t.Log(res)
					if !res.OK() {
						cmp.Failures = append(cmp.Failures, fmt.Sprintf("%s round %d rate %d: %s %v", c.Name, round, rate, res.Report, res.Violations))
					}
					if res.AchievedRate < 0.95*float64(rate) {
						// Not a failure: the same items were sent, later. The
						// CPU per item stays comparable; the rate is reported.
						cmp.Behind = append(cmp.Behind, fmt.Sprintf("%s round %d rate %d: the load reached %.0f items/s", c.Name, round, rate, res.AchievedRate))
					}
					cmp.Runs = append(cmp.Runs, res)
					Check(t, res)
				})
			}
		}
	}
	cmp.Machine.Finish()
	SaveResult(t, name, cmp)
	return cmp
}

// TestLoadCompare is scenario 1: spans at fixed rates through the bare
// pipeline and each processor of both distributions.
func TestLoadCompare(t *testing.T) {
	w := testWorkload(t, Mix{DeprecatedPool: envInt("TESTBENCH_POOL", 24)})
	configs := []Config{
		Bare("governance"), GovernanceConfig(false), GovernanceConfig(true),
		Bare("baseline"), TransformConfig(w), AttributesConfig(w), RedactionConfig(w),
	}
	interleaved(t, "comparison", Traces, configs, envRates("TESTBENCH_RATES", []int{10000, 50000}))
}

// TestLoadLogs is scenario 4: log records at a fixed rate.
func TestLoadLogs(t *testing.T) {
	configs := []Config{Bare("governance"), GovernanceConfig(false), GovernanceConfig(true)}
	interleaved(t, "logs", Logs, configs, envRates("TESTBENCH_LOG_RATES", []int{10000}))
}

// Throughput is scenario 2's result for one configuration.
type Throughput struct {
	Config string `json:"config"`
	// Sustained is the highest rate that passed: the load reached 95% of
	// it, nothing was lost, and the backlog drained within 2s.
	Sustained int      `json:"sustained"`
	Steps     []Result `json:"steps"`
	// GeneratorCPUShare is the test process's cores used at the last step:
	// near its share of the machine, the figure is the generator's limit.
	GeneratorCPUShare float64 `json:"generator_cpu_share"`
	StoppedBy         string  `json:"stopped_by"`
}

// TestLoadMaxThroughput is scenario 2: the highest sustained span rate of
// the collector at GOMAXPROCS=1, no loss allowed.
func TestLoadMaxThroughput(t *testing.T) {
	w := testWorkload(t, Mix{DeprecatedPool: envInt("TESTBENCH_POOL", 24)})
	gov := Governance(t)
	ladder := []int{10000, 15000, 20000, 30000, 40000, 50000, 60000, 80000, 100000, 120000, 150000}
	step := envDuration("TESTBENCH_STEP", 5*time.Second)
	out := struct {
		Machine Machine       `json:"machine"`
		Step    time.Duration `json:"step_ns"`
		Configs []Throughput  `json:"configs"`
	}{Machine: DescribeMachine(), Step: step}
	for _, c := range []Config{Bare("governance"), GovernanceConfig(false), GovernanceConfig(true)} {
		tp := Throughput{Config: c.Name}
		for _, rate := range ladder {
			var res Result
			var genCPU float64
			t.Run(fmt.Sprintf("%s/%d", c.Name, rate), func(t *testing.T) {
				self0, _ := ReadUsage(os.Getpid())
				res = Run{
					Dist: gov, Config: c, Workload: w, Signal: Traces,
					Load:     LoadOptions{Rate: rate, BatchSize: 100, Workers: 8, Protocols: []e2e.Protocol{e2e.GRPC}},
					Warmup:   time.Second,
					Duration: step,
					Env:      []string{"GOMAXPROCS=1"},
				}.Execute(t)
				self1, _ := ReadUsage(os.Getpid())
				genCPU = (self1.CPU - self0.CPU).Seconds() / self1.At.Sub(self0.At).Seconds()
				t.Log(res)
			})
			tp.Steps = append(tp.Steps, res)
			tp.GeneratorCPUShare = genCPU
			switch {
			case !res.OK():
				// Loss is never acceptable, at any rate.
				t.Errorf("%s at %d/s: %s %v", c.Name, rate, res.Report, res.Violations)
				tp.StoppedBy = fmt.Sprintf("rate %d: %s %v", rate, res.Report, res.Violations)
			case res.AchievedRate < 0.95*float64(rate):
				tp.StoppedBy = fmt.Sprintf("rate %d: the load reached %.0f/s", rate, res.AchievedRate)
			case res.DrainMS > 2000:
				tp.StoppedBy = fmt.Sprintf("rate %d: backlog took %.1fs to drain", rate, res.DrainMS/1000)
			default:
				tp.Sustained = rate
				continue
			}
			break
		}
		t.Logf("%s: sustained %d spans/s at GOMAXPROCS=1 (stopped by %s; generator used %.2f cores)", c.Name, tp.Sustained, tp.StoppedBy, tp.GeneratorCPUShare)
		out.Configs = append(out.Configs, tp)
	}
	out.Machine.Finish()
	SaveResult(t, "throughput", out)
	if slices.ContainsFunc(out.Configs, func(tp Throughput) bool { return tp.Sustained == 0 }) {
		t.Logf("a configuration sustained not even the lowest rate: the machine is too busy for this figure")
	}
}

// TestBaselineCorrect is the CI-sized check of the baseline configurations:
// transform and attributes must rename exactly like governance keep mode,
// redaction must drop exactly the unknown keys, on the same workload. Without
// it, a faster baseline could be one that does less.
func TestBaselineCorrect(t *testing.T) {
	base := Baseline(t)
	w := testWorkload(t, Mix{DeprecatedPool: envInt("TESTBENCH_POOL", 24)})
	for _, c := range []Config{Bare("baseline"), TransformConfig(w), AttributesConfig(w), RedactionConfig(w)} {
		t.Run(c.Name, func(t *testing.T) {
			res := Run{
				Dist: base, Config: c, Workload: w, Signal: Traces,
				Load:     LoadOptions{Rate: 5000, Protocols: []e2e.Protocol{e2e.GRPC, e2e.HTTP}},
				Duration: 2 * time.Second,
			}.Execute(t)
			t.Log(res)
			Check(t, res)
		})
	}
}

// TestLoadProfile takes a CPU profile of the collector running governance
// (keep) at 50k spans/s through the distribution's pprof extension, and
// writes it to $TESTBENCH_RESULTS/governance_keep.pprof: where the
// processor's time goes inside the real process, cache misses included,
// which a microbenchmark walking a hot batch does not show.
func TestLoadProfile(t *testing.T) {
	dir := os.Getenv(ResultsDirEnv)
	if dir == "" {
		dir = t.TempDir()
	}
	w := testWorkload(t, Mix{DeprecatedPool: envInt("TESTBENCH_POOL", 24)})
	cfg := GovernanceConfig(false)
	backend := StartBackend(t, w, cfg.Expect)
	ports := FreePorts(t)
	pprofPort := e2e.FreePort(t)
	y := cfg.YAML(ports, OTLPExporter(backend.Endpoint), Traces)
	y = strings.Replace(y, "extensions:\n  health_check:", "extensions:\n  pprof:\n    endpoint: 127.0.0.1:"+strconv.Itoa(pprofPort)+"\n  health_check:", 1)
	y = strings.Replace(y, "extensions: [health_check]", "extensions: [health_check, pprof]", 1)
	col := Governance(t).Start(t, y, ports, e2e.Options{})
	client, err := e2e.NewClient(ports.GRPCEndpoint(), "")
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	defer client.Close()
	gen := NewGenerator(w, client, LoadOptions{Signal: Traces, Rate: 50000, BatchSize: 200, Workers: 8})
	done := make(chan LoadStats)
	go func() { done <- gen.Run(context.Background(), 14*time.Second) }()
	time.Sleep(2 * time.Second)
	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(pprofPort) + "/debug/pprof/profile?seconds=10") //nolint:gosec // loopback
	if err != nil {
		t.Fatalf("profile: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("profile: %s %v", resp.Status, err)
	}
	st := <-done
	if !backend.WaitDrained(Traces, st.Sent, time.Minute, 300*time.Millisecond) {
		t.Errorf("backend received %d of %d spans", backend.Received(Traces), st.Sent)
	}
	if rep := backend.Verify(Traces, gen); !rep.OK() {
		t.Error(rep)
	}
	path := filepath.Join(dir, "governance_keep.pprof")
	if err := os.MkdirAll(dir, 0o750); err != nil { //nolint:gosec // the operator names the results directory
		t.Fatalf("results dir: %v", err)
	}
	if err := os.WriteFile(path, body, 0o600); err != nil { //nolint:gosec // the operator names the results directory
		t.Fatalf("write profile: %v", err)
	}
	t.Logf("wrote %s (%d spans over 14s at 50k/s, profiled 10s)", path, st.Sent)
	col.Stop()
}
