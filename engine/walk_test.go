package engine

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/engine/enginetest"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// site is one place an attribute map sits in one signal.
type site struct {
	name string
	sig  vocab.Kind
	loc  registry.Location
	// build returns a batch and the map under test inside it.
	build func() (any, pcommon.Map)
}

func traceSite(name string, loc registry.Location, pick func(ptrace.Span, ptrace.ResourceSpans, ptrace.ScopeSpans) pcommon.Map) site {
	return site{name: "traces/" + name, sig: vocab.KindTraces, loc: loc, build: func() (any, pcommon.Map) {
		td := ptrace.NewTraces()
		rs := td.ResourceSpans().AppendEmpty()
		ss := rs.ScopeSpans().AppendEmpty()
		s := ss.Spans().AppendEmpty()
		s.SetKind(ptrace.SpanKindServer)
		return td, pick(s, rs, ss)
	}}
}

func metricSite(name string, pick func(pmetric.Metric) pcommon.Map) site {
	loc := registry.LocationDataPoint
	switch name {
	case "resource":
		loc = registry.LocationResource
	case "scope":
		loc = registry.LocationScope
	}
	return site{name: "metrics/" + name, sig: vocab.KindMetrics, loc: loc, build: func() (any, pcommon.Map) {
		md := pmetric.NewMetrics()
		rm := md.ResourceMetrics().AppendEmpty()
		sm := rm.ScopeMetrics().AppendEmpty()
		m := sm.Metrics().AppendEmpty()
		m.SetName("acme.requests")
		switch name {
		case "resource":
			m.SetEmptyGauge().DataPoints().AppendEmpty()
			return md, rm.Resource().Attributes()
		case "scope":
			m.SetEmptyGauge().DataPoints().AppendEmpty()
			return md, sm.Scope().Attributes()
		}
		return md, pick(m)
	}}
}

func logSite(name string, loc registry.Location, pick func(plog.LogRecord, plog.ResourceLogs, plog.ScopeLogs) pcommon.Map) site {
	return site{name: "logs/" + name, sig: vocab.KindLogs, loc: loc, build: func() (any, pcommon.Map) {
		ld := plog.NewLogs()
		rl := ld.ResourceLogs().AppendEmpty()
		sl := rl.ScopeLogs().AppendEmpty()
		lr := sl.LogRecords().AppendEmpty()
		return ld, pick(lr, rl, sl)
	}}
}

