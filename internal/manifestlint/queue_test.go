package manifestlint

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shippedGateway is the gateway CR as kustomize renders it.
func shippedGateway(t *testing.T) Object {
	t.Helper()
	for _, o := range shipped(t) {
		if o.Kind() == "OpenTelemetryCollector" && o.Name() == "gateway" {
			return o
		}
	}
	t.Fatal("no gateway CR in distribution/k8s")
	return Object{}
}

func queueFindings(o Object) []string {
	var out []string
	for _, f := range Lint([]Object{o}, opts) {
		if f.Rule == RulePersistentQueue {
			out = append(out, f.Message)
		}
	}
	return out
}

// TestPersistentQueueStatefulSet: the gateway on a claimed volume instead
// of the emptyDir (docs/reliability.md's alternative) passes only with
// mode statefulset, a storage request that holds the queues, and fsGroup
// 10001.
func TestPersistentQueueStatefulSet(t *testing.T) {
	o := shippedGateway(t)
	require.Empty(t, queueFindings(o))
	spec := o.Doc["spec"].(map[string]any)
	spec["volumes"] = nil
	spec["volumeClaimTemplates"] = []any{map[string]any{
		"metadata": map[string]any{"name": "queue"},
		"spec":     map[string]any{"resources": map[string]any{"requests": map[string]any{"storage": "512Mi"}}},
	}}
	assert.Equal(t, []string{
		"spec.podSecurityContext.fsGroup is <nil>, want 10001: the image runs as user 10001, and a claimed volume is root's unless fsGroup gives it to the pod",
		"spec.volumeClaimTemplates queue needs mode statefulset",
		"volume queue (sizeLimit 512 MiB) is too small: it must hold 2 queue file(s) (otlp_grpc/tempo/traces, otlp_http/loki/logs) at 2× their queue_size, 256 MiB, compaction's copy 128 MiB, 512 MiB of room for the write-ahead log of prometheus_remote_write = 896 MiB; the kubelet evicts the pod above sizeLimit",
	}, queueFindings(o))
	spec["mode"] = "statefulset"
	spec["podSecurityContext"] = map[string]any{"fsGroup": 10001}
	spec["volumeClaimTemplates"].([]any)[0].(map[string]any)["spec"].(map[string]any)["resources"].(map[string]any)["requests"].(map[string]any)["storage"] = "1Gi"
	assert.Empty(t, queueFindings(o))
}

// TestPersistentQueueSidecarExempt: a sidecar keeps a bounded queue in
// memory; the rule is for gateways.
func TestPersistentQueueSidecarExempt(t *testing.T) {
	o := shippedGateway(t)
	o.Doc["spec"].(map[string]any)["volumeMounts"] = nil
	require.NotEmpty(t, queueFindings(o), "a gateway without its mount fails")
	o.Doc["spec"].(map[string]any)["mode"] = "sidecar"
	assert.Empty(t, queueFindings(o))
}

// TestPersistentQueueMemory: full queues' files are cached in the
// container's memory beside the heap; the shipped gateway's fit its
// limits.memory, the 256 MiB queues it first shipped with did not (its
// 5-minute outage run reached the cgroup's limit).
func TestPersistentQueueMemory(t *testing.T) {
	o := shippedGateway(t)
	require.Empty(t, queueFindings(o))
	for _, id := range []string{"otlp_grpc/tempo", "otlp_http/loki"} {
		mapAt(o.Doc, "spec", "config", "exporters", id, "sending_queue")["queue_size"] = 256 << 20
	}
	assert.Equal(t, []string{
		"limits.memory 512 MiB cannot hold spec.env GOMEMLIMIT 256 MiB + 2 full queue file(s) (otlp_grpc/tempo/traces, otlp_http/loki/logs) at their queue_size, 512 MiB, which the kernel caches in the container's memory + 64 MiB for the runtime = 832 MiB: a long outage fills the cgroup to its limit; lower queue_size to at most 192 MiB in all, or raise limits.memory",
	}, queueFindings(o))
	spec := o.Doc["spec"].(map[string]any)
	spec["resources"].(map[string]any)["limits"].(map[string]any)["memory"] = "832Mi"
	assert.Empty(t, queueFindings(o), "a limit that holds them")
	spec["env"] = nil // GOMEMLIMIT is then the limit: nothing is left for the queues
	assert.Len(t, queueFindings(o), 1)
}
