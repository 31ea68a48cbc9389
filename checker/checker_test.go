package checker

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelgov/otelcol-governance/conformance"
	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/engine/enginetest"
	"github.com/otelgov/otelcol-governance/findingrules"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

func engineOptions() engine.Options {
	return engine.Options{Deprecated: engine.DeprecatedOff, Unknown: engine.UnknownKeep, TypeMismatch: engine.TypeMismatchKeep, EnumViolation: engine.EnumViolationKeep}
}

func newChecker(t *testing.T, eo engine.Options, limits conformance.Limits) *Checker {
	t.Helper()
	ix, err := registry.Default()
	require.NoError(t, err)
	return New(ix, Options{Engine: eo, Limits: limits})
}

var defaultLimits = conformance.Limits{MaxServices: 100, TopKeys: 20}

func find(r *Result, service, id string) *Finding {
	for _, s := range r.Services {
		if s.Service != service {
			continue
		}
		for i := range s.Findings {
			if s.Findings[i].ID == id {
				return &s.Findings[i]
			}
		}
	}
	return nil
}

func top(f *Finding, name string) int64 {
	for _, n := range f.Top {
		if n.Name == name {
			return n.Count
		}
	}
	return 0
}

// The checker reports the engine's findings: Weaver's IDs and levels, the
// conformance report's counts and top names, the sink's examples.
func TestCheckFindings(t *testing.T) {
	c := newChecker(t, engineOptions(), defaultLimits)
	td := enginetest.GenTraces(5, enginetest.MixDeprecated)
	c.Traces(td, "in.json:1")
	c.Logs(enginetest.GenLogs(2, enginetest.MixUnknown), "in.json:2")
	md := enginetest.GenMetrics(2, enginetest.MixConformant)
	md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().AppendEmpty().SetName("http.server.duration")
	c.Metrics(md, "in.json:3")
	r := c.Result()

	_, ok := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes().Get("http.method")
	assert.True(t, ok, "check never changes the data")

	f := find(&r, "checkout", "deprecated")
	require.NotNil(t, f, "%+v", r.Services)
	assert.Equal(t, vocab.LevelViolation, f.Lvl())
	assert.Equal(t, "violation", f.Level)
	assert.Equal(t, int64(5), top(f, "http.method"))
	mm := find(&r, "checkout", "missing_metric")
	require.NotNil(t, mm, "%+v", r.Services)
	assert.Equal(t, int64(1), top(mm, "http.server.duration"), "a name only the schema file renames is not in Weaver's registry")
	require.NotEmpty(t, f.Examples)
	assert.LessOrEqual(t, len(f.Examples), MaxExamples)
	assert.Equal(t, Example{Signal: "traces", SignalType: "span", SignalName: "GET /api/cart", Subject: "key", Name: "http.method", Input: "in.json:1"}, f.Examples[0])
	assert.Equal(t, `traces span "GET /api/cart": key http.method at in.json:1`, f.Examples[0].String())

	u := find(&r, "checkout", "missing_attribute")
	require.NotNil(t, u)
	assert.Equal(t, vocab.LevelViolation, u.Lvl(), "Weaver's level of missing_attribute")
	assert.Equal(t, int64(2), top(u, "acme.custom_0"))
	assert.Equal(t, "logs", u.Examples[0].Signal)
	assert.Equal(t, "log", u.Examples[0].SignalType)

	// The result is the Document's findings, nothing more.
	require.Len(t, r.Document.Services, 1)
	for _, s := range r.Services {
		assert.Len(t, s.Findings, len(r.Document.Services[0].Findings))
		for i := range s.Findings {
			fr := r.Document.Services[0].Findings[s.Findings[i].ID]
			assert.Equal(t, fr.Count, s.Findings[i].Count, s.Findings[i].ID)
			assert.Equal(t, fr.Level, s.Findings[i].Level, s.Findings[i].ID)
		}
	}
	assert.True(t, r.Fails(FailOn{Level: vocab.LevelViolation}))
	assert.False(t, r.Fails(FailOn{None: true}))
	assert.Equal(t, Items{Requests: 3, Spans: 5, DataPoints: 2, LogRecords: 2, MetricsWithoutData: 1}, r.Items, "http.server.duration has no data point")
	assert.Equal(t, int64(20), r.Document.Totals.Attributes["deprecated_kept"])
}

