package queryfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
)

// yamlDocs reads a YAML stream whose bytes map to the file through m;
// lineBase is the file line of the stream's first line minus one (for
// errors in embedded documents). It returns false when the stream is not
// valid YAML.
func (f *File) yamlDocs(doc []byte, m Map, lineBase int) bool {
	dec := yaml.NewDecoder(bytes.NewReader(doc))
	lines := lineStarts(doc)
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return true
		}
		if err != nil {
			off := 0
			if l := errorLine(doc, lines); l > 0 && l <= len(lines) {
				off = lines[l-1]
			}
			f.Notes = append(f.Notes, Note{Off: mustMap(m, off), Message: "invalid YAML: " + err.Error(), Unreadable: true})
			_ = lineBase
			return false
		}
		if len(n.Content) == 0 {
			continue
		}
		y := &ydoc{f: f, doc: doc, lines: lines, m: m}
		y.document(n.Content[0])
	}
}

// errorLine finds the first line at which a YAML stream stops parsing:
// the parser reports the line where the enclosing block starts, not where
// the problem is. The shortest failing prefix of whole lines is found by
// bisection.
func errorLine(doc []byte, lines []int) int {
	parses := func(k int) bool { // the first k lines
		end := len(doc)
		if k < len(lines) {
			end = lines[k]
		}
		return parsesAsYAML(doc[:end])
	}
	lo, hi := 0, len(lines) // parses(lo), !parses(hi)
	if parses(hi) {
		return errLine(fmt.Sprint(yaml.Unmarshal(doc, new(any))))
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if parses(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// ydoc is one YAML document, possibly embedded in a string of another.
type ydoc struct {
	f     *File
	doc   []byte
	lines []int
	m     Map // doc offset -> file offset
}

func (y *ydoc) off(n *yaml.Node) int {
	if n.Line-1 < len(y.lines) && n.Line > 0 {
		o := y.lines[n.Line-1] + n.Column - 1
		// An anchor (&name) or a tag (!!str) precedes the value.
		for o < len(y.doc) && (y.doc[o] == '&' || y.doc[o] == '!') && (n.Anchor != "" || n.Tag != "") {
			for o < len(y.doc) && y.doc[o] != ' ' && y.doc[o] != '\n' {
				o++
			}
			for o < len(y.doc) && y.doc[o] == ' ' {
				o++
			}
		}
		return o
	}
	return 0
}

func none(int) (int, bool) { return 0, false }

// valueMap maps offsets in a scalar's value to offsets in the document,
// exactly where the document's bytes are the value's: literal and folded
// blocks, single-line scalars, multi-line plain scalars. Escape encodes a
// replacement for the scalar's style.
func (y *ydoc) valueMap(n *yaml.Node) (Map, func(string) string) {
	start := y.off(n)
	esc := identity
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		esc = func(s string) string { return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) }
	case n.Style&yaml.SingleQuotedStyle != 0:
		esc = func(s string) string { return strings.ReplaceAll(s, `'`, `''`) }
	}
	switch {
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return y.blockMap(n), esc
	case strings.Contains(n.Value, "\n") || (n.Style == 0 && !bytes.HasPrefix(y.doc[min(start, len(y.doc)):], []byte(n.Value))):
		if n.Style != 0 {
			return none, esc
		}
		return y.plainMap(n, start), esc
	default:
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			start++
		}
		if start+len(n.Value) > len(y.doc) || string(y.doc[start:start+len(n.Value)]) != n.Value {
			return none, esc
		}
		return func(off int) (int, bool) {
			if off < 0 || off > len(n.Value) {
				return 0, false
			}
			return y.m(start + off)
		}, esc
	}
}

// segment is a run of a value's bytes that lies verbatim in the document.
type segment struct{ val, doc, n int }

func segMap(segs []segment, m Map) Map {
	return func(off int) (int, bool) {
		for i, s := range segs {
			// The end of the last segment maps (the end of the text); the
			// byte joining two lines (a space or newline) does not.
			if off >= s.val && (off < s.val+s.n || off == s.val+s.n && i == len(segs)-1) {
				return m(s.doc + off - s.val)
			}
		}
		return 0, false
	}
}

