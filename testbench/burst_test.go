//go:build loadtest

package testbench

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// TestGatewayBurst (`make loadtest`; not in CI) runs the gateway CR's
// traces pipeline (GatewayConfig: memory_limiter, governance as the
// CR has them, the testbench's verifying sink as exporter) with the CR's
// spec.env, in a memory cgroup of the CR's limits.memory (so that the
// memory limiter's percentages are of it, and the kernel OOM-kills above
// it), on one CPU (GOMAXPROCS=1, pinned). It measures what the collector
// can process at full speed, then offers a steady load below it, then a
// burst at twice it from many senders at once, then the steady load
// again. It requires: nothing refused at steady load, the memory limiter
// refusing in the burst (the senders retry, as an SDK does), no OOM kill,
// the cgroup's peak below its limit, and every span delivered exactly once
// in the end. Knobs (environment):
//
//	BURST_DURATION  length of the burst (default 60s)
//	BURST_STEADY    length of each steady phase (default 30s)
//	BURST_SHARE     the steady load, a fraction of capacity (default 0.7)
//	BURST_FACTOR    the burst, a multiple of capacity (default 2)
//	BURST_WORKERS   requests in flight in the burst (default 64, six or so
//	                sidecars' OTLP exporters at their default 10 consumers;
//	                see below for 512)
//
// The memory limiter refuses a request only after the receiver has read
// and unmarshalled it, so the data of every request in flight is in memory
// whatever the limiter says: with 512 requests of 500 spans in flight
// (about 870 MB), the gateway was OOM-killed within the burst
// (benchmarks/results/gateway-burst). The CR's admission extension now
// bounds the requests in flight before decode (GatewayConfig carries the
// CR's receiver middlewares); its refusals count as the gateway's
// refusals in the burst, beside the receiver's.
func TestGatewayBurst(t *testing.T) {
	path := filepath.Join(e2e.RepoRoot(t), GatewayCR)
	s, err := ReadCRSettings(path)
	require.NoError(t, err)
	cfg, err := GatewayConfig("gateway-burst", path)
	require.NoError(t, err)
	cfg.Expect = Expectation{Rename: true}
	cg := NewMemoryCgroup(t, "otelgov-burst", s.MemoryLimit)

	w := testWorkload(t, Mix{Services: 200, AttrsPerItem: 20, Profiles: 1000, DeprecatedPool: 24})
	backend := StartBackend(t, w, cfg.Expect)
	ports := FreePorts(t)
	// The sink shares the client's CPU: give it time, so that a slow
	// answer is not retried into a duplicate (at-least-once) that the
	// verdict would count against the pipeline.
	exp := OTLPExporter(backend.Endpoint)
	exp.YAML = strings.Replace(exp.YAML, "    compression: none\n", "    compression: none\n    timeout: 60s\n", 1)
	col := Governance(t).Start(t, cfg.YAML(ports, exp, Traces), ports,
		e2e.Options{Env: append([]string{"GOMAXPROCS=1"}, s.Env...), Cgroup: cg.Dir})
	require.NoError(t, Pin(col.PID(), "0"))
	pinClient(t, "1")
	client, err := e2e.NewClient(ports.GRPCEndpoint(), "")
	require.NoError(t, err)
	defer client.Close()

	// The senders stop when the collector dies: their retries would
	// otherwise go on until GiveUpAfter.
	runCtx, stop := context.WithCancel(context.Background())
	defer stop()
	go func() {
		for runCtx.Err() == nil && !col.Exited() {
			time.Sleep(100 * time.Millisecond)
		}
		stop()
	}()
	const batch = 500
	gen := NewGenerator(w, client, LoadOptions{Signal: Traces, BatchSize: batch, Workers: 8, RetryBackoff: 200 * time.Millisecond, GiveUpAfter: 2 * time.Minute})
	capacity := gen.Run(runCtx, 10*time.Second).Rate()
	require.True(t, backend.WaitDrained(Traces, gen.Stats().Sent, time.Minute, 0))
	steady := int(capacity * envFloat(t, "BURST_SHARE", 0.7))
	burst := int(capacity * envFloat(t, "BURST_FACTOR", 2))
	steadyFor, burstFor := envDuration("BURST_STEADY", 30*time.Second), envDuration("BURST_DURATION", 60*time.Second)
	t.Logf("capacity %.0f spans/s on one CPU; steady %d spans/s for %s, burst %d spans/s for %s; GC settings %s; cgroup limit %d MiB",
		capacity, steady, steadyFor, burst, burstFor, strings.Join(s.Env, " "), s.MemoryLimit>>20)

	refused := func() (spans, admission float64) {
		fams := e2e.MustScrape(t, col.MetricsPort)
		spans, _ = fams.Sum("otelcol_receiver_refused_spans", nil)
		admission, _ = fams.Sum("otelcol_extension_admission_requests_refused", nil)
		return spans, admission
	}
	mon, err := StartMonitor(col.PID(), 100*time.Millisecond)
	require.NoError(t, err)
	defer mon.Stop()
	type phase struct {
		Name       string  `json:"name"`
		Offered    int     `json:"offered_spans_per_s"`
		Achieved   float64 `json:"achieved_spans_per_s"`
		Refused    float64 `json:"receiver_refused_spans"`
		Admission  float64 `json:"admission_refused_requests"`
		Retries    uint64  `json:"retried_requests"`
		PeakCgroup uint64  `json:"cgroup_peak_bytes"`
	}
	var phases []phase
	run := func(name string, rate, workers int, d time.Duration) phase {
		before, beforeAdm := refused()
		retries, sent := gen.Stats().Retries, gen.Stats().Sent
		gen.opts.Rate, gen.opts.Workers = rate, workers
		st := gen.Run(runCtx, d)
		u, err := cg.Read()
		require.NoError(t, err)
		require.Zero(t, u.OOMKills, "%s: the kernel OOM-killed the collector (cgroup peak %d MiB of %d)", name, u.Peak>>20, s.MemoryLimit>>20)
		after, afterAdm := refused()
		p := phase{Name: name, Offered: rate, Achieved: float64(st.Sent-sent) / st.Elapsed.Seconds(), Refused: after - before, Admission: afterAdm - beforeAdm, Retries: gen.Stats().Retries - retries, PeakCgroup: u.Peak}
		t.Logf("%s: offered %d spans/s, achieved %.0f, receiver refused %.0f spans, admission refused %.0f requests, %d requests retried; cgroup now %d MiB, peak %d MiB, %d OOM kills",
			name, rate, p.Achieved, p.Refused, p.Admission, p.Retries, u.Current>>20, u.Peak>>20, u.OOMKills)
		phases = append(phases, p)
		return p
	}
	first := run("steady", steady, 8, steadyFor)
	peak := run("burst", burst, envInt("BURST_WORKERS", 64), burstFor)
	run("recovery", steady, 8, steadyFor/2) // the limiter lets go once the burst's heap is collected
	last := run("steady-after", steady, 8, steadyFor)

	total := gen.Stats().Sent
	drained := backend.WaitDrained(Traces, total, 3*time.Minute, 500*time.Millisecond)
	u, err := cg.Read()
	require.NoError(t, err)
	win, err := mon.Read()
	require.NoError(t, err)
	rep := backend.Verify(Traces, gen)

	assert.True(t, drained, "backend received %d of %d", backend.Received(Traces), total)
	assert.True(t, rep.OK(), rep.String())
	assert.Zero(t, gen.Stats().Failed, gen.Stats().LastError)
	assert.Zero(t, first.Refused, "refused at steady load before the burst")
	assert.Zero(t, last.Refused, "refused at steady load after the burst")
	assert.Positive(t, peak.Refused+peak.Admission, "the gateway (admission or the memory limiter) never refused in the burst")
	assert.Zero(t, u.OOMKills, "OOM kills in the collector's cgroup")
	assert.False(t, col.Exited(), "the collector died")
	assert.Less(t, u.Peak, uint64(s.MemoryLimit), "cgroup peak") //nolint:gosec // limits.memory, a positive quantity
	SaveResult(t, "gateway_burst", map[string]any{
		"machine": DescribeMachine(), "cr": GatewayCR, "env": s.Env, "memory_limit_bytes": s.MemoryLimit,
		"capacity_spans_per_s": capacity, "batch": batch, "phases": phases,
		"sent": total, "received": backend.Received(Traces), "lost": rep.Lost, "duplicated": rep.Duplicates,
		"cgroup_peak_bytes": u.Peak, "cgroup_limit_hits": u.LimitHits, "oom_kills": u.OOMKills,
		"peak_rss_bytes": win.PeakRSS, "collector_alive": !col.Exited(), "passed": !t.Failed(),
	})
}

// envFloat reads name as a positive number, def when unset; a value that
// does not parse fails tb.
func envFloat(tb testing.TB, name string, def float64) float64 {
	tb.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 {
		tb.Fatalf("%s=%q: want a positive number", name, s)
	}
	return v
}
