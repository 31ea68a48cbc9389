// Command report renders a testbench results set (the JSON files that `make
// bench` writes into benchmarks/results) as a Markdown table, results.md, and
// a PNG chart of collector CPU per item per configuration, cpu_per_item.png.
//
//	go run . -results ../results
//
// It lives in its own module so that the distribution does not depend on the
// plotting library.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The JSON shapes below mirror testbench's (testbench/loadtest_test.go,
// scenario.go, startup.go, results.go); only the fields read are declared.

type machine struct {
	CPU        string    `json:"cpu"`
	Cores      int       `json:"cores"`
	MemTotal   string    `json:"mem_total"`
	Kernel     string    `json:"kernel"`
	Go         string    `json:"go"`
	Commit     string    `json:"commit"`
	LoadBefore string    `json:"loadavg_before"`
	LoadAfter  string    `json:"loadavg_after"`
	Start      time.Time `json:"start"`
	End        time.Time `json:"end"`
}

type report struct {
	Lost       uint64 `json:"Lost"`
	Duplicates uint64 `json:"Duplicates"`
	Invalid    uint64 `json:"Invalid"`
	Sent       uint64 `json:"Sent"`
	Received   uint64 `json:"Received"`
}

type run struct {
	Config       string   `json:"config"`
	Distribution string   `json:"distribution"`
	TargetRate   int      `json:"target_rate"`
	Round        int      `json:"round"`
	Items        uint64   `json:"items"`
	AchievedRate float64  `json:"achieved_rate"`
	CPUPerItemUS float64  `json:"cpu_per_item_us"`
	CPUShare     float64  `json:"cpu_share"`
	WaitShare    float64  `json:"wait_share"`
	PeakRSSMiB   float64  `json:"peak_rss_mib"`
	Report       report   `json:"report"`
	Violations   []string `json:"violations"`
}

type config struct {
	Name         string   `json:"Name"`
	Distribution string   `json:"Distribution"`
	Pipeline     []string `json:"Pipeline"`
}

type comparison struct {
	Scenario  string   `json:"scenario"`
	Machine   machine  `json:"machine"`
	Renames   int      `json:"renames"`
	Rounds    int      `json:"rounds"`
	Duration  int64    `json:"duration_ns"`
	Warmup    int64    `json:"warmup_ns"`
	Rates     []int    `json:"rates"`
	BatchSize int      `json:"batch_size"`
	Workers   int      `json:"workers"`
	Configs   []config `json:"configs"`
	Runs      []run    `json:"runs"`
	Failures  []string `json:"failures"`
	Behind    []string `json:"behind"`
	Mix       struct {
		AttrsPerItem  int `json:"AttrsPerItem"`
		DeprecatedPct int `json:"DeprecatedPct"`
		UnknownPct    int `json:"UnknownPct"`
		TemplatePct   int `json:"TemplatePct"`
		Services      int `json:"Services"`
		Profiles      int `json:"Profiles"`
	} `json:"mix"`
}

type throughput struct {
	Machine machine `json:"machine"`
	Step    int64   `json:"step_ns"`
	Configs []struct {
		Config            string  `json:"config"`
		Sustained         int     `json:"sustained"`
		GeneratorCPUShare float64 `json:"generator_cpu_share"`
		StoppedBy         string  `json:"stopped_by"`
		Steps             []run   `json:"steps"`
	} `json:"configs"`
}

type startup struct {
	Config        string  `json:"config"`
	Startups      []int64 `json:"startups_ns"`
	StartupMedian int64   `json:"startup_median_ns"`
	Idle          int64   `json:"idle_ns"`
	IdleRSSMiB    float64 `json:"idle_rss_mib"`
	IdlePeakMiB   float64 `json:"idle_peak_rss_mib"`
	IdleAnonMiB   float64 `json:"idle_rss_anon_mib"`
	IdleFileMiB   float64 `json:"idle_rss_file_mib"`
	IdleCPUShare  float64 `json:"idle_cpu_share"`
	PairPSSMiB    float64 `json:"idle_pair_pss_mib"` // results before side_by_side
	SideBySide    []struct {
		AnonMiB float64 `json:"rss_anon_mib"`
		PSSMiB  float64 `json:"pss_mib"`
	} `json:"side_by_side"`
}

