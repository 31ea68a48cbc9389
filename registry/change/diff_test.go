package change_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/registry/change"
)

// semconvDir returns a release under ../shared/semconv, skipping the test
// when the shared data is absent.
func semconvDir(t testing.TB, release string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "semconv", release)
	if _, err := os.Stat(filepath.Join(dir, "model")); err != nil {
		t.Skipf("semantic conventions %s not available: %v", release, err)
	}
	return dir
}

func load(t testing.TB, release string) *registry.Index {
	t.Helper()
	ix, err := registry.Load(registry.Sources{SemconvDir: semconvDir(t, release)})
	require.NoError(t, err)
	return ix
}

// TestDiffNextRenames: main after v1.44.0 renames rpc.response.status_code
// to rpc.status_code, which moves the target of the older renames to it.
func TestDiffNextRenames(t *testing.T) {
	set, err := change.Diff(load(t, "v1.44.0"), load(t, "next-384d661"))
	require.NoError(t, err)
	got := map[string][2]string{}
	for _, c := range set.Of(change.AttributeRenamed) {
		got[c.Name] = [2]string{c.OldValue, c.NewName}
	}
	assert.Equal(t, [2]string{"", "rpc.status_code"}, got["rpc.response.status_code"])
	// A rename whose target moves is itself a change.
	assert.Equal(t, [2]string{"rpc.response.status_code", "rpc.status_code"}, got["rpc.connect_rpc.error_code"])
	assert.Equal(t, [2]string{"rpc.response.status_code", "rpc.status_code"}, got["rpc.grpc.status_code"])
}

// pairs are the release pairs the tests diff, with what each must show.
var pairs = []struct {
	old, new string
	counts   map[change.Kind]int
	// weaver is the number of Weaver's changes; beyond counts the model's
	// changes Weaver has no kind for (and span lifecycle changes, which
	// Weaver v1 does not diff).
	weaver int
	beyond map[change.Kind]int
}{
	{
		old: "v1.44.0", new: "next-384d661",
		counts: map[change.Kind]int{
			change.AttributeAdded: 3, change.AttributeRenamed: 4,
			change.RequirementLevelChanged: 10, change.AttributeSetChanged: 4, change.StabilityChanged: 3,
		},
		weaver: 7,
		beyond: map[change.Kind]int{
			change.RequirementLevelChanged: 10, change.AttributeSetChanged: 4, change.StabilityChanged: 3,
		},
	},
	{
		old: "v1.40.0", new: "v1.44.0",
		counts: map[change.Kind]int{
			change.AttributeAdded: 36, change.AttributeUncategorized: 54, change.DeprecationChanged: 10,
			change.EnumMemberAdded: 9, change.EnumMemberRenamed: 1,
			change.UnitChanged: 1, change.InstrumentChanged: 3,
			change.MetricAdded: 43, change.MetricRenamed: 10, change.MetricUncategorized: 9,
			change.EventAdded: 8, change.EventUncategorized: 2,
			change.SpanAdded: 45, change.SpanUncategorized: 12,
			change.EntityAdded: 6, change.EntityRemoved: 1,
			change.RequirementLevelChanged: 23, change.AttributeSetChanged: 52, change.StabilityChanged: 174,
		},
		weaver: 179,
		beyond: map[change.Kind]int{
			change.EnumMemberAdded: 9, change.EnumMemberRenamed: 1, change.UnitChanged: 1, change.InstrumentChanged: 3,
			change.SpanAdded: 45, change.SpanUncategorized: 12,
			change.RequirementLevelChanged: 23, change.AttributeSetChanged: 52, change.StabilityChanged: 174,
			change.DeprecationChanged: 10,
		},
	},
}

// TestDiffCounts: the number of changes per kind on both release pairs.
func TestDiffCounts(t *testing.T) {
	for _, p := range pairs {
		t.Run(p.old+"->"+p.new, func(t *testing.T) {
			set, err := change.Diff(load(t, p.old), load(t, p.new))
			require.NoError(t, err)
			assert.Equal(t, p.counts, set.Count())
			assert.True(t, slices.IsSortedFunc(set.Changes, func(a, b change.Change) int {
				if a.Item != b.Item {
					return int(a.Item) - int(b.Item)
				}
				return strings.Compare(a.Name, b.Name)
			}))
		})
	}
}

