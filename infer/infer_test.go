package infer

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/infer/infertest"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

func defaultIndex(t testing.TB) *registry.Index {
	t.Helper()
	ix, err := registry.Default()
	require.NoError(t, err)
	return ix
}

// spans is one request of n spans from service, each given its attributes
// by set.
func spans(service string, n int, set func(i int, sp ptrace.Span)) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", service)
	ss := rs.ScopeSpans().AppendEmpty().Spans()
	for i := range n {
		sp := ss.AppendEmpty()
		sp.SetName("op")
		set(i, sp)
	}
	return td
}

// TestBoundedUnderRandomKeys: a client sending a new random key (and a
// new span name, metric and event name) with every item cannot grow the
// evidence past its limits; what is left out is counted, and the heap the
// evidence holds stays under Limits.Bytes.
func TestBoundedUnderRandomKeys(t *testing.T) {
	lim := Limits{MaxAttributes: 200, MaxGroups: 50, MaxGroupAttributes: 8, MaxServices: 4}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	acc := New(lim)
	const n = 20000
	for b := range n / 500 {
		td := spans(fmt.Sprintf("svc-%d", b), 500, func(i int, sp ptrace.Span) {
			sp.SetName(fmt.Sprintf("op-%d-%d", b, i))
			sp.Attributes().PutStr(fmt.Sprintf("rnd.k%d_%d", b, i), strings.Repeat("v", 1000)+fmt.Sprint(i))
			sp.Events().AppendEmpty().SetName(fmt.Sprintf("ev.%d.%d", b, i))
		})
		acc.Traces(td, "t")
		md := pmetric.NewMetrics()
		ms := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics()
		m := ms.AppendEmpty()
		m.SetName(fmt.Sprintf("rnd.metric.%d", b))
		m.SetEmptyGauge().DataPoints().AppendEmpty().Attributes().PutInt("rnd.point", int64(b))
		acc.Metrics(md, "m")
	}
	ev := acc.Evidence()
	runtime.GC()
	runtime.ReadMemStats(&after)
	assert.Len(t, ev.Attributes, lim.MaxAttributes)
	assert.Len(t, ev.Spans, lim.MaxGroups)
	assert.Len(t, ev.Events, lim.MaxGroups)
	// service.name, then the random keys up to the limit; rnd.point (on
	// each of the n/500 metrics) comes after the limit is reached.
	assert.Equal(t, int64(n-(lim.MaxAttributes-1)+n/500), ev.Overflow.Attributes, "every key occurrence beyond the limit counted")
	assert.Equal(t, int64(n-lim.MaxGroups), ev.Overflow.Spans)
	assert.Equal(t, int64(n-lim.MaxGroups), ev.Overflow.Events)
	assert.LessOrEqual(t, len(ev.Attributes["service.name"].Services), lim.MaxServices)
	assert.Positive(t, ev.Attributes["service.name"].ServicesOverflow)
	for _, a := range ev.Attributes {
		for _, x := range a.Examples {
			if s, ok := x.(string); ok {
				assert.LessOrEqual(t, len(s), vocab.MaxKeyLength)
			}
		}
	}
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc) //nolint:gosec // heap sizes fit
	t.Logf("evidence heap %d bytes, bound %d bytes (limits %+v); defaults bound %d bytes", grew, lim.Bytes(), lim, Limits{}.Bytes())
	assert.Less(t, grew, lim.Bytes())
	runtime.KeepAlive(acc)
}

