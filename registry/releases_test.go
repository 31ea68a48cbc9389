package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sharedRelease is another release beside sharedSemconv, skipped like it.
func sharedRelease(t *testing.T, release string) string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(requireShared(t)), release)
	if _, err := os.Stat(filepath.Join(dir, "model")); err != nil {
		t.Skipf("shared semconv release absent (%s): %v", dir, err)
	}
	return dir
}

// TestLoadOtherReleases: an older and a newer release load with the
// shipped rules. v1.40.0 declares renamed_to next to reason uncategorized
// (db.redis.database_index), which Weaver reads and ignores, and lacks two spans the
// shipped matchers name; each is a warning naming file and line, and the
// rest of the shipped rules still apply.
func TestLoadOtherReleases(t *testing.T) {
	old := sharedRelease(t, "v1.40.0")
	ix, err := Load(Sources{SemconvDir: old})
	require.NoError(t, err)
	w := strings.Join(ix.Warnings(), "\n")
	assert.Contains(t, w, filepath.Join(old, "model/db/deprecated/registry-deprecated.yaml")+":88: deprecated.renamed_to: renamed_to")
	assert.Contains(t, w, shippedRulesName+":431: shipped rule not applied to this release: matcher: span \"span.messaging.send.producer\"")
	assert.Len(t, ix.Warnings(), 3)
	a := ix.Lookup("db.redis.database_index")
	require.NotNil(t, a)
	assert.Equal(t, DeprecatedUncategorized, a.Deprecation.Reason)
	assert.Empty(t, a.Deprecation.RenamedTo, "renamed_to next to uncategorized is ignored")
	// The shipped rules that do apply still do.
	assert.Equal(t, "server.address", targetKey(ix.Lookup("net.peer.name"), Context{Location: LocationSpan, SpanKind: SpanKindClient}))
	assert.NotEmpty(t, ix.SpanMatchers())

	ix, err = Load(Sources{SemconvDir: sharedRelease(t, "next-384d661")})
	require.NoError(t, err)
	assert.Empty(t, ix.Warnings())
	assert.Equal(t, "rpc.status_code", targetKey(ix.Lookup("rpc.connect_rpc.error_code"), Context{Location: LocationSpan}))

	def, err := Default()
	require.NoError(t, err)
	assert.Empty(t, def.Warnings())
}
