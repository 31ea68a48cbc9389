package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/stretchr/testify/require"
)

// cliDocsDir holds the generated CLI reference, one Markdown page per
// command (docs/otelgov/otelgov.md, otelgov_check.md, ...).
const cliDocsDir = "../../docs/otelgov"

// updateDocs rewrites cliDocsDir from the command tree: `make docs`.
var updateDocs = flag.Bool("update-docs", false, "rewrite docs/otelgov from the cobra command tree")

// genCLIDocs writes one Markdown page per available command of otelgov's
// tree into dir, with cobra/doc, without the "Auto generated ... on DATE"
// footer, so that the pages change only when the commands do.
func genCLIDocs(t *testing.T, dir string) {
	t.Helper()
	root := newRoot(strings.NewReader(""), io.Discard, io.Discard)
	var noDate func(*cobra.Command)
	noDate = func(c *cobra.Command) {
		c.DisableAutoGenTag = true
		for _, sub := range c.Commands() {
			noDate(sub)
		}
	}
	noDate(root)
	require.NoError(t, doc.GenMarkdownTree(root, dir))
}

// mdFiles is the Markdown pages of dir by name.
func mdFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	files := map[string]string{}
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) != ".md" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name())) //nolint:gosec // a file of the docs directory
		require.NoError(t, err)
		files[e.Name()] = string(b)
	}
	return files
}

// TestCLIReference fails when docs/otelgov no longer matches the commands:
// a command, flag, default or help text changed without `make docs`.
func TestCLIReference(t *testing.T) {
	gen := t.TempDir()
	genCLIDocs(t, gen)
	want := mdFiles(t, gen)
	require.Contains(t, want, "otelgov_check.md", "cobra/doc wrote no page for otelgov check")

	if *updateDocs {
		require.NoError(t, os.MkdirAll(cliDocsDir, 0o750))
		for name := range mdFiles(t, cliDocsDir) {
			if _, ok := want[name]; !ok {
				require.NoError(t, os.Remove(filepath.Join(cliDocsDir, name)))
			}
		}
		for name, body := range want {
			require.NoError(t, os.WriteFile(filepath.Join(cliDocsDir, name), []byte(body), 0o600))
		}
		return
	}

	got := mdFiles(t, cliDocsDir)
	names := func(m map[string]string) []string {
		var s []string
		for k := range m {
			s = append(s, k)
		}
		sort.Strings(s)
		return s
	}
	const hint = "docs/otelgov is out of date with the commands: run `make docs` and commit the pages"
	require.Equal(t, names(want), names(got), hint)
	for _, name := range names(want) {
		if line, w, g, differ := firstDiff(want[name], got[name]); differ {
			t.Errorf("docs/otelgov/%s:%d: %s\n commands: %q\n     page: %q", name, line, hint, w, g)
		}
	}
}

// firstDiff is the first line (1-based) at which a and b differ, with
// the two lines, or differ false when they are equal.
func firstDiff(a, b string) (line int, la, lb string, differ bool) {
	if a == b {
		return 0, "", "", false
	}
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; ; i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y || i >= len(al) || i >= len(bl) {
			return i + 1, x, y, true
		}
	}
}