// blockMap maps a literal (|) or folded (>) block: its content lines follow
// the indicator's line; a literal block joins them with newlines, a folded
// one with spaces (the common case without more-indented lines).
func (y *ydoc) blockMap(n *yaml.Node) Map {
	folded := n.Style&yaml.FoldedStyle != 0
	var segs []segment
	val := 0
	v := n.Value
	indent := -1
	for li := n.Line; li < len(y.lines) && val < len(v); li++ {
		end := len(y.doc)
		if li+1 < len(y.lines) {
			end = y.lines[li+1] - 1
		}
		raw := strings.TrimRight(string(y.doc[y.lines[li]:end]), "\r")
		trimmed := strings.TrimLeft(raw, " ")
		if trimmed == "" {
			if !folded {
				if val < len(v) && v[val] == '\n' {
					val++
					continue
				}
			}
			if folded && val < len(v) && v[val] == '\n' {
				val++
			}
			continue
		}
		ind := len(raw) - len(trimmed)
		if indent < 0 {
			indent = ind
		}
		if ind < indent {
			break
		}
		content := raw[indent:]
		if !strings.HasPrefix(v[val:], content) {
			return none
		}
		segs = append(segs, segment{val: val, doc: y.lines[li] + indent, n: len(content)})
		val += len(content)
		if val < len(v) && (v[val] == '\n' || (folded && v[val] == ' ')) {
			val++
		}
	}
	if len(segs) == 0 {
		return none
	}
	return segMap(segs, y.m)
}

// plainMap maps a plain scalar that spans lines: lines joined with spaces.
func (y *ydoc) plainMap(n *yaml.Node, start int) Map {
	var segs []segment
	v := n.Value
	val := 0
	pos := start
	for val < len(v) && pos < len(y.doc) {
		end := bytes.IndexByte(y.doc[pos:], '\n')
		if end < 0 {
			end = len(y.doc) - pos
		}
		content := strings.TrimSpace(string(y.doc[pos : pos+end]))
		lead := strings.Index(string(y.doc[pos:pos+end]), content)
		if content == "" || !strings.HasPrefix(v[val:], content) {
			return none
		}
		segs = append(segs, segment{val: val, doc: pos + lead, n: len(content)})
		val += len(content)
		if val < len(v) && v[val] == ' ' {
			val++
		}
		pos += end + 1
	}
	if val < len(v) {
		return none
	}
	return segMap(segs, y.m)
}

func get(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func str(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// document recognises what a YAML document is and reads it.
func (y *ydoc) document(n *yaml.Node) {
	if n.Kind == yaml.AliasNode || n.Kind != yaml.MappingNode {
		return
	}
	switch str(get(n, "kind")) {
	case "PrometheusRule":
		y.ruleGroups(get(get(n, "spec"), "groups"))
		return
	case "GrafanaAlertRuleGroup":
		y.rules(get(get(n, "spec"), "rules"), str(get(get(n, "metadata"), "name")))
		return
	case "ConfigMap", "Secret":
		y.strings(get(n, "data"))
		return
	case "GrafanaDashboard":
		spec := get(n, "spec")
		if j := get(spec, "json"); j != nil && j.Kind == yaml.ScalarNode {
			y.embedded(j, true)
		}
		return
	case "OpenTelemetryCollector":
		cfg := get(get(n, "spec"), "config")
		if cfg != nil && cfg.Kind == yaml.ScalarNode {
			y.embedded(cfg, false)
		} else {
			y.collector(cfg)
		}
		return
	case "List", "ConfigMapList", "PrometheusRuleList", "GrafanaDashboardList", "OpenTelemetryCollectorList":
		if items := get(n, "items"); items != nil {
			for _, it := range items.Content {
				y.document(it)
			}
		}
		return
	}
	if g := get(n, "groups"); g != nil {
		y.ruleGroups(g)
		return
	}
	if isCollector(n) {
		y.collector(n)
		return
	}
	// promtool unit-test files: tests[].promql_expr_test[].expr.
	if tests := get(n, "tests"); tests != nil && tests.Kind == yaml.SequenceNode {
		for _, t := range tests.Content {
			if pe := get(t, "promql_expr_test"); pe != nil {
				for _, e := range pe.Content {
					y.promql(get(e, "expr"), 0, "test")
				}
			}
		}
		return
	}
	// Anything else (Helm values, kustomize patches): collector configs and
	// embedded dashboards wherever they are.
	y.search(n)
}

// collectorSections are the top-level keys of a collector configuration;
// the collector rejects any other key, in each file it merges as well.
var collectorSections = map[string]bool{
	"receivers": true, "processors": true, "exporters": true, "connectors": true, "extensions": true, "service": true,
}

// isCollector: a mapping shaped like a collector configuration or a
// fragment of one (a config split across --config files): every key is a
// collector section, each a mapping (or null), and receivers, processors
// or connectors among them. A Helm values file is not one: its own keys
// (mode, image, config) are no collector sections, and its config: is read
// where the search finds it.
func isCollector(n *yaml.Node) bool {
	if n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		return false
	}
	components := false
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		if !collectorSections[k] || (v.Kind != yaml.MappingNode && v.Tag != "!!null") {
			return false
		}
		components = components || (k != "exporters" && k != "extensions" && k != "service" && v.Kind == yaml.MappingNode)
	}
	return components
}