// allSites covers every attribute map the processor walks.
var allSites = []site{
	traceSite("resource", registry.LocationResource, func(_ ptrace.Span, rs ptrace.ResourceSpans, _ ptrace.ScopeSpans) pcommon.Map {
		return rs.Resource().Attributes()
	}),
	traceSite("scope", registry.LocationScope, func(_ ptrace.Span, _ ptrace.ResourceSpans, ss ptrace.ScopeSpans) pcommon.Map {
		return ss.Scope().Attributes()
	}),
	traceSite("span", registry.LocationSpan, func(s ptrace.Span, _ ptrace.ResourceSpans, _ ptrace.ScopeSpans) pcommon.Map {
		return s.Attributes()
	}),
	traceSite("span_event", registry.LocationSpanEvent, func(s ptrace.Span, _ ptrace.ResourceSpans, _ ptrace.ScopeSpans) pcommon.Map {
		return s.Events().AppendEmpty().Attributes()
	}),
	traceSite("span_link", registry.LocationSpanLink, func(s ptrace.Span, _ ptrace.ResourceSpans, _ ptrace.ScopeSpans) pcommon.Map {
		return s.Links().AppendEmpty().Attributes()
	}),
	metricSite("resource", nil),
	metricSite("scope", nil),
	metricSite("gauge", func(m pmetric.Metric) pcommon.Map {
		return m.SetEmptyGauge().DataPoints().AppendEmpty().Attributes()
	}),
	metricSite("sum", func(m pmetric.Metric) pcommon.Map {
		return m.SetEmptySum().DataPoints().AppendEmpty().Attributes()
	}),
	metricSite("histogram", func(m pmetric.Metric) pcommon.Map {
		return m.SetEmptyHistogram().DataPoints().AppendEmpty().Attributes()
	}),
	metricSite("exponential_histogram", func(m pmetric.Metric) pcommon.Map {
		return m.SetEmptyExponentialHistogram().DataPoints().AppendEmpty().Attributes()
	}),
	metricSite("summary", func(m pmetric.Metric) pcommon.Map {
		return m.SetEmptySummary().DataPoints().AppendEmpty().Attributes()
	}),
	metricSite("sum_exemplar", func(m pmetric.Metric) pcommon.Map {
		return m.SetEmptySum().DataPoints().AppendEmpty().Exemplars().AppendEmpty().FilteredAttributes()
	}),
	metricSite("histogram_exemplar", func(m pmetric.Metric) pcommon.Map {
		return m.SetEmptyHistogram().DataPoints().AppendEmpty().Exemplars().AppendEmpty().FilteredAttributes()
	}),
	metricSite("exponential_histogram_exemplar", func(m pmetric.Metric) pcommon.Map {
		return m.SetEmptyExponentialHistogram().DataPoints().AppendEmpty().Exemplars().AppendEmpty().FilteredAttributes()
	}),
	logSite("resource", registry.LocationResource, func(_ plog.LogRecord, rl plog.ResourceLogs, _ plog.ScopeLogs) pcommon.Map {
		return rl.Resource().Attributes()
	}),
	logSite("scope", registry.LocationScope, func(_ plog.LogRecord, _ plog.ResourceLogs, sl plog.ScopeLogs) pcommon.Map {
		return sl.Scope().Attributes()
	}),
	logSite("log", registry.LocationLog, func(lr plog.LogRecord, _ plog.ResourceLogs, _ plog.ScopeLogs) pcommon.Map {
		return lr.Attributes()
	}),
}

// testEngine is an engine compiled against one registry, as a front-end
// holds it.
type testEngine struct {
	e  *Engine
	ix *registry.Index
}

// config is the engine's options and the registry's sources of one test.
// It starts from the processor's defaults (findings on).
type config struct {
	Options
	Registry registry.Sources
}

func newTestEngineCfg(tb testing.TB, c *config) testEngine {
	tb.Helper()
	ix, err := registry.Load(c.Registry)
	require.NoError(tb, err)
	return testEngine{e: New(c.Options), ix: ix}
}

// walkBatch runs one walk and returns a copy of the batch's tally.
func walkBatch(g testEngine, batch any) Batch {
	var w *Walker
	switch b := batch.(type) {
	case ptrace.Traces:
		w = g.e.Walker(g.ix, b.IsReadOnly())
		w.Traces(b)
	case pmetric.Metrics:
		w = g.e.Walker(g.ix, b.IsReadOnly())
		w.Metrics(b)
	case plog.Logs:
		w = g.e.Walker(g.ix, b.IsReadOnly())
		w.Logs(b)
	}
	c := *w.Batch()
	c.Services = append([]ServiceTally(nil), c.Services...)
	c.Keys, c.Findings, c.Signals = nil, nil, nil
	g.e.Release(w)
	return c
}

// allOutcomes sums a tally over locations, by outcome name, leaving out zeros.
func allOutcomes(c Batch) map[string]int64 {
	out := map[string]int64{}
	for l := range c.Attrs {
		for o, n := range outcomes(countsOf(&c), registry.Location(l)) { //nolint:gosec // l < NumLocations
			out[o] += n
		}
	}
	return out
}

// withConfig is the processor's default configuration changed by f.
func withConfig(f func(*config)) *config {
	c := &config{Options: defaultOptions(), Registry: registry.Sources{Embedded: true}}
	c.Findings = true
	if f != nil {
		f(c)
	}
	return c
}

