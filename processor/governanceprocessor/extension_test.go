package governanceprocessor

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/conformance"
	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/extension/registryextension/registryapi"
	"github.com/otelgov/otelcol-governance/findingrules"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// fakeRegistry is a registryapi.Registry whose snapshot a test swaps, and
// that keeps a copy of every reported batch.
type fakeRegistry struct {
	component.StartFunc
	component.ShutdownFunc
	cur     atomic.Pointer[registryapi.Snapshot]
	batches []registryapi.Batch
}

func (f *fakeRegistry) Current() *registryapi.Snapshot { return f.cur.Load() }

func (f *fakeRegistry) Report(b *registryapi.Batch) {
	c := registryapi.Batch{Generation: b.Generation}
	c.Services = append(c.Services, b.Services...)
	c.Keys = append(c.Keys, b.Keys...)
	f.batches = append(f.batches, c)
}

// notARegistry is an extension of another kind.
type notARegistry struct {
	component.StartFunc
	component.ShutdownFunc
}

type fakeHost struct {
	exts map[component.ID]component.Component
}

func (h fakeHost) GetExtensions() map[component.ID]component.Component { return h.exts }

var registryExtID = component.MustNewID("governance_registry")

func extensionConfig() *config {
	cfg := defaultTestConfig()
	id := registryExtID
	cfg.Registry.Extension = &id
	return cfg
}

func TestExtensionLookupErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		host component.Host
		want error
	}{
		{name: "not_found", host: fakeHost{}, want: registryapi.ErrNotFound},
		{
			name: "wrong_type",
			host: fakeHost{exts: map[component.ID]component.Component{registryExtID: notARegistry{}}},
			want: registryapi.ErrWrongType,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, err := newGovernor(nopTelemetry(), component.MustNewID("governance"), extensionConfig(), nil, nil, vocab.KindTraces, nil)
			require.NoError(t, err)
			err = g.start(context.Background(), tt.host)
			require.ErrorIs(t, err, tt.want)
			assert.Contains(t, err.Error(), "registry::extension")
			require.NoError(t, g.shutdown(context.Background()))
		})
	}
}

func TestExtensionConfigExcludesOwnSources(t *testing.T) {
	cfg := extensionConfig()
	require.NoError(t, cfg.Registry.Validate())
	cfg.Registry.OrgRegistries = []string{"testdata/org"}
	err := cfg.Registry.Validate()
	require.ErrorIs(t, err, errExtensionSources)
	assert.Contains(t, err.Error(), "extension:")
}

// TestExtensionSwapAndReport: batches use the snapshot in force when they
// start, a swap takes effect on the next batch, and each batch's tally
// reaches the report.
func TestExtensionSwapAndReport(t *testing.T) {
	def, err := registry.Default()
	require.NoError(t, err)
	org, err := registry.Load(registry.Sources{Embedded: true, OrgRegistries: []string{"testdata/org"}})
	require.NoError(t, err)

	ext := &fakeRegistry{}
	ext.cur.Store(&registryapi.Snapshot{Index: def, Generation: 1, LoadedAt: time.Now()})
	host := fakeHost{exts: map[component.ID]component.Component{registryExtID: ext}}
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	g, err := newGovernor(tel.NewTelemetrySettings(), component.MustNewID("governance"), extensionConfig(), nil, nil, vocab.KindTraces, nil)
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, g.start(ctx, host))
	defer func() { require.NoError(t, g.shutdown(ctx)) }()

	batch := func() ptrace.Traces {
		td := ptrace.NewTraces()
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", "checkout")
		span := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		span.Attributes().PutStr("shop.customer", "t-1")
		span.Attributes().PutStr("http.method", "GET")
		return td
	}

	out, err := g.processTraces(ctx, batch())
	require.NoError(t, err)
	attrs := out.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes().AsRaw()
	assert.Equal(t, map[string]any{"shop.customer": "t-1", "http.request.method": "GET"}, attrs)

	ext.cur.Store(&registryapi.Snapshot{Index: org, Generation: 2, LoadedAt: time.Now()})
	out, err = g.processTraces(ctx, batch())
	require.NoError(t, err)
	attrs = out.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes().AsRaw()
	assert.Equal(t, map[string]any{"shop.tenant.id": "t-1", "http.request.method": "GET"}, attrs)

	require.Len(t, ext.batches, 2)
	first, second := ext.batches[0], ext.batches[1]
	assert.Equal(t, int64(1), first.Generation)
	assert.Equal(t, int64(2), second.Generation)
	require.Len(t, first.Services, 1)
	assert.Equal(t, "checkout", first.Services[0].Service)
	// service.name conformant; http.method renamed; shop.customer unknown.
	assert.Equal(t, int64(1), first.Services[0].Outcomes[vocab.OutcomeConformant])
	assert.Equal(t, int64(1), first.Services[0].Outcomes[vocab.OutcomeRenamed])
	assert.Equal(t, int64(1), first.Services[0].Outcomes[vocab.OutcomeUnknown])
	assert.ElementsMatch(t, []registryapi.KeyTally{
		{Service: 0, Key: "service.name", Kind: engine.KeyRegistry, Count: 1},
		{Service: 0, Key: "http.method", Kind: engine.KeyRegistry, Count: 1},
		{Service: 0, Key: "http.method", Kind: engine.KeyDeprecated, Count: 1},
		{Service: 0, Key: "shop.customer", Kind: engine.KeyUnknown, Count: 1},
	}, first.Keys)
	assert.Equal(t, int64(2), second.Services[0].Outcomes[vocab.OutcomeRenamed])
	assert.Zero(t, second.Services[0].Outcomes[vocab.OutcomeUnknown])
}

