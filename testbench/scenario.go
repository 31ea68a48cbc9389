package testbench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// Run is one measured run, the contrib testbed's method: start the backend,
// start the collector as a child process, generate load at a fixed rate, stop
// the load and wait until sent == received, then validate with CPU and RAM
// ceilings.
type Run struct {
	Dist     Distribution
	Config   Config
	Workload *Workload
	Signal   Signal
	Load     LoadOptions
	// Warmup is load sent before the measured window (validated too).
	Warmup time.Duration
	// Duration of the measured load.
	Duration time.Duration
	// Env is added to the collector's environment ("GOMAXPROCS=1").
	Env []string
	// DrainTimeout bounds the wait for sent == received. Default 60s.
	DrainTimeout time.Duration
	// Ceilings; zero means none.
	MaxCPUPerItem time.Duration
	MaxPeakRSS    uint64
}

// Result is what one Run measured.
type Result struct {
	Config       string  `json:"config"`
	Distribution string  `json:"distribution"`
	Signal       Signal  `json:"signal"`
	TargetRate   int     `json:"target_rate"`
	Round        int     `json:"round"`
	Items        uint64  `json:"items"` // sent in the measured window
	AchievedRate float64 `json:"achieved_rate"`
	// CPUPerItemUS is the collector's user+system CPU over the measured
	// window, drain included, per item sent in it, in microseconds.
	CPUPerItemUS float64 `json:"cpu_per_item_us"`
	CPUShare     float64 `json:"cpu_share"` // cores used on average
	// WaitShare is the collector's runqueue wait per second of the window:
	// the disturbance from the rest of the machine.
	WaitShare  float64 `json:"wait_share"`
	PeakRSSMiB float64 `json:"peak_rss_mib"`
	Retries    uint64  `json:"retries"`
	BehindMS   float64 `json:"behind_ms"`
	// DrainMS is the time from the end of the load until the backend had
	// every item: the backlog the collector built.
	DrainMS    float64   `json:"drain_ms"`
	Report     Report    `json:"-"`
	Violations []string  `json:"violations,omitempty"`
	Start      time.Time `json:"start"`
}

// OK reports whether the run lost nothing, changed nothing and stayed under
// its ceilings.
func (r Result) OK() bool { return r.Report.OK() && len(r.Violations) == 0 }

func (r Result) String() string {
	return fmt.Sprintf("%-16s %-8s rate %6d: %8d items, %7.0f/s achieved, %6.2f µs CPU/item, %5.2f cores, %5.2f waiting, peak RSS %6.1f MiB, %d retries",
		r.Config, r.Signal, r.TargetRate, r.Items, r.AchievedRate, r.CPUPerItemUS, r.CPUShare, r.WaitShare, r.PeakRSSMiB, r.Retries)
}

// Execute performs the run. It fails tb on set-up errors; the returned
// Result carries the validation verdict for the caller to assert.
func (r Run) Execute(tb testing.TB) Result {
	tb.Helper()
	if r.DrainTimeout == 0 {
		r.DrainTimeout = 60 * time.Second
	}
	backend := StartBackend(tb, r.Workload, r.Config.Expect)
	ports := FreePorts(tb)
	col := r.Dist.Start(tb, r.Config.YAML(ports, OTLPExporter(backend.Endpoint), r.Signal), ports, e2e.Options{Env: r.Env})
	client, err := e2e.NewClient(ports.GRPCEndpoint(), ports.HTTPEndpoint())
	if err != nil {
		tb.Fatalf("client: %v", err)
	}
	defer client.Close()
	mon, err := StartMonitor(col.PID(), 250*time.Millisecond)
	if err != nil {
		tb.Fatalf("monitor: %v", err)
	}
	defer mon.Stop()

	load := r.Load
	load.Signal = r.Signal
	gen := NewGenerator(r.Workload, client, load)
	ctx := context.Background()
	if r.Warmup > 0 {
		gen.Run(ctx, r.Warmup)
		backend.WaitDrained(r.Signal, gen.Stats().Sent, r.DrainTimeout, 0)
	}
	before := gen.Stats()
	mon.Mark()
	start := time.Now()
	st := gen.Run(ctx, r.Duration)
	loadEnd := time.Now()
	drained := backend.WaitDrained(r.Signal, st.Sent, r.DrainTimeout, 0)
	drain := time.Since(loadEnd)
	win, merr := mon.Read()
	// Settle after the measurement so that duplicates would show.
	time.Sleep(300 * time.Millisecond)
	rep := backend.Verify(r.Signal, gen)

	items := st.Sent - before.Sent
	res := Result{
		Config:       r.Config.Name,
		Distribution: r.Dist.Name,
		Signal:       r.Signal,
		TargetRate:   r.Load.Rate,
		Items:        items,
		AchievedRate: float64(items) / time.Since(start).Seconds(),
		CPUShare:     win.CPUShare,
		WaitShare:    win.WaitShare,
		PeakRSSMiB:   float64(win.PeakRSS) / (1 << 20),
		Retries:      st.Retries,
		BehindMS:     float64(st.Behind) / float64(time.Millisecond),
		DrainMS:      float64(drain) / float64(time.Millisecond),
		Report:       rep,
		Start:        start,
	}
	if st.Elapsed > 0 {
		res.AchievedRate = float64(items) / st.Elapsed.Seconds()
	}
	if items > 0 {
		res.CPUPerItemUS = float64(win.CPU.Microseconds()) / float64(items)
	}
	if merr != nil {
		res.Violations = append(res.Violations, "resource monitor: "+merr.Error())
	}
	if !drained {
		res.Violations = append(res.Violations, fmt.Sprintf("backend did not receive all %d items within %s", st.Sent, r.DrainTimeout))
	}
	if st.Failed > 0 {
		res.Violations = append(res.Violations, fmt.Sprintf("generator gave up on %d items: %s", st.Failed, st.LastError))
	}
	if r.MaxCPUPerItem > 0 && res.CPUPerItemUS > float64(r.MaxCPUPerItem.Microseconds()) {
		res.Violations = append(res.Violations, fmt.Sprintf("CPU %.2f µs/item above the ceiling %s", res.CPUPerItemUS, r.MaxCPUPerItem))
	}
	if r.MaxPeakRSS > 0 && win.PeakRSS > r.MaxPeakRSS {
		res.Violations = append(res.Violations, fmt.Sprintf("peak RSS %.1f MiB above the ceiling %.1f MiB", res.PeakRSSMiB, float64(r.MaxPeakRSS)/(1<<20)))
	}
	if col.Exited() {
		res.Violations = append(res.Violations, "collector exited during the run")
	}
	col.Stop()
	return res
}

// Check fails tb unless res is OK, with the backend's failures.
func Check(tb testing.TB, res Result) {
	tb.Helper()
	if !res.Report.OK() {
		tb.Errorf("%s: %s", res.Config, res.Report)
	}
	for _, v := range res.Violations {
		tb.Errorf("%s: %s", res.Config, v)
	}
}
