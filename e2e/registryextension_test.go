//go:build e2e

package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/conformance"
	"github.com/otelgov/otelcol-governance/extension/registryextension/registryapi"
	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// Org registry versions: v1 lacks acme.cart.size; v2 defines it and
// deprecates acme.cart.sz in its favour.
const (
	cartV1 = `groups:
  - id: registry.acme.cart
    type: attribute_group
    brief: Acme cart attributes.
    attributes:
      - id: acme.cart.state
        type: string
        stability: development
        brief: State of the cart.
`
	cartV2 = cartV1 + `      - id: acme.cart.size
        type: int
        stability: development
        brief: Number of items in the cart.
      - id: acme.cart.sz
        type: int
        stability: development
        brief: Deprecated, use acme.cart.size.
        deprecated:
          reason: renamed
          renamed_to: acme.cart.size
`
	// cartBroken has a YAML syntax error (an unclosed flow sequence).
	cartBroken = `groups:
  - id: registry.acme.cart
    type: attribute_group
    brief: Acme cart attributes.
    attributes:
      - id: [acme.cart.state
`
)

// regCollector is a collector whose governance processor takes its registry
// from a governance_registry extension watching one org registry directory.
type regCollector struct {
	col     *e2e.Collector
	sink    *e2e.Sink
	client  *e2e.Client
	metrics int
	base    string // http://127.0.0.1:port of the extension
}

func startRegistryCollector(t *testing.T, orgDir string, poll time.Duration) *regCollector {
	t.Helper()
	// profile extended: these tests check span definitions and unexpected_attribute on v1 groups.
	return startExtensionCollector(t, "org_registries: ["+orgDir+"]", poll, "    findings:\n      profile: extended\n")
}

// startExtensionCollector runs the governance processor on a
// governance_registry extension with the given sources (one YAML line of
// the extension) and the processor's further YAML.
func startExtensionCollector(t *testing.T, sources string, poll time.Duration, processor string) *regCollector {
	t.Helper()
	sink := e2e.StartSink(t)
	p := e2e.NewPipeline(t, sink)
	port := e2e.FreePort(t)
	p.Extensions = fmt.Sprintf("  governance_registry:\n    %s\n    poll_interval: %s\n    http:\n      endpoint: 127.0.0.1:%d\n",
		sources, poll, port)
	p.ExtensionNames = []string{"governance_registry"}
	p.Processors = "  governance:\n    registry:\n      extension: governance_registry\n" + processor
	p.ProcessorNames = []string{"governance"}
	col := e2e.StartCollector(t, p.YAML(), p.HealthPort, p.MetricsPort, e2e.Options{})
	client, err := e2e.NewClient(p.GRPCEndpoint(), p.HTTPEndpoint())
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Close() })
	return &regCollector{col: col, sink: sink, client: client, metrics: p.MetricsPort, base: "http://127.0.0.1:" + strconv.Itoa(port)}
}

// get decodes a JSON document from the extension and returns its status and size.
func (rc *regCollector) get(t *testing.T, path string, out any) (code, size int) {
	t.Helper()
	resp, err := http.Get(rc.base + path) //nolint:gosec // loopback test URL
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(body, out), string(body))
	return resp.StatusCode, len(body)
}

func (rc *regCollector) info(t *testing.T) registryapi.RegistryInfo {
	t.Helper()
	var info registryapi.RegistryInfo
	code, _ := rc.get(t, "/registry", &info)
	require.Equal(t, http.StatusOK, code)
	return info
}

func (rc *regCollector) service(t *testing.T, name string) conformance.ServiceReport {
	t.Helper()
	var rep conformance.Document
	rc.get(t, "/conformance?service="+name, &rep)
	require.Len(t, rep.Services, 1, "service %s in the report", name)
	return rep.Services[0]
}