// countingRegistry is a registryapi.Registry whose Report only sums, so that
// allocations measured around a batch are the processor's.
type countingRegistry struct {
	component.StartFunc
	component.ShutdownFunc
	snap  *registryapi.Snapshot
	attrs int64
}

func (c *countingRegistry) Current() *registryapi.Snapshot { return c.snap }

func (c *countingRegistry) Report(b *registryapi.Batch) {
	for i := range b.Services {
		for _, n := range b.Services[i].Outcomes {
			c.attrs += n
		}
	}
}

// TestZeroAllocsWithExtension: taking the registry from an extension and
// feeding its report allocates nothing once the walker's tally has grown.
func TestZeroAllocsWithExtension(t *testing.T) {
	skipUnderRace(t)
	def, err := registry.Default()
	require.NoError(t, err)
	ext := &countingRegistry{snap: &registryapi.Snapshot{Index: def, Generation: 1}}
	host := fakeHost{exts: map[component.ID]component.Component{registryExtID: ext}}
	g, err := newGovernor(nopTelemetry(), component.MustNewID("governance"), extensionConfig(), nil, nil, vocab.KindTraces, nil)
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, g.start(ctx, host))
	defer func() { require.NoError(t, g.shutdown(ctx)) }()

	for _, mix := range []attrMix{mixConformant, mixUnknown, mixDeprecated} {
		batches := make([]ptrace.Traces, allocRuns+2)
		for i := range batches {
			batches[i] = genTraces(100, mix)
		}
		_, _ = g.processTraces(ctx, batches[0]) // grows the tally's maps and slices
		i := 1
		allocs := testing.AllocsPerRun(allocRuns, func() {
			_, _ = g.processTraces(ctx, batches[i])
			i++
		})
		assert.Zerof(t, allocs, "mix %+v", mix)
	}
	assert.Positive(t, ext.attrs)
}

func newReportRegistry(t *testing.T, maxServices int) (*reportRegistry, fakeHost) {
	t.Helper()
	ix, err := registry.Default()
	require.NoError(t, err)
	r := &reportRegistry{
		snap:   &registryapi.Snapshot{Index: ix, Generation: 1, LoadedAt: time.Now()},
		report: conformance.New(conformance.Limits{MaxServices: maxServices, TopKeys: 5}, time.Now()),
	}
	return r, fakeHost{exts: map[component.ID]component.Component{registryExtID: r}}
}

// servicesTraces is one span with a deprecated key (http.method) per
// service, in that order.
func servicesTraces(services ...string) ptrace.Traces {
	td := ptrace.NewTraces()
	for _, s := range services {
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", s)
		sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		sp.SetName("GET /")
		sp.Attributes().PutStr("http.method", "GET")
	}
	return td
}

func (r *reportRegistry) document() conformance.Document {
	return r.report.Document(r.snap.Index, 1, "", time.Now())
}

func reportServices(d conformance.Document) map[string]int64 {
	out := map[string]int64{}
	for _, s := range d.Services {
		var n int64
		for _, c := range s.Attributes {
			n += c
		}
		out[s.Service] = n
	}
	return out
}

// TestServiceLimitAndMaxServices: the processor's service identity is the
// one the report files a resource under. The processor's service_limit
// applies first (a service it folds into _other is under _other in the
// report too), then the report's max_services, across every processor that
// feeds it.
func TestServiceLimitAndMaxServices(t *testing.T) {
	five := []string{"a", "b", "c", "d", "e"}
	for _, tt := range []struct {
		name         string
		serviceLimit int
		maxServices  int
		want         map[string]int64 // attributes per report entry (service.name + http.method)
		overflow     int64            // report's services_overflow: services filed under _other
	}{
		// The processor's _other slot reaches the report as one tally, and
		// services_overflow still counts the three services it folded: the
		// same figure whichever limit folds them.
		{"service_limit_first", 2, 10, map[string]int64{"a": 2, "b": 2, "_other": 6}, 3},
		{"max_services_first", 10, 2, map[string]int64{"a": 2, "b": 2, "_other": 6}, 3},
		{"both_roomy", 10, 10, map[string]int64{"a": 2, "b": 2, "c": 2, "d": 2, "e": 2}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ext, host := newReportRegistry(t, tt.maxServices)
			cfg := extensionConfig()
			cfg.ServiceLimit = tt.serviceLimit
			g, err := newGovernor(nopTelemetry(), component.MustNewID("governance"), cfg, nil, nil, vocab.KindTraces, nil)
			require.NoError(t, err)
			ctx := context.Background()
			require.NoError(t, g.start(ctx, host))
			_, err = g.processTraces(ctx, servicesTraces(five...))
			require.NoError(t, err)
			doc := ext.document()
			assert.Equal(t, tt.want, reportServices(doc))
			assert.Equal(t, tt.overflow, doc.Totals.ServicesOverflow)
			require.NoError(t, g.shutdown(ctx))
		})
	}
}

