package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/extension"
	"go.opentelemetry.io/collector/extension/extensiontest"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/otelgov/otelcol-governance/extension/registryextension"
	"github.com/otelgov/otelcol-governance/infer"
	"github.com/otelgov/otelcol-governance/processor/governanceprocessor"
)

// replica is one collector in-process: a governance_registry extension
// with infer on, serving on a real 127.0.0.1 port, and a governance
// processor feeding it.
type replica struct {
	url     string
	ext     extension.Extension
	proc    processor.Traces
	metrics processor.Metrics
}

type extHost struct {
	exts map[component.ID]component.Component
}

func (h extHost) GetExtensions() map[component.ID]component.Component { return h.exts }

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

func newReplica(t *testing.T) *replica {
	t.Helper()
	return newReplicaWith(t, map[string]any{"enabled": true})
}

// newReplicaWith starts a replica whose extension has the infer section
// inferCfg.
func newReplicaWith(t *testing.T, inferCfg map[string]any) *replica {
	t.Helper()
	ctx := context.Background()
	ef := registryextension.NewFactory()
	ecfg := ef.CreateDefaultConfig()
	addr := freePort(t)
	require.NoError(t, confmap.NewFromStringMap(map[string]any{
		"poll_interval": "0s",
		"http":          map[string]any{"endpoint": addr},
		"infer":         inferCfg,
	}).Unmarshal(ecfg))
	require.NoError(t, ecfg.(interface{ Validate() error }).Validate())
	eid := component.MustNewID("governance_registry")
	ext, err := ef.Create(ctx, extensiontest.NewNopSettings(ef.Type()), ecfg)
	require.NoError(t, err)
	host := extHost{exts: map[component.ID]component.Component{eid: ext}}
	require.NoError(t, ext.Start(ctx, host))

	pf := governanceprocessor.NewFactory()
	pcfg := pf.CreateDefaultConfig()
	require.NoError(t, confmap.NewFromStringMap(map[string]any{
		"registry": map[string]any{"extension": "governance_registry"},
	}).Unmarshal(pcfg))
	proc, err := pf.CreateTraces(ctx, processortest.NewNopSettings(pf.Type()), pcfg, consumertest.NewNop())
	require.NoError(t, err)
	require.NoError(t, proc.Start(ctx, host))
	mp, err := pf.CreateMetrics(ctx, processortest.NewNopSettings(pf.Type()), pcfg, consumertest.NewNop())
	require.NoError(t, err)
	require.NoError(t, mp.Start(ctx, host))
	t.Cleanup(func() {
		assert.NoError(t, proc.Shutdown(ctx))
		assert.NoError(t, mp.Shutdown(ctx))
		assert.NoError(t, ext.Shutdown(ctx))
	})
	return &replica{url: "http://" + addr, ext: ext, proc: proc, metrics: mp}
}

// sketchTraces are n spans of service svc with unknown keys: acme.tenant
// (a string of few values), acme.cart.size (an int) and, from svc
// "billing", acme.cart.size as a string too (a type conflict).
func sketchTraces(svc string, from, n int) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", svc)
	ss := rs.ScopeSpans().AppendEmpty()
	for i := from; i < from+n; i++ {
		sp := ss.Spans().AppendEmpty()
		sp.SetName("checkout")
		a := sp.Attributes()
		a.PutStr("http.request.method", "GET")
		a.PutStr("acme.tenant", fmt.Sprintf("t%d", i%3))
		if svc == "billing" {
			a.PutStr("acme.cart.size", fmt.Sprint(i))
		} else {
			a.PutInt("acme.cart.size", int64(i))
		}
	}
	return td
}

// sketchMetrics are n data points of acme.queue.depth with the unknown
// key acme.queue (few values).
func sketchMetrics(svc string, n int) pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", svc)
	m := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("acme.queue.depth")
	g := m.SetEmptyGauge()
	for i := range n {
		dp := g.DataPoints().AppendEmpty()
		dp.SetIntValue(int64(i))
		dp.Attributes().PutStr("acme.queue", fmt.Sprintf("q%d", i%2))
	}
	return md
}

