package registry

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// modelMember is one enum member as the model writes it, brief included;
// the loader keeps no briefs, so the tests read the model themselves.
type modelMember struct {
	ID, Value, Brief string
	Deprecated       map[string]string
}

// modelEnums reads every enum of the shared model: key -> members.
func modelEnums(t *testing.T) map[string][]modelMember {
	t.Helper()
	root := filepath.Join(requireShared(t), "model")
	out := map[string][]modelMember{}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (filepath.Ext(p) == ".yaml" || filepath.Ext(p) == ".yml") {
			files = append(files, p)
		}
		return err
	})
	require.NoError(t, err)
	for _, p := range files {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		var doc struct {
			Groups []struct {
				Attributes []map[string]any `yaml:"attributes"`
			} `yaml:"groups"`
			Attributes []map[string]any `yaml:"attributes"`
		}
		if err := yaml.Unmarshal(data, &doc); err != nil {
			continue // manifests and other shapes hold no enums
		}
		attrs := doc.Attributes
		for _, g := range doc.Groups {
			attrs = append(attrs, g.Attributes...)
		}
		for _, a := range attrs {
			key, _ := a["id"].(string)
			if key == "" {
				key, _ = a["key"].(string)
			}
			var members []any
			switch typ := a["type"].(type) {
			case map[string]any:
				members, _ = typ["members"].([]any)
			case string:
				if typ == "enum" {
					members, _ = a["members"].([]any)
				}
			}
			for _, m := range members {
				mm, _ := m.(map[string]any)
				mem := modelMember{}
				mem.ID, _ = mm["id"].(string)
				mem.Brief, _ = mm["brief"].(string)
				switch v := mm["value"].(type) {
				case string:
					mem.Value = v
				case int:
					mem.Value = strconv.Itoa(v)
				}
				if dep, ok := mm["deprecated"].(map[string]any); ok {
					mem.Deprecated = map[string]string{}
					for k, v := range dep {
						mem.Deprecated[k], _ = v.(string)
					}
				}
				out[key] = append(out[key], mem)
			}
		}
	}
	return out
}

var linkText = regexp.MustCompile(`^\[([^\]]+)\]\([^)]*\)$`)

// productName is a member's brief without a Markdown link around it.
func productName(brief string) string {
	b := strings.TrimSpace(brief)
	if m := linkText.FindStringSubmatch(b); m != nil {
		return m[1]
	}
	return b
}

// deriveValueMap derives the value map from one enum to another by the
// rules documented in registry/rules/semconv.yaml (R0-R3). It returns the
// map and the old values without a counterpart.
func deriveValueMap(from, to []modelMember) (map[string]string, []string) {
	byID := map[string]modelMember{}
	for _, m := range from {
		byID[m.ID] = m
	}
	targets := map[string]bool{}
	for _, m := range to {
		targets[m.Value] = true
	}
	out := map[string]string{}
	var none []string
	for _, m := range from {
		src := m
		// R0: a deprecated member follows its own renamed_to first.
		if r := m.Deprecated["renamed_to"]; r != "" {
			src = byID[r]
		}
		var found []string
		switch {
		case targets[src.Value]: // R1
			found = []string{src.Value}
		default:
			for _, t := range to { // R2
				if productName(t.Brief) == productName(src.Brief) {
					found = append(found, t.Value)
				}
			}
			if len(found) != 1 {
				found = nil
				for _, t := range to { // R3
					if i := strings.LastIndexByte(t.Value, '.'); i >= 0 && t.Value[i+1:] == src.Value {
						found = append(found, t.Value)
					}
				}
			}
		}
		switch {
		case len(found) != 1:
			none = append(none, m.Value)
		case found[0] != m.Value:
			out[m.Value] = found[0]
		}
	}
	return out, none
}

