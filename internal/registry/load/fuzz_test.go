package load

import (
	"os"
	"testing"

	"github.com/otelgov/otelcol-governance/internal/registry/def"
)

// The seeds run as ordinary tests in CI; `go test -fuzz FuzzRulesFile
// ./internal/registry/load` explores further. FuzzModelFile, which also
// resolves what it parsed, is in registry/.

func FuzzRulesFile(f *testing.F) {
	shipped, err := os.ReadFile("../../../registry/rules/semconv.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(shipped)
	f.Add([]byte("file_format: otelgov.rules/1\nrules:\n  - key: a\n    replace_registry: true\n"))
	f.Add([]byte("file_format: otelgov.rules/1\nrules:\n  - key: a\n    renames:\n      - to: b\n        metrics: [m]\n        spans: [s]\n"))
	f.Add([]byte("rules: 3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rules, err := parseRulesFile("fuzz.yaml", data)
		if err != nil {
			return
		}
		for _, r := range rules {
			if r.Key == "" {
				t.Fatal("rule without key accepted")
			}
			for _, rr := range r.Renames {
				if rr.To == "" {
					t.Fatal("rename without target accepted")
				}
			}
		}
	})
}

func FuzzSchemaFile(f *testing.F) {
	f.Add([]byte("file_format: 1.1.0\nversions:\n  1.2.0:\n    metrics:\n      changes:\n        - rename_metrics: {a: b}\n        - rename_attributes:\n            attribute_map: {c: d}\n            apply_to_metrics: [a]\n  1.1.0:\n    spans:\n      changes:\n        - rename_attributes:\n            attribute_map: {e: f}\n            apply_to_spans: [GET]\n"))
	f.Add([]byte("file_format: 1.0.0\nversions:\n  1.0.0:\n"))
	f.Add([]byte("versions: []\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &def.Defs{}
		if err := parseSchemaFile("fuzz", data, d); err != nil {
			return
		}
		for _, s := range d.SchemaRenames {
			if s.From == "" || s.To == "" {
				t.Fatal("empty rename accepted")
			}
		}
	})
}
