//go:build loadtest

package testbench

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Side by side (benchmarks/sidebyside.sh): whole-process collector CPU per
// span at full speed, for our bare pipeline, ours with governance, and the
// baseline distribution's bare pipeline, transform and attributes doing the
// same renames. Every round runs every configuration once per workload and
// batch size, in a rotating order; each figure is the median over rounds of
// the per-round difference to the bare pipeline of the same distribution in
// the same round. A second bare pipeline of ours gives the noise floor.
// Knobs (environment), besides TESTBENCH_POOL and TESTBENCH_RESULTS:
//   SIDEBYSIDE_ROUNDS    rounds (default 7; fewer than 7 is refused)
//   SIDEBYSIDE_DURATION  measured load per run (default 5s)
//   SIDEBYSIDE_BATCHES   spans per request (default 10,100,512)
//   SIDEBYSIDE_GOVERNANCE_EXTRA  YAML added under the governance processor
//                        for a further configuration "governance-extra"
//                        (unset: none). The default configuration has the
//                        signal checks on; "    findings:\n      enabled: false"
//                        measures governance without them.

// SideBySide is the results set of TestSideBySide.
type SideBySide struct {
	Machine  Machine         `json:"machine"`
	Rounds   int             `json:"rounds"`
	Duration time.Duration   `json:"duration_ns"`
	Batches  []int           `json:"batches"`
	Runs     []SideBySideRun `json:"runs"`
	Rows     []SideBySideRow `json:"rows"`
	Failures []string        `json:"failures,omitempty"`
}

// SideBySideRun is one measured run.
type SideBySideRun struct {
	Workload string `json:"workload"`
	Batch    int    `json:"batch"`
	Result
}

// SideBySideRow is one workload and batch size: per configuration, the
// median over rounds of its CPU per span and of its paired difference to
// the bare pipeline of its distribution.
type SideBySideRow struct {
	Workload string `json:"workload"`
	Batch    int    `json:"batch"`
	// MedianUS: median CPU µs per span; OverheadUS: median of the per-round
	// differences to the bare pipeline of the same distribution.
	MedianUS   map[string]float64 `json:"median_us"`
	OverheadUS map[string]float64 `json:"overhead_us"`
	// NoiseUS is bare-governance-b minus bare-governance: its median, and
	// its smallest and largest value over the rounds.
	NoiseUS    [3]float64 `json:"noise_us"`
	Rounds     int        `json:"rounds"`
	Incomplete bool       `json:"incomplete,omitempty"`
}

func sideBySideConfigs(w *Workload) []Config {
	bareB := Bare("governance")
	bareB.Name += "-b"
	configs := []Config{Bare("governance"), bareB, GovernanceConfig(false), Bare("baseline"), TransformConfig(w), AttributesConfig(w)}
	if extra := os.Getenv("SIDEBYSIDE_GOVERNANCE_EXTRA"); extra != "" {
		c := GovernanceConfig(false)
		c.Name = "governance-extra"
		c.Processors = strings.Replace(c.Processors, "  governance:\n", "  governance:\n"+extra+"\n", 1)
		configs = append(configs, c)
	}
	return configs
}

func TestSideBySide(t *testing.T) {
	rounds := envInt("SIDEBYSIDE_ROUNDS", 7)
	if rounds < 7 {
		t.Fatalf("SIDEBYSIDE_ROUNDS=%d: medians of paired differences need at least 7 rounds", rounds)
	}
	out := SideBySide{
		Machine: DescribeMachine(), Rounds: rounds,
		Duration: envDuration("SIDEBYSIDE_DURATION", 5*time.Second),
		Batches:  envRates("SIDEBYSIDE_BATCHES", []int{10, 100, 512}),
	}
	pool := envInt("TESTBENCH_POOL", 24)
	workloads := []struct {
		name string
		w    *Workload
	}{
		// 13 attributes per span, 10 of them deprecated, all known.
		{name: "all-known", w: testWorkload(t, Mix{AttrsPerItem: 13, DeprecatedPct: 77, DeprecatedPool: pool})},
		// The testbench default: 25% deprecated, 25% unknown, 10% template.
		{name: "mixed", w: testWorkload(t, Mix{DeprecatedPool: pool})},
	}
	dists := map[string]Distribution{"governance": Governance(t), "baseline": Baseline(t)}
	for round := range rounds {
		for _, wl := range workloads {
			configs := sideBySideConfigs(wl.w)
			for _, batch := range out.Batches {
				for i := range configs {
					c := configs[(i+round)%len(configs)]
					t.Run(fmt.Sprintf("round%d/%s/batch%d/%s", round, wl.name, batch, c.Name), func(t *testing.T) {
						res := Run{
							Dist: dists[c.Distribution], Config: c, Workload: wl.w, Signal: Traces,
							Load:     LoadOptions{BatchSize: batch, Workers: 4},
							Warmup:   time.Second,
							Duration: out.Duration,
						}.Execute(t)
						res.Round = round
						t.Log(res)
						if !res.OK() {
							out.Failures = append(out.Failures, fmt.Sprintf("%s %s batch %d round %d: %s %v", wl.name, c.Name, batch, round, res.Report, res.Violations))
						}
						out.Runs = append(out.Runs, SideBySideRun{Workload: wl.name, Batch: batch, Result: res})
						Check(t, res)
					})
				}
			}
		}
	}
	out.Machine.Finish()
	for _, wl := range workloads {
		for _, batch := range out.Batches {
			out.Rows = append(out.Rows, sideBySideRow(out.Runs, wl.name, batch, sideBySideConfigs(wl.w)))
		}
	}
	SaveResult(t, "sidebyside", out)
	md := sideBySideMarkdown(out)
	t.Log("\n" + md)
	if dir := os.Getenv(ResultsDirEnv); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, "sidebyside.md"), []byte(md), 0o644); err != nil { //nolint:gosec // results are for reading
			t.Errorf("write sidebyside.md: %v", err)
		}
	}
}

