//go:build e2e

package testbench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// The fault scenarios that also run, short, in make test
// (docs/reliability.md). Full size: make loadtest, or the commands there.
//
//	FAULT_RELOAD          registry ConfigMap swap interval (10s; short 1s; 0: none)
//	FAULT_QUEUE_BYTES     the exporters' queue_size, file_storage max_size twice it (the CR's; short 8 MiB)
//	FAULT_SENDER_TIMEOUT  the sender's exporter timeout (the sidecar CR's, 5s)
//
// TestFaultKill:
//
//	FAULT_RATE     spans/s (5000; short 2000), FAULT_BATCH spans per request (500)
//	FAULT_BEFORE   load before the kill (30s; short 3s), the last FAULT_HOLD of it
//	               (5s; short 1s) with the backend refusing, so the queue holds
//	               acknowledged data when the kill comes
//	FAULT_DOWN     between the kill and the restart (2s; short 500ms)
//	FAULT_AFTER    load after the restart (30s; short 3s)
//	FAULT_DRAIN    how long the backlog may take to arrive (3m; short 1m)
//
// TestFaultBurst:
//
//	FAULT_BURST_INFLIGHT  requests in flight (512; short 16)
//	FAULT_REQUEST_BYTES   OTLP protobuf bytes per request, at least (1 MiB)
//	FAULT_BURST           burst length (60s; short 3s)
//	FAULT_DRAIN           as above

// TestFaultKill: SIGKILL of the gateway mid-stream, with acknowledged data
// in its queue, and a restart on the same queue directory (a container
// restart on the emptyDir): nothing the gateway acknowledged is lost;
// what it resends (it had dispatched but not finished) is counted as
// duplicated.
func TestFaultKill(t *testing.T) {
	r := newFaultRig(t, "kill", int64(FaultInt(t, "FAULT_QUEUE_BYTES", 0, 8<<20)))
	rate, batch := FaultInt(t, "FAULT_RATE", 5000, 2000), FaultInt(t, "FAULT_BATCH", 500, 500)
	before, hold := FaultDuration(t, "FAULT_BEFORE", 30*time.Second, 3*time.Second), FaultDuration(t, "FAULT_HOLD", 5*time.Second, time.Second)
	down, after := FaultDuration(t, "FAULT_DOWN", 2*time.Second, 500*time.Millisecond), FaultDuration(t, "FAULT_AFTER", 30*time.Second, 3*time.Second)
	drain := FaultDuration(t, "FAULT_DRAIN", 3*time.Minute, time.Minute)
	require.Less(t, hold, before)

	gen := r.generator(batch, 8, rate)
	wait := runFor(t.Context(), gen, before+down+after)
	time.Sleep(before - hold)
	r.backend.SetRefusing(true)
	time.Sleep(hold)
	queued := r.gatewaySum("otelcol_exporter_queue_size")
	sentAtKill := gen.Stats().Sent
	Kill(t, r.gw)
	t.Logf("SIGKILL with %.0f bytes in the exporter's queue, %d spans acknowledged so far", queued, sentAtKill)
	time.Sleep(down)
	r.startGateway()
	r.backend.SetRefusing(false)
	rec := r.recovery(sentAtKill, time.Now(), drain)
	st := wait()
	res := r.finish(gen, "SIGKILL mid-stream, restart on the same queue",
		loadString(fmt.Sprintf("%d spans/s", rate), fmt.Sprintf("%d spans/request", batch), fmt.Sprintf("queue %.1f MiB at the kill", queued/(1<<20))), rec, drain)
	assert.Positive(t, queued, "the exporter's queue was empty at the kill: the scenario proved nothing")
	assert.GreaterOrEqual(t, res.Received, st.Sent)
}

