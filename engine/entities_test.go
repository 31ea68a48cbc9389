package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

const entityRegistry = `groups:
  - id: entity.acme.tenant
    type: entity
    name: acme.tenant
    stability: stable
    attributes:
      - id: acme.tenant.id
        type: string
        stability: stable
        requirement_level: required
      - id: acme.tenant.name
        type: string
        stability: stable
        requirement_level: recommended
      - id: acme.tenant.tier
        type: string
        stability: stable
        requirement_level: opt_in
      - id: acme.tenant.region
        type: string
        stability: stable
        requirement_level:
          conditionally_required: when multi-region
  - id: entity.acme.shard
    type: entity
    name: acme.shard
    stability: stable
    attributes:
      - id: acme.shard.id
        type: string
        stability: stable
        requirement_level: required
  - id: event.acme.login
    type: event
    name: acme.login
    stability: stable
    entity_associations: [acme.tenant]
  - id: event.acme.pick
    type: event
    name: acme.pick
    stability: stable
    entity_associations: [acme.tenant, acme.shard, acme.unknown]
  - id: event.acme.both
    type: event
    name: acme.both
    stability: stable
    entity_associations:
      - all_of: [acme.shard, {one_of: [acme.tenant]}]
`

// TestEntityFindings checks entity_associations against the resource, in
// both profiles (they are Weaver's).
func TestEntityFindings(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "reg.yaml"), []byte(entityRegistry), 0o600))
	ix, err := registry.Load(registry.Sources{OrgRegistries: []string{dir}})
	require.NoError(t, err)
	tenant := map[string]any{"acme.tenant.id": "t1", "acme.tenant.name": "n", "acme.tenant.tier": "gold", "acme.tenant.region": "eu"}
	tests := []struct {
		name     string
		event    string
		resource map[string]any
		want     map[vocab.Finding]int64
	}{
		{"all absent", "acme.login", nil, map[vocab.Finding]int64{
			vocab.FindingEntityRequiredAttributeNotPresent: 1, vocab.FindingEntityRecommendedAttributeNotPresent: 1,
			vocab.FindingEntityOptInAttributeNotPresent: 1, vocab.FindingEntityConditionallyRequiredAttributeNotPresent: 1,
		}},
		{"required present", "acme.login", map[string]any{"acme.tenant.id": "t1"}, map[vocab.Finding]int64{
			vocab.FindingEntityRecommendedAttributeNotPresent: 1, vocab.FindingEntityOptInAttributeNotPresent: 1,
			vocab.FindingEntityConditionallyRequiredAttributeNotPresent: 1,
		}},
		{"all present", "acme.login", tenant, map[vocab.Finding]int64{}},
		// an unknown entity is satisfied: the implicit one_of is, through it
		{"top level one_of with an unknown entity", "acme.pick", nil, map[vocab.Finding]int64{}},
		{"all_of with an unsatisfied one_of", "acme.both", map[string]any{"acme.shard.id": "s"}, map[vocab.Finding]int64{
			vocab.FindingEntityAssociationNotSatisfied: 1,
		}},
		{"all_of: each child's findings", "acme.both", map[string]any{"acme.tenant.id": "t1"}, map[vocab.Finding]int64{
			vocab.FindingEntityRequiredAttributeNotPresent: 1, vocab.FindingEntityAssociationNotSatisfied: 0,
			vocab.FindingEntityRecommendedAttributeNotPresent: 1, vocab.FindingEntityOptInAttributeNotPresent: 1,
			vocab.FindingEntityConditionallyRequiredAttributeNotPresent: 1,
		}},
	}
	produced := map[vocab.Finding]bool{}
	for _, tt := range tests {
		for _, p := range []vocab.Profile{vocab.ProfileWeaver, vocab.ProfileExtended} {
			t.Run(tt.name+"/"+p.String(), func(t *testing.T) {
				ld := plog.NewLogs()
				rl := ld.ResourceLogs().AppendEmpty()
				require.NoError(t, rl.Resource().Attributes().FromRaw(tt.resource))
				rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().SetEventName(tt.event)
				opts := findingOptions()
				opts.Profile = p
				e := New(opts)
				w := e.Walker(ix, true)
				defer e.Release(w)
				w.Logs(ld)
				for f := vocab.FindingEntityRequiredAttributeNotPresent; f < vocab.NumFindings; f++ {
					assert.Equal(t, tt.want[f], countsOf(w.Batch()).Findings[f], "%s", f)
					produced[f] = produced[f] || countsOf(w.Batch()).Findings[f] > 0
				}
			})
		}
	}
	for f := vocab.FindingEntityRequiredAttributeNotPresent; f < vocab.NumFindings; f++ {
		assert.True(t, produced[f], "no case produces %s", f)
	}
}

// TestEntityTypes: the entity types of an association, in order and each
// once, as Weaver's referenced_entities with its de-duplication
// (crates/weaver_live_check/src/advice/type_advisor.rs at afa9700c).
func TestEntityTypes(t *testing.T) {
	as := []registry.EntityAssociation{
		{AllOf: []registry.EntityAssociation{{Entity: "tenant"}, {Entity: "host"}}},
		{OneOf: []registry.EntityAssociation{{Entity: "container"}, {Entity: "host"}}},
		{Entity: "tenant"},
	}
	assert.Equal(t, []string{"tenant", "host", "container"}, EntityTypes(as))
	assert.Nil(t, EntityTypes(nil))
	ev := FindingEvent{Association: as[1].OneOf}
	assert.Equal(t, []string{"container", "host"}, ev.EntityTypes())
}
