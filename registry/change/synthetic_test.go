package change_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/registry/change"
)

// orgIndex loads one organisation registry file on its own.
func orgIndex(t *testing.T, body string) *registry.Index {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "acme.yaml"), []byte(body), 0o600))
	ix, err := registry.Load(registry.Sources{OrgRegistries: []string{dir}})
	require.NoError(t, err)
	return ix
}

const synthOld = `groups:
  - id: registry.acme
    type: attribute_group
    attributes:
      - {id: acme.a, type: string, stability: development}
      - {id: acme.b, type: string, stability: development}
      - id: acme.x
        type: string
        stability: development
        deprecated: {reason: renamed, renamed_to: acme.y}
      - {id: acme.y, type: string, stability: development}
      - id: acme.o
        type: string
        stability: development
        deprecated: {reason: obsoleted, note: "gone"}
      - id: acme.kind
        type:
          members:
            - {id: one, value: one}
            - {id: two, value: two}
            - {id: three, value: three}
        stability: development
      - {id: acme.count, type: int, stability: development}
  - id: event.acme.start
    type: event
    name: acme.start
    stability: development
    deprecated: {reason: renamed, renamed_to: acme.begin}
  - id: event.acme.begin
    type: event
    name: acme.begin
    stability: development
`

const synthNew = `groups:
  - id: registry.acme
    type: attribute_group
    attributes:
      - id: acme.a
        type: string
        stability: development
        deprecated: {reason: renamed, renamed_to: acme.b}
      - id: acme.b
        type: string
        stability: development
        deprecated: {reason: renamed, renamed_to: acme.c}
      - {id: acme.c, type: string, stability: development}
      - id: acme.x
        type: string
        stability: development
        deprecated: {reason: renamed, renamed_to: acme.y}
      - id: acme.y
        type: string
        stability: development
        deprecated: {reason: renamed, renamed_to: acme.z}
      - {id: acme.z, type: string, stability: development}
      - id: acme.o
        type: string
        stability: development
        deprecated: {reason: obsoleted, note: "gone for good"}
      - id: acme.kind
        type:
          members:
            - {id: one, value: one}
            - id: two
              value: two
              deprecated: {reason: renamed, renamed_to: deux}
            - {id: deux, value: deux}
        stability: stable
      - {id: acme.count, type: string, stability: development}
  - id: event.acme.start
    type: event
    name: acme.start
    stability: development
    deprecated: {reason: renamed, renamed_to: acme.begin}
  - id: event.acme.begin
    type: event
    name: acme.begin
    stability: development
    deprecated: {reason: renamed, renamed_to: acme.started}
  - id: event.acme.started
    type: event
    name: acme.started
    stability: development
`

// TestDiffSynthetic: chains collapse (a -> b, b -> c is a -> c) where
// Weaver reports each declared hop; a target that moves (x -> y, now
// y -> z) is a rename; a note change on an obsoleted key is a
// deprecation_changed; enum members, a type and stability; and an event
// whose rename target moves. Weaver's algorithm agrees with Set.Weaver.
func TestDiffSynthetic(t *testing.T) {
	oldIx, newIx := orgIndex(t, synthOld), orgIndex(t, synthNew)
	set, err := change.Diff(oldIx, newIx)
	require.NoError(t, err)
	var got []string
	for _, c := range set.Changes {
		got = append(got, c.String())
	}
	assert.Equal(t, []string{
		"attribute_renamed acme.a -> acme.c",
		"attribute_renamed acme.b -> acme.c",
		"attribute_added acme.c (none -> string)",
		"type_changed acme.count (int -> string)",
		"enum_member_added acme.kind=deux",
		"enum_member_renamed acme.kind=two -> deux",
		"enum_member_removed acme.kind=three",
		"stability_changed acme.kind (development -> stable)",
		"deprecation_changed acme.o (obsoleted -> obsoleted)",
		"attribute_renamed acme.x -> acme.z (was -> acme.y)",
		"attribute_renamed acme.y -> acme.z",
		"attribute_added acme.z (none -> string)",
		"event_renamed acme.begin -> acme.started",
		"event_renamed acme.start -> acme.started (was -> acme.begin)",
		"event_added acme.started",
	}, got)
	c := find(t, set, change.TypeChanged, "acme.count", "")
	assert.False(t, c.Migratable)
	assert.Equal(t, "no conversion from int to string is declared", c.Why)

	// Weaver reports the declared hops (a -> b, b -> c), the obsoleted
	// key again for its new note, and nothing for x or acme.start, whose
	// declarations did not change.
	assert.Equal(t, weaverOracle(oldIx, newIx), flatten(set.Weaver()))
	assert.Equal(t, []string{
		"events added acme.started",
		"events renamed acme.begin -> acme.started (Replaced by `acme.started`.)",
		"registry_attributes added acme.c",
		"registry_attributes added acme.z",
		"registry_attributes obsoleted acme.o (gone for good)",
		"registry_attributes renamed acme.a -> acme.b (Replaced by `acme.b`.)",
		"registry_attributes renamed acme.b -> acme.c (Replaced by `acme.c`.)",
		"registry_attributes renamed acme.y -> acme.z (Replaced by `acme.z`.)",
	}, flatten(set.Weaver()))
}

