package registry

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNotRegistry: the one rule for what counts as a registry. A
// semantic-conventions directory that does not exist, is a file, has no
// model/, an empty model/, a model of YAML of another shape, or a model
// that defines no attribute or no group is ErrNotRegistry, with words that
// name the directory or the file; so is a file of another shape in an
// organisation registry. A real release still loads.
func TestNotRegistry(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o600))
	emptyModel := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(emptyModel, "model"), 0o750))
	foo := writeFiles(t, map[string]string{"model/foo.yaml": "foo: bar\n"})
	noAttr := writeFiles(t, map[string]string{"model/a.yaml": "groups: []\n"})
	noGroup := writeFiles(t, map[string]string{"model/a.yaml": `file_format: definition/2
attributes:
  - key: x.a
    type: string
    stability: development
    brief: a
`})
	orgFoo := writeFiles(t, map[string]string{"a.yaml": goodAttr, "zz/b.yaml": "foo: bar\n"})

	for _, tt := range []struct {
		name string
		src  Sources
		want []string
	}{
		{"does not exist", Sources{SemconvDir: missing}, []string{missing, "does not exist"}},
		{"a file", Sources{SemconvDir: file}, []string{file, "is not a directory"}},
		{"no model", Sources{SemconvDir: t.TempDir()}, []string{"has no model directory"}},
		{"empty model", Sources{SemconvDir: emptyModel}, []string{filepath.Join(emptyModel, "model"), "holds no model file"}},
		{"foo: bar", Sources{SemconvDir: foo}, []string{filepath.Join(foo, "model", "foo.yaml") + ":1:", "no groups: key", "top-level keys: foo"}},
		{"no attribute", Sources{SemconvDir: noAttr}, []string{noAttr, "defines no attribute", "1 model file(s) read"}},
		{"no group", Sources{SemconvDir: noGroup}, []string{noGroup, "no attribute group, span, metric, event or entity"}},
		{"org registry of another shape", Sources{Embedded: true, OrgRegistries: []string{orgFoo}}, []string{filepath.Join(orgFoo, "zz", "b.yaml") + ":1:", "no groups: key"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ix, err := Load(tt.src)
			require.ErrorIs(t, err, ErrNotRegistry)
			assert.Nil(t, ix)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
	for _, rel := range []string{"v1.40.0", "v1.44.0", "next-384d661"} {
		t.Run(rel, func(t *testing.T) {
			_, err := Load(Sources{SemconvDir: filepath.Join("..", "..", "shared", "semconv", rel)})
			require.NoError(t, err, "a real release is a registry (its model/manifest.yaml is not a model file)")
		})
	}
}