func (r *replica) sendMetrics(t *testing.T, md pmetric.Metrics) {
	t.Helper()
	require.NoError(t, r.metrics.ConsumeMetrics(context.Background(), md))
}

// withoutCardinality is p without the distinct-value estimates: a
// collector reads the values of a memoized shape only when it records it
// (no per-attribute work on memo hits), so each replica's estimate is a
// lower bound over the maps it read, not a function of the data alone.
func withoutCardinality(p *infer.Proposal) *infer.Proposal {
	c := *p
	c.Attributes = slices.Clone(p.Attributes)
	for i := range c.Attributes {
		a := &c.Attributes[i]
		a.Cardinality = 0
		a.Why = distinctRE.ReplaceAllString(a.Why, "~N distinct")
	}
	return &c
}

var distinctRE = regexp.MustCompile(`~[0-9]+ distinct`)

func (r *replica) send(t *testing.T, tds ...ptrace.Traces) {
	t.Helper()
	for _, td := range tds {
		require.NoError(t, r.proc.ConsumeTraces(context.Background(), td))
	}
}

func inferFromJSON(t *testing.T, dir string, urls ...string) (infer.Summary, string) {
	t.Helper()
	args := []string{"registry", "infer", "--output", dir, "--format", "json"}
	for _, u := range urls {
		args = append(args, "--from", u)
	}
	code, out, errOut := otelgov(t, "", args...)
	require.Equal(t, exitClean, code, errOut)
	var sum infer.Summary
	require.NoError(t, json.Unmarshal([]byte(out), &sum))
	b, err := os.ReadFile(filepath.Join(dir, "registry.yaml"))
	require.NoError(t, err)
	return sum, string(b)
}

// TestInferFromReplicas is issue 37's "merged across two replicas with
// --from twice": two collectors (extension + processor, in-process, each
// serving GET /infer/evidence on its own 127.0.0.1 port) each see part of
// the traffic; --from both gives the registry and proposal that one
// collector seeing all of it gives.
func TestInferFromReplicas(t *testing.T) {
	a, b, all := newReplica(t), newReplica(t), newReplica(t)
	parts := []ptrace.Traces{
		sketchTraces("checkout", 0, 40),
		sketchTraces("billing", 40, 25),
		sketchTraces("checkout", 65, 30),
	}
	a.send(t, parts[0], parts[1])
	b.send(t, parts[2])
	b.sendMetrics(t, sketchMetrics("queue", 20))
	for _, p := range parts {
		all.send(t, p)
	}
	all.sendMetrics(t, sketchMetrics("queue", 20))

	merged, mergedYAML := inferFromJSON(t, filepath.Join(t.TempDir(), "m"), a.url, b.url)
	single, singleYAML := inferFromJSON(t, filepath.Join(t.TempDir(), "s"), all.url)
	assert.YAMLEq(t, singleYAML, mergedYAML, "two replicas merged = one collector with all the data")
	assert.Equal(t, withoutCardinality(single.Proposal), withoutCardinality(merged.Proposal))

	keys := map[string]infer.ProposedAttribute{}
	for _, pa := range merged.Proposal.Attributes {
		keys[pa.Key] = pa
	}
	require.Contains(t, keys, "acme.tenant")
	require.Contains(t, keys, "acme.cart.size")
	assert.NotContains(t, keys, "http.request.method", "the registry defines it")
	tenant := keys["acme.tenant"]
	assert.Equal(t, int64(95), tenant.Count, "every span, memo hits included")
	assert.Equal(t, "string", tenant.Type)
	assert.ElementsMatch(t, []string{"checkout", "billing"}, tenant.Services)
	assert.Equal(t, []string{"span"}, tenant.Where)
	assert.Empty(t, tenant.Examples, "examples are off by default")
	assert.Positive(t, tenant.Cardinality)
	assert.LessOrEqual(t, tenant.Cardinality, 3.0, "a lower bound of the 3 values sent")
	require.Contains(t, keys, "acme.queue")
	assert.Equal(t, []string{"data_point"}, keys["acme.queue"].Where)
	assert.Equal(t, []string{"queue"}, keys["acme.queue"].Services)
	assert.Contains(t, keys["acme.queue"].Why, "on metric acme.queue.depth")
	var conflict bool
	for _, w := range merged.Proposal.Warnings {
		if w.Kind == infer.WarnTypeConflict && w.Name == "acme.cart.size" {
			conflict = true
			assert.Contains(t, w.Message, "billing")
		}
	}
	assert.True(t, conflict, "acme.cart.size is int from checkout and string from billing: %+v", merged.Proposal.Warnings)
	assert.Contains(t, mergedYAML, "acme.tenant")
}

