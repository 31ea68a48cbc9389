package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/vocab"
)

func findingOptions() Options {
	o := defaultOptions()
	o.Findings = true
	o.Detail = true
	return o
}

// sample is one batch of any signal.
type sample func(w *Walker)

func putAttrs(t *testing.T, m pcommon.Map, attrs map[string]any) {
	t.Helper()
	require.NoError(t, m.FromRaw(attrs))
}

func resourceOf(t *testing.T, m pcommon.Map) {
	t.Helper()
	m.PutStr("service.name", "checkout")
}

func logSample(t *testing.T, event string, attrs map[string]any) sample {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	resourceOf(t, rl.Resource().Attributes())
	lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	lr.SetEventName(event)
	putAttrs(t, lr.Attributes(), attrs)
	return func(w *Walker) { w.Logs(ld) }
}

func spanSample(t *testing.T, kind ptrace.SpanKind, attrs map[string]any) sample {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	resourceOf(t, rs.Resource().Attributes())
	sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetKind(kind)
	putAttrs(t, sp.Attributes(), attrs)
	return func(w *Walker) { w.Traces(td) }
}

// metricSample is one metric with one data point; typ is "histogram",
// "gauge" or "counter".
func metricSample(t *testing.T, name, typ, unit string, attrs map[string]any) sample {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	resourceOf(t, rm.Resource().Attributes())
	m := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName(name)
	m.SetUnit(unit)
	var dp pcommon.Map
	switch typ {
	case "histogram":
		dp = m.SetEmptyHistogram().DataPoints().AppendEmpty().Attributes()
	case "gauge":
		dp = m.SetEmptyGauge().DataPoints().AppendEmpty().Attributes()
	default:
		s := m.SetEmptySum()
		s.SetIsMonotonic(true)
		dp = s.DataPoints().AppendEmpty().Attributes()
	}
	putAttrs(t, dp, attrs)
	return func(w *Walker) { w.Metrics(md) }
}

// fullDuration carries every attribute of http.server.request.duration.
func fullDuration() map[string]any {
	return map[string]any{
		"http.request.method": "GET", "url.scheme": "https", "error.type": "timeout",
		"http.response.status_code": int64(500), "http.route": "/cart", "network.protocol.name": "http",
		"network.protocol.version": "1.1", "server.address": "shop", "server.port": int64(443),
		"user_agent.synthetic.type": "bot",
	}
}

func without(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		delete(m, k)
	}
	return m
}

func with(m map[string]any, k string, v any) map[string]any {
	m[k] = v
	return m
}

func walkSample(t *testing.T, opts Options, s sample) (counts, *Batch) {
	t.Helper()
	e, ix := newTestEngine(t, opts)
	w := e.Walker(ix, false)
	t.Cleanup(func() { e.Release(w) })
	s(w)
	return countsOf(w.Batch()), w.Batch()
}