// TestOutcomesEverySite runs every attribute outcome at every location of
// every signal.
func TestOutcomesEverySite(t *testing.T) {
	tests := []struct {
		name string
		cfg  func(*config)
		in   map[string]any
		want map[string]any
		outs map[string]int64
	}{
		{
			name: "conformant",
			in:   map[string]any{"server.address": "shop.example.com", "server.port": int64(443)},
			want: map[string]any{"server.address": "shop.example.com", "server.port": int64(443)},
			outs: map[string]int64{"conformant": 2},
		},
		{
			name: "template key",
			in:   map[string]any{"http.request.header.x-request-id": []any{"abc"}},
			want: map[string]any{"http.request.header.x-request-id": []any{"abc"}},
			outs: map[string]int64{"conformant": 1},
		},
		{
			name: "renamed",
			in:   map[string]any{"http.method": "GET", "url.scheme": "https"},
			want: map[string]any{"http.request.method": "GET", "url.scheme": "https"},
			outs: map[string]int64{"renamed": 1, "conformant": 1},
		},
		{
			name: "renamed keeps nested value",
			in:   map[string]any{"http.url": "https://x/y", "acme.nested": map[string]any{"a": []any{int64(1), "b"}}},
			want: map[string]any{"url.full": "https://x/y", "acme.nested": map[string]any{"a": []any{int64(1), "b"}}},
			outs: map[string]int64{"renamed": 1, "unknown": 1},
		},
		{
			name: "copied",
			cfg:  func(c *config) { c.Deprecated = DeprecatedCopy },
			in:   map[string]any{"http.method": "GET"},
			want: map[string]any{"http.method": "GET", "http.request.method": "GET"},
			outs: map[string]int64{"copied": 1},
		},
		{
			name: "per-name copy beside a global rename",
			cfg:  func(c *config) { c.DeprecatedNames = map[string]DeprecatedMode{"http.method": DeprecatedCopy} },
			in:   map[string]any{"http.method": "GET", "http.url": "https://x/y"},
			want: map[string]any{"http.method": "GET", "http.request.method": "GET", "url.full": "https://x/y"},
			outs: map[string]int64{"copied": 1, "renamed": 1},
		},
		{
			name: "per-name rename beside a global off",
			cfg: func(c *config) {
				c.Deprecated = DeprecatedOff
				c.DeprecatedNames = map[string]DeprecatedMode{"http.url": DeprecatedRename}
			},
			in:   map[string]any{"http.method": "GET", "http.url": "https://x/y"},
			want: map[string]any{"http.method": "GET", "url.full": "https://x/y"},
			outs: map[string]int64{"deprecated_kept": 1, "renamed": 1},
		},
		{
			name: "deprecated off",
			cfg:  func(c *config) { c.Deprecated = DeprecatedOff },
			in:   map[string]any{"http.method": "GET"},
			want: map[string]any{"http.method": "GET"},
			outs: map[string]int64{"deprecated_kept": 1},
		},
		{
			name: "deprecated without target",
			in:   map[string]any{"code.function": "main"},
			want: map[string]any{"code.function": "main"},
			outs: map[string]int64{"deprecated_kept": 1},
		},
		{
			name: "conflict keeps current value",
			in:   map[string]any{"http.method": "GET", "http.request.method": "POST"},
			want: map[string]any{"http.request.method": "POST"},
			outs: map[string]int64{"conflict": 1, "conformant": 1},
		},
		{
			name: "conflict in copy mode keeps both",
			cfg:  func(c *config) { c.Deprecated = DeprecatedCopy },
			in:   map[string]any{"http.method": "GET", "http.request.method": "POST"},
			want: map[string]any{"http.method": "GET", "http.request.method": "POST"},
			outs: map[string]int64{"conflict": 1, "conformant": 1},
		},
		{
			name: "equal values deduplicate",
			in:   map[string]any{"http.method": "GET", "http.request.method": "GET"},
			want: map[string]any{"http.request.method": "GET"},
			outs: map[string]int64{"renamed": 1, "conformant": 1},
		},
		{
			name: "unknown kept",
			in:   map[string]any{"acme.team": "cart"},
			want: map[string]any{"acme.team": "cart"},
			outs: map[string]int64{"unknown": 1},
		},
		{
			name: "unknown dropped",
			cfg:  func(c *config) { c.Unknown = UnknownDrop },
			in:   map[string]any{"acme.team": "cart", "server.port": int64(1)},
			want: map[string]any{"server.port": int64(1)},
			outs: map[string]int64{"dropped": 1, "conformant": 1},
		},
		{
			name: "allowed by key and prefix",
			cfg: func(c *config) {
				c.Unknown = UnknownDrop
				c.AllowKeys = []string{"team"}
				c.AllowPrefixes = []string{"acme."}
			},
			in:   map[string]any{"acme.team": "cart", "team": "x", "acmex": "y"},
			want: map[string]any{"acme.team": "cart", "team": "x"},
			outs: map[string]int64{"allowed": 2, "dropped": 1},
		},
		{
			name: "type mismatch kept",
			in:   map[string]any{"server.port": "443"},
			want: map[string]any{"server.port": "443"},
			outs: map[string]int64{"type_mismatch": 1},
		},
		{
			name: "type mismatch of a template key",
			in:   map[string]any{"http.request.header.x-request-id": "abc"},
			want: map[string]any{"http.request.header.x-request-id": "abc"},
			outs: map[string]int64{"type_mismatch": 1},
		},
		{
			name: "type mismatch dropped",
			cfg:  func(c *config) { c.TypeMismatch = TypeMismatchDrop },
			in:   map[string]any{"server.port": "443"},
			want: map[string]any{},
			outs: map[string]int64{"dropped": 1},
		},
		{
			name: "type mismatch coerced where lossless",
			cfg:  func(c *config) { c.TypeMismatch = TypeMismatchCoerce },
			in:   map[string]any{"server.port": "443", "network.peer.port": "0443", "url.path": int64(7)},
			want: map[string]any{"server.port": int64(443), "network.peer.port": "0443", "url.path": "7"},
			outs: map[string]int64{"coerced": 2, "type_mismatch": 1},
		},
		{
			name: "enum violation kept",
			cfg:  func(c *config) { c.ClosedEnums = []string{"http.request.method"} },
			in:   map[string]any{"http.request.method": "FETCH"},
			want: map[string]any{"http.request.method": "FETCH"},
			outs: map[string]int64{"enum_violation": 1},
		},
		{
			name: "enum violation dropped",
			cfg: func(c *config) {
				c.EnumViolation = EnumViolationDrop
				c.ClosedEnums = []string{"http.request.method"}
			},
			in:   map[string]any{"http.request.method": "FETCH"},
			want: map[string]any{},
			outs: map[string]int64{"dropped": 1},
		},
		{
			name: "open enum never dropped",
			cfg:  func(c *config) { c.EnumViolation = EnumViolationDrop },
			in:   map[string]any{"http.request.method": "FETCH", "db.system.name": "acme_db"},
			want: map[string]any{"http.request.method": "FETCH", "db.system.name": "acme_db"},
			outs: map[string]int64{"undefined_enum_variant": 2},
		},
		{
			name: "deprecated enum member renamed in place",
			in:   map[string]any{"cloud.platform": "azure_vm", "cpu.mode": "kernel", "os.type": "linux"},
			want: map[string]any{"cloud.platform": "azure.vm", "cpu.mode": "system", "os.type": "linux"},
			outs: map[string]int64{"value_renamed": 2, "conformant": 1},
		},
		{
			name: "org registry keys",
			cfg:  orgRegistry,
			in:   map[string]any{"shop.tenant.id": "t-1", "shop.customer": "t-2", "shop.tier": "bronze", "shop.label.colour": "red"},
			want: map[string]any{"shop.tenant.id": "t-1", "shop.tier": "bronze", "shop.label.colour": "red"},
			outs: map[string]int64{"conformant": 2, "conflict": 1, "undefined_enum_variant": 1},
		},
		{
			name: "empty map",
			in:   map[string]any{},
			want: map[string]any{},
			outs: map[string]int64{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := withConfig(tt.cfg)
			g := newTestEngineCfg(t, cfg)
			for _, st := range allSites {
				t.Run(st.name, func(t *testing.T) {
					batch, m := st.build()
					require.NoError(t, m.FromRaw(tt.in))
					c := walkBatch(g, batch)
					assert.Equal(t, tt.want, m.AsRaw())
					assert.Equal(t, tt.outs, allOutcomes(c))
					var atLoc int64
					for _, n := range c.Attrs[st.loc] {
						atLoc += n
					}
					assert.Equal(t, int64(len(tt.in)), atLoc, "every attribute counted once, at its location")
				})
			}
		})
	}
}