// TestInferFromBadCollector: a collector that does not answer, answers
// with something other than the sketch's JSON, or with a sketch over the
// limits is bad input (exit 2) with a message naming the URL, and the
// registry already in DIR is left as it was.
func TestInferFromBadCollector(t *testing.T) {
	good := newReplica(t)
	good.send(t, sketchTraces("checkout", 0, 10))
	dir := filepath.Join(t.TempDir(), "acme")
	_, before := inferFromJSON(t, dir, good.url)

	over := infer.New(infer.Limits{MaxAttributes: 10})
	for i := range 11 {
		over.Evidence().Attributes[fmt.Sprintf("acme.k%d", i)] = &infer.Attribute{Key: fmt.Sprintf("acme.k%d", i), Count: 1}
	}
	overJSON, err := json.Marshal(over.Evidence())
	require.NoError(t, err)
	serve := func(code int, body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(code)
			_, _ = w.Write([]byte(body))
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	for _, tt := range []struct {
		name, url string
		args      []string
		want      string
	}{
		{name: "no_answer", url: "http://" + freePort(t), want: "the collector does not answer"},
		{name: "not_json", url: serve(http.StatusOK, "<html>hello</html>"), want: "not the inference sketch's JSON"},
		{name: "json_not_evidence", url: serve(http.StatusOK, `{}`), want: "not the inference sketch's JSON"},
		{name: "sketch_off", url: serve(http.StatusNotFound, "404 page not found"), want: "set infer::enabled: true"},
		{name: "over_limits", url: serve(http.StatusOK, string(overJSON)), args: []string{"--max-attributes", "10"}, want: "evidence over the limits: attributes: 11, at most 10"},
		{name: "auth", url: serve(http.StatusUnauthorized, ""), want: "http::auth refused"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"registry", "infer", "--output", dir, "--from", good.url, "--from", tt.url}, tt.args...)
			code, _, errOut := otelgov(t, "", args...)
			assert.Equal(t, exitBad, code)
			assert.Contains(t, errOut, "--from "+tt.url)
			assert.Contains(t, errOut, tt.want)
			assert.Contains(t, errOut, "nothing written")
			after, err := os.ReadFile(filepath.Join(dir, "registry.yaml"))
			require.NoError(t, err)
			assert.Equal(t, before, string(after), "the registry is not overwritten")
		})
	}
	code, _, errOut := otelgov(t, "", "registry", "infer", "--output", dir, "--from", good.url, "recorded.jsonl")
	assert.Equal(t, exitBad, code)
	assert.Contains(t, errOut, "give one source")
}

