package registry

import (
	"testing"
)

// The seeds run as ordinary tests in CI; `go test -fuzz FuzzModelFile
// ./registry` explores further.

func FuzzModelFile(f *testing.F) {
	for _, seed := range []string{
		goodAttr,
		`groups:
  - id: registry.x
    type: attribute_group
    attributes:
      - id: x.e
        type:
          members:
            - {id: a, value: "a"}
            - {id: b, value: "b"}
        deprecated: {reason: renamed, renamed_to: x.f}
      - id: x.f
        type: template[string[]]
      - ref: x.e
  - id: metric.x
    type: metric
    metric_name: x.count
    instrument: counter
    unit: "1"
    deprecated: {reason: obsoleted, note: gone}
`,
		"file_format: definition/2\nattributes:\n  - key: x.a\n    type: enum\n    members:\n      - {id: one, value: 1}\nmetrics:\n  - name: x.m\n    instrument: gauge\n    unit: s\n",
		"groups:\n  - &g {id: a, type: attribute_group, attributes: [{id: a.b, type: int}]}\n  - *g\n",
		"groups: [{attributes: [{id: ' x', type: string}]}]",
		"file_format: definition/3\n",
		"- a\n",
		"",
		"groups:\n  - attributes:\n      - id: x.a\n        type: {members: []}\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &defs{}
		if err := parseModelFile("fuzz.yaml", data, d); err != nil {
			if len(d.Attributes) > 0 && d.Attributes[len(d.Attributes)-1].Key == "" {
				t.Fatalf("empty key defined before error: %v", err)
			}
			return
		}
		for _, a := range d.Attributes {
			if a.Key == "" || validKey(a.Key) != nil {
				t.Fatalf("invalid key %q accepted", a.Key)
			}
			if a.Type == TypeUnknown {
				t.Fatalf("attribute %q without type accepted", a.Key)
			}
		}
		ix, err := resolve(&input{layers: []layer{{name: "fuzz", defs: d}}})
		if err != nil {
			if ix != nil {
				t.Fatal("index returned with error")
			}
			return
		}
		for _, a := range d.Attributes {
			if got := ix.Lookup(a.Key); got == nil || got.Key != a.Key {
				t.Fatalf("defined key %q not found", a.Key)
			}
			_ = ix.Lookup(a.Key).Target(Context{Location: LocationSpan})
		}
	})
}

func FuzzRulesFile(f *testing.F) {
	f.Add(shippedRules)
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
		d := &defs{}
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

func FuzzLookup(f *testing.F) {
	for _, k := range []string{"", ".", "http.request.header.", "http.request.header.x", "http..request", "net.peer.name", "a.b.c.d.e.f.g"} {
		f.Add(k)
	}
	ix, err := Default()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, key string) {
		a := ix.Lookup(key)
		if a == nil {
			return
		}
		if a.Key == key {
			return
		}
		if !a.Template || len(key) <= len(a.Key) || key[:len(a.Key)] != a.Key || key[len(a.Key)] != '.' {
			t.Fatalf("Lookup(%q) = %q", key, a.Key)
		}
	})
}