// orgRegistry adds the processor's test organisation registry and rules
// (one copy of the test data, shared with the processor's adapter tests).
func orgRegistry(c *config) {
	c.Registry.OrgRegistries = []string{"../processor/governanceprocessor/testdata/org"}
	c.Registry.RulesFiles = []string{"../processor/governanceprocessor/testdata/rules.yaml"}
}

// TestContextualRenames covers renames that depend on span kind or metric.
func TestContextualRenames(t *testing.T) {
	tests := []struct {
		name string
		kind ptrace.SpanKind
		in   map[string]any
		want map[string]any
		outs map[string]int64
	}{
		{
			name: "net.peer.name on a client span",
			kind: ptrace.SpanKindClient,
			in:   map[string]any{"net.peer.name": "db.internal"},
			want: map[string]any{"server.address": "db.internal"},
			outs: map[string]int64{"renamed": 1},
		},
		{
			name: "net.peer.name on a server span",
			kind: ptrace.SpanKindServer,
			in:   map[string]any{"net.peer.name": "10.0.0.1"},
			want: map[string]any{"client.address": "10.0.0.1"},
			outs: map[string]int64{"renamed": 1},
		},
		{
			name: "net.peer.name on an internal span has no target",
			kind: ptrace.SpanKindInternal,
			in:   map[string]any{"net.peer.name": "x"},
			want: map[string]any{"net.peer.name": "x"},
			outs: map[string]int64{"deprecated_kept": 1},
		},
		{
			name: "many-to-one with different values: first wins, conflict",
			kind: ptrace.SpanKindClient,
			in:   map[string]any{"net.peer.name": "a", "net.host.name": "b"},
			outs: map[string]int64{"renamed": 1, "conflict": 1},
		},
		{
			name: "many-to-one with equal values deduplicates",
			kind: ptrace.SpanKindClient,
			in:   map[string]any{"net.peer.name": "a", "net.host.name": "a"},
			want: map[string]any{"server.address": "a"},
			outs: map[string]int64{"renamed": 2},
		},
		{
			name: "org rule renames a placeholder on client spans",
			kind: ptrace.SpanKindClient,
			in:   map[string]any{"shop.peer": "cart"},
			want: map[string]any{"server.address": "cart"},
			outs: map[string]int64{"renamed": 1},
		},
		{
			name: "org rule placeholder is unknown elsewhere",
			kind: ptrace.SpanKindServer,
			in:   map[string]any{"shop.peer": "cart"},
			want: map[string]any{"shop.peer": "cart"},
			outs: map[string]int64{"unknown": 1},
		},
	}
	g := newTestEngineCfg(t, withConfig(orgRegistry))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			td := ptrace.NewTraces()
			s := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
			s.SetKind(tt.kind)
			require.NoError(t, s.Attributes().FromRaw(tt.in))
			c := walkBatch(g, td)
			if tt.want != nil {
				assert.Equal(t, tt.want, s.Attributes().AsRaw())
			} else {
				assert.Equal(t, 1, s.Attributes().Len())
				v, ok := s.Attributes().Get("server.address")
				require.True(t, ok)
				assert.Contains(t, []string{"a", "b"}, v.Str())
			}
			assert.Equal(t, tt.outs, allOutcomes(c))
		})
	}
}

