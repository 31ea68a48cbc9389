//go:build e2e

package e2e_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// Names as the built binary exports them on :8888 (no _total suffix at v0.165).
const (
	attributesMetric        = "otelcol_processor_governance_attributes"
	attributesDroppedMetric = "otelcol_processor_governance_attributes_dropped"
	serviceAttributesMetric = "otelcol_processor_governance_service_attributes"
	registryInfoMetric      = "otelcol_processor_governance_registry_info"
)

// TestGovernanceSpan sends one span with a deprecated key, a deprecated
// resource-style key and an unknown key through the real binary, in keep and in
// drop mode, and checks both what arrives and how :8888 moved.
func TestGovernanceSpan(t *testing.T) {
	for _, tt := range []struct {
		name        string
		unknownMode string
		wantUnknown bool
	}{
		{name: "keep", unknownMode: "keep", wantUnknown: true},
		{name: "drop", unknownMode: "drop", wantUnknown: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sink := e2e.StartSink(t)
			p := e2e.NewPipeline(t, sink)
			p.Processors = "  governance:\n    unknown: " + tt.unknownMode + "\n"
			p.ProcessorNames = []string{"governance"}
			col := e2e.StartCollector(t, p.YAML(), p.HealthPort, p.MetricsPort, e2e.Options{})

			client, err := e2e.NewClient(p.GRPCEndpoint(), p.HTTPEndpoint())
			require.NoError(t, err)
			defer client.Close()
			td := e2e.Traces("checkout", 0, 1, map[string]any{
				"http.method":            "GET",
				"deployment.environment": "prod",
				"acme.unknown":           int64(1),
			})
			require.NoError(t, client.SendTraces(context.Background(), e2e.GRPC, td))
			sink.WaitFor(t, e2e.Counts{Spans: 1}, 10*time.Second)

			got := sink.Traces()[0].ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes()
			want := map[string]any{
				"http.request.method":         "GET",
				"deployment.environment.name": "prod",
			}
			if tt.wantUnknown {
				want["acme.unknown"] = int64(1)
			}
			assert.Equal(t, want, got.AsRaw())

			// Counters are recorded once per batch; the scrape may race the
			// record, so wait for the first non-zero value.
			fams := waitForMetric(t, col.MetricsPort, attributesMetric)
			span := map[string]string{"otel_signal": "traces", "location": "span"}
			assertCount(t, fams, attributesMetric, with(span, "outcome", "renamed"), 2)
			if tt.wantUnknown {
				assertCount(t, fams, attributesMetric, with(span, "outcome", "unknown"), 1)
				assertAbsentOrZero(t, fams, attributesMetric, with(span, "outcome", "dropped"))
			} else {
				assertCount(t, fams, attributesMetric, with(span, "outcome", "dropped"), 1)
				assertCount(t, fams, attributesDroppedMetric, map[string]string{"otel_signal": "traces", "reason": "unknown"}, 1)
				assertAbsentOrZero(t, fams, attributesMetric, with(span, "outcome", "unknown"))
			}
			// The resource's service.name is the only other attribute.
			assertCount(t, fams, attributesMetric, map[string]string{"otel_signal": "traces", "location": "resource", "outcome": "conformant"}, 1)
			total, _ := fams.Sum(attributesMetric, nil)
			assert.InDelta(t, 4.0, total, 0, "every attribute counted exactly once")
			assertCount(t, fams, serviceAttributesMetric, map[string]string{"service_name": "checkout", "outcome": "renamed"}, 2)

			// One info series per pipeline the processor serves, all naming
			// the same registry.
			info := fams.Series(registryInfoMetric)
			require.Len(t, info, 3)
			for _, series := range info {
				assert.Equal(t, "https://opentelemetry.io/schemas/1.44.0", series["schema_url"])
				assert.Equal(t, "1", series["generation"])
				assert.Len(t, series["digest"], 64)
				assert.Equal(t, info[0]["digest"], series["digest"])
			}
		})
	}
}

// TestGovernanceNetPeerNameByKind checks the context rule end to end.
func TestGovernanceNetPeerNameByKind(t *testing.T) {
	sink := e2e.StartSink(t)
	p := e2e.NewPipeline(t, sink)
	p.Processors = "  governance: {}\n"
	p.ProcessorNames = []string{"governance"}
	e2e.StartCollector(t, p.YAML(), p.HealthPort, p.MetricsPort, e2e.Options{})
	client, err := e2e.NewClient(p.GRPCEndpoint(), "")
	require.NoError(t, err)
	defer client.Close()

	td := e2e.Traces("frontend", 0, 2, map[string]any{"net.peer.name": "db.local"})
	spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	spans.At(0).SetKind(3) // client
	spans.At(1).SetKind(2) // server
	require.NoError(t, client.SendTraces(context.Background(), e2e.GRPC, td))
	sink.WaitFor(t, e2e.Counts{Spans: 2}, 10*time.Second)
	out := sink.Traces()[0].ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	byID := map[pcommon.SpanID]map[string]any{}
	for i := 0; i < out.Len(); i++ {
		byID[out.At(i).SpanID()] = out.At(i).Attributes().AsRaw()
	}
	assert.Equal(t, map[string]any{"server.address": "db.local"}, byID[e2e.SpanID(0)])
	assert.Equal(t, map[string]any{"client.address": "db.local"}, byID[e2e.SpanID(1)])
}

func waitForMetric(t *testing.T, port int, name string) e2e.Families {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		fams := e2e.MustScrape(t, port)
		if _, ok := fams[name]; ok || time.Now().After(deadline) {
			return fams
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func with(base map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for bk, bv := range base {
		out[bk] = bv
	}
	return out
}

func assertCount(t *testing.T, fams e2e.Families, name string, labels map[string]string, want float64) {
	t.Helper()
	got, found := fams.Sum(name, labels)
	if assert.Truef(t, found, "%s%v missing on :8888", name, labels) {
		assert.InDeltaf(t, want, got, 0, "%s%v", name, labels) // counts are exact integers
	}
}

func assertAbsentOrZero(t *testing.T, fams e2e.Families, name string, labels map[string]string) {
	t.Helper()
	got, _ := fams.Sum(name, labels)
	assert.Zerof(t, got, "%s%v", name, labels)
}