func main() {
	dir := flag.String("results", "../results", "results directory (input and output)")
	flag.Parse()
	if err := render(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

func readJSON(path string, v any) (bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	return true, nil
}

func render(dir string) error {
	var cmp comparison
	ok, err := readJSON(filepath.Join(dir, "comparison.json"), &cmp)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("no comparison.json in %s: run `make bench` first", dir)
	}
	var md strings.Builder
	// summary.md is the hand-written account of what the figures mean;
	// linerate.md is written by benchmarks/linerate.sh (TestLineRate).
	for _, f := range []string{"summary.md", "linerate.md"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if len(b) > 0 {
			md.Write(b)
			md.WriteString("\n")
		}
	}
	if err := writeSoak(&md, dir); err != nil {
		return err
	}
	md.WriteString("# Rate-limited testbench scenarios (`make bench`)\n\n")
	writeHeader(&md, cmp)
	md.WriteString("## Scenario 1: spans at fixed rates\n\n")
	stats := summarize(cmp)
	micro, err := readMicro(filepath.Join(dir, "micro.txt"))
	if err != nil {
		return err
	}
	writeComparison(&md, cmp, stats)
	writeRatios(&md, cmp, stats, "## Ratios and goals")
	writeHybrid(&md, cmp, stats, micro)

	var logs comparison
	if ok, err := readJSON(filepath.Join(dir, "logs.json"), &logs); err != nil {
		return err
	} else if ok {
		md.WriteString("\n## Scenario 4: logs at a fixed rate\n\n")
		writeComparison(&md, logs, summarize(logs))
	}
	var all comparison
	if ok, err := readJSON(filepath.Join(dir, "comparison_all_renames.json"), &all); err != nil {
		return err
	} else if ok {
		fmt.Fprintf(&md, "\n## Supplement: every rename in the registry\n\nThe same comparison with the workload drawing from all %d usable renames, so that transform and attributes list all of them, as they must to do what governance does. A shorter session (%d rounds of %s, %s – %s UTC, load average before %s, after %s): indicative, noisier than the main table.\n\n",
			all.Renames, all.Rounds, time.Duration(all.Duration), all.Machine.Start.Format("15:04"), all.Machine.End.Format("15:04"), all.Machine.LoadBefore, all.Machine.LoadAfter)
		allStats := summarize(all)
		writeComparison(&md, all, allStats)
		writeRatios(&md, all, allStats, "### Ratios, every rename")
	}
	var tp throughput
	if ok, err := readJSON(filepath.Join(dir, "throughput.json"), &tp); err != nil {
		return err
	} else if ok {
		writeThroughput(&md, tp)
	}
	for _, f := range []struct{ file, title string }{
		{"prometheus.json", "Scenario 3: metrics through remote write into a real Prometheus"},
		{"memory_limiter.json", "Scenario 5: memory limiter under overload"},
	} {
		var v map[string]any
		if ok, err := readJSON(filepath.Join(dir, f.file), &v); err != nil {
			return err
		} else if ok {
			fmt.Fprintf(&md, "## %s\n\n| | |\n|---|---|\n", f.title)
			keys := slices.Sorted(maps.Keys(v))
			for _, k := range keys {
				fmt.Fprintf(&md, "| %s | %v |\n", strings.ReplaceAll(k, "_", " "), v[k])
			}
			md.WriteString("\n")
		}
	}
	var st startup
	if ok, err := readJSON(filepath.Join(dir, "startup.json"), &st); err != nil {
		return err
	} else if ok {
		writeStartup(&md, st)
	}
	if err := writeProfile(&md, filepath.Join(dir, "profile.txt")); err != nil {
		return err
	}
	writeMicro(&md, micro)
	if err := chart(cmp, stats, filepath.Join(dir, "cpu_per_item.png")); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "results.md"), []byte(md.String()), 0o644) //nolint:gosec // a report
}

// spread is a median with the smallest and largest value of a sample.
type spread struct {
	Median, Min, Max float64
	N                int
}

