package registry

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lookupCases are the hot-path cases: an exact hit, a miss, a template
// instance and a deprecated key.
var lookupCases = []struct {
	name, key string
}{
	{"hit", "http.request.method"},
	{"miss", "acme.cart.size"},
	{"template", "http.request.header.content-type"},
	{"deprecated", "net.peer.name"},
	{"miss_long", "com.example.some.really.long.custom.attribute.name"},
}

func TestLookupDoesNotAllocate(t *testing.T) {
	ix, err := Default()
	require.NoError(t, err)
	ctx := Context{Location: LocationDataPoint, MetricName: "system.cpu.time"}
	for _, tc := range lookupCases {
		allocs := testing.AllocsPerRun(1000, func() {
			if a := ix.Lookup(tc.key); a != nil {
				_ = a.Target(ctx)
				_ = a.AllowsString("GET")
				_ = a.AllowsInt(3)
			}
		})
		assert.Zero(t, allocs, tc.name)
	}
	st := ix.Lookup("state")
	allocs := testing.AllocsPerRun(1000, func() { _ = st.Target(ctx) })
	assert.Zero(t, allocs)
}

// TestConcurrentUse reads one index from many goroutines (run with -race).
func TestConcurrentUse(t *testing.T) {
	ix, err := Default()
	require.NoError(t, err)
	done := make(chan struct{})
	for range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 1000 {
				for _, tc := range lookupCases {
					if a := ix.Lookup(tc.key); a != nil {
						_ = a.Target(Context{Location: LocationSpan, SpanKind: SpanKindClient})
					}
				}
				_ = ix.Sources("server.address")
				_ = ix.Metric("http.server.duration")
			}
		}()
	}
	for range 8 {
		<-done
	}
	again, err := Default()
	require.NoError(t, err)
	assert.Same(t, ix, again)
}

// BenchmarkLookup: go test ./registry -run '^$' -bench 'Lookup|Target' -benchmem
func BenchmarkLookup(b *testing.B) {
	ix, err := Default()
	require.NoError(b, err)
	for _, tc := range lookupCases {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = ix.Lookup(tc.key)
			}
		})
	}
}

// BenchmarkGoMap is the baseline: a plain map[string]*Attribute holding the
// same entries (exact keys only; no template matching).
func BenchmarkGoMap(b *testing.B) {
	ix, err := Default()
	require.NoError(b, err)
	m := make(map[string]*Attribute, len(ix.attrs))
	for _, a := range ix.attrs {
		m[a.Key] = a
	}
	for _, tc := range lookupCases {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = m[tc.key]
			}
		})
	}
}

func BenchmarkTarget(b *testing.B) {
	ix, err := Default()
	require.NoError(b, err)
	for _, tc := range []struct {
		name, key string
		ctx       Context
	}{
		{"unconditional", "http.method", Context{Location: LocationSpan, SpanKind: SpanKindServer}},
		{"span_kind", "net.peer.name", Context{Location: LocationSpan, SpanKind: SpanKindServer}},
		{"metric_scoped", "state", Context{Location: LocationDataPoint, MetricName: "system.network.connections"}},
		{"not_renamed", "http.request.method", Context{Location: LocationSpan}},
	} {
		a := ix.Lookup(tc.key)
		require.NotNil(b, a)
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = a.Target(tc.ctx)
			}
		})
	}
}

// BenchmarkBuild measures a full build, as a hot reload would do it.
// go test ./registry -run '^$' -bench Build -benchmem
func BenchmarkBuild(b *testing.B) {
	b.Run("embedded", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Load(Sources{Embedded: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("embedded+org", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Load(Sources{Embedded: true, OrgRegistries: []string{"testdata/acme"}, RulesFiles: []string{"testdata/acme-rules.yaml"}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fresh_semconv_dir", func(b *testing.B) {
		dir := requireShared(b)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Load(Sources{SemconvDir: dir}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestTargetBloomAgreesWithScan checks the metric-name filter against a
// plain first-match scan over every rule, for every metric name any scope
// mentions plus names no scope mentions.
func TestTargetBloomAgreesWithScan(t *testing.T) {
	ix, err := Default()
	require.NoError(t, err)
	names := []string{"", "x", "system.cpu.time.extra"}
	for _, a := range ix.attrs {
		for _, r := range a.rename.rules {
			names = append(names, r.scope.metrics...)
		}
	}
	for _, a := range ix.attrs {
		if !a.rename.byMetric {
			continue
		}
		for _, m := range names {
			ctx := Context{Location: LocationDataPoint, MetricName: m}
			var want *Attribute
			for i := range a.rename.rules {
				if a.rename.rules[i].scope.matches(&ctx) {
					want = a.rename.rules[i].target
					break
				}
			}
			assert.Same(t, want, a.Target(ctx), "%s on %s", a.Key, m)
		}
	}
}

func TestTemplateMatching(t *testing.T) {
	long := "n.0123456789012345678901234567890123456789012345678901234567890123456789"
	attrs := []*Attribute{
		{Key: "a", Template: true},
		{Key: "a.b.c", Template: true},
		{Key: "a.b", Template: false},
		{Key: long, Template: true},
	}
	ix := &Index{table: newTable(attrs), prefixes: newPrefixTable(attrs)}
	for key, want := range map[string]string{
		"a":          "a",
		"a.x":        "a",
		"a.b":        "a.b",
		"a.b.x":      "a",
		"a.b.c":      "a.b.c",
		"a.b.c.d":    "a.b.c",
		"a.b.cd":     "a",
		"ab.c":       "",
		"b.x":        "",
		"":           "",
		".a":         "",
		long + ".x":  long,
		long + "x.y": "",
		"n.x":        "",
	} {
		got := ""
		if a := ix.Lookup(key); a != nil {
			got = a.Key
		}
		assert.Equal(t, want, got, key)
	}
}