// waitInfo polls /registry until cond holds and returns how long it took.
func (rc *regCollector) waitInfo(t *testing.T, what string, cond func(registryapi.RegistryInfo) bool) time.Duration {
	t.Helper()
	start := time.Now()
	for time.Since(start) < 15*time.Second {
		if cond(rc.info(t)) {
			return time.Since(start)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s; /registry: %+v", what, rc.info(t))
	return 0
}

func writeAtomic(t *testing.T, path, content string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	require.NoError(t, os.WriteFile(tmp, []byte(content), 0o600))
	require.NoError(t, os.Rename(tmp, path))
}

// spanAttrs calls fn with every span's service and attributes.
func spanAttrs(sink *e2e.Sink, fn func(service string, rs ptrace.ResourceSpans, span ptrace.Span)) {
	for _, td := range sink.Traces() {
		rss := td.ResourceSpans()
		for i := 0; i < rss.Len(); i++ {
			rs := rss.At(i)
			svc, _ := rs.Resource().Attributes().Get("service.name")
			sss := rs.ScopeSpans()
			for j := 0; j < sss.Len(); j++ {
				spans := sss.At(j).Spans()
				for k := 0; k < spans.Len(); k++ {
					fn(svc.Str(), rs, spans.At(k))
				}
			}
		}
	}
}

// TestRegistryHotReload changes the org registry under a running collector:
// a key unknown before the change is conformant after it, its deprecated
// predecessor is renamed, the generation goes up by one, and spans sent
// all through the swap arrive exactly once, each batch checked against one
// registry generation.
func TestRegistryHotReload(t *testing.T) {
	const poll = 500 * time.Millisecond
	dir := t.TempDir()
	file := filepath.Join(dir, "cart.yaml")
	writeAtomic(t, file, cartV1)
	rc := startRegistryCollector(t, dir, poll)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// 1. Before: acme.cart.size is unknown.
	gen1 := rc.info(t)
	require.Equal(t, int64(1), gen1.Generation)
	require.NoError(t, rc.client.SendTraces(ctx, e2e.GRPC, e2e.Traces("before", 0, 20, map[string]any{"acme.cart.size": 3})))
	rc.sink.WaitFor(t, e2e.Counts{Spans: 20}, 30*time.Second)
	before := rc.service(t, "before")
	assert.Equal(t, int64(20), before.Attributes["unknown"])
	assert.Equal(t, []conformance.KeyCount{{Key: "acme.cart.size", Count: 20}}, before.UnknownKeys)

	// 5. Spans keep flowing all through the swap: 10 per batch, numbered.
	var sent atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for seq := 1000; !stop.Load(); seq += 10 {
			if err := rc.client.SendTraces(ctx, e2e.GRPC, e2e.Traces("during", seq, 10, map[string]any{"acme.cart.sz": 3})); err != nil {
				t.Errorf("send during the swap: %v", err)
				return
			}
			sent.Add(10)
			time.Sleep(10 * time.Millisecond)
		}
	}()
	time.Sleep(3 * poll)

	// 2. Rewrite the registry: define acme.cart.size, deprecate acme.cart.sz.
	writeAtomic(t, file, cartV2)
	// 3. Picked up within the poll interval (plus scheduling slack on a
	// loaded machine), without a restart.
	took := rc.waitInfo(t, "generation 2", func(i registryapi.RegistryInfo) bool { return i.Generation >= 2 })
	t.Logf("reload visible in /registry after %s (poll interval %s)", took, poll)
	assert.Less(t, took, poll+time.Second)
	time.Sleep(3 * poll)
	stop.Store(true)
	wg.Wait()
	require.Positive(t, sent.Load())

	// 4. Exactly one generation more, another digest.
	gen2 := rc.info(t)
	assert.Equal(t, int64(2), gen2.Generation)
	assert.NotEqual(t, gen1.Digest, gen2.Digest)
	assert.Nil(t, gen2.LastReloadError)

	// New spans: the old key is renamed, the new one conformant.
	require.NoError(t, rc.client.SendTraces(ctx, e2e.GRPC, e2e.Traces("after", 100, 20, map[string]any{"acme.cart.sz": 4})))
	require.NoError(t, rc.client.SendTraces(ctx, e2e.HTTP, e2e.Traces("after", 200, 20, map[string]any{"acme.cart.size": 5})))
	total := 20 + int(sent.Load()) + 40
	rc.sink.WaitFor(t, e2e.Counts{Spans: total}, 30*time.Second)

	after := rc.service(t, "after")
	assert.Equal(t, int64(20), after.Attributes["renamed"])
	assert.Equal(t, int64(0), after.Attributes["unknown"])
	assert.Equal(t, int64(20+2), after.Attributes["conformant"], "acme.cart.size, and service.name once per request")
	assert.Equal(t, []conformance.KeyCount{{Key: "acme.cart.sz", Count: 20}}, after.DeprecatedKeys)
	assert.Empty(t, after.UnknownKeys)

	// No span lost or duplicated, and each request was checked against one
	// generation: all its spans old-style (kept acme.cart.sz) or all
	// new-style (renamed to acme.cart.size).
	ids := map[[8]byte]int{}
	variants := map[ptrace.ResourceSpans]map[string]int{}
	spanAttrs(rc.sink, func(svc string, rs ptrace.ResourceSpans, span ptrace.Span) {
		ids[span.SpanID()]++
		if svc != "during" {
			return
		}
		_, old := span.Attributes().Get("acme.cart.sz")
		v, cur := span.Attributes().Get("acme.cart.size")
		require.NotEqual(t, old, cur, "exactly one of the two keys")
		if cur {
			assert.Equal(t, int64(3), v.Int())
		}
		if variants[rs] == nil {
			variants[rs] = map[string]int{}
		}
		variants[rs][strconv.FormatBool(cur)]++
	})
	assert.Len(t, ids, total)
	for id, n := range ids {
		require.Equal(t, 1, n, "span %x", id)
	}
	oldBatches, newBatches := 0, 0
	for _, v := range variants {
		require.Len(t, v, 1, "a request mixes registry generations: %v", v)
		if v["true"] > 0 {
			newBatches++
		} else {
			oldBatches++
		}
	}
	t.Logf("requests during the swap: %d on generation 1, %d on generation 2", oldBatches, newBatches)
	assert.Positive(t, oldBatches)
	assert.Positive(t, newBatches)

	// :8888 shows the generation in force and the successful reload.
	fam := e2e.MustScrape(t, rc.metrics)
	v, ok := fam.Sum("otelcol_extension_governance_registry_info", map[string]string{"generation": "2", "digest": gen2.Digest})
	assert.True(t, ok)
	assert.InDelta(t, 1.0, v, 0)
	_, ok = fam.Sum("otelcol_extension_governance_registry_info", map[string]string{"generation": "1"})
	assert.False(t, ok, "only the generation in force is exported")
	v, _ = fam.Sum("otelcol_extension_governance_registry_reloads", map[string]string{"result": "success"})
	assert.InDelta(t, 1.0, v, 0)
	v, _ = fam.Sum("otelcol_processor_governance_registry_info", map[string]string{"generation": "2"})
	assert.InDelta(t, 1.0, v, 0, "the processor's info gauge moved too")
	assert.Contains(t, rc.col.Log(), "Registry reloaded")
}

// TestRegistryBadReload breaks the registry file under a running
// collector: the last good registry stays in force, the error shows in
// /registry, in component status and on :8888, and a fix recovers.
func TestRegistryBadReload(t *testing.T) {
	const poll = 300 * time.Millisecond
	dir := t.TempDir()
	file := filepath.Join(dir, "cart.yaml")
	writeAtomic(t, file, cartV2)
	rc := startRegistryCollector(t, dir, poll)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	renamed := func(want int) {
		t.Helper()
		n := 0
		spanAttrs(rc.sink, func(_ string, _ ptrace.ResourceSpans, span ptrace.Span) {
			_, old := span.Attributes().Get("acme.cart.sz")
			_, cur := span.Attributes().Get("acme.cart.size")
			if cur && !old {
				n++
			}
		})
		assert.Equal(t, want, n, "spans with acme.cart.sz renamed")
	}
	require.NoError(t, rc.client.SendTraces(ctx, e2e.GRPC, e2e.Traces("svc", 0, 10, map[string]any{"acme.cart.sz": 1})))
	rc.sink.WaitFor(t, e2e.Counts{Spans: 10}, 30*time.Second)
	renamed(10)
	good := rc.info(t)

	// A syntax error: the old registry stays in force.
	writeAtomic(t, file, cartBroken)
	rc.waitInfo(t, "a reload error", func(i registryapi.RegistryInfo) bool { return i.LastReloadError != nil })
	bad := rc.info(t)
	assert.Equal(t, good.Generation, bad.Generation)
	assert.Equal(t, good.Digest, bad.Digest)
	assert.Contains(t, bad.LastReloadError.Error, file+": yaml: line 5")
	assert.Equal(t, []string{file}, bad.LastReloadError.Files)
	require.NotNil(t, bad.Status)
	assert.Equal(t, "StatusRecoverableError", bad.Status.Status, "component status as delivered to status watchers")
	assert.Contains(t, bad.Status.Error, "line 5")

	fam := e2e.MustScrape(t, rc.metrics)
	v, _ := fam.Sum("otelcol_extension_governance_registry_reload_failing", nil)
	assert.InDelta(t, 1.0, v, 0)
	v, _ = fam.Sum("otelcol_extension_governance_registry_reloads", map[string]string{"result": "failure"})
	assert.InDelta(t, 1.0, v, 0)
	assert.Contains(t, rc.col.Log(), "Registry reload failed")
	assert.Contains(t, rc.col.Log(), file+": yaml: line 5")

	require.NoError(t, rc.client.SendTraces(ctx, e2e.GRPC, e2e.Traces("svc", 10, 10, map[string]any{"acme.cart.sz": 1})))
	rc.sink.WaitFor(t, e2e.Counts{Spans: 20}, 30*time.Second)
	renamed(20)

	// The fix recovers.
	writeAtomic(t, file, cartV2+"      - id: acme.cart.owner\n        type: string\n        stability: development\n        brief: Owner.\n")
	rc.waitInfo(t, "generation 2", func(i registryapi.RegistryInfo) bool { return i.Generation == good.Generation+1 })
	fixed := rc.info(t)
	assert.Nil(t, fixed.LastReloadError)
	require.NotNil(t, fixed.Status)
	assert.Equal(t, "StatusOK", fixed.Status.Status)
	var attr registryapi.AttributeInfo
	code, _ := rc.get(t, "/registry/attributes/acme.cart.owner", &attr)
	assert.Equal(t, http.StatusOK, code)
	assert.True(t, attr.Known)
	fam = e2e.MustScrape(t, rc.metrics)
	v, _ = fam.Sum("otelcol_extension_governance_registry_reload_failing", nil)
	assert.InDelta(t, 0.0, v, 0)
	v, _ = fam.Sum("otelcol_extension_governance_registry_reloads", map[string]string{"result": "success"})
	assert.InDelta(t, 1.0, v, 0)
}

// TestConformanceReport checks /conformance to the count after known
// traffic from three services over traces and logs, then floods the
// collector with 10,000 distinct unknown keys from 1,000 services and checks
// the stated bounds.
func TestConformanceReport(t *testing.T) {
	dir := t.TempDir()
	writeAtomic(t, filepath.Join(dir, "cart.yaml"), cartV1)
	rc := startRegistryCollector(t, dir, time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	checkout := map[string]any{"http.method": "GET", "acme.promo": "x", "server.address": "shop"}
	require.NoError(t, rc.client.SendTraces(ctx, e2e.GRPC, e2e.Traces("checkout", 0, 5, checkout)))
	require.NoError(t, rc.client.SendTraces(ctx, e2e.HTTP, e2e.Traces("checkout", 5, 5, checkout)))
	require.NoError(t, rc.client.SendTraces(ctx, e2e.GRPC, e2e.Traces("cart", 10, 4, map[string]any{"server.address": "cart", "acme.cart.state": "open"})))
	require.NoError(t, rc.client.SendLogs(ctx, e2e.GRPC, e2e.Logs("payment", 0, 3, map[string]any{"acme.legacy": 1, "http.method": "POST"})))
	rc.sink.WaitFor(t, e2e.Counts{Spans: 14, LogRecords: 3}, 30*time.Second)

	var rep conformance.Document
	code, _ := rc.get(t, "/conformance", &rep)
	require.Equal(t, http.StatusOK, code)
	require.Len(t, rep.Services, 3)
	nonZero := func(m map[string]int64) map[string]int64 {
		out := map[string]int64{}
		for k, v := range m {
			if v != 0 {
				out[k] = v
			}
		}
		return out
	}
	byName := map[string]conformance.ServiceReport{}
	for _, s := range rep.Services {
		byName[s.Service] = s
	}
	// checkout: 10 spans x (server.address conformant, http.method renamed,
	// acme.promo unknown) + service.name once per request (2).
	assert.Equal(t, map[string]int64{"conformant": 12, "renamed": 10, "unknown": 10}, nonZero(byName["checkout"].Attributes))
	assert.Equal(t, []conformance.KeyCount{{Key: "acme.promo", Count: 10}}, byName["checkout"].UnknownKeys)
	assert.Equal(t, []conformance.KeyCount{{Key: "http.method", Count: 10}}, byName["checkout"].DeprecatedKeys)
	// cart: 4 spans x 2 conformant + service.name.
	assert.Equal(t, map[string]int64{"conformant": 9}, nonZero(byName["cart"].Attributes))
	assert.Empty(t, byName["cart"].UnknownKeys)
	assert.Empty(t, byName["cart"].DeprecatedKeys)
	// payment, from the logs pipeline's processor instance: the same report.
	assert.Equal(t, map[string]int64{"conformant": 1, "renamed": 3, "unknown": 3}, nonZero(byName["payment"].Attributes))
	assert.Equal(t, []conformance.KeyCount{{Key: "acme.legacy", Count: 3}}, byName["payment"].UnknownKeys)
	assert.Equal(t, []conformance.KeyCount{{Key: "http.method", Count: 3}}, byName["payment"].DeprecatedKeys)
	// Totals: distinct registry keys seen are service.name, server.address,
	// acme.cart.state and http.method.
	assert.Equal(t, map[string]int64{"conformant": 22, "renamed": 13, "unknown": 13}, nonZero(rep.Totals.Attributes))
	assert.Equal(t, int64(13), rep.Totals.SeenNonRegistryAttributes)
	assert.Equal(t, 4, rep.Totals.SeenRegistryAttributes)
	var info registryapi.RegistryInfo
	rc.get(t, "/registry", &info)
	assert.InDelta(t, 4/float64(info.Counts.Attributes), rep.Totals.RegistryCoverage, 1e-9)

	// Bounds: 1,000 services, 10 distinct unknown keys each.
	rssBefore := rssBytes(t, rc.col.PID())
	const services, perService, perRequest = 1000, 10, 20
	for s := 0; s < services; s += perRequest {
		td := ptrace.NewTraces()
		for i := s; i < s+perRequest; i++ {
			rs := td.ResourceSpans().AppendEmpty()
			rs.Resource().Attributes().PutStr("service.name", fmt.Sprintf("flood-%04d", i))
			span := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
			span.SetSpanID(e2e.SpanID(100_000 + i))
			for k := range perService {
				span.Attributes().PutStr(fmt.Sprintf("flood.key.%05d.%s", i*perService+k, strings.Repeat("x", 40)), "v")
			}
		}
		require.NoError(t, rc.client.SendTraces(ctx, e2e.GRPC, td))
	}
	rc.sink.WaitFor(t, e2e.Counts{Spans: 14 + services, LogRecords: 3}, 60*time.Second)
	rssAfter := rssBytes(t, rc.col.PID())

	var flood conformance.Document
	_, size := rc.get(t, "/conformance", &flood)
	t.Logf("report: %d services listed, %d bytes; collector RSS %d MiB -> %d MiB",
		len(flood.Services), size, rssBefore>>20, rssAfter>>20)
	assert.Len(t, flood.Services, 100+1, "max_services (100) and _other")
	assert.Equal(t, 100, flood.Totals.Services)
	assert.Equal(t, int64(services-97), flood.Totals.ServicesOverflow, "3 earlier services took 3 of the 100 entries")
	for _, s := range flood.Services {
		assert.LessOrEqual(t, len(s.UnknownKeys), 10, s.Service)
		assert.LessOrEqual(t, len(s.DeprecatedKeys), 10, s.Service)
	}
	assert.Less(t, size, 1<<20, "the report stays under 1 MiB")
	assert.Equal(t, int64(13+services*perService), flood.Totals.SeenNonRegistryAttributes)
	assert.Less(t, rssAfter-rssBefore, int64(64<<20), "the collector grows by less than 64 MiB")
}

// rssBytes reads a process's resident set size from /proc.
func rssBytes(t *testing.T, pid int) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			require.NoError(t, err)
			return kb << 10
		}
	}
	t.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}