func spreadOf(v []float64) spread {
	if len(v) == 0 {
		return spread{Median: math.NaN(), Min: math.NaN(), Max: math.NaN()}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return spread{Median: m, Min: s[0], Max: s[len(s)-1], N: len(s)}
}

func (s spread) fmt(prec int) string {
	if math.IsNaN(s.Median) {
		return "n/a"
	}
	if s.N == 1 {
		return strconv.FormatFloat(s.Median, 'f', prec, 64)
	}
	return fmt.Sprintf("%s (%s – %s)", strconv.FormatFloat(s.Median, 'f', prec, 64),
		strconv.FormatFloat(s.Min, 'f', prec, 64), strconv.FormatFloat(s.Max, 'f', prec, 64))
}

type key struct {
	config string
	rate   int
}

type configStats struct {
	CPU, RSS, Achieved, Cores, Wait spread
	// Overhead is the paired per-round difference to the bare pipeline of
	// the same distribution, in µs per item.
	Overhead spread
	Runs     int
	Failed   int
}

func bareOf(c config) string { return "bare-" + c.Distribution }

func summarize(cmp comparison) map[key]*configStats {
	byRound := map[key]map[int]run{}
	for _, r := range cmp.Runs {
		k := key{r.Config, r.TargetRate}
		if byRound[k] == nil {
			byRound[k] = map[int]run{}
		}
		byRound[k][r.Round] = r
	}
	out := map[key]*configStats{}
	for _, c := range cmp.Configs {
		for _, rate := range cmp.Rates {
			k := key{c.Name, rate}
			var cpu, rss, ach, cores, wait, over []float64
			cs := &configStats{}
			for round, r := range byRound[k] {
				cs.Runs++
				if r.Report.Lost+r.Report.Duplicates+r.Report.Invalid > 0 || len(r.Violations) > 0 {
					cs.Failed++
				}
				cpu = append(cpu, r.CPUPerItemUS)
				rss = append(rss, r.PeakRSSMiB)
				ach = append(ach, r.AchievedRate)
				cores = append(cores, r.CPUShare)
				wait = append(wait, r.WaitShare)
				if b, ok := byRound[key{bareOf(c), rate}][round]; ok {
					over = append(over, r.CPUPerItemUS-b.CPUPerItemUS)
				}
			}
			cs.CPU, cs.RSS, cs.Achieved, cs.Cores, cs.Wait, cs.Overhead = spreadOf(cpu), spreadOf(rss), spreadOf(ach), spreadOf(cores), spreadOf(wait), spreadOf(over)
			out[k] = cs
		}
	}
	return out
}

func writeHeader(md *strings.Builder, cmp comparison) {
	m := cmp.Machine
	md.WriteString("Generated by `make bench` (testbench scenarios + `benchmarks/report`). Each figure is the median over interleaved rounds, with the smallest and largest value in parentheses.\n\n")
	md.WriteString("## Machine\n\n| | |\n|---|---|\n")
	fmt.Fprintf(md, "| CPU | %s, %d cores visible |\n| memory | %s |\n| kernel | %s |\n| Go | %s |\n| commit | `%s` |\n",
		m.CPU, m.Cores, m.MemTotal, m.Kernel, m.Go, m.Commit)
	fmt.Fprintf(md, "| session | %s – %s UTC |\n| load average (1, 5, 15 min) | before %s, after %s |\n\n",
		m.Start.Format("2006-01-02 15:04"), m.End.Format("15:04"), m.LoadBefore, m.LoadAfter)
	fmt.Fprintf(md, "Workload: spans of %d attributes (%d%% deprecated keys drawn from %d real registry renames, including the context-dependent net.peer.*; %d%% unknown keys, one of them on the allow list; %d%% template keys; the rest current registry keys), plus a per-item `url.path`; 5 span kinds; %d services; %d attribute profiles. Load: OTLP/gRPC, %d spans per request, %d synchronous workers, %s warm-up then %s measured per run, %d rounds, configurations interleaved in rotating order. Every run is validated item by item at the mock backend (nothing lost, nothing duplicated, every value as expected).\n\n",
		cmp.Mix.AttrsPerItem, cmp.Mix.DeprecatedPct, cmp.Renames, cmp.Mix.UnknownPct, cmp.Mix.TemplatePct,
		cmp.Mix.Services, cmp.Mix.Profiles, cmp.BatchSize, cmp.Workers,
		time.Duration(cmp.Warmup), time.Duration(cmp.Duration), cmp.Rounds)
	md.WriteString("CPU is the collector process's user+system time (`/proc/<pid>/stat`) over the measured window, drain included, divided by the spans sent in it. Peak RSS is `VmHWM`. *Threads waiting for a CPU* is the collector's runqueue wait (`/proc/<pid>/task/*/schedstat`) per second: the disturbance from everything else on the machine, the load generator and mock backend included. The overhead of a processor is its CPU per span minus that of the bare pipeline (receiver, batch, exporter) of the same distribution, paired round by round, so the version difference between the distributions (core v0.165.0 vs v0.161.0) cancels out.\n\n")
}

func writeComparison(md *strings.Builder, cmp comparison, stats map[key]*configStats) {
	for _, rate := range cmp.Rates {
		fmt.Fprintf(md, "### %d items/s (%s)\n\n", rate, cmp.Scenario)
		md.WriteString("| configuration | distribution | CPU µs/item | overhead vs bare µs/item | cores used | threads waiting for a CPU | peak RSS MiB | achieved items/s | runs ok |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, c := range cmp.Configs {
			s := stats[key{c.Name, rate}]
			if s == nil || s.Runs == 0 {
				continue
			}
			over := s.Overhead.fmt(2)
			if strings.HasPrefix(c.Name, "bare-") {
				over = "—"
			}
			fmt.Fprintf(md, "| %s | %s | %s | %s | %s | %s | %s | %s | %d/%d |\n", c.Name, c.Distribution,
				s.CPU.fmt(2), over, s.Cores.fmt(2), s.Wait.fmt(2), s.RSS.fmt(1), s.Achieved.fmt(0), s.Runs-s.Failed, s.Runs)
		}
		md.WriteString("\n")
	}
	if len(cmp.Failures) > 0 {
		md.WriteString("Runs that failed validation or a ceiling:\n\n")
		for _, f := range cmp.Failures {
			fmt.Fprintf(md, "- %s\n", strings.ReplaceAll(f, "\n", " "))
		}
		md.WriteString("\n")
	}
	if len(cmp.Behind) > 0 {
		md.WriteString("Runs whose load fell behind the target rate (every item was still sent, validated and counted; the machine could not carry the generator and the collector at that rate):\n\n")
		for _, f := range cmp.Behind {
			fmt.Fprintf(md, "- %s\n", f)
		}
		md.WriteString("\n")
	}
}

func ratio(num, den float64) string {
	if den <= 0 || num <= 0 {
		return "n/a (overhead at or below the noise floor)"
	}
	return fmt.Sprintf("%.1f×", num/den)
}

func writeRatios(md *strings.Builder, cmp comparison, stats map[key]*configStats, heading string) {
	md.WriteString(heading + "\n\n")
	md.WriteString("From the medians of the paired overheads above. Goals: governance overhead ≤ 3% of the bare pipeline, ≥ 10× cheaper than transform, ≥ 3× cheaper than attributes.\n\n")
	md.WriteString("| rate | governance mode | overhead µs/item | % of bare | transform overhead / governance | attributes overhead / governance | redaction overhead / governance |\n|---|---|---|---|---|---|---|\n")
	for _, rate := range cmp.Rates {
		bare := stats[key{"bare-governance", rate}]
		tr, at, re := stats[key{"transform", rate}], stats[key{"attributes", rate}], stats[key{"redaction", rate}]
		for _, mode := range []string{"governance-keep", "governance-drop"} {
			g := stats[key{mode, rate}]
			if g == nil || bare == nil || tr == nil || at == nil || re == nil || g.Runs == 0 {
				continue
			}
			pct := 100 * g.Overhead.Median / bare.CPU.Median
			pctRange := fmt.Sprintf("%.1f%% (%.1f%% – %.1f%%)", pct, 100*g.Overhead.Min/bare.CPU.Median, 100*g.Overhead.Max/bare.CPU.Median)
			fmt.Fprintf(md, "| %d | %s | %s | %s | %s | %s | %s |\n", rate, strings.TrimPrefix(mode, "governance-"),
				g.Overhead.fmt(2), pctRange, ratio(tr.Overhead.Median, g.Overhead.Median),
				ratio(at.Overhead.Median, g.Overhead.Median), ratio(re.Overhead.Median, g.Overhead.Median))
		}
	}
	md.WriteString("\nKeep mode does what transform and attributes do here (rename, keep the rest); drop mode also does what redaction does (drop unknown keys), so its fair comparison is the sum of the two.\n\n")
}

func writeThroughput(md *strings.Builder, tp throughput) {
	md.WriteString("## Scenario 2: maximum sustained throughput, collector at GOMAXPROCS=1\n\n")
	fmt.Fprintf(md, "Rates stepped up (%s per step, 100 spans per request, 8 workers, fresh collector each step); a step passes when the load reached 95%% of the rate, nothing was lost or changed, and the backlog drained within 2 s.\n\n", time.Duration(tp.Step))
	md.WriteString("| configuration | sustained spans/s | CPU µs/span at that rate | stopped by | test process cores at the last step |\n|---|---|---|---|---|\n")
	for _, c := range tp.Configs {
		cpu := "n/a"
		for _, s := range c.Steps {
			if s.TargetRate == c.Sustained {
				cpu = fmt.Sprintf("%.2f", s.CPUPerItemUS)
			}
		}
		fmt.Fprintf(md, "| %s | %d | %s | %s | %.2f |\n", c.Config, c.Sustained, cpu, strings.ReplaceAll(c.StoppedBy, "\n", " "), c.GeneratorCPUShare)
	}
	md.WriteString("\n")
}

func writeStartup(md *strings.Builder, st startup) {
	md.WriteString("## Scenario 6: start-up and idle footprint (sidecar configuration)\n\n")
	var ms []float64
	for _, d := range st.Startups {
		ms = append(ms, float64(d)/1e6)
	}
	fmt.Fprintf(md, "| | |\n|---|---|\n| start-up, process start → health 200 on its port | %s ms over %d starts |\n| idle RSS after %s | %.1f MiB (peak %.1f MiB) |\n", spreadOf(ms).fmt(0), len(ms), time.Duration(st.Idle), st.IdleRSSMiB, st.IdlePeakMiB)
	// Results written before the split have neither figure.
	if st.IdleAnonMiB > 0 || st.IdleFileMiB > 0 {
		fmt.Fprintf(md, "| of it anonymous (the collector's own) | %.1f MiB |\n| of it pages of the binary (shared through the page cache) | %.1f MiB |\n", st.IdleAnonMiB, st.IdleFileMiB)
	}
	if n := len(st.SideBySide); n > 0 {
		var anon, pss []string
		for _, f := range st.SideBySide {
			anon, pss = append(anon, fmt.Sprintf("%.1f", f.AnonMiB)), append(pss, fmt.Sprintf("%.1f", f.PSSMiB))
		}
		fmt.Fprintf(md, "| %d idle side by side: anonymous, each | %s MiB |\n| %d idle side by side: PSS, each (what each sidecar costs the node) | %s MiB |\n", n, strings.Join(anon, ", "), n, strings.Join(pss, ", "))
	}
	if st.PairPSSMiB > 0 {
		fmt.Fprintf(md, "| PSS beside a second collector (what each of two sidecars costs the node) | %.1f MiB |\n", st.PairPSSMiB)
	}
	fmt.Fprintf(md, "| idle CPU | %.4f cores |\n\n", st.IdleCPUShare)
}

// microSet is parsed `go test -bench` output.
type microSet struct {
	cpu     string
	order   []string
	benches map[string]*bench
}

type bench struct {
	pkg   string
	name  string
	units map[string][]float64
}

// readMicro parses `go test -bench` output: per benchmark and unit, every
// value over the -count runs. A missing file is an empty set.
func readMicro(path string) (microSet, error) {
	ms := microSet{benches: map[string]*bench{}}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return ms, nil
	}
	if err != nil {
		return ms, err
	}
	defer f.Close()
	var pkg string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = p
			continue
		}
		if c, ok := strings.CutPrefix(line, "cpu: "); ok {
			ms.cpu = strings.TrimSpace(c)
			continue
		}
		if !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 4 {
			continue
		}
		name := fields[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i]
		}
		id := pkg + " " + name
		b := ms.benches[id]
		if b == nil {
			b = &bench{pkg: pkg, name: name, units: map[string][]float64{}}
			ms.benches[id] = b
			ms.order = append(ms.order, id)
		}
		for i := 2; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				continue
			}
			b.units[fields[i+1]] = append(b.units[fields[i+1]], v)
		}
	}
	return ms, sc.Err()
}

