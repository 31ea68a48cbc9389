//go:build e2e

package testbench

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// faultRig is one fault scenario's machinery (docs/reliability.md): the
// gateway CR's whole spec.config (FaultGatewayConfig) with its spec.env in
// a memory cgroup of its limits.memory, on CPU 0 with GOMAXPROCS=1; its
// queue directory kept across restarts; a sender (SenderConfig: the
// sidecar CR's exporter, retrying as shipped) that the test's client
// sends to; the verifying backend; and the org registry swapped as a
// ConfigMap every FAULT_RELOAD.
type faultRig struct {
	t        *testing.T
	name     string
	s        CRSettings
	cg       *MemoryCgroup
	senderCg *MemoryCgroup // the sender's, so that a burst it cannot hold ends it and not the machine
	w        *Workload
	backend  *Backend
	opts     FaultOptions
	config   string
	gw       *e2e.Collector
	sender   *e2e.Collector
	client   *e2e.Client
	reloader *Reloader
	peakRSS  uint64
	mon      *Monitor
}

func newFaultRig(t *testing.T, name string, queueBytes int64) *faultRig {
	t.Helper()
	root := e2e.RepoRoot(t)
	path := filepath.Join(root, GatewayCR)
	s, err := ReadCRSettings(path)
	require.NoError(t, err)
	r := &faultRig{t: t, name: name, s: s}
	r.cg = NewMemoryCgroup(t, "otelgov-fault-"+name, s.MemoryLimit)
	r.w = testWorkload(t, Mix{Services: 200, AttrsPerItem: 20, Profiles: 1000, DeprecatedPool: 24})
	r.backend = StartBackend(t, r.w, Expectation{Rename: true})
	cm, err := NewConfigMapDir(t.TempDir(), faultRegistryA)
	require.NoError(t, err)
	r.opts = FaultOptions{Ports: FreePorts(t), Backend: r.backend.Endpoint, QueueDir: t.TempDir(), OrgDir: cm.Dir, QueueBytes: queueBytes}
	r.config, err = FaultGatewayConfig(path, r.opts)
	require.NoError(t, err)
	r.startGateway()

	sp := FreePorts(t)
	sc, err := SenderConfig(root, sp, r.opts.Ports.GRPCEndpoint(), nil)
	require.NoError(t, err)
	// The sender stands for the fleet's sidecars and holds every request
	// in flight, decoded, for as long as the gateway refuses it: measured,
	// about 8 MiB per request of 1 MiB (512 in flight: a 4.1 GiB cgroup
	// peak; benchmarks/results/reliability). Its own cgroup (FAULT_SENDER_MEMORY, 12 GiB;
	// 1 GiB short) and a GOMEMLIMIT of three quarters of it pace its GC
	// and end it, not the machine, when a burst is too large to hold.
	senderMem := int64(FaultInt(t, "FAULT_SENDER_MEMORY", 12<<30, 1<<30))
	r.senderCg = NewMemoryCgroup(t, "otelgov-fault-sender-"+name, senderMem)
	r.sender = Governance(t).Start(t, sc, sp, e2e.Options{Env: []string{fmt.Sprintf("GOMEMLIMIT=%d", senderMem/4*3)}, Cgroup: r.senderCg.Dir})
	pinClient(t, "1")
	require.NoError(t, Pin(r.sender.PID(), "1"))
	r.client, err = e2e.NewClient(sp.GRPCEndpoint(), "")
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.client.Close() })
	r.reloader = StartReloader(cm, FaultDuration(t, "FAULT_RELOAD", 10*time.Second, time.Second))
	t.Cleanup(func() { _, _ = r.reloader.Stop() })
	return r
}

// startGateway starts the gateway on the rig's config and queue directory.
func (r *faultRig) startGateway() {
	r.t.Helper()
	r.notePeakRSS()
	r.gw = Governance(r.t).Start(r.t, r.config, r.opts.Ports, e2e.Options{Env: append([]string{"GOMAXPROCS=1"}, r.s.Env...), Cgroup: r.cg.Dir})
	require.NoError(r.t, Pin(r.gw.PID(), "0"))
	var err error
	r.mon, err = StartMonitor(r.gw.PID(), 100*time.Millisecond)
	require.NoError(r.t, err)
}

// notePeakRSS keeps the highest VmHWM of the gateway processes so far.
func (r *faultRig) notePeakRSS() {
	if r.mon == nil {
		return
	}
	if w, err := r.mon.Read(); err == nil {
		r.peakRSS = max(r.peakRSS, w.PeakRSS)
	}
	r.mon.Stop()
	r.mon = nil
}

// batchFor is the number of spans whose request is at least bytes of
// OTLP protobuf.
func (r *faultRig) batchFor(bytes int) int {
	const probe = 200
	req := ptraceotlp.NewExportRequestFromTraces(r.w.Traces(0, probe, time.Now()))
	b, err := req.MarshalProto()
	require.NoError(r.t, err)
	per := max(1, len(b)/probe)
	return max(1, (bytes+per-1)/per)
}

// generator sends through the sender. Its own retry never fires: the
// sender's exporter retries without a time limit inside the call, so a
// request returns only once the gateway accepted it (Retries must stay 0).
func (r *faultRig) generator(batch, workers, rate int) *Generator {
	return NewGenerator(r.w, r.client, LoadOptions{
		Signal: Traces, BatchSize: batch, Workers: workers, Rate: rate,
		RequestTimeout: time.Hour, GiveUpAfter: time.Hour,
	})
}

// gatewaySum is a counter summed on the gateway's :8888 (0 when absent or
// the gateway is down).
func (r *faultRig) gatewaySum(name string) float64 {
	f, err := e2e.Scrape(r.gw.MetricsPort)
	if err != nil {
		return 0
	}
	v, _ := f.Sum(name, nil)
	return v
}