// TestEnumFromCardinality: an enum needs few values, each seen often,
// and no new one late; five examples alone never make one.
func TestEnumFromCardinality(t *testing.T) {
	ix := defaultIndex(t)
	tests := []struct {
		name string
		n    int
		val  func(i int) string
		enum bool
	}{
		{"few and stable", 60, func(i int) string { return []string{"a", "b", "c"}[i%3] }, true},
		{"a new value late", 60, func(i int) string {
			if i == 59 {
				return "late"
			}
			return []string{"a", "b"}[i%2]
		}, false},
		{"too few occurrences per value", 20, func(i int) string { return []string{"a", "b", "c"}[i%3] }, false},
		{"many values", 400, func(i int) string { return fmt.Sprint(i % 40) }, false},
		{"one value", 60, func(int) string { return "only" }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acc := New(Limits{})
			acc.Traces(spans("s", tt.n, func(i int, sp ptrace.Span) { sp.Attributes().PutStr("acme.k", tt.val(i)) }), "t")
			p := Propose(acc.Evidence(), ix, Options{})
			require.Len(t, p.Attributes, 1)
			assert.Equal(t, tt.enum, p.Attributes[0].Enum != nil, p.Attributes[0].Why)
			assert.LessOrEqual(t, len(p.Attributes[0].Examples), MaxExamples)
		})
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"http_method":         "http.method",
		"httpMethod":          "http.method",
		"HTTPMethod":          "httpmethod",
		"http.request_method": "http.request.method",
		"http-request/method": "http.request.method",
		"http..method_":       "http.method",
		"k8s.pod.name":        "k8s.pod.name",
	} {
		assert.Equal(t, want, normalize(in), in)
	}
	n := newNearMisses(defaultIndex(t))
	assert.Equal(t, "http.request.method", n.match("http_method"), "through the deprecated http.method")
	assert.Equal(t, "http.request.method", n.match("httpRequestMethod"))
	assert.Empty(t, n.match("http.request.method"), "the name itself")
	assert.Empty(t, n.match("acme_tenant"))
}

// TestMerge: the evidence of two replicas merged proposes what one
// accumulator over both would.
func TestMerge(t *testing.T) {
	ix := defaultIndex(t)
	td, md, ld := infertest.Traces(), infertest.Metrics(), infertest.Logs()
	whole := New(Limits{})
	whole.Traces(td, "t")
	whole.Metrics(md, "m")
	whole.Logs(ld, "l")

	a, b := New(Limits{}), New(Limits{})
	a.Logs(ld, "l")
	b.Traces(td, "t")
	b.Metrics(md, "m")
	// Through JSON, as a sketch served by a collector would arrive.
	raw, err := json.Marshal(b.Evidence())
	require.NoError(t, err)
	var ev Evidence
	require.NoError(t, json.Unmarshal(raw, &ev))
	a.Merge(&ev)

	want, got := Propose(whole.Evidence(), ix, Options{}), Propose(a.Evidence(), ix, Options{})
	require.Len(t, got.Attributes, len(want.Attributes))
	for i := range want.Attributes {
		w, g := want.Attributes[i], got.Attributes[i]
		assert.Equal(t, w.Key, g.Key)
		assert.Equal(t, w.Type, g.Type, w.Key)
		assert.Equal(t, w.Count, g.Count, w.Key)
		assert.InDelta(t, w.Cardinality, g.Cardinality, 0.5, w.Key)
		assert.Equal(t, fmt.Sprint(w.Enum), fmt.Sprint(g.Enum), w.Key)
	}
	assert.Equal(t, want.Warnings, got.Warnings)
	assert.Equal(t, want.Metrics, got.Metrics)
	assert.Equal(t, want.Spans, got.Spans)
	assert.Equal(t, want.Items, got.Items)
}

// TestExamplesBounded: example values are bounded by vocab.Bound, the
// report's rule for every client-sent string: at most 256 bytes, valid
// UTF-8.
func TestExamplesBounded(t *testing.T) {
	acc := New(Limits{})
	long := strings.Repeat("é", 300) // 600 bytes
	acc.Traces(spans("s", 2, func(i int, sp ptrace.Span) {
		sp.Attributes().PutStr("acme.long", long)
		sp.Attributes().PutStr("acme.bad", "ok\xff\xfe")
	}), "t")
	ev := acc.Evidence()
	want, _ := vocab.Bound(long)
	assert.Equal(t, []any{want}, ev.Attributes["acme.long"].Examples)
	assert.LessOrEqual(t, len(want), vocab.MaxKeyLength)
	bad, _ := vocab.Bound("ok\xff\xfe")
	assert.Equal(t, []any{bad}, ev.Attributes["acme.bad"].Examples)
}

