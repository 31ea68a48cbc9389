package manifestlint

import (
	"os"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TargetLabels are what Prometheus adds to every scraped series.
var targetLabels = []string{"job", "instance", "pod", "namespace", "service", "container", "endpoint"}

func declaredCheck(t *testing.T) PromQLCheck {
	t.Helper()
	exported, enums := Exported{}, map[string][]string{}
	for _, path := range []string{
		"../../processor/governanceprocessor/metadata.yaml",
		"../../extension/registryextension/metadata.yaml",
	} {
		md, err := os.ReadFile(path)
		require.NoError(t, err)
		e, en, err := DeclaredTelemetry(md)
		require.NoError(t, err)
		for k, v := range e {
			exported[k] = v
		}
		for k, v := range en {
			enums[k] = v
		}
	}
	require.Contains(t, exported, "otelcol_processor_governance_service_attributes")
	require.True(t, exported["otelcol_processor_governance_service_attributes"]["service_name"])
	return PromQLCheck{Exported: exported, TargetLabels: targetLabels, Enums: enums}
}

func shippedExprs(t *testing.T) (map[string]string, Exported) {
	t.Helper()
	objs, err := LoadPaths(nil, "../../distribution/k8s/monitoring/governance-rules.yaml")
	require.NoError(t, err)
	require.Len(t, objs, 1)
	exprs, recorded := RuleExprs(objs[0].Doc)
	require.Len(t, exprs, 11, "the alerting and recording rules")
	data, err := os.ReadFile("../../distribution/k8s/monitoring/governance-dashboard.json")
	require.NoError(t, err)
	dash, err := DashboardExprs(data)
	require.NoError(t, err)
	require.Len(t, dash, 17, "15 panel targets (7 of the report, 3 of the shape memo, 5 of the policies) and the service variable's query and definition")
	for k, v := range dash {
		exprs[k] = v
	}
	return exprs, recorded
}

// TestShippedPromQLUsesDeclaredNames checks the rules and the dashboard
// against the processor's metadata.yaml; e2e/k8s_test.go checks them again
// against what the built binary actually serves.
func TestShippedPromQLUsesDeclaredNames(t *testing.T) {
	c := declaredCheck(t)
	exprs, recorded := shippedExprs(t)
	c.Recorded = recorded
	for name, expr := range exprs {
		assert.Empty(t, c.Check(expr), "%s: %s", name, expr)
	}
}

func TestDriftedPromQLFails(t *testing.T) {
	c := declaredCheck(t)
	data, err := os.ReadFile("testdata/promql/dashboard-drifted.json")
	require.NoError(t, err)
	dash, err := DashboardExprs(data)
	require.NoError(t, err)
	objs, err := LoadPaths(nil, "testdata/promql/rules-drifted.yaml")
	require.NoError(t, err)
	rules, recorded := RuleExprs(objs[0].Doc)
	c.Recorded = recorded
	got := map[string][]string{}
	for k, v := range dash {
		if errs := c.Check(v); len(errs) > 0 {
			got[k] = errs
		}
	}
	for k, v := range rules {
		if errs := c.Check(v); len(errs) > 0 {
			sort.Strings(errs)
			got[k] = errs
		}
	}
	assert.Equal(t, map[string][]string{
		"panel Conformance by service/A": {
			"metric otelcol_processor_governance_service_attributes_total is not exported (otelcol_processor_governance_service_attributes is; counters on :8888 have no _total suffix)",
		},
		"panel Top offenders/A": {
			"by (servicename): no metric in the expression (otelcol_processor_governance_service_attributes) has label servicename",
			`metric otelcol_processor_governance_service_attributes: outcome="deprecated" is not a declared value (conformant, allowed, renamed, copied, conflict, deprecated_kept, unknown, type_mismatch, enum_violation, coerced, dropped, incompatible, value_renamed, converted, split, merged, moved, undefined_enum_variant)`,
		},
		"variable service": {
			"label_values (servicename): no metric in the expression (otelcol_processor_governance_service_attributes) has label servicename",
		},
		"drifted/RegistryGenerationLag": {
			"metric otelcol_processor_governance_registry_generation is not exported (exported: otelcol_processor_governance_attributes, otelcol_processor_governance_attributes_dropped, otelcol_processor_governance_entity_associations_not_satisfied, otelcol_processor_governance_findings, otelcol_processor_governance_memo_bytes, otelcol_processor_governance_memo_entries, otelcol_processor_governance_memo_evictions, otelcol_processor_governance_memo_hits, otelcol_processor_governance_memo_misses, otelcol_processor_governance_metric_names, otelcol_processor_governance_policy_budget_skips, otelcol_processor_governance_policy_errors, otelcol_processor_governance_policy_evaluations, otelcol_processor_governance_policy_findings, otelcol_processor_governance_policy_memo_hits, otelcol_processor_governance_policy_timeouts, otelcol_processor_governance_registry_info, otelcol_processor_governance_schema_url_rewrites, otelcol_processor_governance_service_attributes, otelcol_processor_governance_service_deprecated_names, otelcol_processor_governance_service_findings, otelcol_processor_governance_service_name_bounded, otelcol_processor_governance_service_overflow, otelcol_processor_governance_shadow_batches, otelcol_processor_governance_shadow_candidate, otelcol_processor_governance_shadow_changes, otelcol_processor_governance_shadow_items)",
		},
		"drifted/UnknownShare": {
			"by (service_namespace): no metric in the expression (otelcol_processor_governance_attributes) has label service_namespace",
		},
	}, got)
}

func TestPromQLSyntaxError(t *testing.T) {
	c := declaredCheck(t)
	errs := c.Check(`sum by (outcome (rate(otelcol_processor_governance_attributes[5m]))`)
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0], "does not parse")
}
