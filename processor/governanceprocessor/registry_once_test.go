package governanceprocessor

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFactoryTakesValidatedRegistry: `otelcol` validates the configuration
// right before it creates the processors; the factory uses the index
// Validate resolved instead of resolving the registry a second time.
// Without Validate (a configuration built in code) it resolves its own.
func TestFactoryTakesValidatedRegistry(t *testing.T) {
	cfg := createDefaultConfig().(*config)
	cfg.Registry.RulesFiles = []string{"testdata/rules.yaml"} // not the cached Default()
	require.NoError(t, cfg.Registry.Validate())
	require.NotNil(t, cfg.Registry.validated)
	ix, err := cfg.Registry.load()
	require.NoError(t, err)
	assert.Same(t, cfg.Registry.validated, ix, "load resolved the registry again")

	fresh := createDefaultConfig().(*config)
	fresh.Registry.RulesFiles = []string{"testdata/rules.yaml"}
	ix2, err := fresh.Registry.load()
	require.NoError(t, err)
	assert.NotSame(t, ix, ix2)
	assert.Equal(t, ix.Digest(), ix2.Digest())

	// A broken registry is caught by Validate, naming the file, and nothing
	// is kept.
	bad := createDefaultConfig().(*config)
	bad.Registry.RulesFiles = []string{"testdata/bad_value_rules.yaml"}
	err = bad.Registry.Validate()
	require.ErrorIs(t, err, errRegistryLoad)
	require.ErrorContains(t, err, "testdata/bad_value_rules.yaml:7:")
	assert.Nil(t, bad.Registry.validated)
}