// TestMetricRenames covers scoped data-point renames and metric-name renames,
// which happen only when the data fits the registry's target.
func TestMetricRenames(t *testing.T) {
	type metricSpec struct {
		name, unit string
		build      func(pmetric.Metric) pmetric.NumberDataPointSlice
	}
	upDown := func(m pmetric.Metric) pmetric.NumberDataPointSlice {
		s := m.SetEmptySum()
		s.SetIsMonotonic(false)
		return s.DataPoints()
	}
	counter := func(m pmetric.Metric) pmetric.NumberDataPointSlice {
		s := m.SetEmptySum()
		s.SetIsMonotonic(true)
		return s.DataPoints()
	}
	gauge := func(m pmetric.Metric) pmetric.NumberDataPointSlice { return m.SetEmptyGauge().DataPoints() }
	tests := []struct {
		name     string
		cfg      func(*config)
		metric   metricSpec
		in       map[string]any
		wantName string
		want     map[string]any
		attrOuts map[string]int64
		nameOuts map[string]int64
	}{
		{
			name:     "scoped attribute and metric rename",
			metric:   metricSpec{"db.client.connections.usage", "{connection}", upDown},
			in:       map[string]any{"state": "idle", "pool.name": "main"},
			wantName: "db.client.connection.count",
			want:     map[string]any{"db.client.connection.state": "idle", "db.client.connection.pool.name": "main"},
			attrOuts: map[string]int64{"renamed": 2},
			nameOuts: map[string]int64{"renamed": 1},
		},
		{
			name:     "scoped attribute outside its metric",
			metric:   metricSpec{"acme.queue.depth", "{item}", gauge},
			in:       map[string]any{"state": "idle"},
			wantName: "acme.queue.depth",
			want:     map[string]any{"state": "idle"},
			attrOuts: map[string]int64{"deprecated_kept": 1},
			nameOuts: map[string]int64{"unknown": 1},
		},
		{
			name:     "metric rename refused: monotonic sum is no updowncounter",
			metric:   metricSpec{"db.client.connections.usage", "{connection}", counter},
			in:       map[string]any{"state": "idle"},
			wantName: "db.client.connections.usage",
			want:     map[string]any{"db.client.connection.state": "idle"},
			attrOuts: map[string]int64{"renamed": 1},
			nameOuts: map[string]int64{"incompatible": 1},
		},
		{
			name:     "metric rename refused: unit differs",
			metric:   metricSpec{"db.client.connections.usage", "1", upDown},
			in:       map[string]any{},
			wantName: "db.client.connections.usage",
			want:     map[string]any{},
			nameOuts: map[string]int64{"incompatible": 1},
		},
		{
			name:     "org metric rename",
			cfg:      orgRegistry,
			metric:   metricSpec{"shop.cart.item_count", "{item}", counter},
			in:       map[string]any{"shop.customer": "t-1"},
			wantName: "shop.cart.items",
			want:     map[string]any{"shop.tenant.id": "t-1"},
			attrOuts: map[string]int64{"renamed": 1},
			nameOuts: map[string]int64{"renamed": 1},
		},
		{
			name:     "deprecated off counts only",
			cfg:      func(c *config) { c.Deprecated = DeprecatedOff },
			metric:   metricSpec{"db.client.connections.usage", "{connection}", upDown},
			in:       map[string]any{},
			wantName: "db.client.connections.usage",
			want:     map[string]any{},
			nameOuts: map[string]int64{"deprecated_kept": 1},
		},
		{
			name:     "conformant metric",
			metric:   metricSpec{"db.client.connection.count", "{connection}", upDown},
			in:       map[string]any{"db.client.connection.state": "used"},
			wantName: "db.client.connection.count",
			want:     map[string]any{"db.client.connection.state": "used"},
			attrOuts: map[string]int64{"conformant": 1},
			nameOuts: map[string]int64{"conformant": 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newTestEngineCfg(t, withConfig(tt.cfg))
			md := pmetric.NewMetrics()
			m := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
			m.SetName(tt.metric.name)
			m.SetUnit(tt.metric.unit)
			dp := tt.metric.build(m).AppendEmpty()
			dp.SetIntValue(3)
			require.NoError(t, dp.Attributes().FromRaw(tt.in))
			c := walkBatch(g, md)
			assert.Equal(t, tt.wantName, m.Name())
			assert.Equal(t, tt.want, dp.Attributes().AsRaw())
			if tt.attrOuts == nil {
				tt.attrOuts = map[string]int64{}
			}
			assert.Equal(t, tt.attrOuts, allOutcomes(c))
			names := map[string]int64{}
			for o, n := range c.Names {
				if n > 0 {
					names[vocab.Outcome(o).String()] = n
				}
			}
			assert.Equal(t, tt.nameOuts, names)
		})
	}
}

