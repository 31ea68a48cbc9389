package manifestlint

import (
	"os"
	"sort"
	"strings"
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
	require.Len(t, exprs, 12, "the alerting and recording rules")
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
			notExported(c, "otelcol_processor_governance_registry_generation"),
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

// notExported is the message for a governance metric the collector does not
// export: it lists the processor's declared metrics, so a metric added to
// metadata.yaml does not have to be written into this test again.
func notExported(c PromQLCheck, name string) string {
	var same []string
	for m := range c.Exported {
		if strings.HasPrefix(m, "otelcol_processor_governance_") {
			same = append(same, m)
		}
	}
	sort.Strings(same)
	return "metric " + name + " is not exported (exported: " + strings.Join(same, ", ") + ")"
}
