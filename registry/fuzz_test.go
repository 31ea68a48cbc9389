package registry

import (
	"testing"

	"github.com/otelgov/otelcol-governance/internal/registry/def"
	"github.com/otelgov/otelcol-governance/internal/registry/load"
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
		d := &def.Defs{}
		if err := load.ParseModelFile("fuzz.yaml", data, d); err != nil {
			if len(d.Attributes) > 0 && d.Attributes[len(d.Attributes)-1].Key == "" {
				t.Fatalf("empty key defined before error: %v", err)
			}
			return
		}
		for _, a := range d.Attributes {
			if a.Key == "" || load.ValidKey(a.Key) != nil {
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