// find returns the one change of kind k on name (and context ctx).
func find(t *testing.T, set *change.Set, k change.Kind, name, ctx string) change.Change {
	t.Helper()
	var out []change.Change
	for _, c := range set.Of(k) {
		if c.Name == name && c.Context == ctx {
			out = append(out, c)
		}
	}
	require.Len(t, out, 1, "%s %s on %q", k, name, ctx)
	return out[0]
}

// TestDiffNextSignals: on main after v1.44.0 error.type becomes
// conditionally required on five otel.sdk.* metrics, which producers must
// now send (not migratable), and server.address relaxes on RPC server
// spans (migratable: nothing to do).
func TestDiffNextSignals(t *testing.T) {
	set, err := change.Diff(load(t, "v1.44.0"), load(t, "next-384d661"))
	require.NoError(t, err)
	var sdk []string
	for _, c := range set.Of(change.RequirementLevelChanged) {
		if c.Name == "error.type" {
			sdk = append(sdk, c.Context)
			assert.Equal(t, change.ItemMetric, c.Item)
			assert.Equal(t, "recommended", c.OldValue)
			assert.Equal(t, "conditionally_required", c.NewValue)
			assert.False(t, c.Migratable)
			assert.Contains(t, c.Why, "producers must now send it")
		}
	}
	assert.Equal(t, []string{
		"otel.sdk.exporter.log.exported", "otel.sdk.exporter.metric_data_point.exported",
		"otel.sdk.exporter.span.exported", "otel.sdk.processor.log.processed", "otel.sdk.processor.span.processed",
	}, sdk)
	c := find(t, set, change.RequirementLevelChanged, "server.address", "span.rpc.grpc.call.server")
	assert.Equal(t, change.ItemSpan, c.Item)
	assert.True(t, c.Migratable)
	c = find(t, set, change.AttributeSetChanged, "http.request.body.content", "span.http.client")
	assert.Equal(t, [2]string{"", "opt_in"}, [2]string{c.OldValue, c.NewValue})
	assert.True(t, c.Migratable)
	// The mcp spans and metrics now list rpc.status_code where they listed
	// rpc.response.status_code: the rename, not a set change.
	for _, c := range set.Of(change.AttributeSetChanged, change.RequirementLevelChanged) {
		assert.NotEqual(t, "rpc.response.status_code", c.Name, c.String())
	}
}

// TestDiffOlderRelease: six months of changes (v1.40.0 to v1.44.0).
func TestDiffOlderRelease(t *testing.T) {
	set, err := change.Diff(load(t, "v1.40.0"), load(t, "v1.44.0"))
	require.NoError(t, err)
	// gen_ai.* deprecated without a replacement the processor applies.
	c := find(t, set, change.AttributeUncategorized, "gen_ai.request.model", "")
	assert.False(t, c.Migratable)
	assert.Equal(t, registry.DeprecatedUncategorized, c.Deprecation.Reason)
	// gen_ai.system was renamed to gen_ai.provider.name and is now
	// uncategorized; the shipped rule keeps the rename, so only the
	// declaration changes.
	c = find(t, set, change.DeprecationChanged, "gen_ai.system", "")
	assert.True(t, c.Migratable)
	assert.Equal(t, registry.DeprecatedRenamed, c.OldDeprecation.Reason)
	// Units: {count} -> {worker} are both dimensionless (factor 1).
	c = find(t, set, change.UnitChanged, "cicd.worker.count", "")
	assert.Equal(t, [2]string{"{count}", "{worker}"}, [2]string{c.OldValue, c.NewValue})
	assert.InDelta(t, 1.0, c.Factor, 0)
	assert.True(t, c.Migratable)
	c = find(t, set, change.InstrumentChanged, "container.memory.usage", "")
	assert.Equal(t, [2]string{"counter", "updowncounter"}, [2]string{c.OldValue, c.NewValue})
	assert.False(t, c.Migratable)
	c = find(t, set, change.MetricRenamed, "k8s.container.cpu.limit", "")
	assert.Equal(t, "k8s.container.cpu.limit.desired", c.NewName)
	assert.True(t, c.Migratable)
	c = find(t, set, change.EnumMemberRenamed, "cpu.mode", "")
	assert.Equal(t, [2]string{"kernel", "system"}, [2]string{c.Member, c.NewValue})
}