// search looks through an unrecognised document for collector configs,
// rule groups and embedded documents.
func (y *ydoc) search(n *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		if isCollector(n) {
			y.collector(n)
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, n.Content[i+1]
			if k == "groups" && v.Kind == yaml.SequenceNode {
				y.ruleGroups(v)
				continue
			}
			if v.Kind == yaml.ScalarNode {
				y.scalarDoc(k, v)
				continue
			}
			y.search(v)
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			y.search(c)
		}
	case yaml.DocumentNode, yaml.ScalarNode, yaml.AliasNode:
	}
}

// scalarDoc reads a string that holds a document: a dashboard (JSON), a
// collector config or rule file (YAML).
func (y *ydoc) scalarDoc(key string, v *yaml.Node) {
	s := strings.TrimSpace(v.Value)
	switch {
	case strings.HasPrefix(s, "{") && !strings.HasPrefix(s, "{{") && strings.Contains(s, `":`):
		if _, _, err := parseJSON([]byte(v.Value)); err == nil {
			y.embedded(v, true)
		}
	case strings.Contains(s, "\n") && (strings.Contains(s, "groups:") || strings.Contains(s, "processors:") || strings.Contains(s, "receivers:")):
		y.embedded(v, false)
	}
}

// strings reads the embedded files of a ConfigMap's data.
func (y *ydoc) strings(data *yaml.Node) {
	if data == nil || data.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(data.Content); i += 2 {
		if v := data.Content[i+1]; v.Kind == yaml.ScalarNode {
			key := strings.ToLower(data.Content[i].Value)
			switch {
			case strings.HasSuffix(key, ".json") || strings.HasPrefix(strings.TrimSpace(v.Value), "{"):
				y.embedded(v, true)
			case strings.HasSuffix(key, ".yaml") || strings.HasSuffix(key, ".yml") || strings.Contains(v.Value, "\n"):
				y.embedded(v, false)
			}
		}
	}
}

// embedded reads a document held in a string scalar.
func (y *ydoc) embedded(v *yaml.Node, asJSON bool) {
	vm, esc := y.valueMap(v)
	base := mustMap(y.m, y.off(v))
	m := func(off int) (int, bool) {
		if o, ok := vm(off); ok {
			return o, true
		}
		return base, false
	}
	if asJSON {
		saved := y.f.doc
		if !y.f.json([]byte(v.Value), m, esc) {
			y.f.Notes[len(y.f.Notes)-1].Off = base
		}
		y.f.doc = saved
		return
	}
	y.f.yamlDocs([]byte(v.Value), m, v.Line)
}

func (y *ydoc) query(n *yaml.Node, q Query) {
	if n == nil || n.Kind != yaml.ScalarNode || strings.TrimSpace(n.Value) == "" {
		return
	}
	q.Text = n.Value
	q.Map, q.Escape = y.valueMap(n)
	q.Off = mustMap(y.m, y.off(n))
	y.f.Queries = append(y.f.Queries, q)
}

func (y *ydoc) promql(n *yaml.Node, rule int, name string) {
	y.query(n, Query{Kind: KindPromQL, Rule: rule, Name: name})
}

func (y *ydoc) ruleGroups(groups *yaml.Node) {
	if groups == nil || groups.Kind != yaml.SequenceNode {
		return
	}
	for _, g := range groups.Content {
		y.rules(get(g, "rules"), str(get(g, "name")))
	}
}

// rules reads Prometheus rules and Grafana alerting rules (data[].model.expr).
func (y *ydoc) rules(rules *yaml.Node, group string) {
	if rules == nil || rules.Kind != yaml.SequenceNode {
		return
	}
	for _, r := range rules.Content {
		y.f.rules++
		id := y.f.rules
		name := group + "/" + str(get(r, "alert")) + str(get(r, "record")) + str(get(r, "title"))
		q := Query{Kind: KindPromQL, Rule: id, Name: name, Record: str(get(r, "record"))}
		y.query(get(r, "expr"), q)
		if data := get(r, "data"); data != nil && data.Kind == yaml.SequenceNode {
			for _, d := range data.Content {
				if ds := strings.ToLower(str(get(get(get(d, "model"), "datasource"), "type"))); notPromQL(ds) {
					continue
				}
				y.query(get(get(d, "model"), "expr"), Query{Kind: KindPromQL, Rule: id, Name: name + "/" + str(get(d, "refId"))})
			}
		}
		for _, sec := range []string{"labels", "annotations"} {
			m := get(r, sec)
			if m == nil || m.Kind != yaml.MappingNode {
				continue
			}
			for i := 1; i < len(m.Content); i += 2 {
				y.query(m.Content[i], Query{Kind: KindTemplate, Rule: id, Name: name + "/" + m.Content[i-1].Value})
			}
		}
	}
}

