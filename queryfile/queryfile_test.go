package queryfile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

func TestParsePromQLGrafana(t *testing.T) {
	for _, expr := range []string{
		`rate(x[$__rate_interval])`,
		`increase(x[$__range]) / $__range_s * 1000 / $__range_ms + $__interval_ms`,
		`max_over_time(rate(x[$interval])[$__range:$resolution])`,
		`topk($n, x{job=~"$job", instance="${instance:regex}"})`,
		`sum by ($label) (x)`,
		`x offset $__interval`,
		`label_values(x{job="a"}, http_method)`,
		`label_values(http_method)`,
		`query_result(topk(5, x))`,
		`[[metric]]{job="a"}`,
	} {
		p, err := ParsePromQL(expr)
		require.NoError(t, err, expr)
		for i := range len(p.Text) {
			if o, ok := p.Orig(i); ok {
				assert.Equal(t, p.Text[i], expr[o], "%s: byte %d maps back to the same byte", expr, i)
			}
		}
	}
	p, err := ParsePromQL(`label_values(x{job="a"}, http_method)`)
	require.NoError(t, err)
	assert.Equal(t, "http_method", p.LabelValues)
	assert.Equal(t, 25, p.LabelValuesOff)
	_, err = ParsePromQL(`label_names()`)
	require.ErrorIs(t, err, ErrNotPromQL)
}

func TestExtractMapsEveryQueryToItsBytes(t *testing.T) {
	files := map[string]string{
		"d.json": `{"title":"t","panels":[{"title":"p","targets":[{"refId":"A","expr":"sum(x{a=\"b\"})"}]},` +
			`{"title":"logs","datasource":{"type":"loki"},"targets":[{"refId":"A","expr":"{app=\"x\"} |= \"err\""}]}],` +
			`"templating":{"list":[{"name":"ds","type":"datasource","query":"prometheus"},{"name":"v","type":"query","query":{"query":"label_values(x, a)"}}]}}`,
		"cm.yaml":     "apiVersion: v1\nkind: ConfigMapList\nitems:\n- kind: ConfigMap\n  data:\n    d.json: |\n      {\"panels\":[{\"targets\":[{\"expr\":\"sum(x)\",\"refId\":\"A\"}]}]}\n",
		"rules.yaml":  "groups:\n- name: g\n  rules:\n  - alert: A\n    expr: >-\n      sum(x)\n      > 0\n    annotations:\n      s: '{{ $labels.a }}'\n",
		"values.yaml": "collector:\n  config:\n    receivers: {otlp: {}}\n    exporters: {debug: {}}\n    processors:\n      transform:\n        log_statements:\n          - set(attributes[\"a\"], \"b\")\n",
		"t.yaml":      "{{- if .Values.on }}\ngroups:\n- name: g\n  rules:\n  - alert: A\n    expr: up{job=\"{{ .Values.job }}\"} == 0\n{{- end }}\n",
	}
	want := map[string][]Kind{
		"d.json":      {KindPromQL, KindPromQL},
		"cm.yaml":     {KindPromQL},
		"rules.yaml":  {KindPromQL, KindTemplate},
		"values.yaml": {KindOTTL},
		"t.yaml":      {KindPromQL},
	}
	for name, body := range files {
		f := Extract(name, []byte(body))
		require.False(t, f.Unreadable, "%s: %+v", name, f.Notes)
		var kinds []Kind
		for _, q := range f.Queries {
			kinds = append(kinds, q.Kind)
			// Every mapped byte of the text is the file's byte (blanked
			// template blocks excepted).
			for i := range len(q.Text) {
				if o, ok := q.Map(i); ok && !f.Template {
					assert.Equal(t, q.Text[i], body[o], "%s: %q byte %d", name, q.Text, i)
				}
			}
		}
		assert.Equal(t, want[name], kinds, name)
	}
	f := Extract("t.yaml", []byte(files["t.yaml"]))
	assert.True(t, f.Template)
	require.Len(t, f.Notes, 1, "one note for the file, not one per block")
	assert.Equal(t, "read as a Helm template: checked outside its {{ }} blocks (3 skipped)", f.Notes[0].Message)
	assert.Zero(t, f.Notes[0].Off, "at the first block")
}

