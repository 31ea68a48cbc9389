package upgrade

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/registry/change"
)

// TestPlanPair: on v1.44.0 -> next, the plan copies exactly the name that
// was current and is renamed (rpc.response.status_code); the keys whose
// old target moves (rpc.grpc.status_code: rpc.response.status_code before,
// rpc.status_code now) are renamed and listed as moved; the five metrics
// on which error.type becomes conditionally required are listed for a
// person (producers must add it; the collector cannot). The steps come in
// order: consumers first, the window's end last.
func TestPlanPair(t *testing.T) {
	_, _, set := loadPair(t)
	p, err := NewPlan(NewTouches(set), PlanInput{Registry: registry.Sources{SemconvDir: newDir}, RegistryFlags: "--semconv-dir " + newDir, Window: 2 * time.Minute})
	require.NoError(t, err)
	assert.Equal(t, []string{"rpc.response.status_code"}, p.Copy)
	var moved []string
	for _, m := range p.Moved {
		moved = append(moved, m.Name)
		assert.Contains(t, m.Why[0], "renamed it to rpc.response.status_code")
	}
	assert.Equal(t, []string{"rpc.connect_rpc.error_code", "rpc.grpc.status_code", "rpc.jsonrpc.error_code"}, moved)
	var manual []string
	for _, m := range p.Manual {
		assert.Equal(t, "error.type", m.Name)
		assert.Equal(t, []string{"requirement_level_changed"}, m.Kinds)
		assert.Equal(t, []string{"producers must now send it (conditionally_required)"}, m.Why)
		manual = append(manual, m.Item+" "+m.Context)
	}
	assert.Equal(t, []string{
		"metric otel.sdk.exporter.log.exported", "metric otel.sdk.exporter.metric_data_point.exported",
		"metric otel.sdk.exporter.span.exported", "metric otel.sdk.processor.log.processed", "metric otel.sdk.processor.span.processed",
	}, manual)
	assert.Contains(t, p.Config, "rpc.response.status_code: copy")
	assert.Contains(t, p.Config, "semconv_dir: "+newDir)
	require.GreaterOrEqual(t, len(p.Steps), 4)
	assert.Contains(t, p.Steps[0], "--write --both")
	assert.Contains(t, p.Steps[len(p.Steps)-1], "remove deprecated_names")
	all := strings.Join(p.Steps, "\n")
	assert.Contains(t, all, "otelgov queries --write --both --semconv-dir "+newDir+" DASHBOARDS_AND_RULES", "the commands carry the new registry's flags")
	assert.NotContains(t, all, "<new registry flags>")
	assert.Contains(t, all, "--window 2m ", "the status step echoes --window")
	require.Len(t, p.Hops, 3)
	assert.Equal(t, []string{HopGateway, HopSidecar, HopCollector}, []string{p.Hops[0].Name, p.Hops[1].Name, p.Hops[2].Name})
	assert.Contains(t, p.Hops[0].Config, "extensions:\n    governance_registry:\n        semconv_dir: "+newDir+"\n")
	assert.Contains(t, p.Hops[0].Config, "rpc.response.status_code: copy")
	// Every hop copies and counts: the sidecar, the first hop, loads the
	// new registry as the processor's own with the same deprecated_names,
	// so it renames no old name before a hop that counts it.
	for _, h := range p.Hops {
		assert.Contains(t, h.Config, "deprecated_names:\n            rpc.response.status_code: copy\n", h.Name)
	}
	assert.Contains(t, p.Hops[1].Config, "registry:\n            embedded: false\n            semconv_dir: "+newDir+"\n", "the sidecar's own registry is the new one")
	assert.NotContains(t, p.Hops[1].Config, "extensions:")
	_, sidecarKeys, _ := strings.Cut(p.Hops[1].Config, "\nprocessors:")
	_, collectorKeys, _ := strings.Cut(p.Hops[2].Config, "\nprocessors:")
	assert.Equal(t, sidecarKeys, collectorKeys, "the sidecar and a lone collector get the same keys")
	assert.Equal(t, p.Config, p.Hops[2].Config)
	assert.NotContains(t, all, "keep the registry they run")
	assert.NotContains(t, all, "24h")
}

// TestPlanManual: a unit change without a factor, a merge, a split (in
// rename mode only) and an instrument change are listed for a person with
// the change model's reasons; a merge and a split are not copied (copy
// mode does not apply them), the rename beside the unit change is.
func TestPlanManual(t *testing.T) {
	set := &change.Set{Changes: []change.Change{
		{Kind: change.Merge, Item: change.ItemAttribute, Name: "code.function", NewName: "code.function.name", Into: []string{"code.function", "code.namespace"}, Why: "a merge needs every part"},
		{Kind: change.Split, Item: change.ItemAttribute, Name: "net.peer", Into: []string{"server.address", "server.port"}, Migratable: true},
		{Kind: change.InstrumentChanged, Item: change.ItemMetric, Name: "jvm.cpu", OldValue: "counter", NewValue: "gauge", Why: "the data points change type"},
		{Kind: change.MetricRenamed, Item: change.ItemMetric, Name: "jvm.gc.duration", NewName: "jvm.gc.time", Migratable: true},
		{Kind: change.UnitChanged, Item: change.ItemMetric, Name: "jvm.gc.duration", NewName: "jvm.gc.time", OldValue: "{gc}", NewValue: "s", Why: "no factor from {gc} to s"},
		{Kind: change.AttributeRemoved, Item: change.ItemAttribute, Name: "gone", Why: "the new registry does not define the key"},
	}}
	p, err := NewPlan(NewTouches(set), PlanInput{Registry: registry.Sources{Embedded: true}, RegistryFlags: "--embedded"})
	require.NoError(t, err)
	assert.Equal(t, []string{"jvm.gc.duration"}, p.Copy)
	got := map[string]string{}
	for _, m := range p.Manual {
		got[m.Name] = strings.Join(m.Kinds, ",") + ": " + strings.Join(m.Why, "; ")
	}
	assert.Equal(t, map[string]string{
		"code.function":   "merge: a merge needs every part",
		"net.peer":        "split: a split applies in rename mode only: during the window (deprecated_names: copy) the old key arrives as sent and the new keys are absent",
		"jvm.cpu":         "instrument_changed: the data points change type",
		"jvm.gc.duration": "unit_changed: no factor from {gc} to s",
	}, got, "every change a person must carry, and only those (a removal is kept as sent)")
	assert.NotContains(t, p.Config, "code.function")
	assert.NotContains(t, p.Config, "net.peer")
}