// TestFindings has, for every finding, a sample that produces it (with the
// name it is reported for) and one that does not.
func TestFindings(t *testing.T) {
	tests := []struct {
		finding vocab.Finding
		yes, no func(t *testing.T) sample
		yesName string
		// extended: the finding is one of vocab.ProfileExtended's extensions;
		// vocab.ProfileWeaver does not report it.
		extended bool
	}{
		{
			vocab.FindingMissingAttribute,
			func(t *testing.T) sample { return logSample(t, "", map[string]any{"acme.foo": "x"}) },
			func(t *testing.T) sample { return logSample(t, "", map[string]any{"url.path": "/"}) },
			"acme.foo",
			false,
		},
		{
			vocab.FindingTemplateAttribute,
			func(t *testing.T) sample {
				return logSample(t, "", map[string]any{"http.request.header.x-id": []any{"1"}})
			},
			func(t *testing.T) sample { return logSample(t, "", map[string]any{"url.path": "/"}) },
			"http.request.header.x-id",
			false,
		},
		{
			vocab.FindingMissingMetric,
			func(t *testing.T) sample { return metricSample(t, "acme.queue.depth", "gauge", "1", nil) },
			func(t *testing.T) sample {
				return metricSample(t, "http.server.request.duration", "histogram", "s", fullDuration())
			},
			"acme.queue.depth",
			false,
		},
		{
			vocab.FindingMissingEvent,
			func(t *testing.T) sample { return logSample(t, "acme.login", nil) },
			func(t *testing.T) sample { return logSample(t, "exception", map[string]any{"exception.type": "E"}) },
			"acme.login",
			false,
		},
		{
			vocab.FindingDeprecated,
			func(t *testing.T) sample { return logSample(t, "", map[string]any{"http.method": "GET"}) },
			func(t *testing.T) sample { return logSample(t, "", map[string]any{"http.request.method": "GET"}) },
			"http.method",
			false,
		},
		{
			vocab.FindingNotStable,
			func(t *testing.T) sample { return logSample(t, "", map[string]any{"app.crash.id": "1"}) },
			func(t *testing.T) sample { return logSample(t, "", map[string]any{"url.path": "/"}) },
			"app.crash.id",
			false,
		},
		{
			vocab.FindingTypeMismatch,
			func(t *testing.T) sample {
				return logSample(t, "", map[string]any{"http.response.status_code": "200"})
			},
			func(t *testing.T) sample {
				return logSample(t, "", map[string]any{"http.response.status_code": int64(200)})
			},
			"http.response.status_code",
			false,
		},
		{
			vocab.FindingUnexpectedInstrument,
			func(t *testing.T) sample {
				return metricSample(t, "http.server.request.duration", "gauge", "s", fullDuration())
			},
			func(t *testing.T) sample {
				return metricSample(t, "http.server.request.duration", "histogram", "s", fullDuration())
			},
			"http.server.request.duration",
			false,
		},
		{
			vocab.FindingUnitMismatch,
			func(t *testing.T) sample {
				return metricSample(t, "http.server.request.duration", "histogram", "ms", fullDuration())
			},
			func(t *testing.T) sample {
				return metricSample(t, "http.server.request.duration", "histogram", "s", fullDuration())
			},
			"http.server.request.duration",
			false,
		},
		{
			vocab.FindingUndefinedEnumVariant,
			func(t *testing.T) sample { return logSample(t, "", map[string]any{"http.request.method": "FETCH"}) },
			func(t *testing.T) sample { return logSample(t, "", map[string]any{"http.request.method": "GET"}) },
			"http.request.method",
			false,
		},
		{
			vocab.FindingRequiredAttributeNotPresent,
			func(t *testing.T) sample {
				return metricSample(t, "http.server.request.duration", "histogram", "s", without(fullDuration(), "http.request.method"))
			},
			func(t *testing.T) sample {
				return metricSample(t, "http.server.request.duration", "histogram", "s", fullDuration())
			},
			"http.request.method",
			false,
		},
		{
			vocab.FindingRecommendedAttributeNotPresent,
			func(t *testing.T) sample {
				return metricSample(t, "http.server.request.duration", "histogram", "s", without(fullDuration(), "network.protocol.version"))
			},
			func(t *testing.T) sample {
				return metricSample(t, "http.server.request.duration", "histogram", "s", fullDuration())
			},
			"network.protocol.version",
			false,
		},
		{
			vocab.FindingOptInAttributeNotPresent,
			func(t *testing.T) sample {
				return metricSample(t, "http.server.request.duration", "histogram", "s", without(fullDuration(), "server.address"))
			},
			func(t *testing.T) sample {
				return metricSample(t, "http.server.request.duration", "histogram", "s", fullDuration())
			},
			"server.address",
			false,
		},
		{
			vocab.FindingConditionallyRequiredAttributeNotPresent,
			func(t *testing.T) sample {
				return metricSample(t, "http.server.request.duration", "histogram", "s", without(fullDuration(), "http.route"))
			},
			func(t *testing.T) sample {
				return metricSample(t, "http.server.request.duration", "histogram", "s", fullDuration())
			},
			"http.route",
			false,
		},
		{
			vocab.FindingUnexpectedAttribute,
			func(t *testing.T) sample {
				return metricSample(t, "http.server.request.duration", "histogram", "s", with(fullDuration(), "user.id", "u1"))
			},
			func(t *testing.T) sample {
				return metricSample(t, "http.server.request.duration", "histogram", "s", fullDuration())
			},
			"user.id",
			true,
		},
		{
			vocab.FindingKindMismatch,
			func(t *testing.T) sample {
				return spanSample(t, ptrace.SpanKindInternal, map[string]any{"http.request.method": "GET", "url.scheme": "https"})
			},
			func(t *testing.T) sample {
				return spanSample(t, ptrace.SpanKindServer, map[string]any{"http.request.method": "GET", "url.scheme": "https"})
			},
			"span.http.server",
			true,
		},
		{
			vocab.FindingInvalidFormat,
			func(t *testing.T) sample { return logSample(t, "", map[string]any{"Acme.Foo": "x"}) },
			func(t *testing.T) sample { return logSample(t, "", map[string]any{"acme.foo": "x"}) },
			"Acme.Foo",
			false,
		},
		{
			vocab.FindingMissingNamespace,
			func(t *testing.T) sample { return logSample(t, "", map[string]any{"tenant": "x"}) },
			func(t *testing.T) sample { return logSample(t, "", map[string]any{"acme.tenant": "x"}) },
			"tenant",
			false,
		},
		{
			vocab.FindingExtendsNamespace,
			func(t *testing.T) sample { return logSample(t, "", map[string]any{"http.tenant": "x"}) },
			func(t *testing.T) sample { return logSample(t, "", map[string]any{"acme.tenant": "x"}) },
			"http.tenant",
			false,
		},
		{
			vocab.FindingIllegalNamespace,
			func(t *testing.T) sample { return logSample(t, "", map[string]any{"url.path.tenant": "x"}) },
			func(t *testing.T) sample { return logSample(t, "", map[string]any{"http.method.tenant": "x"}) }, // http.method is deprecated
			"url.path.tenant",
			false,
		},
	}
	covered := map[vocab.Finding]bool{}
	for _, tt := range tests {
		covered[tt.finding] = true
		t.Run(tt.finding.String(), func(t *testing.T) {
			opts := findingOptions()
			if tt.extended {
				c, _ := walkSample(t, opts, tt.yes(t))
				assert.Zero(t, c.Findings[tt.finding], "profile weaver")
				opts.Profile = vocab.ProfileExtended
			}
			c, b := walkSample(t, opts, tt.yes(t))
			assert.Positive(t, c.Findings[tt.finding], "sample that produces it")
			found := false
			for _, f := range b.Findings {
				if f.Finding == tt.finding && f.Name == tt.yesName {
					found = true
				}
			}
			assert.True(t, found, "reported for %q: %+v", tt.yesName, b.Findings)
			require.NotEmpty(t, b.Services)
			assert.Positive(t, b.Services[0].Findings[tt.finding])

			c, _ = walkSample(t, opts, tt.no(t))
			assert.Zero(t, c.Findings[tt.finding], "sample that does not produce it")

			off := defaultOptions()
			c, _ = walkSample(t, off, tt.yes(t))
			assert.Zero(t, c.Findings[tt.finding], "findings off")
		})
	}
	for f := range vocab.NumFindings {
		if f >= vocab.FindingEntityRequiredAttributeNotPresent {
			continue // TestEntityFindings
		}
		assert.True(t, covered[f], "no test for %s", f)
	}
}

