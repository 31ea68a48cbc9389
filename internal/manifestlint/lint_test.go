package manifestlint

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const operatorCRDs = "../../../shared/operator/v0.158.0"

// shipped is what `kustomize build distribution/k8s` renders.
func shipped(t *testing.T) []Object {
	t.Helper()
	out, err := Kustomize("../../distribution/k8s")
	require.NoError(t, err)
	objs, err := DecodeBytes(out, "distribution/k8s")
	require.NoError(t, err)
	require.NotEmpty(t, objs)
	return objs
}

var opts = Options{ImageContains: "otelcol-governance"}

func TestShippedManifestsPass(t *testing.T) {
	findings := Lint(shipped(t), opts)
	assert.Empty(t, findings)
}

// TestBrokenInputs adds each file of testdata/broken to the shipped
// manifests and requires exactly the findings listed: every check has been
// seen to fail on the mistake it exists for.
func TestBrokenInputs(t *testing.T) {
	tests := []struct {
		file string
		want []string // one substring per expected finding, in order
		rule Rule
	}{
		{"app-missing-sidecar.yaml", []string{"no sidecar.opentelemetry.io/inject annotation"}, RuleAppNotGoverned},
		{"app-missing-instrumentation.yaml", []string{"no instrumentation.opentelemetry.io/inject-<language> annotation"}, RuleAppNotGoverned},
		{"app-sidecar-names-missing-cr.yaml", []string{
			`instrumentation.opentelemetry.io/inject-python: "python" names no Instrumentation`,
			`sidecar.opentelemetry.io/inject: "governence" names no OpenTelemetryCollector`,
		}, RuleAppNotGoverned},
		{"app-true-without-crs.yaml", []string{
			`instrumentation.opentelemetry.io/inject-nodejs: "true" needs an Instrumentation in namespace payments`,
			`sidecar.opentelemetry.io/inject: "true" needs an OpenTelemetryCollector in mode sidecar in namespace payments`,
		}, RuleAppNotGoverned},
		{"collector-pipeline-ungoverned.yaml", []string{
			"pipeline logs: memory_limiter must be the first processor",
			"pipeline metrics has no governance processor",
		}, RulePipelineUngoverned},
		{"collector-contract.yaml", []string{
			`extensions.health_check.endpoint "localhost:13133" binds loopback`,
			`prometheus reader host "localhost"`,
			`spec.image "otel/opentelemetry-collector-contrib:0.165.0" is not this distribution`,
		}, RuleCollectorContract},
		{"collector-memory-pacing.yaml", []string{
			"GOMEMLIMIT (unset in spec.env: the Operator sets limits.memory, 512 MiB) is above processors.memory_limiter's soft limit (307 MiB = limit 409 MiB - spike 102 MiB)",
			`spec.env GOMEMLIMIT "300Mi" is not a Go memory limit`,
			"processors.memory_limiter limit 200 MiB is at or above limits.memory (128 MiB)",
			"spec.env GOGC=off without GOMEMLIMIT or limits.memory",
			"spec.env GOMEMLIMIT 350 MiB is above processors.memory_limiter's soft limit (307 MiB",
		}, RuleMemoryPacing},
		{"collector-admission.yaml", []string{
			"extensions.admission admits 16 requests of up to 4 MiB (receivers.otlp.protocols.grpc.max_recv_msg_size_mib), 250 MiB with their decoded copies (x3.9), more than processors.memory_limiter's spike allowance (102 MiB): lower max_requests_in_flight to 6",
			"receivers.otlp.protocols.grpc.max_recv_msg_size_mib is not set (the default, 4 MiB, applies)",
			"receivers.otlp.protocols.http lists no admission middleware (the CR runs [admission])",
		}, RuleAdmission},
		{"collector-persistent-queue.yaml", []string{
			"exporters.otlp_grpc/tempo.retry_on_failure.max_elapsed_time is not 0",
			"exporters.otlp_grpc/tempo.sending_queue.storage is not set: the queue is in memory",
			"exporters.otlp_http/loki.retry_on_failure.max_elapsed_time is not 0",
			"exporters.otlp_http/loki.sending_queue.sizer is requests (the default): size the queue in bytes",
			"extensions.file_storage.max_size is set: a file that reaches it refuses the writes that reading and deleting need",
			"volume queue (sizeLimit 1024 MiB) is too small: it must hold 2 queue file(s) (otlp_grpc/tempo/logs, otlp_grpc/tempo/traces) at 2× their queue_size, 1536 MiB, compaction's copy 768 MiB, 512 MiB of room for the write-ahead log of prometheus_remote_write = 2816 MiB",
			"exporters.prometheus_remote_write.wal.directory is not set",
			`extensions.file_storage.directory "/tmp/queue" is on no volume the CR mounts`,
			"spec.volumes queue is an emptyDir with medium: Memory",
		}, RulePersistentQueue},
		{"service-selector-cr-name.yaml", []string{
			`"gateway" is the CR name; the Operator sets app.kubernetes.io/instance: observability.gateway`,
			"matches no pod in namespace observability",
		}, RuleSelectorMatchesNothing},
		{"service-selector-typo.yaml", []string{"spec.selector {app.kubernetes.io/name=check-out} matches no pod in namespace shop"}, RuleSelectorMatchesNothing},
		{"servicemonitor-wrong-port.yaml", []string{`endpoint port "metrics" is not a port name of the selected Services (Service gateway-collector-monitoring:monitoring)`}, RuleSelectorMatchesNothing},
		{"servicemonitor-wrong-namespace.yaml", []string{"matches no Service in namespaces [monitoring]"}, RuleSelectorMatchesNothing},
	}
	base := shipped(t)
	entries, err := os.ReadDir("testdata/broken")
	require.NoError(t, err)
	require.Len(t, tests, len(entries), "every file in testdata/broken needs a case")
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			broken, err := LoadPaths(nil, filepath.Join("testdata/broken", tt.file))
			require.NoError(t, err)
			require.NotEmpty(t, broken)
			findings := Lint(append(append([]Object(nil), base...), broken...), opts)
			require.Len(t, findings, len(tt.want), "findings: %v", findings)
			for i, f := range findings {
				assert.Equal(t, tt.rule, f.Rule, f.String())
				assert.Contains(t, f.Message, tt.want[i])
				assert.Contains(t, f.Object, tt.file, "the finding names the broken object")
			}
		})
	}
}

