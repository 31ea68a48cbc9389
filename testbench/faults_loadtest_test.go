//go:build e2e && loadtest

package testbench

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// The fault scenarios that run only full size (make loadtest;
// docs/reliability.md). Knobs besides faults_e2e_test.go's:
//
//	FAULT_RATE         spans/s; default half of what FAULT_PROBE (10s) at full speed reached
//	FAULT_OUTAGE       TestFaultBackendDown: the backend refusing (5m)
//	FAULT_SLOW         TestFaultSlowBackend: the backend answering after FAULT_EXPORT_DELAY (2s) (3m)
//	FAULT_GONE         TestFaultSidecarGatewayGone: no gateway (2m)
//	FAULT_APP_RETRY    the application's exporter's max_elapsed_time in front of the sidecar (1m, the Go SDK's default)

// halfCapacity is FAULT_RATE, or half of the spans/s gen reached at full
// speed for FAULT_PROBE (gen's rate is set to it).
func halfCapacity(t *testing.T, gen *Generator) int {
	t.Helper()
	if rate := FaultInt(t, "FAULT_RATE", 0, 0); rate > 0 {
		gen.opts.Rate = rate
		return rate
	}
	gen.opts.Rate = 0
	st := gen.Run(t.Context(), FaultDuration(t, "FAULT_PROBE", 10*time.Second, 2*time.Second))
	gen.opts.Rate = max(1, int(st.Rate()/2))
	t.Logf("capacity %.0f spans/s through the sender; load at half: %d spans/s", st.Rate(), gen.opts.Rate)
	return gen.opts.Rate
}

// TestFaultBackendDown: the backend refuses every export for FAULT_OUTAGE
// at half capacity, then comes back: nothing lost, the cgroup under its
// limit throughout, the queue drains (recovery: from the backend's return
// until everything acknowledged before it arrived).
func TestFaultBackendDown(t *testing.T) {
	r := newFaultRig(t, "backend-down", int64(FaultInt(t, "FAULT_QUEUE_BYTES", 0, 0)))
	outage := FaultDuration(t, "FAULT_OUTAGE", 5*time.Minute, 5*time.Second)
	edge := FaultDuration(t, "FAULT_BEFORE", 30*time.Second, 3*time.Second)
	drain := FaultDuration(t, "FAULT_DRAIN", 10*time.Minute, time.Minute)
	gen := r.generator(500, 4, 0) // below the CR's admission bound (6): steady load, not a burst
	rate := halfCapacity(t, gen)
	wait := runFor(t.Context(), gen, 2*edge+outage)
	time.Sleep(edge)
	r.backend.SetRefusing(true)
	time.Sleep(outage)
	queued := r.gatewaySum("otelcol_exporter_queue_size")
	r.backend.SetRefusing(false)
	target := gen.Stats().Sent
	rec := r.recovery(target, time.Now(), drain)
	wait()
	refusedByBackend := r.backend.Refused()
	r.finish(gen, fmt.Sprintf("backend down %s", outage),
		loadString(fmt.Sprintf("%d spans/s (half capacity)", rate), fmt.Sprintf("queue %.0f MiB at the end of the outage", queued/(1<<20))), rec, drain)
	assert.Positive(t, refusedByBackend, "the backend never refused")
}

// TestFaultSlowBackend: every export takes FAULT_EXPORT_DELAY for
// FAULT_SLOW at half capacity: the queue fills, the gateway refuses with a
// retryable error that the sender's exporter retries (the test's client
// never sees a refusal), memory stays bounded, nothing is lost.
func TestFaultSlowBackend(t *testing.T) {
	r := newFaultRig(t, "slow-backend", int64(FaultInt(t, "FAULT_QUEUE_BYTES", 0, 0)))
	slow := FaultDuration(t, "FAULT_SLOW", 3*time.Minute, 10*time.Second)
	delay := FaultDuration(t, "FAULT_EXPORT_DELAY", 2*time.Second, 2*time.Second)
	drain := FaultDuration(t, "FAULT_DRAIN", 10*time.Minute, time.Minute)
	gen := r.generator(500, 4, 0) // below the CR's admission bound (6): steady load, not a burst
	rate := halfCapacity(t, gen)
	r.backend.SetDelay(delay)
	gen.Run(t.Context(), slow)
	refused := r.gatewaySum("otelcol_receiver_refused_spans")
	r.backend.SetDelay(0)
	rec := r.recovery(gen.Stats().Sent, time.Now(), drain)
	r.finish(gen, fmt.Sprintf("slow backend (%s per export) for %s", delay, slow), fmt.Sprintf("%d spans/s (half capacity)", rate), rec, drain)
	assert.Positive(t, refused, "the gateway never refused: backpressure did not reach the senders")
}