func TestCheckConformant(t *testing.T) {
	c := newChecker(t, engineOptions(), defaultLimits)
	c.Traces(enginetest.GenTraces(3, enginetest.MixConformant), "")
	c.Metrics(pmetric.NewMetrics(), "")
	r := c.Result()
	require.Len(t, r.Services, 1)
	for _, f := range r.Services[0].Findings {
		assert.NotEqual(t, vocab.LevelViolation, f.Lvl(), "%s: conformant data has no violation", f.ID)
	}
	assert.False(t, r.Fails(FailOn{Level: vocab.LevelViolation}))
}

// Value findings name their key: the engine reports them per key.
func TestValueFindingExamples(t *testing.T) {
	c := newChecker(t, engineOptions(), defaultLimits)
	td := enginetest.GenTraces(2, enginetest.MixConformant)
	s := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(1)
	s.Attributes().PutStr("http.response.status_code", "500")
	s.Attributes().PutStr("network.transport", "carrier-pigeon")
	c.Traces(td, "in.jsonl:7")
	r := c.Result()

	tm := find(&r, "checkout", "type_mismatch")
	require.NotNil(t, tm)
	assert.Equal(t, int64(1), tm.Count)
	assert.Equal(t, vocab.LevelViolation, tm.Lvl())
	require.Len(t, tm.Examples, 1)
	assert.Equal(t, Example{Signal: "traces", SignalType: "span", SignalName: "GET /api/cart", Subject: "key", Name: "http.response.status_code", Input: "in.jsonl:7"}, tm.Examples[0])

	ev := find(&r, "checkout", "undefined_enum_variant")
	require.NotNil(t, ev)
	assert.Equal(t, vocab.LevelInformation, ev.Lvl())
	require.Len(t, ev.Examples, 1)
	assert.Equal(t, `traces span "GET /api/cart": key network.transport at in.jsonl:7`, ev.Examples[0].String())
}

func TestLevelOverrides(t *testing.T) {
	eo := engineOptions()
	r, err := findingrules.Compile(nil, []findingrules.LevelOverride{{IDs: []string{"deprecated"}, Level: "information"}})
	require.NoError(t, err)
	eo.Rules = r
	c := newChecker(t, eo, defaultLimits)
	c.Traces(enginetest.GenTraces(2, enginetest.MixDeprecated), "")
	res := c.Result()
	f := find(&res, "checkout", "deprecated")
	require.NotNil(t, f)
	assert.Equal(t, vocab.LevelInformation, f.Lvl())
	assert.Equal(t, "information", res.Document.Services[0].Findings["deprecated"].Level, "the Document carries the overridden level")
	assert.False(t, res.Fails(FailOn{Level: vocab.LevelViolation}), "deprecated was the only violation")
	assert.True(t, res.Fails(FailOn{Level: vocab.LevelInformation}))
	assert.Equal(t, vocab.LevelInformation, c.Level(vocab.FindingDeprecated))
}

// A scoped filter applies in the aggregate formats: the engine drops the
// findings in its scope before they are counted.
func TestScopedRulesAggregate(t *testing.T) {
	base := newChecker(t, engineOptions(), defaultLimits)
	base.Traces(enginetest.GenTraces(2, enginetest.MixDeprecated), "")
	base.Metrics(enginetest.GenMetrics(2, enginetest.MixDeprecated), "")
	br := base.Result()
	all := find(&br, "checkout", "deprecated")
	require.NotNil(t, all)

	eo := engineOptions()
	r, err := findingrules.Compile([]findingrules.Filter{{Exclude: []string{"deprecated"}, SignalType: "span"}}, nil)
	require.NoError(t, err)
	eo.Rules = r
	c := newChecker(t, eo, defaultLimits)
	c.Traces(enginetest.GenTraces(2, enginetest.MixDeprecated), "")
	c.Metrics(enginetest.GenMetrics(2, enginetest.MixDeprecated), "")
	res := c.Result()
	f := find(&res, "checkout", "deprecated")
	require.NotNil(t, f, "the metrics' deprecated findings are kept")
	assert.Less(t, f.Count, all.Count)
	for _, ex := range f.Examples {
		assert.NotEqual(t, "span", ex.SignalType)
	}
}

func TestFailOn(t *testing.T) {
	for _, s := range []string{"violation", "improvement", "information", "none"} {
		f, err := ParseFailOn(s)
		require.NoError(t, err)
		assert.Equal(t, s, f.String())
	}
	_, err := ParseFailOn("error")
	require.Error(t, err)

	improvement := FailOn{Level: vocab.LevelImprovement}
	assert.True(t, improvement.Fails(vocab.LevelViolation))
	assert.True(t, improvement.Fails(vocab.LevelImprovement))
	assert.False(t, improvement.Fails(vocab.LevelInformation))
	assert.False(t, FailOn{None: true}.Fails(vocab.LevelViolation))
}