// bareOf names the bare pipeline a configuration is compared with.
func bareOf(c Config) string { return "bare-" + c.Distribution }

func sideBySideRow(runs []SideBySideRun, workload string, batch int, configs []Config) SideBySideRow {
	row := SideBySideRow{Workload: workload, Batch: batch, MedianUS: map[string]float64{}, OverheadUS: map[string]float64{}}
	// cpu[config][round]
	cpu := map[string]map[int]float64{}
	for _, r := range runs {
		if r.Workload != workload || r.Batch != batch || !r.OK() {
			continue
		}
		if cpu[r.Config] == nil {
			cpu[r.Config] = map[int]float64{}
		}
		cpu[r.Config][r.Round] = r.CPUPerItemUS
		row.Rounds = max(row.Rounds, r.Round+1)
	}
	for _, c := range configs {
		var all, diffs []float64
		for round, v := range cpu[c.Name] {
			all = append(all, v)
			if b, ok := cpu[bareOf(c)][round]; ok && c.Name != bareOf(c) {
				diffs = append(diffs, v-b)
			}
		}
		if len(all) < row.Rounds {
			row.Incomplete = true
		}
		row.MedianUS[c.Name] = median(all)
		if c.Name != bareOf(c) {
			row.OverheadUS[c.Name] = median(diffs)
		}
	}
	if noise := row.OverheadUS["bare-governance-b"]; !math.IsNaN(noise) {
		var diffs []float64
		for round, v := range cpu["bare-governance-b"] {
			if b, ok := cpu["bare-governance"][round]; ok {
				diffs = append(diffs, v-b)
			}
		}
		if len(diffs) > 0 {
			row.NoiseUS = [3]float64{noise, slices.Min(diffs), slices.Max(diffs)}
		}
	}
	return row
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func sideBySideMarkdown(s SideBySide) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Side by side, %d rounds of %s per configuration, full speed (no rate limit), OTLP gRPC in, OTLP out to the mock backend, 4 client workers; %s, %d cores, load %s before, %s after.\n\n",
		s.Rounds, s.Duration, s.Machine.CPU, s.Machine.Cores, s.Machine.LoadBefore, s.Machine.LoadAfter)
	b.WriteString("| workload | spans/request | bare µs/span | governance overhead µs/span | governance/bare | transform overhead | attributes overhead | transform/governance | attributes/governance | noise floor (bare-b − bare: median [min, max]) |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, r := range s.Rows {
		g, tr, at := r.OverheadUS["governance-keep"], r.OverheadUS["transform"], r.OverheadUS["attributes"]
		bare := r.MedianUS["bare-governance"]
		note := ""
		if r.Incomplete {
			note = " (some runs failed)"
		}
		fmt.Fprintf(&b, "| %s%s | %d | %.3f | %.3f | %+.1f%% | %.3f | %.3f | %.1f× | %.1f× | %+.3f [%+.3f, %+.3f] |\n",
			r.Workload, note, r.Batch, bare, g, 100*g/bare, tr, at, tr/g, at/g, r.NoiseUS[0], r.NoiseUS[1], r.NoiseUS[2])
	}
	if len(s.Failures) > 0 {
		b.WriteString("\nFailed runs (excluded):\n")
		for _, f := range s.Failures {
			b.WriteString("- " + f + "\n")
		}
	}
	return b.String()
}
