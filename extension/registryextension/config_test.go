package registryextension

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"

	"github.com/otelgov/otelcol-governance/extension/registryextension/internal/metadata"
)

func TestLoadConfig(t *testing.T) {
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)

	full := confighttp.NewDefaultServerConfig()
	full.NetAddr.Endpoint = "127.0.0.1:13181"
	noReload := createDefaultConfig().(*Config)
	noReload.PollInterval = 0
	inferOn := createDefaultConfig().(*Config)
	inferOn.Infer = InferConfig{Enabled: true, Examples: true, MaxAttributes: 100, MaxServices: 3}

	tests := []struct {
		id       component.ID
		expected component.Config
		errIs    error
		errMsg   string
	}{
		{id: component.NewID(metadata.Type), expected: createDefaultConfig()},
		{
			id: component.NewIDWithName(metadata.Type, "full"),
			expected: &Config{
				OrgRegistries: []string{"testdata/org"},
				RulesFiles:    []string{"testdata/rules.yaml"},
				PollInterval:  2 * time.Second,
				HTTP:          configoptional.Some(full),
				Report:        ReportConfig{MaxServices: 20, TopKeys: 5},
				Infer:         InferConfig{MaxAttributes: defaultInferAttributes, MaxServices: defaultInferServices},
			},
		},
		{id: component.NewIDWithName(metadata.Type, "infer"), expected: inferOn},
		{id: component.NewIDWithName(metadata.Type, "no_reload"), expected: noReload},
		{id: component.NewIDWithName(metadata.Type, "candidate"), expected: withCandidate(CandidateConfig{OrgRegistries: []string{"testdata/org"}, RulesFiles: []string{"testdata/rules.yaml"}})},
		{id: component.NewIDWithName(metadata.Type, "broken_candidate"), expected: withCandidate(CandidateConfig{OrgRegistries: []string{"testdata/broken"}})},
		{id: component.NewIDWithName(metadata.Type, "missing_candidate_path"), errIs: errRegistryPath, errMsg: "candidate::semconv_dir: registry path not found: stat testdata/nope"},
		{id: component.NewIDWithName(metadata.Type, "negative_poll"), errIs: errNegative, errMsg: "poll_interval: must not be negative"},
		{id: component.NewIDWithName(metadata.Type, "short_poll"), errIs: errPollTooShort, errMsg: "poll_interval: poll interval too short: 10ms"},
		{id: component.NewIDWithName(metadata.Type, "empty_endpoint"), errIs: errEmptyEndpoint, errMsg: "http: endpoint must not be empty"},
		{id: component.NewIDWithName(metadata.Type, "missing_org_registry"), errIs: errRegistryPath, errMsg: "org_registries[0]: registry path not found"},
		{id: component.NewIDWithName(metadata.Type, "missing_rules_file"), errIs: errRegistryPath, errMsg: "rules_files[0]: registry path not found"},
		{id: component.NewIDWithName(metadata.Type, "broken_org_registry"), errIs: errRegistryLoad, errMsg: "testdata/broken/cart.yaml: yaml: line 5"},
		{id: component.NewIDWithName(metadata.Type, "bad_max_services"), errIs: errOutOfRange, errMsg: "report: max_services: out of range: -1"},
		{id: component.NewIDWithName(metadata.Type, "bad_top_keys"), errIs: errOutOfRange, errMsg: "report: top_keys: out of range: 1000"},
		{id: component.NewIDWithName(metadata.Type, "bad_infer_max_attributes"), errIs: errOutOfRange, errMsg: "infer: max_attributes: out of range: 0, want 1 to 100000"},
		{id: component.NewIDWithName(metadata.Type, "bad_infer_max_services"), errIs: errOutOfRange, errMsg: "infer: max_services: out of range: 101, want 1 to 100"},
		{id: component.NewIDWithName(metadata.Type, "infer_without_http"), errIs: errInferNeedsHTTP, errMsg: "infer: enabled: needs the http endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.id.String(), func(t *testing.T) {
			cfg := createDefaultConfig()
			sub, err := cm.Sub(tt.id.String())
			require.NoError(t, err)
			require.NoError(t, sub.Unmarshal(cfg))

			err = confmap.Validate(cfg)
			if tt.errIs != nil {
				require.ErrorIs(t, err, tt.errIs)
				require.ErrorContains(t, err, tt.errMsg)
				assert.NotRegexp(t, `\.$`, err.Error(), "no trailing period")
				return
			}
			require.NoError(t, err)
			c := cfg.(*Config)
			require.NotNil(t, c.validated, "Validate keeps the registry it resolved for Start")
			c.validated = nil
			assert.Equal(t, tt.expected, cfg)
		})
	}
}

func withCandidate(c CandidateConfig) *Config {
	cfg := createDefaultConfig().(*Config)
	cfg.Candidate = configoptional.Some(c)
	return cfg
}

func TestLoadConfigNoHTTP(t *testing.T) {
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)
	cfg := createDefaultConfig().(*Config)
	sub, err := cm.Sub(component.NewIDWithName(metadata.Type, "no_http").String())
	require.NoError(t, err)
	require.NoError(t, sub.Unmarshal(cfg))
	require.NoError(t, confmap.Validate(cfg))
	assert.False(t, cfg.HTTP.HasValue())
}