// TestMetricCopy keeps the deprecated metric and adds a copy under the
// current name: with deprecated copy (its data point attribute state is
// copied too), and with the metric alone listed as copy in DeprecatedNames
// under the global off mode (state, not listed, is kept as is).
func TestMetricCopy(t *testing.T) {
	tests := []struct {
		name  string
		cfg   func(*config)
		attrs map[string]any // of both metrics' data point
	}{
		{
			name:  "deprecated copy",
			cfg:   func(c *config) { c.Deprecated = DeprecatedCopy },
			attrs: map[string]any{"state": "idle", "db.client.connection.state": "idle"},
		},
		{
			name: "per-name copy under off",
			cfg: func(c *config) {
				c.Deprecated = DeprecatedOff
				c.DeprecatedNames = map[string]DeprecatedMode{"db.client.connections.usage": DeprecatedCopy}
			},
			attrs: map[string]any{"state": "idle"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newTestEngineCfg(t, withConfig(tt.cfg))
			md := pmetric.NewMetrics()
			ms := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics()
			m := ms.AppendEmpty()
			m.SetName("db.client.connections.usage")
			m.SetUnit("{connection}")
			dp := m.SetEmptySum().DataPoints().AppendEmpty()
			dp.SetIntValue(4)
			dp.Attributes().PutStr("state", "idle")
			c := walkBatch(g, md)
			require.Equal(t, 2, ms.Len())
			assert.Equal(t, "db.client.connections.usage", ms.At(0).Name())
			assert.Equal(t, "db.client.connection.count", ms.At(1).Name())
			assert.Equal(t, tt.attrs, ms.At(0).Sum().DataPoints().At(0).Attributes().AsRaw())
			assert.Equal(t, tt.attrs, ms.At(1).Sum().DataPoints().At(0).Attributes().AsRaw())
			assert.Equal(t, int64(1), c.Names[vocab.OutcomeCopied])
		})
	}
}

