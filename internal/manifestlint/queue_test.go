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
		"spec":     map[string]any{"resources": map[string]any{"requests": map[string]any{"storage": "1Gi"}}},
	}}
	assert.Equal(t, []string{
		"spec.podSecurityContext.fsGroup is <nil>, want 10001: the image runs as user 10001, and a claimed volume is root's unless fsGroup gives it to the pod",
		"spec.volumeClaimTemplates queue needs mode statefulset",
		"volume queue (sizeLimit 1024 MiB) is too small: it must hold 2 queue file(s) (otlp_grpc/tempo/traces, otlp_http/loki/logs) at 2× their queue_size, 1024 MiB, compaction's copy 512 MiB, 512 MiB of room for the write-ahead log of prometheus_remote_write = 2048 MiB; the kubelet evicts the pod above sizeLimit",
	}, queueFindings(o))
	spec["mode"] = "statefulset"
	spec["podSecurityContext"] = map[string]any{"fsGroup": 10001}
	spec["volumeClaimTemplates"].([]any)[0].(map[string]any)["spec"].(map[string]any)["resources"].(map[string]any)["requests"].(map[string]any)["storage"] = "2Gi"
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