// extendedOptions are findingOptions with vocab.ProfileExtended.
func extendedOptions() Options {
	o := findingOptions()
	o.Profile = vocab.ProfileExtended
	return o
}

func TestResourceServiceName(t *testing.T) {
	td := ptrace.NewTraces()
	td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	c, _ := walkSample(t, findingOptions(), func(w *Walker) { w.Traces(td) })
	assert.Zero(t, c.Findings[vocab.FindingRequiredAttributeNotPresent], "profile weaver")
	c, b := walkSample(t, extendedOptions(), func(w *Walker) { w.Traces(td) })
	assert.Equal(t, int64(1), c.Findings[vocab.FindingRequiredAttributeNotPresent])
	require.Len(t, b.Findings, 1)
	assert.Equal(t, "service.name", b.Findings[0].Name)

	c, _ = walkSample(t, extendedOptions(), spanSample(t, ptrace.SpanKindInternal, nil))
	assert.Zero(t, c.Findings[vocab.FindingRequiredAttributeNotPresent])
}

func TestSpanFindingsE2EShape(t *testing.T) {
	// The e2e span: claims HTTP server semantics under INTERNAL, no url.path.
	span := spanSample(t, ptrace.SpanKindInternal,
		map[string]any{"http.request.method": "GET", "url.scheme": "https", "acme.extra": "x"})
	c, _ := walkSample(t, findingOptions(), span)
	assert.Zero(t, c.Findings[vocab.FindingKindMismatch]+c.Findings[vocab.FindingRequiredAttributeNotPresent]+c.Findings[vocab.FindingUnexpectedAttribute], "profile weaver: no span matchers")
	c, b := walkSample(t, extendedOptions(), span)
	assert.Equal(t, int64(1), c.Findings[vocab.FindingKindMismatch])
	names := map[vocab.Finding][]string{}
	for _, f := range b.Findings {
		names[f.Finding] = append(names[f.Finding], f.Name)
	}
	assert.Contains(t, names[vocab.FindingRequiredAttributeNotPresent], "url.path")
	assert.Contains(t, names[vocab.FindingUnexpectedAttribute], "acme.extra")
	require.Len(t, b.Signals, 1)
	assert.Equal(t, "span.http.server", b.Signals[0].Signal.ID)
	assert.Equal(t, 2, b.Signals[0].Seen.Count())

	// An unmatched span gets key checks only.
	c, _ = walkSample(t, extendedOptions(), spanSample(t, ptrace.SpanKindInternal, map[string]any{"url.path": "/"}))
	assert.Zero(t, c.Findings[vocab.FindingRequiredAttributeNotPresent]+c.Findings[vocab.FindingUnexpectedAttribute]+c.Findings[vocab.FindingKindMismatch])
}

