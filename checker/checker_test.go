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
	"github.com/otelgov/otelcol-governance/registry"
)

func newChecker(t *testing.T) *Checker {
	t.Helper()
	ix, err := registry.Default()
	require.NoError(t, err)
	return New(ix, Options{
		Engine: engine.Options{Deprecated: engine.DeprecatedOff, Unknown: engine.UnknownKeep, TypeMismatch: engine.TypeMismatchKeep, EnumViolation: engine.EnumViolationKeep},
		Limits: conformance.Limits{MaxServices: 100, TopKeys: 20},
	})
}

func find(r *Result, service, id, key string) *Finding {
	for _, s := range r.Services {
		if s.Service != service {
			continue
		}
		for i := range s.Findings {
			if s.Findings[i].ID == id && s.Findings[i].Key == key {
				return &s.Findings[i]
			}
		}
	}
	return nil
}

func TestCheckFindings(t *testing.T) {
	c := newChecker(t)
	td := enginetest.GenTraces(5, enginetest.MixDeprecated)
	before := td.SpanCount()
	c.Traces(td, "in.json:1")
	c.Logs(enginetest.GenLogs(2, enginetest.MixUnknown), "")
	md := enginetest.GenMetrics(2, enginetest.MixConformant)
	md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().AppendEmpty().SetName("http.server.duration")
	c.Metrics(md, "")
	r := c.Result()

	_, ok := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes().Get("http.method")
	assert.True(t, ok, "check never changes the data")
	assert.Equal(t, before, td.SpanCount())

	f := find(&r, "checkout", FindingDeprecated, "http.method")
	require.NotNil(t, f, "%+v", r.Services)
	assert.Equal(t, int64(5), f.Count)
	assert.Equal(t, LevelViolation, f.Lvl())
	require.Len(t, f.Examples, 1)
	assert.Equal(t, Location{Signal: "traces", Where: "span", Name: "GET /api/cart", Input: "in.json:1"}, f.Examples[0])

	u := find(&r, "checkout", FindingNotInRegistry, "acme.custom_0")
	require.NotNil(t, u)
	assert.Equal(t, int64(2), u.Count)
	assert.Equal(t, "log", u.Examples[0].Where)

	m := find(&r, "checkout", FindingDeprecatedMetric, "http.server.duration")
	require.NotNil(t, m)
	assert.Equal(t, int64(1), m.Count)

	assert.Equal(t, LevelViolation, r.Worst())
	assert.True(t, r.Fails(LevelViolation))
	assert.False(t, r.Fails(LevelNone))
	assert.Equal(t, Items{Requests: 3, Spans: 5, DataPoints: 2, LogRecords: 2}, r.Items)
	assert.Equal(t, int64(20), r.Document.Totals.Attributes["deprecated_kept"])
}

func TestCheckClean(t *testing.T) {
	c := newChecker(t)
	c.Traces(enginetest.GenTraces(3, enginetest.MixConformant), "")
	c.Metrics(pmetric.NewMetrics(), "")
	r := c.Result()
	require.Len(t, r.Services, 1)
	assert.Empty(t, r.Services[0].Findings)
	assert.False(t, r.Fails(LevelInformation))
	assert.Equal(t, LevelNone, r.Worst())
}

