package change_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/registry/change"
)

// TestDiffRules diffs v1.44.0 without and with the shipped rules: what the
// rules add is contextual renames, value maps, splits and a merge.
func TestDiffRules(t *testing.T) {
	dir := semconvDir(t, "v1.44.0")
	bare, err := registry.Load(registry.Sources{SemconvDir: dir, SkipShippedRules: true})
	require.NoError(t, err)
	set, err := change.Diff(bare, load(t, "v1.44.0"))
	require.NoError(t, err)
	assert.Equal(t, map[change.Kind]int{
		change.AttributeRenamed: 33, change.EnumMemberRenamed: 20, change.EnumMemberRemoved: 6,
		change.TypeChanged: 6, change.Split: 3, change.Merge: 1,
	}, set.Count())

	c := find(t, set, change.Merge, "code.function", "")
	assert.Equal(t, "code.function.name", c.NewName)
	assert.Equal(t, []string{"code.namespace", "code.function"}, c.Into)
	assert.False(t, c.Migratable)
	c = find(t, set, change.Split, "http.target", "")
	assert.Equal(t, []string{"url.path", "url.query"}, c.Into)
	assert.True(t, c.Migratable)

	// A contextual rename is one change per target, each with its scope.
	var peer []string
	for _, c := range set.Of(change.AttributeRenamed) {
		if c.Name == "net.peer.name" {
			require.NotNil(t, c.Scope)
			peer = append(peer, fmt.Sprintf("%s %v", c.NewName, c.Scope.SpanKinds))
		}
	}
	assert.Equal(t, []string{"client.address [server consumer]", "server.address [client producer]"}, peer)

	// An int enum renamed to a string key: the type change with the
	// rules file's value map, migratable.
	c = find(t, set, change.TypeChanged, "rpc.grpc.status_code", "")
	assert.Equal(t, [3]string{"rpc.response.status_code", "int", "string"}, [3]string{c.NewName, c.OldValue, c.NewValue})
	assert.Equal(t, "OK", c.Values["0"])
	assert.True(t, c.Migratable)
	c = find(t, set, change.TypeChanged, "enduser.role", "")
	assert.Equal(t, "string[]", c.NewValue)
	assert.True(t, c.Migratable, "the shipped rule converts a string to a one-element array")
}
