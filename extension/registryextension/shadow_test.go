package registryextension

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/confmap"

	"github.com/otelgov/otelcol-governance/registry/change"
)

// nextSemconv is the unreleased semantic conventions after v1.44.0 that
// renames rpc.response.status_code to rpc.status_code.
func nextSemconv(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "semconv", "next-384d661")
	if _, err := os.Stat(filepath.Join(dir, "model")); err != nil {
		t.Skipf("semantic conventions next-384d661 not available: %v", err)
	}
	return dir
}

func TestNoCandidateNoShadow(t *testing.T) {
	e, _ := newTestExtension(t, nil)
	assert.Nil(t, e.Shadow())
	e.checkCandidate()
	assert.Nil(t, e.Shadow())
	assert.Nil(t, e.info().Candidate)
}

// TestSemconvDir: the registry in force can come from a semantic-conventions
// checkout, so that promoting a candidate's semconv_dir is a config change.
func TestSemconvDir(t *testing.T) {
	next := nextSemconv(t)
	e, _ := startTestExtension(t, nil, func(cfg *Config) { cfg.SemconvDir = next })
	assert.NotNil(t, e.Current().Index.Lookup("rpc.status_code"))
	assert.Equal(t, next, e.info().Sources.SemconvDir)
	assert.False(t, e.info().Sources.Embedded)

	cfg := createDefaultConfig().(*Config)
	cfg.SemconvDir = "/nonexistent/semconv"
	err := confmapValidate(cfg)
	require.ErrorIs(t, err, errRegistryPath)
	assert.Contains(t, err.Error(), "semconv_dir: registry path not found")
}

// TestCandidateShadow: the candidate is compared with the registry in force
// once per load of either side, and its lookup answers the candidate's
// changes; the registry in force is untouched.
func TestCandidateShadow(t *testing.T) {
	next := nextSemconv(t)
	orgDirPath, orgFile := orgDir(t, orgV1)
	e, _ := startTestExtension(t, nil, func(cfg *Config) {
		cfg.OrgRegistries = []string{orgDirPath}
		cfg.Candidate = configoptional.Some(CandidateConfig{SemconvDir: next})
	})
	s := e.Shadow()
	require.NotNil(t, s)
	require.Empty(t, s.Err)
	require.NotNil(t, s.Changes)
	assert.Equal(t, int64(1), s.Generation)
	assert.Equal(t, int64(1), s.ActiveGeneration)
	assert.True(t, s.Changes.Attribute("rpc.response.status_code", "", false, 0, false).Has(change.AttributeRenamed))
	assert.Nil(t, e.Current().Index.Lookup("rpc.status_code"), "the registry in force stays v1.44.0")
	info := e.info()
	require.NotNil(t, info.Candidate)
	assert.Equal(t, next, info.Candidate.Sources.SemconvDir)
	assert.False(t, info.Candidate.Sources.Embedded)
	assert.Equal(t, s.Digest, info.Candidate.Digest)
	assert.NotEqual(t, info.Digest, info.Candidate.Digest)
	assert.Empty(t, info.Candidate.Error)

	// Unchanged on both sides: the same shadow, no second diff.
	e.checkCandidate()
	assert.Same(t, s, e.Shadow())

	// The registry in force reloads (v2 adds acme.cart.size, which the
	// candidate lacks): the shadow is compared again, same candidate.
	writeAtomic(t, orgFile, orgV2)
	e.check()
	e.checkCandidate()
	s2 := e.Shadow()
	require.NotSame(t, s, s2)
	assert.Equal(t, int64(2), s2.ActiveGeneration)
	assert.Equal(t, int64(1), s2.Generation)
	assert.True(t, s2.Changes.Attribute("acme.cart.size", "", false, 0, false).Has(change.AttributeRemoved))
}

// TestCandidateFails: a candidate that does not load (at start or on a
// reload) is published as failed with its error and no lookup, the
// collector starts, and the registry in force is untouched; once its
// files load again it is evaluated again.
func TestCandidateFails(t *testing.T) {
	dir, file := orgDir(t, orgBroken)
	e, host := startTestExtension(t, nil, func(cfg *Config) {
		cfg.Candidate = configoptional.Some(CandidateConfig{OrgRegistries: []string{dir}})
	})
	s := e.Shadow()
	require.NotNil(t, s)
	assert.True(t, s.Failed())
	assert.Contains(t, s.Err, "cart.yaml: yaml: line 5")
	assert.Nil(t, s.Changes)
	assert.Equal(t, int64(0), s.Generation)
	assert.Equal(t, int64(1), e.Current().Generation)
	assert.Empty(t, host.statuses(), "a failed candidate does not change the extension's status")
	require.NotNil(t, e.info().Candidate)
	assert.Equal(t, s.Err, e.info().Candidate.Error)

	writeAtomic(t, file, orgV2)
	e.checkCandidate()
	s = e.Shadow()
	require.False(t, s.Failed(), s.Err)
	assert.Equal(t, int64(1), s.Generation)
	assert.True(t, s.Changes.Attribute("acme.cart.size", "", false, 0, false).Has(change.AttributeAdded))

	// Broken again: failed, the generation stays at the last good load.
	writeAtomic(t, file, orgBroken)
	e.checkCandidate()
	s = e.Shadow()
	assert.True(t, s.Failed())
	assert.Nil(t, s.Changes)
	assert.Equal(t, int64(1), s.Generation)
	// Back to the good files: the generation of the candidate that loaded
	// (loaded again: the extension keeps no candidate Index).
	writeAtomic(t, file, orgV2)
	e.checkCandidate()
	s = e.Shadow()
	assert.False(t, s.Failed())
	assert.Equal(t, int64(1), s.Generation)
	assert.NotNil(t, s.Changes)
}

func TestCandidateConfigValidate(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	cfg.Candidate = configoptional.Some(CandidateConfig{
		SemconvDir:    "/nonexistent/semconv",
		OrgRegistries: []string{""},
		RulesFiles:    []string{"testdata/rules.yaml"},
	})
	err := confmapValidate(cfg)
	require.Error(t, err)
	require.ErrorIs(t, err, errRegistryPath)
	assert.Contains(t, err.Error(), "candidate::semconv_dir: registry path not found: stat /nonexistent/semconv")
	assert.Contains(t, err.Error(), "candidate::org_registries[0]: registry path not found: empty path")
	assert.NotContains(t, err.Error(), "rules_files")

	cfg.Candidate = configoptional.Some(CandidateConfig{RulesFiles: []string{"testdata/rules.yaml"}})
	require.NoError(t, confmapValidate(cfg))
	assert.Nil(t, createDefaultConfig().(*Config).Candidate.Get(), "off by default")
}

func confmapValidate(cfg *Config) error { return confmap.Validate(cfg) }