func TestRender(t *testing.T) {
	c := newChecker(t)
	c.Traces(enginetest.GenTraces(2, enginetest.MixDeprecated), "")
	c.Logs(enginetest.GenLogs(1, enginetest.MixUnknown), "")
	r := c.Result()

	var text bytes.Buffer
	require.NoError(t, Render(&text, FormatText, &r, LevelViolation))
	assert.Regexp(t, `violation +deprecated +http.method +2 +e.g. traces span "GET /api/cart"`, text.String())
	assert.Contains(t, text.String(), "FAIL (--fail-on violation)")

	var js bytes.Buffer
	require.NoError(t, Render(&js, FormatJSON, &r, LevelViolation))
	var doc conformance.Document
	require.NoError(t, json.Unmarshal(js.Bytes(), &doc))
	require.Len(t, doc.Services, 1)
	assert.Equal(t, "checkout", doc.Services[0].Service)

	var ju bytes.Buffer
	require.NoError(t, Render(&ju, FormatJUnit, &r, LevelImprovement))
	var suites junitSuites
	require.NoError(t, xml.Unmarshal(ju.Bytes(), &suites))
	require.Len(t, suites.Suites, 1)
	assert.Equal(t, 8, suites.Tests, "4 deprecated + 4 unknown keys")
	assert.Equal(t, 8, suites.Failures, "improvement and above fail")

	var md bytes.Buffer
	require.NoError(t, Render(&md, FormatMarkdown, &r, LevelViolation))
	assert.Contains(t, md.String(), "| :x: violation | deprecated | `http.method` | 2 |")

	assert.Error(t, Render(&md, "yaml", &r, LevelViolation))
}

func TestParseLevel(t *testing.T) {
	for _, s := range []string{"violation", "improvement", "information", "none"} {
		l, err := ParseLevel(s)
		require.NoError(t, err)
		assert.Equal(t, s, l.String())
	}
	_, err := ParseLevel("error")
	assert.Error(t, err)
}

func TestBounds(t *testing.T) {
	ix, err := registry.Default()
	require.NoError(t, err)
	c := New(ix, Options{
		Engine: engine.Options{Deprecated: engine.DeprecatedOff, Unknown: engine.UnknownKeep, TypeMismatch: engine.TypeMismatchKeep, EnumViolation: engine.EnumViolationKeep},
		Limits: conformance.Limits{MaxServices: 2, TopKeys: 5},
	})
	// More distinct keys than findings are kept: the rest count under OtherKeys.
	td := enginetest.GenTraces(1, enginetest.MixConformant)
	attrs := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes()
	for i := range maxFindings + 10 {
		attrs.PutStr(fmt.Sprintf("acme.k%d", i), "v")
	}
	c.Traces(td, "")
	c.Traces(td, "")
	// More services than Limits.MaxServices: folded into _other.
	for _, svc := range []string{"a", "b", "c", "d"} {
		lt := enginetest.GenLogs(1, enginetest.MixUnknown)
		lt.ResourceLogs().At(0).Resource().Attributes().PutStr("service.name", svc)
		c.Logs(lt, "")
	}
	r := c.Result()
	assert.LessOrEqual(t, len(c.findings), maxFindings+20)
	other := find(&r, "checkout", FindingNotInRegistry, OtherKeys)
	require.NotNil(t, other)
	assert.Positive(t, other.Count)
	var services []string
	for _, s := range r.Services {
		services = append(services, s.Service)
	}
	assert.Equal(t, []string{"_other", "a", "checkout"}, services)
}

func TestValueFindingExamples(t *testing.T) {
	c := newChecker(t)
	td := enginetest.GenTraces(2, enginetest.MixConformant)
	s := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(1)
	s.Attributes().PutStr("http.response.status_code", "500")
	s.Attributes().PutStr("network.transport", "carrier-pigeon")
	c.Traces(td, "in.jsonl:7")
	r := c.Result()
	tm := find(&r, "checkout", FindingTypeMismatch, "")
	require.NotNil(t, tm)
	assert.Equal(t, int64(1), tm.Count)
	require.Len(t, tm.Examples, 1)
	assert.Equal(t, Location{Signal: "traces", Where: "span", Name: "GET /api/cart", Input: "in.jsonl:7", Key: "http.response.status_code", Type: "Str"}, tm.Examples[0])
	ev := find(&r, "checkout", FindingEnumNotInVariants, "")
	require.NotNil(t, ev)
	assert.Equal(t, LevelInformation, ev.Lvl())
	require.Len(t, ev.Examples, 1)
	assert.Equal(t, "network.transport", ev.Examples[0].Key)
	assert.Equal(t, `traces span "GET /api/cart" key network.transport (Str) at in.jsonl:7`, ev.Examples[0].String())
}