// TestDiffScopedRenameInSignal: a rules file renames acme.dir only on the
// metric acme.io; the metric's new definition lists the new key, which
// is the rename, not the attribute leaving and another joining.
func TestDiffScopedRenameInSignal(t *testing.T) {
	const metric = `
  - id: metric.acme.io
    type: metric
    metric_name: acme.io
    instrument: counter
    unit: By
    stability: development
    attributes:
      - ref: %s
`
	oldIx := orgIndex(t, `groups:
  - id: registry.acme
    type: attribute_group
    attributes:
      - {id: acme.dir, type: string, stability: development}
`+fmt.Sprintf(metric, "acme.dir"))
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "acme.yaml"), []byte(`groups:
  - id: registry.acme
    type: attribute_group
    attributes:
      - id: acme.dir
        type: string
        stability: development
        deprecated: {reason: uncategorized, note: "use acme.direction on acme.io"}
      - {id: acme.direction, type: string, stability: development}
`+fmt.Sprintf(metric, "acme.direction")), 0o600))
	rules := filepath.Join(t.TempDir(), "rules.yaml")
	require.NoError(t, os.WriteFile(rules, []byte(`file_format: otelgov.rules/1
rules:
  - key: acme.dir
    renames:
      - {to: acme.direction, locations: [data_point], metrics: [acme.io]}
`), 0o600))
	newIx, err := registry.Load(registry.Sources{OrgRegistries: []string{dir}, RulesFiles: []string{rules}})
	require.NoError(t, err)
	set, err := change.Diff(oldIx, newIx)
	require.NoError(t, err)
	var got []string
	for _, c := range set.Changes {
		got = append(got, c.String())
	}
	assert.Equal(t, []string{
		"attribute_renamed acme.dir -> acme.direction",
		"attribute_added acme.direction (none -> string)",
	}, got)
	c := set.Changes[0]
	require.NotNil(t, c.Scope)
	assert.Equal(t, []string{"acme.io"}, c.Scope.Metrics)
	assert.Equal(t, registry.DeprecatedUncategorized, c.Deprecation.Reason, "the rename carries the declared deprecation")
}

// TestWeaverJSON: each change type has the fields Weaver's serde writes
// (schema_changes.rs:52-95, tag "type", snake_case), a note even when
// empty.
func TestWeaverJSON(t *testing.T) {
	for _, tt := range []struct {
		in   change.WeaverItemChange
		want string
	}{
		{change.WeaverItemChange{Type: "added", Name: "a"}, `{"type":"added","name":"a"}`},
		{change.WeaverItemChange{Type: "removed", Name: "a"}, `{"type":"removed","name":"a"}`},
		{change.WeaverItemChange{Type: "renamed", OldName: "a", NewName: "b", Note: "n"}, `{"type":"renamed","old_name":"a","new_name":"b","note":"n"}`},
		{change.WeaverItemChange{Type: "obsoleted", Name: "a"}, `{"type":"obsoleted","name":"a","note":""}`},
		{change.WeaverItemChange{Type: "uncategorized", Name: "a", Note: "n"}, `{"type":"uncategorized","name":"a","note":"n"}`},
	} {
		b, err := json.Marshal(tt.in)
		require.NoError(t, err)
		assert.JSONEq(t, tt.want, string(b))
		var back change.WeaverItemChange
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, tt.in, back)
	}
}
