package queries

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/otelgov/otelcol-governance/registry"
)

// FuzzScan feeds arbitrary expressions and files to the scanners, with
// --write on: they must never panic, and a rewrite only ever touches the
// file it scans.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		`sum by (http_method) (rate(x{http_status_code="500"}[5m]))`,
		`label_replace(a, "m", "$1", "http_method", "(.*)")`,
		`set(attributes["http.method"], "x")`,
		"groups:\n- name: g\n  rules:\n  - record: r\n    expr: |\n      sum by (http_method) (x)\n",
		`{"panels":[{"targets":[{"expr":"x{http_method=\"\\u0041\"}"}]}]}`,
		"kind: ConfigMap\ndata:\n  a.json: '{\"expr\": \"sum by (http_method) (x)\"}'\n",
	} {
		f.Add(s)
	}
	ix, err := registry.Default()
	if err != nil {
		f.Fatal(err)
	}
	n := NewNames(ix)
	f.Fuzz(func(t *testing.T, in string) {
		if hits, err := scanPromQL(in, n); err == nil {
			var edits []edit
			for _, h := range hits {
				edits = append(edits, h.edits...)
			}
			applyEdits(in, edits)
		}
		scanOTTL(in, n)
		dir := t.TempDir()
		for _, name := range []string{"a.yaml", "a.json"} {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, []byte(in), 0o600); err != nil {
				t.Fatal(err)
			}
			s := NewScanner(n)
			s.Write = true
			_, _ = s.ScanPaths([]string{p})
		}
	})
}
