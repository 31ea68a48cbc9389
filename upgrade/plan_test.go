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
// rpc.status_code now) are renamed and listed as moved; nothing needs a
// person. The steps come in order: consumers first, the window's end last.
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
	assert.Empty(t, p.Manual)
	assert.Contains(t, p.Config, "rpc.response.status_code: copy")
	assert.Contains(t, p.Config, "semconv_dir: "+newDir)
	require.GreaterOrEqual(t, len(p.Steps), 4)
	assert.Contains(t, p.Steps[0], "--write --both")
	assert.Contains(t, p.Steps[len(p.Steps)-1], "remove deprecated_names")
	all := strings.Join(p.Steps, "\n")
	assert.Contains(t, all, "otelgov queries --write --both --semconv-dir "+newDir+" DASHBOARDS_AND_RULES", "the commands carry the new registry's flags")
	assert.NotContains(t, all, "<new registry flags>")
	assert.Contains(t, all, "--window 2m ", "the status step echoes --window")
	assert.NotContains(t, all, "24h")
}

// TestPlanManual: a unit change without a factor and a merge are listed for
// a person, and a merge is not copied (copy mode does not apply it).
func TestPlanManual(t *testing.T) {
	touches := &Touches{
		Attributes: map[string]*Touch{"code.function": {
			Item: change.ItemAttribute, Name: "code.function", NewName: "code.function.name", Rewritten: true,
			Kinds: []change.Kind{change.Merge}, Manual: []string{"a merge needs every key it reads"},
		}},
		Metrics: map[string]*Touch{"jvm.gc.duration": {
			Item: change.ItemMetric, Name: "jvm.gc.duration", NewName: "jvm.gc.time", Rewritten: true,
			Kinds: []change.Kind{change.MetricRenamed, change.UnitChanged}, Manual: []string{"no factor from {gc} to s"},
		}},
	}
	p, err := NewPlan(touches, PlanInput{Registry: registry.Sources{Embedded: true}, RegistryFlags: "--embedded"})
	require.NoError(t, err)
	assert.Equal(t, []string{"jvm.gc.duration"}, p.Copy)
	require.Len(t, p.Manual, 2)
	assert.Equal(t, "code.function", p.Manual[0].Name)
	assert.Contains(t, strings.Join(p.Manual[0].Why, "; "), "rename mode only")
	assert.Equal(t, []string{"no factor from {gc} to s"}, p.Manual[1].Why)
	assert.NotContains(t, p.Config, "code.function")
}