// ottlComponents hold OTTL; keyComponents name attribute keys in settings.
var (
	ottlComponents = map[string]bool{
		"transform": true, "filter": true, "routing": true, "tail_sampling": true, "tailsampling": true,
		"count": true, "sum": true, "signaltometrics": true, "signal_to_metrics": true,
	}
	keyComponents = map[string]bool{
		"attributes": true, "resource": true, "groupbyattrs": true, "redaction": true,
		"k8sattributes": true, "k8s_attributes": true, "resourcedetection": true, "resource_detection": true,
	}
	// keySettings are the settings of keyComponents that hold attribute keys.
	keySettings = map[string]bool{
		"key": true, "from_attribute": true, "keys": true, "allowed_keys": true, "blocked_keys": true,
		"ignored_keys": true, "tag_name": true,
	}
)

// collector reads a collector configuration: OTTL in transform, filter and
// routing components, attribute keys in the settings of attributes,
// resource, groupbyattrs, redaction and k8s_attributes.
func (y *ydoc) collector(cfg *yaml.Node) {
	for _, section := range []string{"processors", "connectors"} {
		comps := get(cfg, section)
		if comps == nil || comps.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(comps.Content); i += 2 {
			typ, _, _ := strings.Cut(comps.Content[i].Value, "/")
			body := comps.Content[i+1]
			switch {
			case ottlComponents[typ]:
				walkStrings(body, func(n *yaml.Node, parentKey string) {
					kind := KindOTTL
					if parentKey == "key" || parentKey == "keys" {
						kind = KindKey
					}
					y.query(n, Query{Kind: kind, Component: typ})
				})
			case keyComponents[typ]:
				walkStrings(body, func(n *yaml.Node, parentKey string) {
					if keySettings[parentKey] {
						y.query(n, Query{Kind: KindKey, Component: typ})
					}
				})
			}
		}
	}
}

// walkStrings calls f for every string scalar under n with the nearest
// mapping key above it.
func walkStrings(n *yaml.Node, f func(*yaml.Node, string)) {
	var walk func(n *yaml.Node, key string)
	walk = func(n *yaml.Node, key string) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], n.Content[i].Value)
			}
		case yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c, key)
			}
		case yaml.ScalarNode:
			if n.Tag == "!!str" || n.Tag == "" {
				f(n, key)
			}
		case yaml.DocumentNode, yaml.AliasNode:
		}
	}
	if n != nil {
		walk(n, "")
	}
}

// parsesAsYAML reports whether a stream is valid YAML (a values file whose
// strings hold template actions is YAML, not a template).
func parsesAsYAML(b []byte) bool {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return true
		}
		if err != nil {
			return false
		}
	}
}

// looksLikeTemplate: a Helm (Go) template rather than YAML: template
// actions outside the alert annotations that Prometheus itself expands.
func looksLikeTemplate(b []byte) bool {
	for _, marker := range []string{"{{-", "-}}", "{{ .Values", "{{.Values", "{{ include", "{{ template", "{{ .Release", "{{ toYaml", "{{- if", "{{ if "} {
		if bytes.Contains(b, []byte(marker)) {
			return true
		}
	}
	return false
}

// blankTemplate replaces each {{ }} block with spaces (newlines kept), so
// offsets stay those of the file; it returns how many blocks it skipped and
// where the first one begins.
func blankTemplate(b []byte) (out []byte, skipped, first int) {
	out = bytes.Clone(b)
	for i := 0; i < len(out); {
		j := bytes.Index(out[i:], []byte("{{"))
		if j < 0 {
			break
		}
		start := i + j
		k := bytes.Index(out[start:], []byte("}}"))
		if k < 0 {
			break
		}
		end := start + k + 2
		if skipped == 0 {
			first = start
		}
		skipped++
		for p := start; p < end; p++ {
			if out[p] != '\n' {
				out[p] = ' '
			}
		}
		i = end
	}
	return out, skipped, first
}