// TestFaultSidecarGatewayGone: the sidecar CR's spec.config, with its
// spec.env in a cgroup of its limits.memory, exporting to a gateway that
// is not there for FAULT_GONE, then is (the verifying backend on the
// address it was exporting to). In front of it an application's exporter
// (a sender collector with the Go SDK's default retry, FAULT_APP_RETRY).
// The sidecar's memory stays under its limit; what it refuses is counted
// on its :8888 (otelcol_receiver_refused_spans, every refused attempt of
// the application's retries, and the exporter's
// otelcol_exporter_enqueue_failed_spans); what the application gave up is
// reported beside it; everything the sidecar accepted arrives once the
// gateway is back.
func TestFaultSidecarGatewayGone(t *testing.T) {
	root := e2e.RepoRoot(t)
	s, err := ReadCRSettings(filepath.Join(root, SidecarCR))
	require.NoError(t, err)
	gone := FaultDuration(t, "FAULT_GONE", 2*time.Minute, 5*time.Second)
	drain := FaultDuration(t, "FAULT_DRAIN", 5*time.Minute, 3*time.Minute)
	cg := NewMemoryCgroup(t, "otelgov-fault-sidecar", s.MemoryLimit)
	w := testWorkload(t, Mix{Services: 20, AttrsPerItem: 20, Profiles: 1000, DeprecatedPool: 24})
	gatewayAddr := fmt.Sprintf("127.0.0.1:%d", e2e.FreePort(t))
	sp := FreePorts(t)
	sidecar := e2e.StartCollectorFile(t, SidecarConfig(t, sp, gatewayAddr), sp.Health, sp.Metrics, e2e.Options{Env: append([]string{"GOMAXPROCS=1"}, s.Env...), Cgroup: cg.Dir})
	require.NoError(t, Pin(sidecar.PID(), "0"))
	mon, err := StartMonitor(sidecar.PID(), 100*time.Millisecond)
	require.NoError(t, err)
	defer mon.Stop()

	ap := FreePorts(t)
	// The Go SDK's OTLP exporter's retry: 5s, growing to 30s, for 1m.
	appRetry := FaultDuration(t, "FAULT_APP_RETRY", time.Minute, 10*time.Second)
	maxInterval := min(30*time.Second, appRetry)
	ac, err := SenderConfig(root, ap, sp.GRPCEndpoint(), map[string]any{
		"enabled": true, "initial_interval": min(5*time.Second, maxInterval).String(),
		"max_interval": maxInterval.String(), "max_elapsed_time": appRetry.String(),
	})
	require.NoError(t, err)
	app := Governance(t).Start(t, ac, ap, e2e.Options{})
	pinClient(t, "1")
	require.NoError(t, Pin(app.PID(), "1"))
	client, err := e2e.NewClient(ap.GRPCEndpoint(), "")
	require.NoError(t, err)
	defer client.Close()

	rate := FaultInt(t, "FAULT_RATE", 1000, 4000)
	gen := NewGenerator(w, client, LoadOptions{Signal: Traces, BatchSize: 100, Workers: 4, Rate: rate, RequestTimeout: time.Hour, GiveUpAfter: time.Nanosecond})
	gen.Run(t.Context(), gone)
	fam := e2e.MustScrape(t, sidecar.MetricsPort)
	refused, _ := fam.Sum("otelcol_receiver_refused_spans", nil)
	enqueueFailed, _ := fam.Sum("otelcol_exporter_enqueue_failed_spans", nil)
	queued, _ := fam.Sum("otelcol_exporter_queue_size", nil)
	backend := StartBackendAt(t, w, Expectation{Rename: true}, gatewayAddr)
	back := time.Now()
	st := gen.Stats()
	drained := backend.WaitDrained(Traces, st.Sent, drain, 2*time.Second)
	rec := time.Since(back)
	u, err := cg.Read()
	require.NoError(t, err)
	win, err := mon.Read()
	require.NoError(t, err)
	rep := backend.Verify(Traces, gen)
	t.Logf("| sidecar, gateway gone %s | %d spans/s | %d | %d | %d | %d | %d / %d MiB (RSS %d MiB) | %s | sidecar refused %.0f spans (enqueue failed %.0f), app gave up %d; queue %.0f bytes at the gateway's return |",
		gone, rate, rep.Sent, rep.Received, rep.Lost, rep.Duplicates, u.Peak>>20, s.MemoryLimit>>20, win.PeakRSS>>20, rec.Round(100*time.Millisecond), refused, enqueueFailed, st.Failed, queued)
	assert.True(t, drained, "backend holds %d of %d", backend.Received(Traces), st.Sent)
	assert.Zero(t, rep.Lost, rep.String())
	assert.Zero(t, rep.Unexpected, rep.String())
	assert.Zero(t, u.OOMKills)
	assert.Less(t, u.Peak, uint64(s.MemoryLimit)) //nolint:gosec // a positive quantity
	assert.Positive(t, refused, "the sidecar never refused: its queue never filled")
	SaveResult(t, "fault_sidecar_gateway_gone", map[string]any{
		"gone_ns": gone, "rate": rate, "sent": rep.Sent, "received": rep.Received, "lost": rep.Lost, "duplicated": rep.Duplicates,
		"cgroup_peak_bytes": u.Peak, "peak_rss_bytes": win.PeakRSS, "limit_bytes": s.MemoryLimit, "recovery_ns": rec,
		"sidecar_refused_spans": refused, "sidecar_enqueue_failed_spans": enqueueFailed, "app_gave_up_spans": st.Failed, "machine": DescribeMachine(),
	})
}
