//go:build e2e

package e2e_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

const shadowChangesMetric = "otelcol_processor_governance_shadow_changes"

// nextSemconvDir is ../shared/semconv/next-384d661 (unreleased main after
// v1.44.0: rpc.response.status_code becomes rpc.status_code), absolute.
func nextSemconvDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join(e2e.RepoRoot(t), "..", "shared", "semconv", "next-384d661"))
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(dir, "model")); err != nil {
		t.Skipf("semantic conventions next-384d661 not available: %v", err)
	}
	return dir
}

// TestShadowRegistry runs the built collector with v1.44.0 in force and
// next-384d661 as the extension's candidate, sampling every batch: :8888
// counts the spans whose rpc.response.status_code the candidate would
// rename, per service, the data passes as the registry in force leaves it,
// and /registry shows the candidate.
func TestShadowRegistry(t *testing.T) {
	next := nextSemconvDir(t)
	rc := startExtensionCollector(t, "candidate:\n      semconv_dir: "+next, 500*time.Millisecond,
		"    shadow:\n      sample_every: 1\n      max_batches_per_second: 1000\n")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	info := rc.info(t)
	require.NotNil(t, info.Candidate)
	assert.Empty(t, info.Candidate.Error)
	assert.Equal(t, int64(1), info.Candidate.Generation)
	assert.NotEqual(t, info.Digest, info.Candidate.Digest)

	require.NoError(t, rc.client.SendTraces(ctx, e2e.GRPC, e2e.Traces("checkout", 0, 20, map[string]any{"rpc.response.status_code": "OK"})))
	require.NoError(t, rc.client.SendTraces(ctx, e2e.HTTP, e2e.Traces("cart", 100, 20, map[string]any{"http.request.method": "GET"})))
	rc.sink.WaitFor(t, e2e.Counts{Spans: 40}, 30*time.Second)

	fams := waitForMetric(t, rc.metrics, shadowChangesMetric)
	assertCount(t, fams, shadowChangesMetric, map[string]string{"service_name": "checkout", "change_kind": "attribute_renamed"}, 20)
	assertAbsentOrZero(t, fams, shadowChangesMetric, map[string]string{"service_name": "cart"})
	assertCount(t, fams, "otelcol_processor_governance_shadow_batches", nil, 2)
	assertCount(t, fams, "otelcol_processor_governance_shadow_items", nil, 40)
	// The candidate's generation, one gauge per pipeline: each says 1.
	for _, signal := range []string{"traces", "metrics", "logs"} {
		assertCount(t, fams, "otelcol_processor_governance_shadow_candidate", map[string]string{"otel_signal": signal, "candidate_status": "loaded"}, 1)
	}

	// The candidate changes nothing: the key stays as v1.44.0 has it.
	spanAttrs(rc.sink, func(service string, _ ptrace.ResourceSpans, span ptrace.Span) {
		if service != "checkout" {
			return
		}
		_, old := span.Attributes().Get("rpc.response.status_code")
		_, renamed := span.Attributes().Get("rpc.status_code")
		assert.True(t, old)
		assert.False(t, renamed)
	})
}

// TestShadowValidate: otelcol validate names a candidate path that does not
// exist by its key.
func TestShadowValidate(t *testing.T) {
	sink := e2e.StartSink(t)
	p := e2e.NewPipeline(t, sink)
	p.Extensions = "  governance_registry:\n    candidate:\n      semconv_dir: /nonexistent/semconv\n"
	p.ExtensionNames = []string{"governance_registry"}
	p.Processors = "  governance:\n    registry:\n      extension: governance_registry\n"
	p.ProcessorNames = []string{"governance"}
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, cfg, p.YAML())
	out, err := e2e.Run(t, "validate", "--config", cfg)
	require.Error(t, err)
	assert.Contains(t, out, "candidate::semconv_dir: registry path not found")
}