// TestLongValuesCountedOnce: a value longer than the report's bound, sent
// again and again, is one exact value, kept and compared as bounded (it
// once overflowed the exact values, each occurrence compared unbounded
// with the bounded one kept).
func TestLongValuesCountedOnce(t *testing.T) {
	acc := New(Limits{})
	long := strings.Repeat("x", 2*vocab.MaxKeyLength)
	acc.Traces(spans("s", 3*MaxValues, func(i int, sp ptrace.Span) {
		sp.Attributes().PutStr("acme.long", long)
	}), "t")
	at := acc.Evidence().Attributes["acme.long"]
	require.NotNil(t, at)
	assert.False(t, at.ValuesOverflow)
	want, _ := vocab.Bound(long)
	assert.Equal(t, []Value{{Value: want, Count: int64(3 * MaxValues)}}, at.Values)
}

// TestInvalidNames: names that cannot be registry IDs as written never
// stop the rest: attribute keys and event names are skipped, counted by
// occurrence and by distinct name, the first MaxInvalid listed with where
// they were seen; a span name without a letter or digit ("/") gets a
// derived type with the name kept; everything else is proposed.
func TestInvalidNames(t *testing.T) {
	acc := New(Limits{})
	const distinct = MaxInvalid + 20
	for range 2 {
		acc.Traces(spans("s", distinct, func(i int, sp ptrace.Span) {
			sp.Attributes().PutStr(fmt.Sprintf("bad key %d", i), "x")
			sp.Attributes().PutStr("acme.ok", "x")
			if i == 0 {
				sp.SetName("/")
				e := sp.Events().AppendEmpty()
				e.SetName("handling this request 2")
				e.Attributes().PutStr("acme.user", "u")
			}
		}), "f.jsonl:3")
	}
	ld := plog.NewLogs()
	ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().SetEventName("acme..event")
	acc.Logs(ld, "f.jsonl:4")
	ev := acc.Evidence()
	assert.Equal(t, int64(2*distinct+2+1), ev.InvalidCount, "every occurrence")
	assert.Equal(t, int64(distinct+2), ev.InvalidDistinct, "each name once")
	require.Len(t, ev.Invalid, MaxInvalid)
	assert.Equal(t, Invalid{What: "attribute", Name: "bad key 0", Reason: "attribute key must not contain whitespace", Input: "f.jsonl:3"}, ev.Invalid[0])
	assert.Equal(t, "handling this request 2", ev.Invalid[1].Name)
	assert.Equal(t, "event name must not contain whitespace", ev.Invalid[1].Reason, "an event is not called an attribute key")
	assert.NotContains(t, ev.Attributes, "bad key 0")
	assert.Contains(t, ev.Attributes, "acme.ok")

	p := Propose(ev, defaultIndex(t), Options{})
	assert.Equal(t, ev.InvalidCount, p.Skipped.Occurrences)
	assert.Equal(t, ev.InvalidDistinct, p.Skipped.Distinct)
	assert.Len(t, p.Skipped.Names, MaxInvalid)
	var keys []string
	for _, a := range p.Attributes {
		keys = append(keys, a.Key)
	}
	assert.Equal(t, []string{"acme.ok", "acme.user"}, keys, "the event's attributes are proposed though its name is skipped")
	var root *ProposedGroup
	for i := range p.Spans {
		if p.Spans[i].Name == "/" {
			root = &p.Spans[i]
		}
	}
	require.NotNil(t, root, "the span named / is proposed")
	assert.Equal(t, "root", root.Type)
	var b strings.Builder
	require.NoError(t, (&Summary{Proposal: p}).Render(&b, FormatText))
	assert.Contains(t, b.String(), fmt.Sprintf("skipped: %d distinct name(s)", distinct+2))
	assert.Contains(t, b.String(), `event "handling this request 2"`)
	assert.Contains(t, b.String(), "and 22 more")
	b.Reset()
	require.NoError(t, (&Summary{Proposal: p}).Render(&b, FormatJSON))
	var js struct {
		Proposal struct {
			Skipped Skipped `json:"skipped"`
		} `json:"proposal"`
	}
	require.NoError(t, json.Unmarshal([]byte(b.String()), &js))
	assert.Equal(t, p.Skipped, js.Proposal.Skipped)
}