// TestShippedValueMaps re-derives every shipped enum-to-enum value map from
// the model's own members: a wrong, missing or extra entry fails.
func TestShippedValueMaps(t *testing.T) {
	enums := modelEnums(t)
	for _, ix := range []*Index{freshLoad(t), mustDefault(t)} {
		for _, tt := range []struct {
			key, target string
			// exceptions are the R4 entries, each explained in the rules file.
			exceptions map[string]string
			none       []string
		}{
			{
				key: "db.system", target: "db.system.name",
				exceptions: map[string]string{"h2": "h2database"},
				none:       []string{"coldfusion", "edb", "filemaker", "interbase", "pervasive", "pointbase", "progress", "sybase", "vertica"},
			},
			{key: "gen_ai.system", target: "gen_ai.provider.name"},
			{
				key: "gen_ai.openai.request.response_format", target: "gen_ai.output.type",
				exceptions: map[string]string{"json_object": "json", "json_schema": "json"},
			},
		} {
			t.Run(tt.key, func(t *testing.T) {
				a := ix.Lookup(tt.key)
				require.NotNil(t, a)
				assert.Equal(t, tt.target, targetKey(a, Context{Location: LocationSpan}))
				require.NotNil(t, a.Migration)
				want, none := deriveValueMap(enums[tt.key], enums[tt.target])
				for from, to := range tt.exceptions {
					assert.NotContains(t, want, from, "exception %s is derivable; drop it from the list", from)
					want[from] = to
					none = slicesDelete(none, from)
				}
				assert.Equal(t, want, a.Migration.Values)
				assert.ElementsMatch(t, tt.none, none, "members without a counterpart")
				for from, to := range a.Migration.Values {
					assert.True(t, ix.Lookup(tt.target).AllowsString(to), "%s -> %s", from, to)
				}
			})
		}
	}
}

