package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/registry"
)

// TestRegistrySourceFlags: a side (--new DIR --new-org-registry ...
// --new-rules ...) written as the flags of the registry commands (what a
// plan prints for queries) and parsed back by those commands' flags is
// the same registry.Sources; so is the embedded side. The processor's
// section is the Sources' YAML.
func TestRegistrySourceFlags(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want registry.Sources
	}{
		{
			"dir",
			[]string{"--new", "/srv/semconv next", "--new-org-registry", "acme", "--new-org-registry", "it's", "--new-rules", "r.yaml"},
			registry.Sources{SemconvDir: "/srv/semconv next", OrgRegistries: []string{"acme", "it's"}, RulesFiles: []string{"r.yaml"}},
		},
		{"embedded", []string{"--new", "embedded", "--new-rules", "r.yaml"}, registry.Sources{Embedded: true, OrgRegistries: []string{}, RulesFiles: []string{"r.yaml"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			side := newSide("new")
			fs := pflag.NewFlagSet("upgrade", pflag.ContinueOnError)
			side.bindDir(fs, "")
			side.bind(fs)
			require.NoError(t, fs.Parse(tt.args))
			got := side.sources()
			if got.OrgRegistries == nil {
				got.OrgRegistries = []string{}
			}
			assert.Equal(t, tt.want, got)

			var plain registrySource
			fs2 := pflag.NewFlagSet("queries", pflag.ContinueOnError)
			plain.bind(fs2)
			require.NoError(t, fs2.Parse(shellSplit(t, side.flags())), side.flags())
			back := plain.sources()
			if back.OrgRegistries == nil {
				back.OrgRegistries = []string{}
			}
			assert.Equal(t, tt.want, back, "flags() %q parses back to the same registry", side.flags())
		})
	}
}

// shellSplit splits s as a POSIX shell splits words with single quotes.
func shellSplit(t *testing.T, s string) []string {
	t.Helper()
	var out []string
	var cur strings.Builder
	in, any, esc := false, false, false
	for _, r := range s {
		switch {
		case esc:
			cur.WriteRune(r)
			esc, any = false, true
		case r == '\\' && !in:
			esc = true
		case r == '\'':
			in, any = !in, true
		case r == ' ' && !in:
			if any {
				out = append(out, cur.String())
			}
			cur.Reset()
			any = false
		default:
			cur.WriteRune(r)
			any = true
		}
	}
	require.False(t, in, "unbalanced quote in %q", s)
	if any {
		out = append(out, cur.String())
	}
	return out
}

// TestRemoteDependencyCLI: an org registry whose manifest depends on a
// remote semantic-conventions release other than the one in force is
// named in a warning with both versions, by check and by registry diff
// (the index's warnings, written once by the registry source that loads
// it).
func TestRemoteDependencyCLI(t *testing.T) {
	org := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(org, "registry_manifest.yaml"), []byte("name: acme\ndependencies:\n  - name: otel\n    registry_path: https://github.com/open-telemetry/semantic-conventions/archive/refs/tags/v1.26.0.zip[model]\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(org, "acme.yaml"), []byte("groups:\n  - id: registry.acme\n    type: attribute_group\n    attributes:\n      - id: acme.x\n        type: string\n        stability: development\n"), 0o600))
	const want = "pins semantic conventions 1.26.0, which otelgov and the collector do not download: the semantic conventions in force are 1.44.0 (the embedded release), not the pinned ones"

	_, _, stderr := otelgov(t, "", "check", "--org-registry", org, recording(t))
	assert.Contains(t, stderr, "otelgov: warning: registry: "+filepath.Join(org, "registry_manifest.yaml")+":3: dependency \"otel\"")
	assert.Contains(t, stderr, want)

	code, _, stderr := otelgov(t, "", "registry", "diff", "--new-org-registry", org, "embedded", "embedded")
	require.Equal(t, exitClean, code, stderr)
	assert.Contains(t, stderr, "otelgov: warning: new registry embedded: ")
	assert.Contains(t, stderr, want)
	assert.Equal(t, 1, strings.Count(stderr, want), "written once")
}

// TestInferOutputNotRegistry: registry infer --output reads an existing
// directory by the same rule as upgrade's sides (registry.ErrNotRegistry):
// a directory holding YAML of another shape is refused, exit 2, naming the
// file, and nothing is written.
func TestInferOutputNotRegistry(t *testing.T) {
	dir := t.TempDir()
	foo := filepath.Join(dir, "unrelated.yaml")
	require.NoError(t, os.WriteFile(foo, []byte("foo: bar\n"), 0o600))
	code, _, stderr := otelgov(t, "", "registry", "infer", "--output", dir, recording(t))
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, foo+":1: not a registry: no groups: key")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "nothing written")
}