// processorNsPerSpan is the largest median ns/span of the processor's
// BenchmarkTraces mixes: its in-process cost per span, conservatively.
func (ms microSet) processorNsPerSpan() (ns float64, name string, allocs float64) {
	best := math.NaN()
	for _, id := range ms.order {
		b := ms.benches[id]
		if !strings.HasPrefix(b.name, "BenchmarkTraces/") {
			continue
		}
		if v, ok := b.units["ns/span"]; ok {
			if m := spreadOf(v).Median; math.IsNaN(best) || m > best {
				best, name = m, b.name
				allocs = spreadOf(b.units["allocs/op"]).Median
			}
		}
	}
	return best, name, allocs
}

// writeHybrid sets the processor's in-process cost against the measured
// whole-process figures: a second estimate, far less noisy than the
// difference of two noisy process measurements.
func writeHybrid(md *strings.Builder, cmp comparison, stats map[key]*configStats, ms microSet) {
	ns, name, allocs := ms.processorNsPerSpan()
	if math.IsNaN(ns) {
		return
	}
	us := ns / 1000
	md.WriteString("### Second estimate: in-process processor cost against the measured pipelines\n\n")
	fmt.Fprintf(md, "The whole-process overhead of governance is the difference of two process measurements on a shared machine, so its noise is of the order of the effect. The processor's own cost is measured in-process by its microbenchmark: `%s`, the most expensive attribute mix, %.0f ns/span of wall time (an upper bound of its CPU time on a busy machine), %.0f allocations per 100-span batch. Set against the measured pipelines (optimistic: the microbenchmark's batch is hot in cache; the profile below shows the processor's cost inside the real process):\n\n", name, ns, allocs)
	md.WriteString("| rate | governance µs/span (in-process) | % of bare pipeline | transform overhead / governance | attributes overhead / governance |\n|---|---|---|---|---|\n")
	for _, rate := range cmp.Rates {
		bare, tr, at := stats[key{"bare-governance", rate}], stats[key{"transform", rate}], stats[key{"attributes", rate}]
		if bare == nil || tr == nil || at == nil || bare.Runs == 0 {
			continue
		}
		fmt.Fprintf(md, "| %d | %.2f | %.1f%% | %s | %s |\n", rate, us, 100*us/bare.CPU.Median,
			ratio(tr.Overhead.Median, us), ratio(at.Overhead.Median, us))
	}
	md.WriteString("\n")
}

