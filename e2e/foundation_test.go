//go:build e2e

package e2e_test

import (
	"context"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// wantComponents is the distribution's component list: exactly these, no more.
var wantComponents = map[string][]string{
	"receivers":  {"otlp"},
	"processors": {"batch", "governance", "memory_limiter", "resource"},
	// At v0.165 the exporters are listed under their new type names; the old
	// names (otlp, otlphttp, prometheusremotewrite) stay accepted as aliases,
	// which the platform pipeline in TestValidate relies on.
	"exporters":  {"debug", "file", "nop", "otlp_grpc", "otlp_http", "prometheus_remote_write"},
	"extensions": {"admission", "file_storage", "governance_registry", "health_check", "pprof", "zpages"},
	"providers":  {"env", "file", "http", "https", "yaml"},
}

func TestComponentsListExactly(t *testing.T) {
	out, err := e2e.Run(t, "components")
	require.NoError(t, err, out)
	var doc map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(out), &doc), out)
	for kind, want := range wantComponents {
		list, ok := doc[kind].([]any)
		require.Truef(t, ok, "no %q section in:\n%s", kind, out)
		var got []string
		for _, c := range list {
			entry, ok := c.(map[string]any)
			require.True(t, ok)
			if kind == "providers" {
				got = append(got, entry["scheme"].(string))
			} else {
				got = append(got, entry["name"].(string))
			}
		}
		sort.Strings(got)
		assert.Equal(t, want, got, kind)
	}
}

func TestValidate(t *testing.T) {
	root := e2e.RepoRoot(t)
	for _, cfg := range []string{
		"e2e/testdata/platform-pipeline.yaml", // the platform team's pipeline, unmodified
		"distribution/config.yaml",
	} {
		t.Run(cfg, func(t *testing.T) {
			out, err := e2e.Run(t, "validate", "--config", filepath.Join(root, cfg))
			assert.NoError(t, err, out)
		})
	}
}

func TestValidateRejectsBadConfig(t *testing.T) {
	for _, tt := range []struct{ old, new, want string }{
		{"verbosity: basic", "verbosity: loud", "verbosity"},
		// An admission bound that cannot work fails at start, naming the key.
		{"admission: {}", "admission:\n    max_requests_in_flight: 0", "extensions::admission: max_requests_in_flight: must be positive, got 0"},
	} {
		t.Run(tt.want, func(t *testing.T) {
			bad := filepath.Join(t.TempDir(), "bad.yaml")
			def := mustRead(t, filepath.Join(e2e.RepoRoot(t), "distribution/config.yaml"))
			require.Contains(t, def, tt.old)
			writeFile(t, bad, strings.Replace(def, tt.old, tt.new, 1))
			out, err := e2e.Run(t, "validate", "--config", bad)
			require.Error(t, err)
			assert.Contains(t, out, tt.want)
		})
	}
}

// TestDefaultConfigRuns runs the embedded default on its fixed localhost ports.
func TestDefaultConfigRuns(t *testing.T) {
	col := e2e.StartCollectorFile(t, filepath.Join(e2e.RepoRoot(t), "distribution/config.yaml"), 13133, 8888, e2e.Options{})
	fams := e2e.MustScrape(t, col.MetricsPort)
	var otelcol int
	for name := range fams {
		if strings.HasPrefix(name, "otelcol_") {
			otelcol++
		}
	}
	assert.Positive(t, otelcol, "no otelcol_* metrics on localhost:8888")

	// Health answers on 13133 and OTLP/HTTP accepts a span on 4318.
	resp, err := http.Get("http://localhost:13133/")
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	// The registry extension's report answers on loopback 13180.
	resp, err = http.Get("http://localhost:13180/registry")
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	client, err := e2e.NewClient("localhost:4317", "localhost:4318")
	require.NoError(t, err)
	defer client.Close()
	ctx := context.Background()
	require.NoError(t, client.SendTraces(ctx, e2e.HTTP, e2e.Traces("default", 0, 1, nil)))
	require.NoError(t, client.SendTraces(ctx, e2e.GRPC, e2e.Traces("default", 1, 1, nil)))

	// Both went through the admission middleware, which counts on :8888.
	fams = e2e.MustScrape(t, col.MetricsPort)
	for _, proto := range []string{"grpc", "http"} {
		n, found := fams.Sum("otelcol_extension_admission_requests_admitted", map[string]string{"protocol": proto})
		assert.True(t, found && n >= 1, "%s requests admitted: %v", proto, n)
	}
	_, found := fams.Sum("otelcol_extension_admission_requests_in_flight", nil)
	assert.True(t, found, "the in-flight gauge is exported")
}

// TestPipelineDeliversEverything sends N spans, N data points and N log
// records, half over gRPC and half over HTTP, and requires exactly those at the
// sink and in the receiver's accepted counters on :8888.
func TestPipelineDeliversEverything(t *testing.T) {
	const n, batch = 2000, 100
	sink := e2e.StartSink(t)
	p := e2e.NewPipeline(t, sink)
	p.Processors = "  memory_limiter:\n    check_interval: 1s\n    limit_mib: 512\n  batch:\n    timeout: 200ms\n"
	p.ProcessorNames = []string{"memory_limiter", "batch"}
	col := e2e.StartCollector(t, p.YAML(), p.HealthPort, p.MetricsPort, e2e.Options{})

	client, err := e2e.NewClient(p.GRPCEndpoint(), p.HTTPEndpoint())
	require.NoError(t, err)
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	attrs := map[string]any{"http.request.method": "GET", "url.path": "/cart"}
	for first := 0; first < n; first += batch {
		proto := e2e.GRPC
		if (first/batch)%2 == 1 {
			proto = e2e.HTTP
		}
		require.NoError(t, client.SendTraces(ctx, proto, e2e.Traces("checkout", first, batch, attrs)))
		require.NoError(t, client.SendMetrics(ctx, proto, e2e.Metrics("checkout", first, batch, attrs)))
		require.NoError(t, client.SendLogs(ctx, proto, e2e.Logs("checkout", first, batch, attrs)))
	}
	sink.WaitFor(t, e2e.Counts{Spans: n, DataPoints: n, LogRecords: n}, 30*time.Second)

	// Every numbered span arrived exactly once.
	seen := make(map[[8]byte]int, n)
	for _, td := range sink.Traces() {
		rss := td.ResourceSpans()
		for i := 0; i < rss.Len(); i++ {
			sss := rss.At(i).ScopeSpans()
			for j := 0; j < sss.Len(); j++ {
				spans := sss.At(j).Spans()
				for k := 0; k < spans.Len(); k++ {
					seen[spans.At(k).SpanID()]++
				}
			}
		}
	}
	for i := 0; i < n; i++ {
		require.Equalf(t, 1, seen[e2e.SpanID(i)], "span %d", i)
	}

	fams := e2e.MustScrape(t, col.MetricsPort)
	for name, want := range map[string]float64{
		"otelcol_receiver_accepted_spans":         n,
		"otelcol_receiver_accepted_metric_points": n,
		"otelcol_receiver_accepted_log_records":   n,
		"otelcol_exporter_sent_spans":             n,
		"otelcol_exporter_sent_metric_points":     n,
		"otelcol_exporter_sent_log_records":       n,
	} {
		got, found := fams.Sum(name, nil)
		assert.Truef(t, found, "%s missing on :8888", name)
		assert.InDeltaf(t, want, got, 0, name) // counts are exact integers
	}
}
