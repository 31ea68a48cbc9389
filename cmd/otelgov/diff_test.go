package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/registry/change"
)

// release returns a semantic-conventions release under ../shared/semconv,
// skipping the test when the shared data is absent.
func release(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "semconv", name)
	if _, err := os.Stat(filepath.Join(dir, "model")); err != nil {
		t.Skipf("semantic conventions %s not available: %v", name, err)
	}
	return dir
}

// TestRegistryDiffNext: the embedded v1.44.0 against main after it.
func TestRegistryDiffNext(t *testing.T) {
	next := release(t, "next-384d661")
	code, out, stderr := otelgov(t, "", "registry", "diff", "embedded", next)
	require.Equal(t, exitClean, code, stderr)
	assert.Contains(t, out, "attribute_renamed (4)\n  rpc.connect_rpc.error_code -> rpc.status_code (was -> rpc.response.status_code)\n")
	assert.Contains(t, out, "  error.type on otel.sdk.exporter.span.exported (recommended -> conditionally_required)  [not migratable: producers must now send it (conditionally_required)]\n")
	assert.Contains(t, out, "24 change(s), 5 not migratable automatically:")
	assert.Empty(t, stderr)

	// A CI gate on a kind the diff has, and on one it has not.
	code, _, stderr = otelgov(t, "", "registry", "diff", "--fail-on", "metric_removed,attribute_renamed", "embedded", next)
	assert.Equal(t, exitFindings, code)
	assert.Contains(t, stderr, "4 change(s) of a --fail-on kind")
	code, _, _ = otelgov(t, "", "registry", "diff", "--fail-on", "metric_removed", "embedded", next)
	assert.Equal(t, exitClean, code)

	// json: the change model.
	code, out, stderr = otelgov(t, "", "registry", "diff", "--format", "json", "embedded", next)
	require.Equal(t, exitClean, code, stderr)
	var doc struct {
		Old     change.Side    `json:"old"`
		Counts  map[string]int `json:"counts"`
		Changes []struct {
			Kind       string `json:"kind"`
			Item       string `json:"item"`
			Name       string `json:"name"`
			NewName    string `json:"new_name"`
			OldValue   string `json:"old_value"`
			Context    string `json:"context"`
			Migratable bool   `json:"migratable"`
		} `json:"changes"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, "1.44.0", doc.Old.Version)
	assert.Equal(t, 10, doc.Counts["requirement_level_changed"])
	require.NotEmpty(t, doc.Changes)
	found := false
	for _, c := range doc.Changes {
		if c.Kind == "attribute_renamed" && c.Name == "rpc.grpc.status_code" {
			found = true
			assert.Equal(t, [3]string{"attribute", "rpc.status_code", "rpc.response.status_code"}, [3]string{c.Item, c.NewName, c.OldValue})
			assert.True(t, c.Migratable)
		}
	}
	assert.True(t, found)

	// weaver: Weaver's v1 SchemaChanges.
	code, out, stderr = otelgov(t, "", "registry", "diff", "--format", "weaver", "embedded", next)
	require.Equal(t, exitClean, code, stderr)
	var sc change.SchemaChanges
	require.NoError(t, json.Unmarshal([]byte(out), &sc))
	assert.Equal(t, "1.44.0", sc.Baseline.SemconvVersion)
	assert.Len(t, sc.Changes, 5)
	assert.Contains(t, sc.Changes["registry_attributes"], change.WeaverItemChange{
		Type: "renamed", OldName: "rpc.response.status_code", NewName: "rpc.status_code", Note: "Replaced by `rpc.status_code`.",
	})
	assert.Len(t, sc.Changes["registry_attributes"], 7)

	// markdown: a pull-request comment.
	code, out, stderr = otelgov(t, "", "registry", "diff", "--format", "markdown", "embedded", next)
	require.Equal(t, exitClean, code, stderr)
	assert.Contains(t, out, "| `requirement_level_changed` | 10 | 5 |\n")
	assert.Contains(t, out, "| :warning: `error.type` |  | `otel.sdk.exporter.log.exported` | recommended | conditionally_required | not migratable: producers must now send it (conditionally_required) |\n")
}

// TestRegistryDiffOlder: v1.40.0 loads with warnings on stderr (not
// failures), and the diff to the embedded v1.44.0 is a report.
func TestRegistryDiffOlder(t *testing.T) {
	code, out, stderr := otelgov(t, "", "registry", "diff", release(t, "v1.40.0"), "embedded")
	require.Equal(t, exitClean, code, stderr)
	assert.Contains(t, stderr, "otelgov: warning: old registry ")
	assert.Contains(t, stderr, "model/db/deprecated/registry-deprecated.yaml:88: deprecated.renamed_to")
	assert.Contains(t, stderr, "registry/rules/semconv.yaml:431: shipped rule not applied to this release")
	assert.Contains(t, out, "metric_renamed (10)\n")
	assert.Contains(t, out, "  container.memory.usage (counter -> updowncounter)  [not migratable: ")
	assert.Contains(t, out, "unit_changed (1)\n  cicd.worker.count ({count} -> {worker})\n")
}

// TestRegistryDiffBadInput: a registry that does not load is exit 2 with
// a message naming the side and the file; so is usage.
func TestRegistryDiffBadInput(t *testing.T) {
	bad := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(bad, "model"), 0o750))
	model := filepath.Join(bad, "model", "acme.yaml")
	require.NoError(t, os.WriteFile(model, []byte("groups:\n  - id: registry.acme\n    type: attribute_group\n    attributes:\n      - id: acme.x\n        type: strin\n"), 0o600))
	notRegistry := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(notRegistry, "model"), 0o750))
	require.NoError(t, os.WriteFile(filepath.Join(notRegistry, "model", "foo.yaml"), []byte("foo: bar\n"), 0o600))
	org := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(org, "acme.yaml"), []byte("groups:\n  - id: registry.acme\n    type: attribute_group\n    attributes:\n      - id: acme.x\n        type: string\n        deprecated: {reason: renamed, renamed_to: acme.nope}\n"), 0o600))

	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"bad model", []string{"embedded", bad}, "otelgov: new registry " + bad + ": registry does not load: " + model + ":6: acme.x: unknown attribute type \"strin\"\n"},
		{"bad old side", []string{bad, "embedded"}, "otelgov: old registry " + bad + ": registry does not load: " + model + ":6:"},
		{"no model", []string{"embedded", t.TempDir()}, "has no model directory"},
		{"not a registry", []string{"embedded", notRegistry}, "otelgov: new registry " + notRegistry + ": " + filepath.Join(notRegistry, "model", "foo.yaml") + ":1: not a registry: "},
		{"bad org registry", []string{"--new-org-registry", org, "embedded", "embedded"}, "acme.yaml:"},
		{"missing rules", []string{"--old-rules", "nope.yaml", "embedded", "embedded"}, "otelgov: old registry embedded: registry does not load: "},
		{"bad fail-on", []string{"--fail-on", "attribute_renamed,nope", "embedded", "embedded"}, `--fail-on: unknown change kind "nope"`},
		{"bad format", []string{"--format", "yaml", "embedded", "embedded"}, `--format: unknown format "yaml"`},
		{"one side", []string{"embedded"}, "accepts 2 arg(s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := otelgov(t, "", append([]string{"registry", "diff"}, tt.args...)...)
			assert.Equal(t, exitBad, code)
			assert.Empty(t, out)
			assert.Contains(t, stderr, tt.msg)
		})
	}
}

// TestRegistryDiffSame: a registry against itself has no changes.
func TestRegistryDiffSame(t *testing.T) {
	code, out, stderr := otelgov(t, "", "registry", "diff", "--fail-on", strings.Join([]string{"attribute_renamed", "attribute_removed"}, ","), "embedded", "embedded")
	require.Equal(t, exitClean, code, stderr)
	ix, err := registry.Default()
	require.NoError(t, err)
	d := ix.Digest()[:12]
	assert.Equal(t, "registry diff embedded (1.44.0, digest "+d+") -> embedded (1.44.0, digest "+d+")\n\nno changes\n", out)
}

// TestRegistryDiffNames: each side is named by its own schema URL and
// digest: next-384d661's model/manifest.yaml says 1.45.0-unreleased
// (its newest schema file is 1.44.0's), never the embedded release's
// version; the JSON carries both whole.
func TestRegistryDiffNames(t *testing.T) {
	code, out, stderr := otelgov(t, "", "registry", "diff", semconvOld, semconvNext)
	require.Equal(t, exitClean, code, stderr)
	header, _, _ := strings.Cut(out, "\n")
	assert.Regexp(t, `^registry diff `+regexp.QuoteMeta(semconvOld)+` \(1\.44\.0, digest [0-9a-f]{12}\) -> `+regexp.QuoteMeta(semconvNext)+` \(1\.45\.0-unreleased, digest [0-9a-f]{12}\)$`, header)
	code, out, stderr = otelgov(t, "", "registry", "diff", "--format", "json", semconvOld, semconvNext)
	require.Equal(t, exitClean, code, stderr)
	var doc struct{ Old, New change.Side }
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, "https://opentelemetry.io/schemas/1.45.0-unreleased", doc.New.SchemaURL)
	assert.Equal(t, "1.45.0-unreleased", doc.New.Version)
	assert.Equal(t, "1.44.0", doc.Old.Version)
	assert.NotEqual(t, doc.Old.Digest, doc.New.Digest)
	assert.Contains(t, header, doc.New.Digest[:12])
}

// TestRegistryDiffOrgRegistries: each side has its own organisation
// registry; the new one renames a key and moves a metric from ms to s.
func TestRegistryDiffOrgRegistries(t *testing.T) {
	write := func(body string) string {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "acme.yaml"), []byte(body), 0o600))
		return dir
	}
	oldOrg := write(`groups:
  - id: registry.acme
    type: attribute_group
    attributes:
      - id: acme.tenant
        type: string
        stability: development
  - id: metric.acme.queue.latency
    type: metric
    metric_name: acme.queue.latency
    instrument: histogram
    unit: ms
    stability: development
    attributes:
      - ref: acme.tenant
`)
	newOrg := write(`groups:
  - id: registry.acme
    type: attribute_group
    attributes:
      - id: acme.tenant
        type: string
        stability: development
        deprecated: {reason: renamed, renamed_to: acme.tenant.id}
      - id: acme.tenant.id
        type: string
        stability: development
  - id: metric.acme.queue.latency
    type: metric
    metric_name: acme.queue.latency
    instrument: histogram
    unit: s
    stability: development
    attributes:
      - ref: acme.tenant.id
        requirement_level: required
`)
	code, out, stderr := otelgov(t, "", "registry", "diff", "--old-org-registry", oldOrg, "--new-org-registry", newOrg, "embedded", "embedded")
	require.Equal(t, exitClean, code, stderr)
	header, rest, _ := strings.Cut(out, "\n")
	assert.Regexp(t, `^registry diff embedded \(1\.44\.0, digest [0-9a-f]{12}\) -> embedded \(1\.44\.0, digest [0-9a-f]{12}\)$`, header)
	assert.Equal(t, `
attribute_added (1)
  acme.tenant.id (none -> string)

attribute_renamed (1)
  acme.tenant -> acme.tenant.id

unit_changed (1)
  acme.queue.latency (ms -> s)  [factor 0.001]

requirement_level_changed (1)
  acme.tenant -> acme.tenant.id on acme.queue.latency (recommended -> required)  [not migratable: producers must now send it (required)]

4 change(s), 1 not migratable automatically: 1 attribute_added, 1 attribute_renamed, 1 unit_changed, 1 requirement_level_changed
`, rest)
}