// writeProfile quotes the governance and registry lines of the in-process
// CPU profile (`go tool pprof -top -cum`).
func writeProfile(md *strings.Builder, path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	md.WriteString("## Where governance's time goes inside the collector\n\n")
	md.WriteString("CPU profile of the collector running governance (keep) at 50k spans/s for 10 s, taken through the distribution's pprof extension (`TestLoadProfile`, raw profile `governance_keep.pprof`). Cumulative time of the processor and the registry, as a share of all the collector's CPU; multiply by the collector's CPU per span above to get the processor's cost per span in the real process. The microbenchmarks walk a batch that is hot in cache; here every batch arrives fresh from the network, so each attribute key is a cache miss for whoever touches it first.\n\n```\n")
	for line := range strings.SplitSeq(string(b), "\n") {
		if strings.HasPrefix(line, "Duration:") || strings.HasPrefix(line, "      flat") ||
			strings.Contains(line, "governanceprocessor.") || strings.Contains(line, "otelcol-governance/registry.") {
			md.WriteString(strings.ReplaceAll(line, "github.com/otelgov/otelcol-governance/", "") + "\n")
		}
	}
	md.WriteString("```\n\n")
	return nil
}

// writeMicro summarizes the microbenchmarks: median (min – max) per unit.
func writeMicro(md *strings.Builder, ms microSet) {
	if len(ms.order) == 0 {
		return
	}
	md.WriteString("## Microbenchmarks of the hot path\n\n")
	fmt.Fprintf(md, "`go test -bench -benchmem` of the processor and registry packages (raw output, benchstat input: `micro.txt`; CPU %s). Median (min – max) over the runs.\n\n", ms.cpu)
	md.WriteString("| package | benchmark | ns/op | per item | per attribute | B/op | allocs/op |\n|---|---|---|---|---|---|---|\n")
	for _, id := range ms.order {
		b := ms.benches[id]
		per := func(units ...string) string {
			for _, u := range units {
				if v, ok := b.units[u]; ok {
					return spreadOf(v).fmt(1) + " " + u
				}
			}
			return ""
		}
		fmt.Fprintf(md, "| %s | %s | %s | %s | %s | %s | %s |\n", filepath.Base(b.pkg), b.name,
			per("ns/op"), per("ns/span", "ns/datapoint", "ns/log", "ns/item"), per("cpu-ns/attribute", "ns/attribute", "cpu-ns/rename"),
			per("B/op"), per("allocs/op"))
	}
	md.WriteString("\n")
}
