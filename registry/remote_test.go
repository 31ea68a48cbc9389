package registry

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRemoteDependencyWarning: a manifest whose dependency is a remote
// semantic-conventions release (Weaver's registry_path: https://…/vX.zip
// [model]) is never downloaded; where it pins another release than the
// one in force, the index warns, naming the manifest's line and both
// versions (pinned, in force, and where the latter comes from). Pinning
// the release in force is silent.
func TestRemoteDependencyWarning(t *testing.T) {
	manifest := func(path string) string {
		return writeFiles(t, map[string]string{
			"registry_manifest.yaml": "name: acme\ndependencies:\n  - name: otel\n    registry_path: " + path + "\n",
			"model/acme.yaml":        goodAttr,
		})
	}
	const v126 = "https://github.com/open-telemetry/semantic-conventions/archive/refs/tags/v1.26.0.zip[model]"
	old := manifest(v126)
	ix, err := Load(Sources{Embedded: true, OrgRegistries: []string{old}})
	require.NoError(t, err)
	w := strings.Join(ix.Warnings(), "\n")
	assert.Contains(t, w, filepath.Join(old, "registry_manifest.yaml")+":3: dependency \"otel\": registry_path "+v126+" pins semantic conventions 1.26.0")
	assert.Contains(t, w, "the semantic conventions in force are 1.44.0 (the embedded release), not the pinned ones")

	next := filepath.Join("..", "..", "shared", "semconv", "next-384d661")
	ix, err = Load(Sources{SemconvDir: next, OrgRegistries: []string{manifest("https://example.com/semconv-1.44.0.tar.gz")}})
	require.NoError(t, err)
	assert.Contains(t, strings.Join(ix.Warnings(), "\n"), "pins semantic conventions 1.44.0, which otelgov and the collector do not download: the semantic conventions in force are 1.45.0-unreleased (semconv_dir "+next+")")

	ix, err = Load(Sources{OrgRegistries: []string{manifest("https://example.com/registry.zip")}})
	require.NoError(t, err)
	assert.Contains(t, strings.Join(ix.Warnings(), "\n"), "pins semantic conventions of a release its path does not name, which otelgov and the collector do not download; no semantic conventions are loaded")

	ix, err = Load(Sources{Embedded: true, OrgRegistries: []string{manifest(strings.Replace(v126, "1.26.0", "1.44.0", 1))}})
	require.NoError(t, err)
	assert.NotContains(t, strings.Join(ix.Warnings(), "\n"), "registry_path", "the release in force is pinned: nothing to say")
}