func TestDeprecatedKeyCheckedAsTarget(t *testing.T) {
	// http.method renames to http.request.method: it satisfies the metric's
	// required attribute and is not unexpected.
	c, _ := walkSample(t, findingOptions(), metricSample(t, "http.server.request.duration", "histogram", "s",
		with(without(fullDuration(), "http.request.method"), "http.method", "GET")))
	assert.Zero(t, c.Findings[vocab.FindingRequiredAttributeNotPresent])
	assert.Zero(t, c.Findings[vocab.FindingUnexpectedAttribute])
	assert.Equal(t, int64(1), c.Findings[vocab.FindingDeprecated])
}

func TestDropUnexpected(t *testing.T) {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "checkout")
	m := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("http.server.request.duration")
	m.SetUnit("s")
	dp := m.SetEmptyHistogram().DataPoints().AppendEmpty()
	putAttrs(t, dp.Attributes(), with(fullDuration(), "user.id", "u1"))
	// A metric the registry does not define keeps its attributes.
	other := rm.ScopeMetrics().At(0).Metrics().AppendEmpty()
	other.SetName("acme.queue.depth")
	other.SetEmptyGauge().DataPoints().AppendEmpty().Attributes().PutStr("user.id", "u1")

	// The guard drops in every profile; only extended reports a finding.
	md0 := pmetric.NewMetrics()
	md.CopyTo(md0)
	opts := findingOptions()
	opts.DropUnexpected = true
	e, ix := newTestEngine(t, opts)
	w := e.Walker(ix, false)
	w.Metrics(md0)
	assert.Equal(t, int64(1), countsOf(w.Batch()).Drops[vocab.ReasonUnexpected], "profile weaver guards")
	assert.Zero(t, countsOf(w.Batch()).Findings[vocab.FindingUnexpectedAttribute], "profile weaver")
	e.Release(w)

	opts.Profile = vocab.ProfileExtended
	e, ix = newTestEngine(t, opts)
	assert.True(t, e.Mutates())
	w = e.Walker(ix, false)
	w.Metrics(md)
	c := countsOf(w.Batch())
	assert.Equal(t, int64(1), c.Drops[vocab.ReasonUnexpected])
	assert.Equal(t, int64(1), c.Findings[vocab.FindingUnexpectedAttribute])
	e.Release(w)
	_, ok := dp.Attributes().Get("user.id")
	assert.False(t, ok)
	_, ok = other.Gauge().DataPoints().At(0).Attributes().Get("user.id")
	assert.True(t, ok)

	// Read-only data is never changed.
	md2 := pmetric.NewMetrics()
	md.CopyTo(md2)
	md2.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(0).Histogram().DataPoints().At(0).Attributes().PutStr("user.id", "u2")
	md2.MarkReadOnly()
	w = e.Walker(ix, true)
	w.Metrics(md2)
	assert.Zero(t, countsOf(w.Batch()).Drops[vocab.ReasonUnexpected])
	e.Release(w)
}