// TestSharedReportLevels: two processors with different level_overrides
// feed one report. Each finding is counted at the level its processor
// gave it: the report splits the count by level, its level is the most
// severe, and the totals count each level as reported.
func TestSharedReportLevels(t *testing.T) {
	ext, host := newReportRegistry(t, 10)
	ctx := context.Background()
	var gs []*governor
	for i, overrides := range []map[string]string{nil, {"deprecated": "information"}} {
		cfg := extensionConfig()
		cfg.Findings.LevelOverrides = overrides
		require.NoError(t, cfg.Findings.Validate())
		g, err := newGovernor(nopTelemetry(), component.MustNewIDWithName("governance", string(rune('a'+i))), cfg, nil, nil, vocab.KindTraces, nil)
		require.NoError(t, err)
		require.NoError(t, g.start(ctx, host))
		gs = append(gs, g)
	}
	_, err := gs[0].processTraces(ctx, servicesTraces("checkout"))
	require.NoError(t, err)
	_, err = gs[1].processTraces(ctx, servicesTraces("checkout", "checkout"))
	require.NoError(t, err)

	doc := ext.document()
	require.Len(t, doc.Services, 1)
	dep := doc.Services[0].Findings["deprecated"]
	assert.Equal(t, int64(3), dep.Count)
	assert.Equal(t, map[string]int64{"violation": 1, "information": 2}, dep.Levels)
	assert.Equal(t, "violation", dep.Level, "the most severe level counted")
	assert.Equal(t, int64(3), doc.Totals.AdviceTypeCounts["deprecated"])
	assert.GreaterOrEqual(t, doc.Totals.AdviceLevelCounts["information"], int64(2))
	for _, g := range gs {
		require.NoError(t, g.shutdown(ctx))
	}
}

// TestReportFindingRules: the /conformance report holds what the
// processor's finding rules leave: a scoped finding_filters entry drops
// not_stable on the http.method attribute samples, and a scoped override
// counts deprecated at information on spans named "GET /".
func TestReportFindingRules(t *testing.T) {
	ctx := context.Background()
	// Without rules: not_stable and deprecated (a violation) on http.method.
	baseExt, baseHost := newReportRegistry(t, 10)
	base, err := newGovernor(nopTelemetry(), component.MustNewID("governance"), extensionConfig(), nil, nil, vocab.KindTraces, nil)
	require.NoError(t, err)
	require.NoError(t, base.start(ctx, baseHost))
	_, err = base.processTraces(ctx, servicesTraces("checkout", "checkout"))
	require.NoError(t, err)
	require.NoError(t, base.shutdown(ctx))
	bdoc := baseExt.document()
	require.Len(t, bdoc.Services, 1)
	require.Equal(t, int64(2), bdoc.Services[0].Findings["not_stable"].Count)
	require.Equal(t, "violation", bdoc.Services[0].Findings["deprecated"].Level)

	ext, host := newReportRegistry(t, 10)
	cfg := extensionConfig()
	cfg.Findings.FindingFilters = []findingrules.Filter{{Exclude: []string{"not_stable"}, SampleNames: []string{"http.method"}}}
	cfg.Findings.FindingLevelOverrides = []findingrules.LevelOverride{{IDs: []string{"deprecated"}, Level: "information", SignalType: "span", SampleNames: []string{"http.*"}}}
	require.NoError(t, cfg.Findings.Validate())
	g, err := newGovernor(nopTelemetry(), component.MustNewID("governance"), cfg, nil, nil, vocab.KindTraces, nil)
	require.NoError(t, err)
	require.NoError(t, g.start(ctx, host))
	t.Cleanup(func() { require.NoError(t, g.shutdown(ctx)) })
	_, err = g.processTraces(ctx, servicesTraces("checkout", "checkout"))
	require.NoError(t, err)

	doc := ext.document()
	require.Len(t, doc.Services, 1)
	fs := doc.Services[0].Findings
	assert.NotContains(t, fs, "not_stable", "filtered")
	assert.Zero(t, doc.Totals.AdviceTypeCounts["not_stable"])
	dep := fs["deprecated"]
	assert.Equal(t, int64(2), dep.Count)
	assert.Equal(t, map[string]int64{"information": 2}, dep.Levels)
	assert.Equal(t, "information", dep.Level)
}
