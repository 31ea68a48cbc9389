package registry

import (
	"fmt"
	"strings"
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

// evictBuf is larger than the L2 cache of the machine the results were
// measured on (2 MiB per core).
var evictBuf = make([]byte, 8<<20)

func evict() {
	for i := 0; i < len(evictBuf); i += 64 {
		evictBuf[i]++
	}
}

// tableKeySets are the keys a walk looks up: the 13 attributes of the
// benchmarks' server span (current keys, one template instance), misses
// (application keys no registry defines), and the realistic mix of
// enginetest.MixRealistic.
var tableKeySets = map[string][]string{
	"hit": {
		"http.request.method", "http.response.status_code", "server.address", "server.port", "url.path",
		"url.scheme", "http.route", "network.protocol.version", "client.address", "user_agent.original",
		"network.peer.address", "network.peer.port", "service.name",
	},
	"miss": {
		"acme.custom_0", "acme.custom_1", "acme.custom_2", "app.tenant.id", "customer_tier", "feature_flag.checkout_v2",
		"com.example.some.really.long.custom.attribute.name", "x", "team", "k8s_pod_label_app", "order.id", "cart.items", "region",
	},
	"realistic": {
		"http.method", "http.status_code", "net.host.name", "acme.custom_0", "acme.custom_1", "acme.custom_2",
		"url.scheme", "http.route", "network.protocol.version", "client.address", "user_agent.original",
		"network.peer.address", "http.request.header.content-type",
	},
}

// BenchmarkTable compares the grouped table (Index.LookupRef), the table it
// replaced (legacyTable, which dereferences an *Attribute per probe) and a
// Go map, on exact keys only (no template matching), warm and cold. Keys are
// fresh strings, cloned per run as a receiver leaves them. Cold runs evict
// L1 and L2 (outside the timer) before every 13 lookups.
//
// Run: go test ./registry -run '^$' -bench Table -benchtime 20000x
func BenchmarkTable(b *testing.B) {
	ix, err := Default()
	require.NoError(b, err)
	legacy := newLegacyTable(ix.attrs)
	gomap := make(map[string]*Attribute, len(ix.attrs))
	for _, a := range ix.attrs {
		gomap[a.Key] = a
	}
	impls := []struct {
		name string
		get  func(string) bool
	}{
		{"grouped", func(k string) bool { return ix.table.get(k) != 0 }},
		{"legacy", func(k string) bool { return legacy.get(k) != nil }},
		{"gomap", func(k string) bool { return gomap[k] != nil }},
	}
	for _, set := range []string{"hit", "miss", "realistic"} {
		keys := make([]string, len(tableKeySets[set]))
		for i, k := range tableKeySets[set] {
			keys[i] = strings.Clone(k)
		}
		for _, cold := range []bool{false, true} {
			for _, impl := range impls {
				b.Run(fmt.Sprintf("keys=%s/cache=%s/impl=%s", set, map[bool]string{false: "warm", true: "cold"}[cold], impl.name), func(b *testing.B) {
					found := 0
					for b.Loop() {
						if cold {
							b.StopTimer()
							evict()
							b.StartTimer()
						}
						for _, k := range keys {
							if impl.get(k) {
								found++
							}
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(keys)), "ns/lookup")
					if set == "hit" && found != b.N*len(keys) {
						b.Fatalf("found %d of %d", found, b.N*len(keys))
					}
				})
			}
		}
	}
}

// TestGroupedTableMatchesLegacy: the grouped table finds exactly what the
// table it replaced found, for every registry key and for misses.
func TestGroupedTableMatchesLegacy(t *testing.T) {
	ix, err := Default()
	require.NoError(t, err)
	legacy := newLegacyTable(ix.attrs)
	for _, a := range ix.attrs {
		r := ix.table.get(a.Key)
		require.True(t, r.Found(), a.Key)
		assert.Same(t, a, ix.Attr(r), a.Key)
		assert.Same(t, legacy.get(a.Key), ix.Attr(r), a.Key)
		assert.Equal(t, a.Type, r.Type(), a.Key)
		assert.Equal(t, a.Deprecation.Reason == NotDeprecated && !a.Placeholder && a.EnumStrings == nil && a.EnumInts == nil && !a.Renamed(), r.Plain(), a.Key)
		assert.Zero(t, ix.table.get(a.Key+".x"), a.Key+".x")
		assert.Same(t, legacy.get(a.Key[:len(a.Key)-1]), ix.Attr(ix.table.get(a.Key[:len(a.Key)-1])))
	}
	for _, keys := range tableKeySets {
		for _, k := range keys {
			assert.Equal(t, legacy.get(k) != nil, ix.table.get(k).Found(), k)
		}
	}
	long := strings.Repeat("k", 300)
	big := newTable([]*Attribute{{Key: long}, {Key: "short"}})
	assert.True(t, big.get(long).Found())
	assert.False(t, big.get(long+"x").Found())
	assert.True(t, big.get("short").Found())
}