func slicesDelete(s []string, v string) []string {
	out := s[:0]
	for _, x := range s {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}

func mustDefault(t *testing.T) *Index {
	t.Helper()
	ix, err := Default()
	require.NoError(t, err)
	return ix
}

// TestShippedGRPCStatusMap: every rpc.grpc.status_code member maps to its
// brief, the canonical gRPC code name.
func TestShippedGRPCStatusMap(t *testing.T) {
	enums := modelEnums(t)
	ix := mustDefault(t)
	a := ix.Lookup("rpc.grpc.status_code")
	require.NotNil(t, a.Migration)
	assert.Equal(t, "rpc.response.status_code", targetKey(a, Context{Location: LocationSpan}))
	want := map[int64]string{}
	for _, m := range enums["rpc.grpc.status_code"] {
		n, err := strconv.ParseInt(m.Value, 10, 64)
		require.NoError(t, err)
		want[n] = m.Brief
	}
	require.Len(t, want, 17)
	assert.Equal(t, want, a.Migration.IntValues)
}

// TestShippedSplits derives http.flavor's cases from the member briefs
// ("HTTP/<v>") and checks net.sock.family and http.target.
func TestShippedSplits(t *testing.T) {
	enums := modelEnums(t)
	ix := mustDefault(t)

	flavor := ix.Lookup("http.flavor").Migration
	require.NotNil(t, flavor)
	require.NotNil(t, flavor.Split)
	want := map[string][]Assign{}
	for _, m := range enums["http.flavor"] {
		if v, ok := strings.CutPrefix(m.Brief, "HTTP/"); ok {
			want[m.Value] = []Assign{{Key: "network.protocol.name", Value: "http"}, {Key: "network.protocol.version", Value: v}}
		}
	}
	want["SPDY"] = []Assign{{Key: "network.protocol.name", Value: "spdy"}}
	require.Len(t, want, 5)
	assert.Equal(t, want, flavor.Split.Cases)
	assert.NotContains(t, flavor.Split.Cases, "QUIC")

	family := ix.Lookup("net.sock.family").Migration
	require.NotNil(t, family)
	assert.Equal(t, map[string][]Assign{
		"inet":  {{Key: "network.type", Value: "ipv4"}},
		"inet6": {{Key: "network.type", Value: "ipv6"}},
		"unix":  {{Key: "network.transport", Value: "unix"}},
	}, family.Split.Cases)
	for _, m := range enums["net.sock.family"] {
		assert.Contains(t, family.Split.Cases, m.Value, "every member of net.sock.family has a case")
	}

	target := ix.Lookup("http.target").Migration
	require.NotNil(t, target)
	assert.Equal(t, &Split{Separator: "?", Into: []string{"url.path", "url.query"}}, target.Split)
}

// TestShippedConversionsMergeMove pins the remaining shipped rules.
func TestShippedConversionsMergeMove(t *testing.T) {
	ix := mustDefault(t)
	for key, want := range map[string]struct {
		to  string
		typ Type
	}{
		"rpc.jsonrpc.error_code":                {"rpc.response.status_code", TypeString},
		"db.cosmosdb.status_code":               {"db.response.status_code", TypeString},
		"db.redis.database_index":               {"db.namespace", TypeString},
		"messaging.kafka.destination.partition": {"messaging.destination.partition.id", TypeString},
		"enduser.role":                          {"user.roles", TypeStringArray},
	} {
		a := ix.Lookup(key)
		require.NotNil(t, a.Migration, key)
		assert.Equal(t, want.to, targetKey(a, Context{Location: LocationSpan}), key)
		assert.Equal(t, want.typ, a.Migration.Convert, key)
		assert.True(t, lossless(a.Type, want.typ), key)
	}
	for _, dir := range []string{"request", "response"} {
		m := ix.Lookup("http." + dir + "_content_length").Migration
		require.NotNil(t, m, dir)
		assert.Equal(t, "http."+dir+".header.content-length", m.ConvertTo)
		assert.Equal(t, TypeStringArray, m.Convert)
		assert.Equal(t, "http."+dir+".header", ix.Lookup(m.ConvertTo).Key, "a key under the header template")
		assert.Equal(t, TypeStringArray, ix.Lookup(m.ConvertTo).Type)
	}
	m := ix.Lookup("code.function").Migration
	require.NotNil(t, m)
	assert.Equal(t, &Merge{
		To:    "code.function.name",
		Parts: []MergePart{{Key: "code.namespace"}, {Literal: "."}, {Key: "code.function"}},
		Keys:  []string{"code.namespace", "code.function"},
	}, m.Merge)
	assert.Equal(t, FieldEventName, ix.Lookup("event.name").Migration.Move)
	assert.Equal(t, FieldStatusMessage, ix.Lookup("rpc.jsonrpc.error_message").Migration.Move)
}

// TestDeprecatedMembers: the 24 deprecated members of v1.44.0, with
// renamed_to resolved from a member id to that member's value.
func TestDeprecatedMembers(t *testing.T) {
	enums := modelEnums(t)
	for _, ix := range []*Index{freshLoad(t), mustDefault(t)} {
		n := 0
		for _, a := range ix.Attributes() {
			for _, dm := range a.DeprecatedMembers {
				n++
				var model modelMember
				for _, m := range enums[a.Key] {
					if m.Value == dm.Value && m.Deprecated != nil {
						model = m
					}
				}
				require.NotNil(t, model.Deprecated, "%s %s", a.Key, dm.Value)
				if id := model.Deprecated["renamed_to"]; id != "" {
					for _, m := range enums[a.Key] {
						if m.ID == id {
							assert.Equal(t, m.Value, dm.RenamedTo, "%s %s", a.Key, dm.Value)
						}
					}
				}
			}
		}
		assert.Equal(t, 24, n)
		assert.Equal(t, 24, ix.Stats().DeprecatedMembers)
		assert.Equal(t, 17, ix.Stats().ValueMigrations)
		cp := ix.Lookup("cloud.platform")
		to, ok := cp.CurrentMember("azure_vm")
		assert.True(t, ok)
		assert.Equal(t, "azure.vm", to)
		_, ok = cp.CurrentMember("azure.vm")
		assert.False(t, ok)
		// completion (value "output") is renamed to output: a no-op.
		_, ok = ix.Lookup("gen_ai.token.type").CurrentMember("output")
		assert.False(t, ok)
	}
}

const valueAttrs = `groups:
  - id: registry.x
    type: attribute_group
    attributes:
      - id: x.a
        type: string
        stability: development
      - id: x.n
        type: int
        stability: development
      - id: x.c
        type: string
        stability: development
      - id: x.old
        type:
          members:
            - {id: one, value: one}
            - {id: two, value: two}
        deprecated: {reason: renamed, renamed_to: x.new}
      - id: x.new
        type:
          members:
            - {id: uno, value: uno}
      - id: x.count
        type: int
        deprecated: {reason: uncategorized, note: "use x.a"}
      - id: x.legacy
        type: string
        deprecated: {reason: uncategorized, note: "split"}
`

// TestValueRuleErrors: bad value migrations fail with file:line and reason.
func TestValueRuleErrors(t *testing.T) {
	tests := []struct {
		name  string
		rules string
		want  []string
	}{
		{
			name:  "map value outside the target enum",
			rules: "file_format: otelgov.rules/2\nrules:\n  - key: x.old\n    values:\n      one: uno\n      two: dos\n",
			want:  []string{"r.yaml:6", `values: "two" -> "dos": "dos" is not a member of the target enum "x.new"`},
		},
		{
			name:  "map key outside the source enum",
			rules: "file_format: otelgov.rules/2\nrules:\n  - key: x.old\n    values:\n      three: uno\n",
			want:  []string{"r.yaml:5", `values: "three" is not a member of "x.old"`},
		},
		{
			name:  "lossy conversion",
			rules: "file_format: otelgov.rules/2\nrules:\n  - key: x.a\n    renames: [{to: x.n}]\n    convert: int\n",
			want:  []string{"r.yaml:5", "convert: from string to int can lose data"},
		},
		{
			name:  "conversion to another type than the target's",
			rules: "file_format: otelgov.rules/2\nrules:\n  - key: x.count\n    renames: [{to: x.n}]\n    convert: string\n",
			want:  []string{"r.yaml:5", `convert: string, but target "x.n" is int`},
		},
		{
			name:  "unknown split target",
			rules: "file_format: otelgov.rules/2\nrules:\n  - key: x.legacy\n    split: {separator: \"?\", into: [x.a, x.missing]}\n",
			want:  []string{"r.yaml:4", `split: target "x.missing" is not a known attribute`},
		},
		{
			name:  "unknown merge target",
			rules: "file_format: otelgov.rules/2\nrules:\n  - key: x.a\n    merge: {to: x.nope, template: \"{x.a}\"}\n",
			want:  []string{"r.yaml:4", `merge: target "x.nope" is not a known attribute`},
		},
		{
			name:  "merge template without the rule key",
			rules: "file_format: otelgov.rules/2\nrules:\n  - key: x.a\n    merge: {to: x.a, template: \"{x.b}\"}\n",
			want:  []string{"r.yaml:4", `merge: template key "x.b" is not a known attribute`},
		},
		{
			name:  "merge reading a current key",
			rules: "file_format: otelgov.rules/2\nrules:\n  - key: x.legacy\n    merge: {to: x.a, template: \"{x.legacy}/{x.c}\"}\n",
			want:  []string{"r.yaml:4", `"x.c" is not deprecated; a split, merge or move applies to deprecated keys`},
		},
		{
			name:  "split of a current key",
			rules: "file_format: otelgov.rules/2\nrules:\n  - key: x.a\n    split: {separator: \"?\", into: [x.a, x.legacy]}\n",
			want:  []string{"r.yaml:4", `"x.a" is not deprecated; a split, merge or move applies to deprecated keys`},
		},
		{
			name:  "convert to an unknown key",
			rules: "file_format: otelgov.rules/2\nrules:\n  - key: x.count\n    convert: {to: x.nope.deeper, type: string}\n",
			want:  []string{"r.yaml:4", `convert: target "x.nope.deeper" is not a known attribute or a key under a template`},
		},
		{
			name:  "unknown move field",
			rules: "file_format: otelgov.rules/2\nrules:\n  - key: x.a\n    move: body\n",
			want:  []string{"r.yaml:4", `unknown field "body", want event_name or status_message`},
		},
		{
			name:  "value migration in a /1 file",
			rules: "file_format: otelgov.rules/1\nrules:\n  - key: x.old\n    values: {one: uno}\n",
			want:  []string{"r.yaml:4", `value migrations need file_format "otelgov.rules/2"`},
		},
		{
			name:  "two operations in one rule",
			rules: "file_format: otelgov.rules/2\nrules:\n  - key: x.a\n    move: event_name\n    split: {separator: \"?\", into: [x.a, x.n]}\n",
			want:  []string{"r.yaml:4", "use one of values/convert, split, merge and move per rule"},
		},
		{
			name:  "unknown rule key",
			rules: "file_format: otelgov.rules/2\nrules:\n  - key: x.zzz\n    move: event_name\n",
			want:  []string{"r.yaml:4", "value migrations need a key the registry defines"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"a.yaml": valueAttrs})
			rdir := writeFiles(t, map[string]string{"r.yaml": tt.rules})
			ix, err := Load(Sources{OrgRegistries: []string{dir}, RulesFiles: []string{filepath.Join(rdir, "r.yaml")}})
			require.Error(t, err)
			assert.Nil(t, ix)
			require.ErrorIs(t, err, ErrInvalid)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

// TestValueRulesLoad: a good /2 file loads next to /1 semantics.
func TestValueRulesLoad(t *testing.T) {
	dir := writeFiles(t, map[string]string{"a.yaml": valueAttrs})
	rdir := writeFiles(t, map[string]string{"r.yaml": "file_format: otelgov.rules/2\nrules:\n  - key: x.old\n    values: {one: uno}\n  - key: x.count\n    renames: [{to: x.a}]\n    convert: string\n"})
	ix, err := Load(Sources{OrgRegistries: []string{dir}, RulesFiles: []string{filepath.Join(rdir, "r.yaml")}})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"one": "uno"}, ix.Lookup("x.old").Migration.Values)
	assert.Equal(t, TypeString, ix.Lookup("x.count").Migration.Convert)
}

// TestShippedRulesFollowNotes: every key a shipped value migration writes
// is named in the deprecation note of the key it migrates (or is its
// registry rename), so a rule cannot drift from the model's prose.
func TestShippedRulesFollowNotes(t *testing.T) {
	ix := mustDefault(t)
	n := 0
	for _, a := range ix.Attributes() {
		m := a.Migration
		if m == nil {
			continue
		}
		n++
		var targets []string
		switch {
		case m.Split != nil:
			targets = append(targets, m.Split.Into...)
			for _, set := range m.Split.Cases {
				for _, as := range set {
					targets = append(targets, as.Key)
				}
			}
		case m.Merge != nil:
			targets = []string{m.Merge.To}
		case m.Move == FieldEventName:
			assert.Contains(t, a.Deprecation.Note, "EventName", a.Key)
		case m.Move == FieldStatusMessage:
			assert.Contains(t, a.Deprecation.Note, "span status description", a.Key)
		case m.ConvertTo != "":
			targets = []string{m.ConvertTo}
		default:
			for _, tgt := range renameTargets(a) {
				targets = append(targets, tgt.Key)
			}
		}
		for _, tgt := range targets {
			if a.Deprecation.RenamedTo == tgt {
				continue
			}
			assert.Contains(t, a.Deprecation.Note, "`"+tgt+"`", "%s -> %s (%s)", a.Key, tgt, m.Where)
		}
	}
	assert.Equal(t, 17, n, "shipped value rules")
}