// TestSpanTypeDerived: every span name gives a type.
func TestSpanTypeDerived(t *testing.T) {
	assert.Equal(t, "get_users_id", SpanType("GET /users/{id}"))
	assert.Equal(t, "root", SpanType("/"))
	assert.Equal(t, "root", SpanType("//"))
	assert.Regexp(t, `^span_[0-9a-f]{8}$`, SpanType("***"))
	assert.NotEqual(t, SpanType("***"), SpanType("+++"))
}

// TestNameFindingsOnMetrics: a proposed metric name gets the engine's
// invalid_format.
func TestNameFindingsOnMetrics(t *testing.T) {
	md := pmetric.NewMetrics()
	ms := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics()
	for _, n := range []string{"acme.Requests", "acme.requests"} {
		m := ms.AppendEmpty()
		m.SetName(n)
		m.SetEmptyGauge().DataPoints().AppendEmpty()
	}
	acc := New(Limits{})
	acc.Metrics(md, "m")
	p := Propose(acc.Evidence(), defaultIndex(t), Options{})
	assert.Equal(t, []NameFinding{{ID: "invalid_format", Level: "violation", Name: "acme.Requests", What: "metric"}}, p.NameFindings)
}

// TestEvidenceClone: the copy shares nothing the accumulator changes
// later: more batches leave a clone as it was.
func TestEvidenceClone(t *testing.T) {
	acc := New(Limits{})
	batch := func(v string) ptrace.Traces {
		return spans("checkout", 2, func(i int, sp ptrace.Span) {
			sp.Attributes().PutStr("acme.tenant", fmt.Sprint(v, i))
			sp.Events().AppendEmpty().SetName("acme.cart.add")
		})
	}
	acc.Traces(batch("a"), "t")
	before, err := json.Marshal(acc.Evidence())
	require.NoError(t, err)
	c := acc.Evidence().Clone()
	acc.Traces(batch("b"), "t")
	acc.Traces(spans("payment", 1, func(_ int, sp ptrace.Span) { sp.Attributes().PutStr("acme.tenant", "x") }), "t")
	after, err := json.Marshal(c)
	require.NoError(t, err)
	assert.JSONEq(t, string(before), string(after))
	assert.NotEqual(t, string(before), string(must(json.Marshal(acc.Evidence()))))
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestNamespaceKeys: an app's keys url and error, namespaces of the
// semantic conventions' url.* and error.*, are reported illegal_namespace
// and proposed deprecated without a rename: loaded with the proposal, the
// registry leaves url.full and error.type conformant, and the collector
// still knows url and error.
func TestNamespaceKeys(t *testing.T) {
	acc := New(Limits{})
	acc.Traces(spans("app", 4, func(i int, sp ptrace.Span) {
		sp.Attributes().PutStr("url", "https://x.example/a")
		sp.Attributes().PutBool("error", i == 0)
		sp.Attributes().PutStr("acme.cart", "c")
		sp.Attributes().PutStr("acme.cart.size", "1")
	}), "t")
	p := Propose(acc.Evidence(), defaultIndex(t), Options{})
	got := map[string]ProposedAttribute{}
	for _, a := range p.Attributes {
		got[a.Key] = a
	}
	for _, k := range []string{"url", "error", "acme.cart"} {
		require.Contains(t, got, k)
		assert.NotEmpty(t, got[k].Namespace, k)
		assert.Contains(t, got[k].Deprecated, "illegal_namespace", k)
		assert.Contains(t, p.NameFindings, NameFinding{ID: "illegal_namespace", Level: "violation", Name: k, What: "attribute"})
	}
	for _, k := range got["url"].Namespace {
		assert.True(t, strings.HasPrefix(k, "url."), k)
	}
	assert.Equal(t, []string{"acme.cart.size"}, got["acme.cart"].Namespace, "a key the app sends under it counts too")
	assert.Empty(t, got["acme.cart.size"].Namespace)
	m := p.Model()
	for _, a := range m.Attributes {
		if a.Key == "url" {
			assert.Empty(t, a.RenamedTo, "not renamed: the processor must not rewrite the app's key")
			assert.NotEmpty(t, a.Deprecated)
		}
	}
}

// TestNearDuplicates: fooID, foo_id and param.fooID are one group of
// candidates for one name; unrelated keys are in none.
func TestNearDuplicates(t *testing.T) {
	acc := New(Limits{})
	acc.Traces(spans("app", 1, func(_ int, sp ptrace.Span) {
		for _, k := range []string{"fooID", "foo_id", "param.fooID", "acme.cartSize", "acme.cart_size", "acme.id", "bar.size"} {
			sp.Attributes().PutStr(k, "x")
		}
	}), "t")
	p := Propose(acc.Evidence(), defaultIndex(t), Options{})
	assert.Equal(t, [][]string{{"acme.cartSize", "acme.cart_size"}, {"fooID", "foo_id", "param.fooID"}}, p.NearDuplicates)
	var b strings.Builder
	require.NoError(t, (&Summary{Proposal: p}).Render(&b, FormatText))
	assert.Contains(t, b.String(), "fooID, foo_id, param.fooID")
}

// TestSpanKindTie: a span name seen as often as client as server is
// proposed server, whichever arrived first.
func TestSpanKindTie(t *testing.T) {
	for _, first := range []ptrace.SpanKind{ptrace.SpanKindClient, ptrace.SpanKindServer} {
		acc := New(Limits{})
		acc.Traces(spans("app", 2, func(i int, sp ptrace.Span) {
			sp.SetName("acme.sync")
			if i == 0 {
				sp.SetKind(first)
			} else {
				sp.SetKind(ptrace.SpanKindClient + ptrace.SpanKindServer - first)
			}
		}), "t")
		p := Propose(acc.Evidence(), defaultIndex(t), Options{})
		require.Len(t, p.Spans, 1)
		assert.Equal(t, "server", p.Spans[0].SpanKind, "first %v", first)
	}
}

// TestMergeInvalidDistinct: merged sources count each listed invalid name
// once, the unlisted ones as counted, and a source without
// invalid_distinct (an older collector) by its list.
func TestMergeInvalidDistinct(t *testing.T) {
	a := New(Limits{})
	a.Merge(&Evidence{Attributes: map[string]*Attribute{}, InvalidCount: 5, InvalidDistinct: 3, Invalid: []Invalid{{What: "attribute", Name: "a b"}, {What: "attribute", Name: "c d"}}})
	a.Merge(&Evidence{Attributes: map[string]*Attribute{}, InvalidCount: 2, Invalid: []Invalid{{What: "attribute", Name: "a b"}, {What: "event", Name: "e f"}}})
	ev := a.Evidence()
	assert.Equal(t, int64(7), ev.InvalidCount)
	assert.Equal(t, int64(4), ev.InvalidDistinct, "a b, c d, one unlisted, e f")
	assert.Len(t, ev.Invalid, 3)
}