// TestFaultBurst: FAULT_BURST_INFLIGHT requests of FAULT_REQUEST_BYTES in
// flight at once for FAULT_BURST (offered load = in flight × size), each
// retried by the sender's exporter when refused: no OOM kill, the cgroup's
// peak under limits.memory, every span delivered once retries are done.
func TestFaultBurst(t *testing.T) {
	inflight := FaultInt(t, "FAULT_BURST_INFLIGHT", 512, 16)
	reqBytes := FaultInt(t, "FAULT_REQUEST_BYTES", 1<<20, 1<<20)
	d := FaultDuration(t, "FAULT_BURST", time.Minute, 3*time.Second)
	drain := FaultDuration(t, "FAULT_DRAIN", 3*time.Minute, time.Minute)
	r := newFaultRig(t, fmt.Sprintf("burst-%d", inflight), int64(FaultInt(t, "FAULT_QUEUE_BYTES", 0, 0)))
	batch := r.batchFor(reqBytes)
	gen := r.generator(batch, inflight, 0)
	st := gen.Run(t.Context(), d)
	rec := r.recovery(st.Sent, time.Now(), drain)
	res := r.finish(gen, fmt.Sprintf("burst of %d requests in flight", inflight),
		loadString(fmt.Sprintf("%d × %s (%d spans) = %s offered at once", inflight, mibOf(reqBytes), batch, mibOf(inflight*reqBytes)), d.String()), rec, drain)
	// Above the CR's bound, the admission extension must have refused
	// before decode (a CR without it decodes every request in flight).
	cfg, err := crSpecConfig(filepath.Join(e2e.RepoRoot(t), GatewayCR))
	require.NoError(t, err)
	if bound, ok := at(cfg, "extensions", "admission", "max_requests_in_flight").(int); ok && inflight > bound {
		assert.Positive(t, res.Admission, "%d requests in flight, the CR admits %d: the admission extension refused none", inflight, bound)
	}
}

// TestGatewayQueueBadConfig: a queue that cannot work stops the gateway at
// start, naming the key and the reason: the CR's emptyDir not mounted (the
// directory is missing: `validate` already says so), or mounted but not
// writable by the image's user 10001 (the collector, run as 10001, fails
// to start).
func TestGatewayQueueBadConfig(t *testing.T) {
	path := filepath.Join(e2e.RepoRoot(t), GatewayCR)
	write := func(t *testing.T, dir, queueDir string) string {
		t.Helper()
		y, err := FaultGatewayConfig(path, FaultOptions{Ports: FreePorts(t), Backend: "127.0.0.1:9", QueueDir: queueDir})
		require.NoError(t, err)
		f := filepath.Join(dir, "config.yaml")
		require.NoError(t, os.WriteFile(f, []byte(y), 0o644)) //nolint:gosec // read by the unprivileged collector
		return f
	}
	t.Run("missing directory", func(t *testing.T) {
		f := write(t, t.TempDir(), filepath.Join(t.TempDir(), "not-mounted"))
		out, err := e2e.Run(t, "validate", "--config", f)
		require.Error(t, err, out)
		assert.Contains(t, out, "file_storage/queue")
		assert.Contains(t, out, "directory must exist")
	})
	t.Run("directory not writable", func(t *testing.T) {
		if _, err := exec.LookPath("setpriv"); err != nil {
			t.Skip("setpriv (util-linux) is needed to run the collector as user 10001")
		}
		// Everything user 10001 must read lives in a world-readable
		// directory: the binary (the build directory is 0750), the config.
		dir, err := os.MkdirTemp("", "otelgov-queue-perm-")
		require.NoError(t, err)
		t.Cleanup(func() { _ = os.RemoveAll(dir) })
		require.NoError(t, os.Chmod(dir, 0o755)) //nolint:gosec // the unprivileged collector reads it
		bin := filepath.Join(dir, "otelcol-governance")
		copyFile(t, e2e.Binary(t), bin, 0o755)
		queue := filepath.Join(dir, "queue")
		require.NoError(t, os.Mkdir(queue, 0o755)) //nolint:gosec // root's, not writable by 10001: the mistake under test
		f := write(t, dir, queue)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, "setpriv", "--reuid=10001", "--regid=10001", "--clear-groups", bin, "--config", f).CombinedOutput()
		require.Error(t, err, "the collector started with a queue directory it cannot write:\n%s", out)
		require.NoError(t, ctx.Err(), "the collector did not stop within a minute:\n%s", out)
		assert.Contains(t, string(out), "otlp_grpc/tempo")
		assert.Contains(t, string(out), "permission denied")
	})
}

func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(src) //nolint:gosec // the binary under test
	require.NoError(t, err)
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode) //nolint:gosec // a test directory
	require.NoError(t, err)
	_, err = io.Copy(out, in)
	require.NoError(t, err)
	require.NoError(t, out.Close())
}
