package registryextension

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
)

// TestStartTakesValidatedRegistry: `otelcol` validates the configuration
// right before it starts the extension; Start takes over the index Validate
// resolved instead of resolving the registry a second time, and a reload
// does not find it again.
func TestStartTakesValidatedRegistry(t *testing.T) {
	dir, file := orgDir(t, orgV1)
	var validated *validatedRegistry // Start clears cfg.validated
	e, _ := startTestExtension(t, nil, func(cfg *Config) {
		cfg.OrgRegistries = []string{dir}
		require.NoError(t, cfg.Validate())
		validated = cfg.validated
	})
	require.NotNil(t, validated)
	assert.Same(t, validated.ix, e.Current().Index, "Start resolved the registry again")
	assert.Nil(t, e.cfg.validated, "Start keeps no reference to the validated index")

	writeAtomic(t, file, orgV2)
	e.check()
	s2 := e.Current()
	assert.NotSame(t, validated.ix, s2.Index)
	assert.NotNil(t, s2.Index.Lookup("acme.cart.size"), "the reload resolved the new files")
}

// TestStartReloadsFilesChangedSinceValidate: files that changed between
// Validate and Start are loaded again, not served from the validated index.
func TestStartReloadsFilesChangedSinceValidate(t *testing.T) {
	dir, file := orgDir(t, orgV1)
	var before *validatedRegistry
	e, _ := startTestExtension(t, componenttest.NewTelemetry(), func(cfg *Config) {
		cfg.OrgRegistries = []string{dir}
		require.NoError(t, cfg.Validate())
		before = cfg.validated
		writeAtomic(t, file, orgV2)
	})
	require.NotNil(t, before)
	assert.Nil(t, before.ix.Lookup("acme.cart.size"))
	assert.NotSame(t, before.ix, e.Current().Index)
	assert.NotNil(t, e.Current().Index.Lookup("acme.cart.size"), "Start loaded the changed files")
}

// TestValidateNamesBrokenFile: Validate still resolves the registry, so a
// bad file fails `otelcol validate` with its name and line, and nothing is
// kept for Start.
func TestValidateNamesBrokenFile(t *testing.T) {
	dir, file := orgDir(t, orgBroken)
	cfg := createDefaultConfig().(*Config)
	cfg.OrgRegistries = []string{dir}
	err := cfg.Validate()
	require.ErrorIs(t, err, errRegistryLoad)
	require.ErrorContains(t, err, file+": yaml: line 5")
	assert.Nil(t, cfg.validated)
}