// TestIncludeResources governs only the listed services.
func TestIncludeResources(t *testing.T) {
	g := newTestEngineCfg(t, withConfig(func(c *config) {
		c.IncludeResources = map[string][]string{"service.name": {"checkout"}}
	}))
	td := ptrace.NewTraces()
	for _, svc := range []string{"checkout", "payment"} {
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", svc)
		rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty().Attributes().PutStr("http.method", "GET")
	}
	c := walkBatch(g, td)
	spanAttrs := func(i int) map[string]any {
		return td.ResourceSpans().At(i).ScopeSpans().At(0).Spans().At(0).Attributes().AsRaw()
	}
	assert.Equal(t, map[string]any{"http.request.method": "GET"}, spanAttrs(0))
	assert.Equal(t, map[string]any{"http.method": "GET"}, spanAttrs(1))
	assert.Equal(t, map[string]int64{"conformant": 1, "renamed": 1}, allOutcomes(c))
}

// TestReadOnlyData observes without mutating, even when configured to mutate.
func TestReadOnlyData(t *testing.T) {
	g := newTestEngineCfg(t, withConfig(func(c *config) {
		c.Unknown = UnknownDrop
		c.TypeMismatch = TypeMismatchCoerce
	}))
	td := enginetest.GenTraces(3, enginetest.Mix{Deprecated: 2, Unknown: 2})
	td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes().PutStr("server.port", "80")
	before := ptrace.NewTraces()
	td.CopyTo(before)
	td.MarkReadOnly()
	before.MarkReadOnly()
	c := walkBatch(g, td)
	assert.Equal(t, before, td)
	outs := allOutcomes(c)
	assert.Equal(t, int64(6), outs["deprecated_kept"])
	assert.Equal(t, int64(6), outs["unknown"])
	assert.Equal(t, int64(1), outs["type_mismatch"])
}

