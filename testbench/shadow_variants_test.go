package testbench

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/vocab"
)

// TestShadowVariantsYAML: the shadow's line-rate variants render a
// collector configuration with the governance_registry extension enabled
// and the candidate only in governance-shadow.
func TestShadowVariantsYAML(t *testing.T) {
	vs := append(ShadowVariants("/semconv/next"), SketchVariant())
	require.Len(t, vs, 3)
	for _, v := range vs {
		var doc struct {
			Extensions map[string]struct {
				Candidate *struct {
					SemconvDir string `yaml:"semconv_dir"`
				} `yaml:"candidate"`
				HTTP *struct {
					Enabled  *bool  `yaml:"enabled"`
					Endpoint string `yaml:"endpoint"`
				} `yaml:"http"`
				Infer *struct {
					Enabled bool `yaml:"enabled"`
				} `yaml:"infer"`
			} `yaml:"extensions"`
			Processors map[string]struct {
				Registry struct {
					Extension string `yaml:"extension"`
				} `yaml:"registry"`
			} `yaml:"processors"`
			Service struct {
				Extensions []string `yaml:"extensions"`
			} `yaml:"service"`
		}
		require.NoError(t, yaml.Unmarshal([]byte(v.Config.YAML(Ports{1, 2, 3, 4}, NopExporter(), vocab.KindTraces)), &doc), v.Name)
		assert.Equal(t, []string{"health_check", "governance_registry"}, doc.Service.Extensions, v.Name)
		assert.Equal(t, "governance_registry", doc.Processors["governance"].Registry.Extension, v.Name)
		ext, ok := doc.Extensions["governance_registry"]
		require.True(t, ok, v.Name)
		if v.Name == VariantShadow {
			require.NotNil(t, ext.Candidate)
			assert.Equal(t, "/semconv/next", ext.Candidate.SemconvDir)
			assert.Equal(t, VariantGovernanceExtension, v.Over)
		} else {
			assert.Nil(t, ext.Candidate)
		}
		// The sketch alone turns infer on, with the HTTP server it needs
		// on loopback; the others keep the server off.
		require.NotNil(t, ext.HTTP, v.Name)
		if v.Name == VariantSketch {
			require.NotNil(t, ext.Infer)
			assert.True(t, ext.Infer.Enabled)
			assert.Nil(t, ext.HTTP.Enabled)
			assert.Equal(t, "127.0.0.1:0", ext.HTTP.Endpoint)
			assert.Equal(t, VariantGovernanceExtension, v.Over)
		} else {
			assert.Nil(t, ext.Infer, v.Name)
			require.NotNil(t, ext.HTTP.Enabled, v.Name)
			assert.False(t, *ext.HTTP.Enabled, v.Name)
		}
	}
	// Without extensions the configuration is as before.
	var doc struct {
		Service struct {
			Extensions []string `yaml:"extensions"`
		} `yaml:"service"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(LineVariants(nil)[0].Config.YAML(Ports{1, 2, 3, 4}, NopExporter(), vocab.KindTraces)), &doc))
	assert.Equal(t, []string{"health_check"}, doc.Service.Extensions)
}