// TestInferSketchBounded is issue 37's "bounded memory under a client
// sending a new random key with every span": 20000 spans, each with a key
// never seen before, through a real processor into a real extension with
// infer::max_attributes 256. The sketch lists 256 keys and counts the
// rest; its memory is bounded by infer.Limits.AttributesBytes() (about
// 25 KiB per key: 6.4 MB here, 100 MB at the default 4096, a loose upper
// bound) and does not grow between 5000 and 20000 random keys.
func TestInferSketchBounded(t *testing.T) {
	const maxAttrs = 256
	r := newReplicaWith(t, map[string]any{"enabled": true, "examples": true, "max_attributes": maxAttrs})
	rnd := rand.New(rand.NewPCG(1, 2)) //nolint:gosec // test keys, not secrets
	sent := 0
	send := func(n int) {
		for range n / 100 {
			td := ptrace.NewTraces()
			rs := td.ResourceSpans().AppendEmpty()
			rs.Resource().Attributes().PutStr("service.name", "attacker")
			ss := rs.ScopeSpans().AppendEmpty()
			for range 100 {
				sp := ss.Spans().AppendEmpty()
				sp.SetName("GET /")
				sp.Attributes().PutStr(fmt.Sprintf("acme.k%016x", rnd.Uint64()), strings.Repeat("v", 300))
				sent++
			}
			r.send(t, td)
		}
	}
	heap := func() int64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc) //nolint:gosec // a heap size
	}
	evidence := func() *infer.Evidence {
		resp, err := http.Get(r.url + "/infer/evidence")
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		var ev infer.Evidence
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&ev))
		return &ev
	}
	base := heap()
	send(5000)
	mid := heap()
	send(15000)
	end := heap()

	ev := evidence()
	assert.Len(t, ev.Attributes, maxAttrs)
	assert.Equal(t, int64(sent-maxAttrs), ev.Overflow.Attributes, "every key past the bound is counted")
	require.NoError(t, ev.Check(infer.Limits{MaxAttributes: maxAttrs}))
	for _, at := range ev.Attributes {
		for _, x := range at.Examples {
			assert.LessOrEqual(t, len(x.(string)), 256, "examples are cut by vocab.Bound")
		}
	}
	bound := infer.Limits{MaxAttributes: maxAttrs}.AttributesBytes()
	t.Logf("sketch bound %d bytes; heap before %d, after 5000 random keys %d, after 20000 %d", bound, base, mid, end)
	// The shape memo (at most 4 MiB, bypassed under random keys) and the
	// conformance report's bounded tallies grow too: 8 MiB of slack.
	assert.Less(t, end-base, bound+8<<20, "the sketch stays within its bound")
	assert.Less(t, end-mid, int64(1<<20), "15000 more random keys must not grow the heap (bound %d bytes)", bound)
}

// TestInferFromTypesAndInts: through a collector's sketch, a key sent as
// an array of strings is proposed string[] (the tally once kept only
// "array", proposed string), and an int example past 2^53 stays exact
// (JSON decoded into any gave float64, which the int type then refused).
func TestInferFromTypesAndInts(t *testing.T) {
	r := newReplicaWith(t, map[string]any{"enabled": true, "examples": true})
	const big = int64(1)<<53 + 1
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "checkout")
	for i := range 3 {
		sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		tags := sp.Attributes().PutEmptySlice("acme.tags")
		tags.AppendEmpty().SetStr("a")
		tags.AppendEmpty().SetStr(fmt.Sprint(i))
		sp.Attributes().PutInt("acme.order.seq", big+int64(i))
	}
	r.send(t, td)
	code, out, errOut := otelgov(t, "", "registry", "infer", "--output", filepath.Join(t.TempDir(), "acme"), "--format", "json", "--from", r.url)
	require.Equal(t, exitClean, code, errOut)
	var sum infer.Summary
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&sum))
	got := map[string]infer.ProposedAttribute{}
	for _, a := range sum.Proposal.Attributes {
		got[a.Key] = a
	}
	require.Contains(t, got, "acme.tags")
	assert.Equal(t, "string[]", got["acme.tags"].Type)
	require.Contains(t, got, "acme.order.seq")
	assert.Equal(t, "int", got["acme.order.seq"].Type)
	require.NotEmpty(t, got["acme.order.seq"].Examples, "int examples kept")
	assert.Equal(t, json.Number(fmt.Sprint(big)), got["acme.order.seq"].Examples[0], "exact past 2^53")
}

// TestInferFromReplicaByReplica: each replica's evidence is merged as soon
// as it is read: when the second collector is asked, the first one's is
// already merged (not held until every collector has answered).
func TestInferFromReplicaByReplica(t *testing.T) {
	a := newReplica(t)
	a.send(t, sketchTraces("checkout", 0, 10))
	var atSecond int64 = -1
	before := mergedReplicas.Load()
	second := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		atSecond = mergedReplicas.Load() - before
		resp, err := http.Get(a.url + req.URL.Path) //nolint:gosec // the test's own replica on 127.0.0.1
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(second.Close)
	inferFromJSON(t, filepath.Join(t.TempDir(), "acme"), a.url, second.URL)
	assert.Equal(t, int64(1), atSecond)
}