// TestRegistryReloadUnderLoad sends traces, metrics and logs concurrently
// while the registry is rewritten ten times. Every item arrives exactly
// once and the generation counts every reload. Run against a binary built
// with -race (see the extension's README), it also checks that the swap is
// race-free: the race detector fails the collector's exit and prints
// "DATA RACE" into its log.
func TestRegistryReloadUnderLoad(t *testing.T) {
	const poll = 100 * time.Millisecond
	dir := t.TempDir()
	file := filepath.Join(dir, "cart.yaml")
	writeAtomic(t, file, cartV1)
	rc := startRegistryCollector(t, dir, poll)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	const batches, per = 60, 10
	attrs := map[string]any{"acme.cart.sz": 2, "http.method": "GET"}
	var wg sync.WaitGroup
	send := func(signal string, fn func(first int) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				if err := fn(b * per); err != nil {
					t.Errorf("%s: %v", signal, err)
					return
				}
				time.Sleep(15 * time.Millisecond)
			}
		}()
	}
	send("traces", func(first int) error {
		return rc.client.SendTraces(ctx, e2e.GRPC, e2e.Traces("load", first, per, attrs))
	})
	send("metrics", func(first int) error {
		return rc.client.SendMetrics(ctx, e2e.GRPC, e2e.Metrics("load", first, per, attrs))
	})
	send("logs", func(first int) error {
		return rc.client.SendLogs(ctx, e2e.HTTP, e2e.Logs("load", first, per, attrs))
	})
	for i := range 10 {
		if i%2 == 0 {
			writeAtomic(t, file, cartV2)
		} else {
			writeAtomic(t, file, cartV1)
		}
		want := int64(i + 2)
		rc.waitInfo(t, fmt.Sprintf("generation %d", want), func(info registryapi.RegistryInfo) bool { return info.Generation == want })
	}
	wg.Wait()
	n := batches * per
	rc.sink.WaitFor(t, e2e.Counts{Spans: n, DataPoints: n, LogRecords: n}, 60*time.Second)
	assert.Equal(t, int64(11), rc.info(t).Generation)

	var rep conformance.Document
	rc.get(t, "/conformance?service=load", &rep)
	require.Len(t, rep.Services, 1)
	// Each item has two attributes plus one service.name per request.
	var sum int64
	for _, v := range rep.Services[0].Attributes {
		sum += v
	}
	assert.Equal(t, int64(3*n*2+3*batches), sum)
	assert.NotContains(t, rc.col.Log(), "DATA RACE")
}