func TestGovernedNamespacesOption(t *testing.T) {
	objs, err := LoadPaths(nil, "testdata/broken/app-missing-sidecar.yaml")
	require.NoError(t, err)
	// Without the Namespace object, shop is governed only when named.
	assert.Empty(t, Lint(objs, Options{}))
	findings := Lint(objs, Options{GovernedNamespaces: []string{"shop"}})
	require.Len(t, findings, 2) // no sidecar, and no Instrumentation "default" in the input
	assert.Equal(t, RuleAppNotGoverned, findings[0].Rule)
}

func operatorSchemas(t *testing.T) Schemas {
	t.Helper()
	if _, err := os.Stat(operatorCRDs); err != nil {
		t.Skipf("Operator CRDs not at %s: %v", operatorCRDs, err)
	}
	s, err := LoadCRDs(operatorCRDs)
	require.NoError(t, err)
	return s
}

func TestShippedCRsMatchOperatorSchema(t *testing.T) {
	s := operatorSchemas(t)
	objs := shipped(t)
	covered := 0
	for _, o := range objs {
		if s.Covers(o) {
			covered++
		}
	}
	assert.Equal(t, 3, covered, "gateway, sidecar and Instrumentation are checked against the CRDs")
	assert.Empty(t, s.Validate(objs))
}

func TestSchemaCatchesMisspelledField(t *testing.T) {
	s := operatorSchemas(t)
	objs, err := LoadPaths(nil, "testdata/schema")
	require.NoError(t, err)
	var msgs []string
	for _, f := range s.Validate(objs) {
		assert.Equal(t, RuleSchema, f.Rule)
		msgs = append(msgs, f.Message)
	}
	assert.Equal(t, []string{
		"spec.autoscaler.targetCPU: unknown field (the API server would prune it silently)",
		"spec.replicas: want integer, got string",
	}, msgs)
}