func TestFindingNames(t *testing.T) {
	for f := range vocab.NumFindings {
		got, ok := vocab.ParseFinding(f.String())
		require.True(t, ok)
		assert.Equal(t, f, got)
	}
	_, ok := vocab.ParseFinding("nope")
	assert.False(t, ok)
	for l := range vocab.NumLevels {
		got, ok := vocab.ParseLevel(l.String())
		require.True(t, ok)
		assert.Equal(t, l, got)
	}
}

func TestValidName(t *testing.T) {
	for s, want := range map[string]bool{
		"http.request.method": true, "a": true, "a1.b_c": true, "k8s.pod.uid": true,
		"": false, "A": false, "1a": false, "a..b": false, "a._b": false, "a.": false, "a-b": false, "a.B": false,
	} {
		assert.Equal(t, want, vocab.ValidName(s), s)
	}
}

func TestNetPeerOnSpanEvents(t *testing.T) {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "x")
	sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetKind(ptrace.SpanKindClient)
	ev := sp.Events().AppendEmpty()
	ev.Attributes().PutStr("net.peer.name", "db.example")
	ln := sp.Links().AppendEmpty()
	ln.Attributes().PutInt("net.peer.port", 5432)
	walkSample(t, defaultOptions(), func(w *Walker) { w.Traces(td) })
	v, ok := ev.Attributes().Get("server.address")
	require.True(t, ok)
	assert.Equal(t, "db.example", v.Str())
	_, ok = ln.Attributes().Get("server.port")
	assert.True(t, ok)
}

// TestZeroAllocsSignals: with the signal checks and the report on, walking
// conforming traces, metrics and logs allocates nothing once the walker's
// report maps have grown.
func TestZeroAllocsSignals(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	e, ix := newTestEngine(t, findingOptions())
	spans := spanSample(t, ptrace.SpanKindServer, map[string]any{
		"http.request.method": "GET", "url.path": "/cart", "url.scheme": "https", "http.response.status_code": int64(200),
	})
	metrics := metricSample(t, "http.server.request.duration", "histogram", "s", fullDuration())
	logs := logSample(t, "exception", map[string]any{"exception.type": "E", "exception.message": "m"})
	for name, s := range map[string]sample{"traces": spans, "metrics": metrics, "logs": logs} {
		t.Run(name, func(t *testing.T) {
			run := func() {
				w := e.Walker(ix, true)
				s(w)
				_ = w.Batch()
				e.Release(w)
			}
			run()
			assert.Zero(t, testing.AllocsPerRun(100, run))
		})
	}
}

// recordingSink accepts up to limit findings.
type recordingSink struct {
	limit int
	got   []FindingEvent
	calls int
}

func (s *recordingSink) Emit(ev *FindingEvent) bool {
	s.calls++
	if len(s.got) >= s.limit {
		return false
	}
	s.got = append(s.got, *ev)
	return true
}