// recovery waits until the backend holds target distinct spans and
// returns how long it took from since (the fault's end).
func (r *faultRig) recovery(target uint64, since time.Time, timeout time.Duration) time.Duration {
	if !r.backend.WaitDrained(Traces, target, timeout, 0) {
		r.t.Errorf("not recovered within %s: backend holds %d distinct of %d", timeout, r.backend.distinct(Traces), target)
	}
	return time.Since(since)
}

// faultResult is one row of docs/reliability.md's table.
type faultResult struct {
	Fault        string        `json:"fault"`
	Load         string        `json:"load"`
	Short        bool          `json:"short"`
	Sent         uint64        `json:"sent"`
	Received     uint64        `json:"received"`
	Lost         uint64        `json:"lost"`
	Duplicated   uint64        `json:"duplicated"`
	PeakCgroup   uint64        `json:"cgroup_peak_bytes"`
	PeakRSS      uint64        `json:"peak_rss_bytes"`
	Limit        int64         `json:"memory_limit_bytes"`
	OOMKills     uint64        `json:"oom_kills"`
	SenderPeak   uint64        `json:"sender_cgroup_peak_bytes"`
	Recovery     time.Duration `json:"recovery_ns"`
	Refused      float64       `json:"gateway_refused_spans"`
	Admission    float64       `json:"admission_refused_requests"`
	Reloads      int64         `json:"registry_swaps"`
	RegistryGood float64       `json:"registry_reloads_ok"`
	Env          []string      `json:"env"`
	Machine      Machine       `json:"machine"`
}

// finish stops the load's aftermath: waits until everything the client
// had accepted arrived (or drain passed), then checks and records: nothing
// lost, nothing unexpected or invalid, duplicates counted (not failed: a
// restarted queue resends what it had dispatched), the cgroup never
// OOM-killed and under its limit, every registry swap loaded.
func (r *faultRig) finish(gen *Generator, fault, load string, recovery time.Duration, drain time.Duration) faultResult {
	t := r.t
	t.Helper()
	st := gen.Stats()
	drained := r.backend.WaitDrained(Traces, st.Sent, drain, 2*time.Second)
	swaps, rerr := r.reloader.Stop()
	time.Sleep(1500 * time.Millisecond) // the last swap's poll
	goodReloads := 0.0
	if f, err := e2e.Scrape(r.gw.MetricsPort); err == nil {
		goodReloads, _ = f.Sum("otelcol_extension_governance_registry_reloads", map[string]string{"result": "success"})
	}
	u, err := r.cg.Read()
	require.NoError(t, err)
	su, err := r.senderCg.Read()
	require.NoError(t, err)
	r.notePeakRSS()
	rep := r.backend.Verify(Traces, gen)
	res := faultResult{
		Fault: fault, Load: load, Short: testing.Short(), Sent: rep.Sent, Received: rep.Received, Lost: rep.Lost, Duplicated: rep.Duplicates,
		PeakCgroup: u.Peak, PeakRSS: r.peakRSS, Limit: r.s.MemoryLimit, OOMKills: u.OOMKills, Recovery: recovery,
		SenderPeak: su.Peak, Refused: r.gatewaySum("otelcol_receiver_refused_spans"), Admission: r.gatewaySum("otelcol_extension_admission_requests_refused"), Reloads: swaps, RegistryGood: goodReloads, Env: r.s.Env, Machine: DescribeMachine(),
	}
	t.Logf("| %s | %s | %d | %d | %d | %d | %d / %d MiB (RSS %d MiB) | %s | receiver refused %.0f spans, admission refused %.0f requests | %d swaps, %.0f reloads | sender peak %d MiB |",
		fault, load, res.Sent, res.Received, res.Lost, res.Duplicated, u.Peak>>20, r.s.MemoryLimit>>20, r.peakRSS>>20, recovery.Round(100*time.Millisecond), res.Refused, res.Admission, swaps, goodReloads, su.Peak>>20)
	require.Zero(t, su.OOMKills, "the sender was OOM-killed (cgroup peak %d MiB): the burst is larger than FAULT_SENDER_MEMORY holds, not a gateway failure", su.Peak>>20)
	assert.True(t, drained, "backend holds %d distinct of %d sent after %s", r.backend.distinct(Traces), st.Sent, drain)
	assert.Zero(t, rep.Lost, rep.String())
	assert.Zero(t, rep.Unexpected, rep.String())
	assert.Zero(t, rep.Invalid, rep.String())
	assert.Zero(t, st.Failed, st.LastError)
	assert.Zero(t, st.Retries, "the test's client retried: the sender's exporter refused instead of retrying (%s)", st.LastError)
	assert.Positive(t, st.Sent)
	assert.Zero(t, u.OOMKills, "OOM kills in the gateway's cgroup")
	assert.Less(t, u.Peak, uint64(r.s.MemoryLimit), "cgroup peak") //nolint:gosec // a positive quantity
	require.NoError(t, rerr)
	if swaps > 0 {
		assert.Positive(t, goodReloads, "the registry was swapped %d times and never reloaded", swaps)
	}
	SaveResult(t, "fault_"+r.name, res)
	return res
}

// runFor runs gen for d in the background; the returned func waits for it.
func runFor(ctx context.Context, gen *Generator, d time.Duration) func() LoadStats {
	done := make(chan LoadStats, 1)
	go func() { done <- gen.Run(ctx, d) }()
	return func() LoadStats { return <-done }
}

// mib formats bytes in MiB.
func mibOf(b int) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// loadString describes a load for the table.
func loadString(parts ...string) string { return strings.Join(parts, ", ") }