func TestRender(t *testing.T) {
	c := newChecker(t, engineOptions(), defaultLimits)
	c.Traces(enginetest.GenTraces(2, enginetest.MixDeprecated), "in.jsonl:1")
	c.Logs(enginetest.GenLogs(1, enginetest.MixUnknown), "in.jsonl:2")
	r := c.Result()
	failOn := FailOn{Level: vocab.LevelViolation}

	var text bytes.Buffer
	require.NoError(t, Render(&text, FormatText, &r, failOn))
	assert.Regexp(t, `violation +deprecated +\d+ +http.method \(2\)`, text.String())
	assert.Contains(t, text.String(), `e.g. traces span "GET /api/cart": key http.method at in.jsonl:1`)
	assert.Contains(t, text.String(), "FAIL (--fail-on violation)")

	var js bytes.Buffer
	require.NoError(t, Render(&js, FormatJSON, &r, failOn))
	raw := js.Bytes()
	var doc JSONResult
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&doc))
	require.Len(t, doc.Services, 1)
	assert.Equal(t, "checkout", doc.Services[0].Service)
	assert.Equal(t, "violation", doc.Services[0].Findings["deprecated"].Level)
	assert.Equal(t, r.Items, doc.Items)
	require.NotEmpty(t, doc.Examples["checkout"]["deprecated"], "the example locations are in the JSON")
	assert.Equal(t, Example{Signal: "traces", SignalType: "span", SignalName: "GET /api/cart", Subject: "key", Name: "http.method", Input: "in.jsonl:1"},
		doc.Examples["checkout"]["deprecated"][0])
	// A /conformance reader reads the same document, ignoring the additions.
	var conf conformance.Document
	require.NoError(t, json.Unmarshal(raw, &conf))
	assert.Equal(t, doc.Totals, conf.Totals)

	var ju bytes.Buffer
	require.NoError(t, Render(&ju, FormatJUnit, &r, FailOn{Level: vocab.LevelImprovement}))
	var suites junitSuites
	require.NoError(t, xml.Unmarshal(ju.Bytes(), &suites))
	require.Len(t, suites.Suites, 1)
	assert.Equal(t, len(r.Services[0].Findings), suites.Tests, "one case per finding ID")
	failing := 0
	for _, f := range r.Services[0].Findings {
		if f.Lvl() <= vocab.LevelImprovement {
			failing++
		}
	}
	assert.Equal(t, failing, suites.Failures, "improvement and above fail")
	var names []string
	for _, tc := range suites.Suites[0].Cases {
		names = append(names, tc.Name)
	}
	assert.Contains(t, names, "deprecated")
	assert.Contains(t, names, "missing_attribute")

	var md bytes.Buffer
	require.NoError(t, Render(&md, FormatMarkdown, &r, failOn))
	assert.Contains(t, md.String(), "| :x: violation | `deprecated` | ")
	assert.Contains(t, md.String(), "http.method (2)")

	require.Error(t, Render(&md, "yaml", &r, failOn))
}

func TestBounds(t *testing.T) {
	c := newChecker(t, engineOptions(), conformance.Limits{MaxServices: 2, TopKeys: 5})
	// Many distinct unknown keys: examples stay at MaxExamples per
	// service and finding ID, across batches.
	td := enginetest.GenTraces(1, enginetest.MixConformant)
	attrs := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes()
	for i := range 100 {
		attrs.PutStr(fmt.Sprintf("acme.k%d", i), "v")
	}
	c.Traces(td, "")
	c.Traces(td, "")
	// More services than Limits.MaxServices: folded into _other, examples
	// too.
	for _, svc := range []string{"a", "b", "c", "d"} {
		lt := enginetest.GenLogs(1, enginetest.MixUnknown)
		lt.ResourceLogs().At(0).Resource().Attributes().PutStr("service.name", svc)
		c.Logs(lt, svc)
	}
	r := c.Result()
	var services []string
	for _, s := range r.Services {
		services = append(services, s.Service)
	}
	assert.Equal(t, []string{"_other", "a", "checkout"}, services)

	m := find(&r, "checkout", "missing_attribute")
	require.NotNil(t, m)
	assert.Equal(t, int64(200), m.Count)
	assert.Len(t, m.Examples, MaxExamples)
	assert.Len(t, m.Top, 5, "top_keys")

	o := find(&r, "_other", "missing_attribute")
	require.NotNil(t, o)
	require.Len(t, o.Examples, MaxExamples, "the same keys over b, c and d")
	for _, ex := range o.Examples {
		assert.Equal(t, "b", ex.Input, "the first service folded into _other")
	}
}