func TestFindingSink(t *testing.T) {
	sink := &recordingSink{limit: 100}
	opts := extendedOptions()
	opts.Sink = sink
	walkSample(t, opts, metricSample(t, "http.server.request.duration", "histogram", "ms",
		with(without(fullDuration(), "http.request.method"), "user.id", "u1")))
	byID := map[vocab.Finding]FindingEvent{}
	for _, ev := range sink.got {
		byID[ev.Finding] = ev
	}
	um := byID[vocab.FindingUnitMismatch]
	want := FindingEvent{
		Finding: vocab.FindingUnitMismatch, Level: vocab.LevelViolation, Subject: vocab.SubjectMetric,
		Name: "http.server.request.duration", SampleType: "metric", SignalType: "metric",
		SignalName: "http.server.request.duration", Service: "checkout",
	}
	assert.Equal(t, want, um)
	req := byID[vocab.FindingRequiredAttributeNotPresent]
	assert.Equal(t, "http.request.method", req.Name)
	assert.Equal(t, "histogram_data_point", req.SampleType)
	assert.Equal(t, "user.id", byID[vocab.FindingUnexpectedAttribute].Name)

	// A refusal closes the sink for the rest of the batch.
	limited := &recordingSink{limit: 1}
	opts.Sink = limited
	walkSample(t, opts, metricSample(t, "http.server.request.duration", "histogram", "ms",
		with(without(fullDuration(), "http.request.method"), "user.id", "u1")))
	assert.Len(t, limited.got, 1)
	assert.Equal(t, 2, limited.calls)
}

// A scope after a span: its attributes are not reported in that span's
// context, nor in the resource's: with no signal type, as Weaver reports
// a scope's (its sample has none).
func TestFindingSinkScopeContext(t *testing.T) {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "checkout")
	rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty().SetName("GET /cart")
	rs.ScopeSpans().AppendEmpty().Scope().Attributes().PutStr("http.method", "GET")
	sink := &recordingSink{limit: 100}
	opts := findingOptions()
	opts.Sink = sink
	walkSample(t, opts, func(w *Walker) { w.Traces(td) })
	var dep []FindingEvent
	for _, ev := range sink.got {
		if ev.Finding == vocab.FindingDeprecated {
			dep = append(dep, ev)
		}
	}
	require.Len(t, dep, 1)
	assert.Empty(t, dep[0].SignalType)
	assert.Empty(t, dep[0].SignalName)
	assert.Equal(t, "checkout", dep[0].Service)
}

func TestSpanEventChecks(t *testing.T) {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "checkout")
	sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetKind(ptrace.SpanKindInternal)
	ex := sp.Events().AppendEmpty()
	ex.SetName("exception")
	ex.Attributes().PutStr("exception.stacktrace", "at x")
	ex.Attributes().PutStr("acme.note", "n")
	other := sp.Events().AppendEmpty()
	other.SetName("cache miss")
	other.Attributes().PutStr("acme.key", "k")

	// Weaver checks a span event's attributes as attributes only.
	c, b := walkSample(t, findingOptions(), func(w *Walker) { w.Traces(td) })
	assert.Zero(t, c.Findings[vocab.FindingConditionallyRequiredAttributeNotPresent]+c.Findings[vocab.FindingUnexpectedAttribute], "profile weaver")
	assert.Empty(t, b.Signals)

	c, b = walkSample(t, extendedOptions(), func(w *Walker) { w.Traces(td) })
	names := map[vocab.Finding][]string{}
	for _, f := range b.Findings {
		names[f.Finding] = append(names[f.Finding], f.Name)
	}
	assert.ElementsMatch(t, []string{"exception.type", "exception.message"}, names[vocab.FindingConditionallyRequiredAttributeNotPresent])
	assert.Equal(t, []string{"acme.note"}, names[vocab.FindingUnexpectedAttribute], "the free-text event is not checked")
	assert.Zero(t, c.Findings[vocab.FindingMissingEvent])
	require.Len(t, b.Signals, 1)
	assert.Equal(t, "exception", b.Signals[0].Signal.Name)
}
