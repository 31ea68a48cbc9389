//go:build e2e

package testbench

import (
	"fmt"
	"time"

	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
//	FAULT_BURST_INFLIGHT  requests in flight (512; short 32)
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
	inflight := FaultInt(t, "FAULT_BURST_INFLIGHT", 512, 32)
	reqBytes := FaultInt(t, "FAULT_REQUEST_BYTES", 1<<20, 1<<20)
	d := FaultDuration(t, "FAULT_BURST", time.Minute, 3*time.Second)
	drain := FaultDuration(t, "FAULT_DRAIN", 3*time.Minute, time.Minute)
	r := newFaultRig(t, fmt.Sprintf("burst-%d", inflight), int64(FaultInt(t, "FAULT_QUEUE_BYTES", 0, 0)))
	batch := r.batchFor(reqBytes)
	gen := r.generator(batch, inflight, 0)
	st := gen.Run(t.Context(), d)
	rec := r.recovery(st.Sent, time.Now(), drain)
	r.finish(gen, fmt.Sprintf("burst of %d requests in flight", inflight),
		loadString(fmt.Sprintf("%d × %s (%d spans) = %s offered at once", inflight, mibOf(reqBytes), batch, mibOf(inflight*reqBytes)), d.String()), rec, drain)
}