// TestExtractLegends: a target's legendFormat is read with its expression,
// sharing its rule number (so that it follows the expression's rewrite);
// __auto, a fixed text and a legend in another language's target are not.
func TestExtractLegends(t *testing.T) {
	d := `{"panels":[{"title":"p","datasource":{"type":"prometheus"},"targets":[` +
		`{"legendFormat":"{{http_method}} {{ route }}","refId":"A","expr":"sum by (http_method) (x)"},` +
		`{"refId":"B","expr":"sum(y)","legendFormat":"__auto"},` +
		`{"refId":"C","expr":"sum(z)","legendFormat":"total"}]},` +
		`{"title":"logs","datasource":{"type":"loki"},"targets":[{"refId":"A","expr":"{app=\"x\"}","legendFormat":"{{app}}"}]}]}`
	f := Extract("d.json", []byte(d))
	require.False(t, f.Unreadable, "%+v", f.Notes)
	type q struct {
		kind       Kind
		text, name string
		rule       int
	}
	var got []q
	for _, x := range f.Queries {
		got = append(got, q{x.Kind, x.Text, x.Name, x.Rule})
		for i := range len(x.Text) {
			if o, ok := x.Map(i); ok {
				assert.Equal(t, x.Text[i], d[o], "%q byte %d", x.Text, i)
			}
		}
	}
	assert.Equal(t, []q{
		{KindLegend, "{{http_method}} {{ route }}", "panel p/A/legend", 1},
		{KindPromQL, "sum by (http_method) (x)", "panel p/A", 1},
		{KindPromQL, "sum(y)", "panel p/B", 2},
		{KindPromQL, "sum(z)", "panel p/C", 3},
	}, got)
}

func TestExtractUnreadable(t *testing.T) {
	for name, body := range map[string]string{
		"a.json":  `{"a": [1, }`,
		"b.yaml":  "a: [\n",
		"c.json":  "\x00\x01",
		"d.yaml":  "a: b\n c: d\n  - e\n",
		"e.json":  `"`,
		"f.json":  `{"a": 1} x`,
		"g.json":  `{"a": "\x01"}`,
		"h.json":  `[[[[[[[[[[`,
		"i.json":  `-`,
		"j.json":  `{"a" 1}`,
		"k.json":  `{"a": tru}`,
		"l.json":  `{"a": "b\u12"}`,
		"m.json":  `{1: 2}`,
		"n.yaml":  "\t- a\n",
		"o.yaml":  "key: \"unterminated\n",
		"p.json":  `[1 2]`,
		"q.json":  `{"a": 1,}`,
		"r.yaml":  "a: *unknown\n",
		"s.json":  "",
		"t.json":  "   ",
		"u.json":  `{"a":`,
		"v.json":  `["a",`,
		"w.yaml":  "- a\nb: c\n",
		"x.json":  `{"a":"b"}}`,
		"y.yaml":  "%YAML 9.9\n---\na: b\n",
		"z.json":  "\xff",
		"aa.json": `{"a": "\q"}`,
	} {
		f := Extract(name, []byte(body))
		assert.True(t, f.Unreadable, "%s: %q", name, body)
		require.NotEmpty(t, f.Notes, name)
		assert.True(t, f.Notes[0].Unreadable, name)
	}
}

// TestIsCollector: a collector config or a fragment of one split across
// --config files is read as one; a Helm values file, an Alertmanager
// config and a Kubernetes Service are not.
func TestIsCollector(t *testing.T) {
	tests := []struct {
		name, doc string
		want      bool
	}{
		{"whole config", "receivers: {otlp: {}}\nprocessors: {batch: {}}\nexporters: {debug: {}}\nservice: {pipelines: {}}\n", true},
		{"receivers and processors only", "receivers: {otlp: {}}\nprocessors: {attributes: {actions: []}}\n", true},
		{"processors only", "processors: {transform: {}}\n", true},
		{"a section left empty", "processors:\nconnectors: {count: {}}\n", true},
		{"exporters and service only: nothing to read", "exporters: {debug: {}}\nservice: {pipelines: {}}\n", false},
		{"helm values", "mode: deployment\nservice: {type: ClusterIP}\nprocessors: {batch: {}}\nconfig: {processors: {batch: {}}}\n", false},
		{"alertmanager config", "route: {receiver: x}\nreceivers:\n- name: x\n", false},
		{"receivers as a list", "receivers:\n- otlp\nprocessors: {batch: {}}\n", false},
		{"kubernetes service", "service: {type: ClusterIP}\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n yaml.Node
			require.NoError(t, yaml.Unmarshal([]byte(tt.doc), &n))
			assert.Equal(t, tt.want, isCollector(n.Content[0]))
		})
	}
}