// TestKeyCachePositions varies the key at one map position from item to
// item: the positional cache must never answer for a different key.
func TestKeyCachePositions(t *testing.T) {
	g := newTestEngineCfg(t, withConfig(nil))
	td := ptrace.NewTraces()
	spans := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	keys := []string{"http.method", "acme.x", "server.address", "", "http.methox", "http.method", "server.port"}
	for _, k := range keys {
		spans.AppendEmpty().Attributes().PutStr(k, "v")
	}
	c := walkBatch(g, td)
	got := []string{}
	for _, s := range spans.All() {
		for k := range s.Attributes().All() {
			got = append(got, k)
		}
	}
	assert.Equal(t, []string{"http.request.method", "acme.x", "server.address", "", "http.methox", "http.request.method", "server.port"}, got)
	assert.Equal(t, map[string]int64{"renamed": 2, "unknown": 3, "conformant": 1, "type_mismatch": 1}, allOutcomes(c))
}

// TestWalkerReuse checks that pooled walkers start clean.
func TestWalkerReuse(t *testing.T) {
	g := newTestEngineCfg(t, withConfig(nil))
	for range 3 {
		c := walkBatch(g, enginetest.GenTraces(2, enginetest.MixDeprecated))
		assert.Equal(t, map[string]int64{"conformant": 2*9 + 6, "renamed": 2 * 4}, allOutcomes(c))
	}
}

// TestRegistryKeysOncePerIndex: a registry key is listed in Batch.Keys by
// the first batch that meets it, once per engine and Index; a key met for
// the first time later is listed then; another Index (a reload) lists
// them again; a walker that started on the old Index does not mark the
// new one's. Unknown and deprecated keys are listed in every batch.
func TestRegistryKeysOncePerIndex(t *testing.T) {
	opts := defaultOptions()
	opts.Detail = true
	e, ix1 := newTestEngine(t, opts)
	ix2, err := registry.Load(registry.Sources{Embedded: true})
	require.NoError(t, err)
	require.NotSame(t, ix1, ix2)
	batch := func(keys ...string) ptrace.Traces {
		td := ptrace.NewTraces()
		s := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		for _, k := range keys {
			s.Attributes().PutStr(k, "v")
		}
		return td
	}
	walk := func(ix *registry.Index, td ptrace.Traces) (other []KeyTally, reg []string) {
		w := e.Walker(ix, false)
		defer e.Release(w)
		w.Traces(td)
		return splitRegistryKeys(slices.Clone(w.Batch().Keys))
	}
	other, reg := walk(ix1, batch("server.address", "http.method", "acme.x"))
	assert.ElementsMatch(t, []string{"server.address", "http.method"}, reg)
	assert.Len(t, other, 2, "http.method deprecated, acme.x unknown")
	other, reg = walk(ix1, batch("server.address", "http.method", "acme.x"))
	assert.Empty(t, reg, "listed by the first batch")
	assert.Len(t, other, 2, "listed in every batch")
	_, reg = walk(ix1, batch("server.address", "server.port"))
	assert.Equal(t, []string{"server.port"}, reg)

	// A walker on the old Index, still walking when another Index comes.
	old := e.Walker(ix1, false)
	_, reg = walk(ix2, batch("server.address", "url.path"))
	assert.ElementsMatch(t, []string{"server.address", "url.path"}, reg, "a reload lists them again")
	old.Traces(batch("client.address"))
	_, reg = splitRegistryKeys(old.Batch().Keys)
	assert.Equal(t, []string{"client.address"}, reg)
	e.Release(old)
	_, reg = walk(ix2, batch("client.address", "url.path"))
	assert.Equal(t, []string{"client.address"}, reg, "the old Index's walker marked only its own set")
}
