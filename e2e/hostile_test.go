//go:build e2e

package e2e_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/conformance"
	"github.com/otelgov/otelcol-governance/internal/e2e"
	"github.com/otelgov/otelcol-governance/vocab"
)

// TestHostileInputBounded sends, through the built binary, a span whose
// service.name and one key are 1 MB long, with a key that is not UTF-8 and an
// empty key. The span arrives unchanged; :8888 and /conformance stay small,
// and every label value on :8888 is bounded and valid UTF-8.
func TestHostileInputBounded(t *testing.T) {
	org := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(org, "cart.yaml"), []byte(cartV1), 0o600))
	rc := startRegistryCollector(t, org, time.Hour)

	mb := strings.Repeat("s", 1<<20)
	bigKey := strings.Repeat("k", 1<<20)
	td := e2e.Traces(mb, 0, 1, map[string]any{
		bigKey:                "1 MB key",
		"key\xff\xfe":         "not utf-8",
		"":                    "empty key",
		"http.request.method": "GET",
	})
	want := ptrace.NewTraces()
	td.CopyTo(want)
	require.NoError(t, rc.client.SendTraces(context.Background(), e2e.GRPC, td))
	rc.sink.WaitFor(t, e2e.Counts{Spans: 1}, 20*time.Second)

	got := rc.sink.Traces()[0]
	gotSvc, ok := got.ResourceSpans().At(0).Resource().Attributes().Get("service.name")
	require.True(t, ok)
	assert.Equal(t, mb, gotSvc.Str(), "service.name passes unchanged")
	gotAttrs := got.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes()
	v, ok := gotAttrs.Get(bigKey)
	require.True(t, ok, "the 1 MB key passes unchanged")
	assert.Equal(t, "1 MB key", v.Str())
	assert.Equal(t, 4, gotAttrs.Len())

	// :8888: the per-service series carries the name cut to 256 bytes, and
	// the truncation is counted.
	fams := waitForMetric(t, rc.metrics, "otelcol_processor_governance_service_name_bounded")
	assertCount(t, fams, "otelcol_processor_governance_service_name_bounded", map[string]string{"otel_signal": "traces"}, 1)
	assertCount(t, fams, serviceAttributesMetric, map[string]string{"service_name": mb[:vocab.MaxKeyLength], "outcome": "unknown"}, 3) // the 1 MB, non-UTF-8 and empty keys
	for _, fam := range fams {
		for _, m := range fam.GetMetric() {
			for _, l := range m.GetLabel() {
				assert.LessOrEqual(t, len(l.GetValue()), vocab.MaxKeyLength, "%s{%s}", fam.GetName(), l.GetName())
				assert.True(t, utf8.ValidString(l.GetValue()))
			}
		}
	}
	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(rc.metrics) + "/metrics") //nolint:gosec // loopback test URL
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Less(t, len(body), 256<<10, "the :8888 scrape stays small")

	// /conformance: the service and keys are cut to the same bound.
	var rep conformance.Document
	var size int
	require.Eventually(t, func() bool {
		_, size = rc.get(t, "/conformance", &rep)
		return len(rep.Services) > 0
	}, 10*time.Second, 100*time.Millisecond)
	assert.Less(t, size, 64<<10, "the report stays small")
	for _, s := range rep.Services {
		assert.LessOrEqual(t, len(s.Service), vocab.MaxKeyLength)
		for _, k := range s.UnknownKeys {
			assert.LessOrEqual(t, len(k.Key), vocab.MaxKeyLength)
			assert.True(t, utf8.ValidString(k.Key))
		}
	}
	assert.False(t, rc.col.Exited(), "no panic")
}
