package docs

import (
	"errors"
	"go/build"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/otelgov/otelcol-governance/"

var (
	// layerRow is a row of architecture.md's layer table: | N | `pkg`, ... |.
	layerRow = regexp.MustCompile(`^\|\s*(\d+)\s*\|([^|]*)\|`)
	// pkgName is a backquoted package path in that row's second cell.
	pkgName = regexp.MustCompile("`([a-z][a-z0-9/]*)`")
)

// layerTable reads the layer of each library package from the table under
// the "## Layers" heading of docs/architecture.md.
func layerTable(t *testing.T) map[string]int {
	t.Helper()
	b, err := os.ReadFile("architecture.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(b), "\n## Layers")
	require.True(t, ok, "architecture.md: no \"## Layers\" section")
	section, _, _ = strings.Cut(section, "\n## ")
	layers := map[string]int{}
	for _, line := range strings.Split(section, "\n") {
		m := layerRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		for _, p := range pkgName.FindAllStringSubmatch(m[2], -1) {
			layers[p[1]] = n
		}
	}
	require.NotEmpty(t, layers, "architecture.md: no layer table under \"## Layers\"")
	return layers
}

// repoImports is what the package in dir imports of this repository,
// outside internal/ (the registry's internals belong to its layer): its
// non-test imports, or its tests' for a package of tests only.
func repoImports(t *testing.T, dir string) []string {
	t.Helper()
	p, err := build.ImportDir(dir, build.ImportComment)
	var noGo *build.NoGoError
	if err != nil && !errors.As(err, &noGo) {
		require.NoError(t, err, dir)
	}
	imports := p.Imports
	if len(p.GoFiles) == 0 {
		imports = append(append([]string{}, p.TestImports...), p.XTestImports...)
	}
	var out []string
	for _, imp := range imports {
		if rel, ok := strings.CutPrefix(imp, module); ok && !strings.HasPrefix(rel, "internal/") {
			out = append(out, rel)
		}
	}
	return out
}

// TestLayers holds docs/architecture.md's layer table to the code: every Go
// package under the library's folders has a row, and imports only packages
// of lower layers.
func TestLayers(t *testing.T) {
	layers := layerTable(t)
	roots := map[string]bool{}
	for p := range layers {
		root, _, _ := strings.Cut(p, "/")
		roots[root] = true
	}
	for root := range roots {
		require.NoError(t, filepath.WalkDir(filepath.Join("..", root), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				return nil
			}
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if m, _ := filepath.Glob(filepath.Join(path, "*.go")); len(m) == 0 {
				return nil
			}
			rel, err := filepath.Rel("..", path)
			if err != nil {
				return err
			}
			pkg := filepath.ToSlash(rel)
			layer, ok := layers[pkg]
			if !assert.True(t, ok, "package %s has no row in docs/architecture.md's layer table: add it to the layer above everything it imports", pkg) {
				return nil
			}
			for _, imp := range repoImports(t, path) {
				il, ok := layers[imp]
				if !ok {
					// Not a library package: a component, a command or tooling.
					t.Errorf("%s (layer %d) imports %s, which is not a library package", pkg, layer, imp)
					continue
				}
				assert.Less(t, il, layer, "%s (layer %d) imports %s (layer %d): a package imports only from the layers below it", pkg, layer, imp, il)
			}
			return nil
		}))
	}
}
