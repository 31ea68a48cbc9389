package governanceprocessor

import (
	"path/filepath"
	"testing"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/findingrules"
	"github.com/otelgov/otelcol-governance/policy"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"

	"github.com/otelgov/otelcol-governance/processor/governanceprocessor/internal/metadata"
)

func TestLoadConfig(t *testing.T) {
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)

	tests := []struct {
		id       component.ID
		expected component.Config
		errIs    error
		errMsg   string
	}{
		{
			id:       component.NewID(metadata.Type),
			expected: createDefaultConfig(),
		},
		{
			id: component.NewIDWithName(metadata.Type, "full"),
			expected: &config{
				Registry: registryConfig{
					Embedded:      true,
					OrgRegistries: []string{"testdata/org"},
					RulesFiles:    []string{"testdata/rules.yaml"},
				},
				Deprecated:       engine.DeprecatedCopy,
				Unknown:          engine.UnknownDrop,
				Allow:            allowConfig{Keys: []string{"team"}, Prefixes: []string{"acme."}},
				TypeMismatch:     engine.TypeMismatchCoerce,
				EnumViolation:    engine.EnumViolationDrop,
				ClosedEnums:      []string{"http.request.method"},
				IncludeResources: map[string][]string{"service.name": {"checkout", "payment"}},
				ServiceLimit:     20,
				Findings: findingsConfig{
					Enabled: true,
					Profile: "extended",
					V2:      true,
					FindingLevelOverrides: []findingrules.LevelOverride{
						{IDs: []string{"unexpected_attribute"}, Level: "violation"},
						{IDs: []string{"not_stable"}, Level: "information", SignalType: "metric", SampleNames: []string{"http.*"}},
						{IDs: []string{"acme_no_test_keys"}, Level: "information"},
					},
					FindingFilters: []findingrules.Filter{
						{Exclude: []string{"template_attribute"}},
						{MinLevel: "improvement", SignalType: "span", ExcludeSamples: []string{"trace.*", "{db,rpc}.system"}},
					},
					DropUnexpectedAttributes: true,
					Policies:                 []string{"testdata/policies"},
					PolicyBudgetPerSecond:    50,
					Logs:                     findingLogsConfig{Enabled: true, MaxPerSecond: 10},
				},
				Shadow: shadowConfig{SampleEvery: 10, MaxBatchesPerSecond: 5},
			},
		},
		{
			id: component.NewIDWithName(metadata.Type, "advice_inputs"),
			expected: func() component.Config {
				c := createDefaultConfig().(*config)
				c.Findings.Policies = []string{"testdata/policies"}
				c.Findings.AdviceData = "testdata/advice/data/*.json"
				c.Findings.AdvicePreprocessor = "testdata/advice/user.jq"
				return c
			}(),
		},
		{
			id: component.NewIDWithName(metadata.Type, "deprecated_level_overrides"),
			expected: func() component.Config {
				c := createDefaultConfig().(*config)
				c.Findings.LevelOverrides = map[string]string{"unexpected_attribute": "violation"}
				return c
			}(),
		},
		{id: component.NewIDWithName(metadata.Type, "bad_finding_id"), errIs: findingrules.ErrUnknownID, errMsg: `findings: level_overrides: "missing_attr": unknown finding ID (not built in, and no policies)`},
		{id: component.NewIDWithName(metadata.Type, "bad_finding_level"), errIs: findingrules.ErrInvalidLevel, errMsg: `findings: level_overrides.unexpected_attribute: invalid level "error": want violation, improvement or information`},
		{id: component.NewIDWithName(metadata.Type, "bad_override_id"), errIs: findingrules.ErrUnknownID, errMsg: `findings: finding_level_overrides[0].ids: "missing_attr": unknown finding ID`},
		{id: component.NewIDWithName(metadata.Type, "bad_override_level"), errIs: findingrules.ErrInvalidLevel, errMsg: `findings: finding_level_overrides[1].level: invalid level "error"`},
		{id: component.NewIDWithName(metadata.Type, "missing_override_level"), errIs: findingrules.ErrMissingLevel, errMsg: `findings: finding_level_overrides[0].level: missing (required)`},
		{id: component.NewIDWithName(metadata.Type, "bad_filter_signal_type"), errIs: findingrules.ErrUnknownSignalType, errMsg: `findings: finding_filters[0].signal_type: unknown signal type "trace": want span, resource, metric, log, profile`},
		{id: component.NewIDWithName(metadata.Type, "bad_filter_min_level"), errIs: findingrules.ErrInvalidLevel, errMsg: `findings: finding_filters[0].min_level: invalid level "warning"`},
		{id: component.NewIDWithName(metadata.Type, "bad_filter_glob"), errIs: findingrules.ErrInvalidPattern, errMsg: `findings: finding_filters[0].exclude_samples: invalid sample name pattern "http.{a,b"`},
		{id: component.NewIDWithName(metadata.Type, "bad_filter_id"), errIs: findingrules.ErrUnknownID, errMsg: `findings: finding_filters[0].exclude: "no_such_finding": unknown finding ID`},
		{id: component.NewIDWithName(metadata.Type, "bad_profile"), errIs: errUnknownProfile, errMsg: `findings: profile: unknown findings profile "weaverish", want weaver or extended`},
		{id: component.NewIDWithName(metadata.Type, "drop_without_findings"), errIs: errNeedsFindings, errMsg: "findings: drop_unexpected_attributes: needs findings::enabled"},
		{id: component.NewIDWithName(metadata.Type, "finding_logs_zero_rate"), errIs: errNotPositive, errMsg: "findings: logs::max_per_second: must be positive, got 0"},
		{id: component.NewIDWithName(metadata.Type, "bad_deprecated"), errIs: errInvalidMode, errMsg: `deprecated: invalid mode "move", want rename, copy or off`},
		{id: component.NewIDWithName(metadata.Type, "bad_unknown"), errIs: errInvalidMode, errMsg: `unknown: invalid mode "hide"`},
		{id: component.NewIDWithName(metadata.Type, "bad_type_mismatch"), errIs: errInvalidMode, errMsg: `type_mismatch: invalid mode "convert"`},
		{id: component.NewIDWithName(metadata.Type, "bad_enum_violation"), errIs: errInvalidMode, errMsg: `enum_violation: invalid mode "coerce"`},
		{id: component.NewIDWithName(metadata.Type, "negative_limit"), errIs: errNegativeLimit, errMsg: "service_limit: must not be negative"},
		{id: component.NewIDWithName(metadata.Type, "empty_include"), errIs: errEmptyIncludeList, errMsg: `include_resources: "service.name": needs at least one value`},
		{id: component.NewIDWithName(metadata.Type, "empty_allow_prefix"), errIs: errEmptyAllow, errMsg: "allow: prefixes[0]: allow entries must not be empty"},
		{id: component.NewIDWithName(metadata.Type, "missing_org_registry"), errIs: errRegistryPath, errMsg: "registry: org_registries[0]: registry path not found"},
		{id: component.NewIDWithName(metadata.Type, "missing_rules_file"), errIs: errRegistryPath, errMsg: "registry: rules_files[0]: registry path not found"},
		{id: component.NewIDWithName(metadata.Type, "broken_rules_file"), errIs: errRegistryLoad, errMsg: "registry: registry does not load"},
		{id: component.NewIDWithName(metadata.Type, "empty_closed_enum"), errIs: errEmptyClosedEnum, errMsg: "closed_enums[0]: entries must not be empty"},
		{id: component.NewIDWithName(metadata.Type, "bad_value_rule"), errIs: errRegistryLoad, errMsg: `testdata/bad_value_rules.yaml:7: rule for "db.system": values: "mssql" -> "sqlserver": "sqlserver" is not a member of the target enum "db.system.name"`},
		{id: component.NewIDWithName(metadata.Type, "no_source"), errIs: errNoRegistry, errMsg: "registry: no registry source"},
		{id: component.NewIDWithName(metadata.Type, "broken_policy"), errIs: errPolicy, errMsg: "findings: policy does not load: policies: policy does not compile: testdata/policies_broken/broken.rego:6:"},
		{id: component.NewIDWithName(metadata.Type, "bad_advice_data"), errIs: policy.ErrData, errMsg: "findings: policy does not load: advice_data: advice data does not load: testdata/advice/bad_data/user.json:3:1: invalid JSON"},
		{id: component.NewIDWithName(metadata.Type, "missing_advice_data"), errIs: policy.ErrData, errMsg: "findings: policy does not load: advice_data: advice data does not load: stat testdata/advice/none"},
		{id: component.NewIDWithName(metadata.Type, "bad_advice_preprocessor"), errIs: policy.ErrPreprocessor, errMsg: "findings: policy does not load: advice_preprocessor: advice preprocessor: testdata/advice/bad.jq:3:1: unexpected token"},
		{id: component.NewIDWithName(metadata.Type, "advice_data_without_policies"), errIs: policy.ErrNeedsPolicies, errMsg: "findings: policy does not load: advice_data: needs policies: set policies"},
		{id: component.NewIDWithName(metadata.Type, "policy_level_override_without_policies"), errIs: findingrules.ErrUnknownID, errMsg: `findings: level_overrides: "acme_no_test_keys": unknown finding ID (not built in, and no policies)`},
		{id: component.NewIDWithName(metadata.Type, "zero_policy_budget"), errIs: errNotPositive, errMsg: "findings: policy_budget_per_second: must be positive, got 0"},
		{id: component.NewIDWithName(metadata.Type, "policies_without_findings"), errIs: errNeedsFindings, errMsg: "findings: policies: needs findings::enabled"},
		{id: component.NewIDWithName(metadata.Type, "policies_with_extension"), errIs: errPoliciesOwned, errMsg: `findings::policies: cannot be combined with registry::extension: the extension "governance_registry" owns the policies`},
		{id: component.NewIDWithName(metadata.Type, "advice_data_with_extension"), errIs: errPoliciesOwned, errMsg: `findings::advice_data: cannot be combined with registry::extension: the extension "governance_registry" owns the policies and their inputs (its advice_data key)`},
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
			c := cfg.(*config)
			if c.Registry.Extension == nil {
				require.NotNil(t, c.Registry.validated, "Validate keeps the registry it resolved for the factory")
			}
			c.Registry.validated = nil
			assert.Equal(t, tt.expected, cfg)
		})
	}
}
