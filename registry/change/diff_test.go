package change_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/registry/change"
)

// semconvDir returns a release under ../shared/semconv, skipping the test
// when the shared data is absent.
func semconvDir(t *testing.T, release string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "semconv", release)
	if _, err := os.Stat(filepath.Join(dir, "model")); err != nil {
		t.Skipf("semantic conventions %s not available: %v", release, err)
	}
	return dir
}

func load(t *testing.T, release string) *registry.Index {
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
