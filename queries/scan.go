package queries

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Finding is one deprecated name in one file.
type Finding struct {
	File string `json:"file"`
	Line int    `json:"line"`
	// Where says what holds the name: promql, ottl, config key.
	Where string `json:"where"`
	Kind  Kind   `json:"kind"`
	// Name is the name as written; Deprecated its OTel form.
	Name       string `json:"name"`
	Deprecated string `json:"deprecated"`
	// Current is the current name in the written form ("" when there is
	// none or it depends on the context); CurrentOTel lists it in OTel form.
	Current     string   `json:"current,omitempty"`
	CurrentOTel []string `json:"current_otel,omitempty"`
	// Rewritable: --write replaces it; otherwise Why says why not.
	Rewritable bool   `json:"rewritable"`
	Why        string `json:"why,omitempty"`
	// Rewritten is set once --write has replaced it.
	Rewritten bool `json:"rewritten"`
}

// Note is something the scan could not read (an expression that does not
// parse); not a finding.
type Note struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// Result of a scan.
type Result struct {
	Files    int       `json:"files"`
	Findings []Finding `json:"findings"`
	Notes    []Note    `json:"notes"`
}

// Scanner scans files against a registry's names.
type Scanner struct {
	names *Names
	// Write applies unambiguous rewrites in place.
	Write bool
}

// NewScanner returns a scanner of names.
func NewScanner(n *Names) *Scanner { return &Scanner{names: n} }

// exts are the files a directory walk reads.
var exts = []string{".yaml", ".yml", ".json"}

// ScanPaths scans files and directories (recursively: .yaml, .yml, .json).
func (s *Scanner) ScanPaths(paths []string) (Result, error) {
	res := Result{Findings: []Finding{}, Notes: []Note{}}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return res, err
		}
		if !st.IsDir() {
			if err := s.scanFile(p, &res); err != nil {
				return res, err
			}
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != p && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if !slices.Contains(exts, strings.ToLower(filepath.Ext(path))) {
				return nil
			}
			return s.scanFile(path, &res)
		})
		if err != nil {
			return res, err
		}
	}
	sort.SliceStable(res.Findings, func(i, j int) bool {
		a, b := res.Findings[i], res.Findings[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	return res, nil
}

// file is one file being scanned, with its pending edits.
type file struct {
	name    string
	content []byte
	lines   []int // start offset of each line
	edits   []edit
	res     *Result
}

type edit struct {
	off       int
	old, repl string
}

// line is the 1-based line of a byte offset.
func (f *file) line(off int) int {
	return sort.Search(len(f.lines), func(i int) bool { return f.lines[i] > off })
}

// mapper turns an offset in a value (an expression, an embedded document)
// into an offset in the file; ok is false where the file's bytes differ
// from the value's (escapes, folding), which makes a rewrite ambiguous.
type mapper func(off int) (int, bool)

func (s *Scanner) scanFile(path string, res *Result) error {
	b, err := os.ReadFile(path) //nolint:gosec // the user names the paths
	if err != nil {
		return err
	}
	res.Files++
	f := &file{name: path, content: b, res: res, lines: []int{0}}
	for i, c := range b {
		if c == '\n' {
			f.lines = append(f.lines, i+1)
		}
	}
	identity := func(off int) (int, bool) { return off, true }
	trimmed := bytes.TrimSpace(b)
	if strings.EqualFold(filepath.Ext(path), ".json") || (len(trimmed) > 0 && trimmed[0] == '{') {
		s.scanJSON(f, b, identity)
	} else {
		s.scanYAMLDocs(f, b, identity)
	}
	if s.Write && len(f.edits) > 0 {
		return f.apply()
	}
	return nil
}

// apply writes the file with its edits, touching no other byte.
func (f *file) apply() error {
	slices.SortFunc(f.edits, func(a, b edit) int { return a.off - b.off })
	var out bytes.Buffer
	last := 0
	for _, e := range f.edits {
		if e.off < last || !bytes.HasPrefix(f.content[e.off:], []byte(e.old)) {
			return fmt.Errorf("%s: internal error: overlapping or stale edit at byte %d", f.name, e.off)
		}
		out.Write(f.content[last:e.off])
		out.WriteString(e.repl)
		last = e.off + len(e.old)
	}
	out.Write(f.content[last:])
	st, err := os.Stat(f.name)
	if err != nil {
		return err
	}
	return os.WriteFile(f.name, out.Bytes(), st.Mode().Perm())
}

// promql scans one PromQL expression whose bytes map through m.
func (s *Scanner) promql(f *file, expr string, m mapper, fallbackOff int) {
	hits, err := scanPromQL(expr, s.names)
	line := f.line(fallbackOff)
	if err != nil {
		f.res.Notes = append(f.res.Notes, Note{File: f.name, Line: line, Message: err.Error()})
		return
	}
	s.record(f, "promql", hits, m, fallbackOff)
}

// record turns hits into findings and, when every occurrence maps onto the
// file exactly, edits.
func (s *Scanner) record(f *file, where string, hits []hit, m mapper, fallbackOff int) {
	for _, h := range hits {
		fd := Finding{
			File: f.name, Where: where, Kind: h.kind, Name: h.written,
			Deprecated: h.rename.Old, CurrentOTel: h.rename.Current, Why: h.why,
		}
		if h.replacement != "" {
			fd.Current = h.replacement
		} else if len(h.rename.Current) == 1 {
			fd.Current = h.rename.Current[0]
			if h.written != h.rename.Old {
				if h.kind == KindAttribute {
					fd.Current = PromLabel(fd.Current)
				} else {
					fd.Current = s.names.PromSeries(h.rename, h.written)
				}
			}
		}
		off := fallbackOff
		if h.first >= 0 {
			if o, ok := m(h.first); ok {
				off = o
			}
		}
		fd.Line = f.line(off)
		if h.replacement != "" {
			var edits []edit
			ok := true
			for _, o := range h.offsets {
				fo, good := m(o)
				if !good || !bytes.HasPrefix(f.content[fo:], []byte(h.written)) {
					ok = false
					break
				}
				edits = append(edits, edit{fo, h.written, h.replacement})
			}
			if ok {
				fd.Rewritable = true
				if s.Write {
					f.edits = append(f.edits, edits...)
					fd.Rewritten = true
				}
			} else {
				fd.Why = "the expression is escaped or folded in the file; rewrite it by hand"
			}
		}
		f.res.Findings = append(f.res.Findings, fd)
	}
}

// ---- JSON: Grafana dashboards ----

// scanJSON walks a JSON document's tokens, keeping the byte offset of every
// string, and scans the PromQL under "expr" and "query" keys.
func (s *Scanner) scanJSON(f *file, doc []byte, m mapper) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var stack []byte // '{' or '['
	expectKey := false
	key := ""
	for {
		before := int(dec.InputOffset())
		t, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			off, _ := m(before)
			f.res.Notes = append(f.res.Notes, Note{File: f.name, Line: f.line(off), Message: "invalid JSON: " + err.Error()})
			return
		}
		after := int(dec.InputOffset())
		switch v := t.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				stack = append(stack, byte(v))
			default:
				stack = stack[:len(stack)-1]
			}
			expectKey = len(stack) > 0 && stack[len(stack)-1] == '{'
			continue
		case string:
			if expectKey {
				key = v
				expectKey = false
				continue
			}
			if key == "expr" || key == "query" || key == "definition" {
				start := bytes.IndexByte(doc[before:after], '"')
				if start >= 0 {
					raw := doc[before+start : after]
					jm := jsonStringMapper(raw, before+start)
					s.promqlMaybe(f, v, chain(jm, m), key == "expr", mustMap(m, before+start))
				}
			}
		}
		if len(stack) > 0 && stack[len(stack)-1] == '{' {
			expectKey = true
		}
	}
}

func mustMap(m mapper, off int) int {
	o, _ := m(off)
	return o
}

// promqlMaybe scans an expression; a "query" or "definition" that does not
// parse is some other data source's and is skipped silently.
func (s *Scanner) promqlMaybe(f *file, expr string, m mapper, strict bool, off int) {
	if strings.TrimSpace(expr) == "" {
		return
	}
	if !strict {
		if _, err := scanPromQL(expr, s.names); err != nil {
			return
		}
	}
	s.promql(f, expr, m, off)
}

func chain(inner, outer mapper) mapper {
	return func(off int) (int, bool) {
		o, ok := inner(off)
		if !ok {
			return 0, false
		}
		return outer(o)
	}
}

// jsonStringMapper maps offsets in a decoded JSON string to offsets in the
// document (base is the opening quote's offset); escaped bytes do not map.
func jsonStringMapper(raw []byte, base int) mapper {
	var idx []int // decoded byte i -> raw offset, -1 for bytes from escapes
	for i := 1; i < len(raw)-1; {
		if raw[i] != '\\' {
			idx = append(idx, base+i)
			i++
			continue
		}
		n := 2
		if i+1 < len(raw) && raw[i+1] == 'u' {
			n = 6
		}
		var r string
		if i+n <= len(raw)-1 {
			_ = json.Unmarshal(append(append([]byte{'"'}, raw[i:i+n]...), '"'), &r)
		}
		for range max(len(r), 1) {
			idx = append(idx, -1)
		}
		i += n
	}
	return func(off int) (int, bool) {
		if off < 0 || off >= len(idx) || idx[off] < 0 {
			return 0, false
		}
		return idx[off], true
	}
}

// ---- YAML: rules, manifests, collector configs ----

func (s *Scanner) scanYAMLDocs(f *file, doc []byte, m mapper) {
	dec := yaml.NewDecoder(bytes.NewReader(doc))
	lines := lineStarts(doc)
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			f.res.Notes = append(f.res.Notes, Note{File: f.name, Line: f.line(mustMap(m, 0)), Message: "invalid YAML: " + err.Error()})
			return
		}
		if len(n.Content) == 0 {
			continue
		}
		y := &ydoc{s: s, f: f, doc: doc, lines: lines, m: m}
		y.document(n.Content[0])
	}
}

func lineStarts(b []byte) []int {
	out := []int{0}
	for i, c := range b {
		if c == '\n' {
			out = append(out, i+1)
		}
	}
	return out
}

// ydoc is one YAML document, possibly embedded in a string of another.
type ydoc struct {
	s     *Scanner
	f     *file
	doc   []byte
	lines []int
	m     mapper // doc offset -> file offset
}

func (y *ydoc) off(n *yaml.Node) int {
	if n.Line-1 < len(y.lines) && n.Line > 0 {
		return y.lines[n.Line-1] + n.Column - 1
	}
	return 0
}

// valueMapper maps offsets in a scalar's value to offsets in the document:
// exact for literal blocks and for single-line scalars whose bytes appear
// verbatim; otherwise nothing maps.
func (y *ydoc) valueMapper(n *yaml.Node) mapper {
	none := func(int) (int, bool) { return 0, false }
	start := y.off(n)
	switch {
	case n.Style&yaml.LiteralStyle != 0:
		// Content lines follow the indicator line; each ends with the value's line.
		var starts []int // value line -> doc offset of its first byte
		vlines := strings.Split(n.Value, "\n")
		for k, vl := range vlines {
			li := n.Line + k // 0-based index of file line n.Line+1+k
			if li >= len(y.lines) {
				if vl == "" {
					starts = append(starts, -1)
					continue
				}
				return none
			}
			end := len(y.doc)
			if li+1 < len(y.lines) {
				end = y.lines[li+1] - 1
			}
			raw := strings.TrimRight(string(y.doc[y.lines[li]:end]), "\r")
			if !strings.HasSuffix(raw, vl) {
				if vl == "" {
					starts = append(starts, -1)
					continue
				}
				return none
			}
			starts = append(starts, y.lines[li]+len(raw)-len(vl))
		}
		return func(off int) (int, bool) {
			for k, vl := range vlines {
				if off <= len(vl) {
					if starts[k] < 0 {
						return 0, false
					}
					return y.m(starts[k] + off)
				}
				off -= len(vl) + 1
			}
			return 0, false
		}
	case n.Style&yaml.FoldedStyle != 0 || strings.Contains(n.Value, "\n"):
		return none
	default:
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			start++
		}
		if start+len(n.Value) > len(y.doc) || string(y.doc[start:start+len(n.Value)]) != n.Value {
			return none
		}
		return func(off int) (int, bool) { return y.m(start + off) }
	}
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

// document recognises what a YAML document is and scans it.
func (y *ydoc) document(n *yaml.Node) {
	switch str(get(n, "kind")) {
	case "PrometheusRule":
		y.ruleGroups(get(get(n, "spec"), "groups"))
		return
	case "ConfigMap", "Secret":
		y.configMap(get(n, "data"))
		return
	case "OpenTelemetryCollector":
		cfg := get(get(n, "spec"), "config")
		if cfg != nil && cfg.Kind == yaml.ScalarNode {
			y.embedded(cfg, false)
		} else {
			y.collector(cfg)
		}
		return
	case "List":
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
	if get(n, "processors") != nil || get(n, "receivers") != nil || get(n, "connectors") != nil {
		y.collector(n)
		return
	}
	// promtool unit-test files: promql_expr_test[].expr.
	if tests := get(n, "tests"); tests != nil && tests.Kind == yaml.SequenceNode {
		for _, t := range tests.Content {
			if pe := get(t, "promql_expr_test"); pe != nil {
				for _, e := range pe.Content {
					y.promqlNode(get(e, "expr"))
				}
			}
		}
	}
}

func (y *ydoc) promqlNode(n *yaml.Node) {
	if n == nil || n.Kind != yaml.ScalarNode {
		return
	}
	y.s.promql(y.f, n.Value, y.valueMapper(n), mustMap(y.m, y.off(n)))
}

// template scans an alert's label or annotation template for label
// references ($labels.http_method), which a rewritten expression would
// leave empty.
func (y *ydoc) template(n *yaml.Node) {
	if n.Kind != yaml.ScalarNode {
		return
	}
	var hits []hit
	byName := map[string]int{}
	v := n.Value
	for i := 0; ; {
		j := strings.Index(v[i:], "$labels.")
		if j < 0 {
			break
		}
		start := i + j + len("$labels.")
		end := start
		for end < len(v) && (v[end] == '_' || v[end] >= 'a' && v[end] <= 'z' || v[end] >= 'A' && v[end] <= 'Z' || v[end] >= '0' && v[end] <= '9') {
			end++
		}
		i = end
		name := v[start:end]
		rs := y.s.names.Label(name)
		if len(rs) == 0 {
			continue
		}
		if k, ok := byName[name]; ok {
			if hits[k].replacement != "" {
				hits[k].offsets = append(hits[k].offsets, start)
			}
			continue
		}
		h := hit{kind: KindAttribute, written: name, rename: rs[0], first: start, why: rs[0].Why}
		if len(rs) == 1 && rs[0].Rewritable {
			h.replacement = PromLabel(rs[0].New)
			h.offsets = []int{start}
		} else if len(rs) > 1 {
			h.why = "several deprecated keys normalise to this label"
		}
		byName[name] = len(hits)
		hits = append(hits, h)
	}
	if len(hits) > 0 {
		y.s.record(y.f, "alert template", hits, y.valueMapper(n), mustMap(y.m, y.off(n)))
	}
}

func (y *ydoc) ruleGroups(groups *yaml.Node) {
	if groups == nil || groups.Kind != yaml.SequenceNode {
		return
	}
	for _, g := range groups.Content {
		rules := get(g, "rules")
		if rules == nil {
			continue
		}
		for _, r := range rules.Content {
			y.promqlNode(get(r, "expr"))
			for _, sec := range []string{"labels", "annotations"} {
				m := get(r, sec)
				if m == nil || m.Kind != yaml.MappingNode {
					continue
				}
				for i := 1; i < len(m.Content); i += 2 {
					y.template(m.Content[i])
				}
			}
		}
	}
}

// configMap scans embedded files: dashboards (JSON) and YAML documents.
func (y *ydoc) configMap(data *yaml.Node) {
	if data == nil || data.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(data.Content); i += 2 {
		v := data.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			continue
		}
		y.embedded(v, strings.HasSuffix(strings.ToLower(data.Content[i].Value), ".json") || strings.HasPrefix(strings.TrimSpace(v.Value), "{"))
	}
}

// embedded scans a document held in a string scalar.
func (y *ydoc) embedded(v *yaml.Node, asJSON bool) {
	vm := y.valueMapper(v)
	base := mustMap(y.m, y.off(v))
	// Offsets that do not map fall back to the scalar's own position.
	m := func(off int) (int, bool) {
		if o, ok := vm(off); ok {
			return o, true
		}
		return base, false
	}
	if asJSON {
		y.s.scanJSON(y.f, []byte(v.Value), m)
		return
	}
	y.s.scanYAMLDocs(y.f, []byte(v.Value), m)
}

// collector scans a collector configuration: OTTL in transform, filter and
// routing components, and attribute keys of attributes, resource, filter and
// groupbyattrs processors.
func (y *ydoc) collector(cfg *yaml.Node) {
	for _, section := range []string{"processors", "connectors"} {
		comps := get(cfg, section)
		if comps == nil || comps.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(comps.Content); i += 2 {
			typ, _, _ := strings.Cut(comps.Content[i].Value, "/")
			body := comps.Content[i+1]
			switch typ {
			case "transform", "filter", "routing", "tail_sampling", "count", "sum", "signaltometrics":
				y.walkStrings(body, func(n *yaml.Node, parentKey string) {
					if parentKey == "key" || parentKey == "keys" {
						y.configKey(n, typ)
						return
					}
					y.ottl(n)
				})
			case "attributes", "resource", "groupbyattrs", "redaction", "k8sattributes":
				y.walkStrings(body, func(n *yaml.Node, parentKey string) {
					switch parentKey {
					case "key", "from_attribute", "keys", "allowed_keys", "blocked_keys", "ignored_keys", "tag_name":
						y.configKey(n, typ)
					}
				})
			}
		}
	}
}

// walkStrings calls f for every string scalar under n with the nearest
// mapping key above it.
func (y *ydoc) walkStrings(n *yaml.Node, f func(*yaml.Node, string)) {
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

// configKey is an attribute key given as a plain config value.
func (y *ydoc) configKey(n *yaml.Node, typ string) {
	r := y.s.names.Attribute(n.Value)
	if r == nil {
		return
	}
	// Reported only: --write rewrites queries (PromQL, OTTL), not pipeline
	// configuration, whose keys must match what the data carries at that
	// point of the pipeline.
	h := hit{kind: KindAttribute, written: n.Value, rename: r, first: 0, why: r.Why}
	if h.why == "" {
		h.why = "a processor key; change it when the data it sees carries " + r.New
	}
	y.s.record(y.f, typ+" processor key", []hit{h}, y.valueMapper(n), mustMap(y.m, y.off(n)))
}

func (y *ydoc) ottl(n *yaml.Node) {
	hits := scanOTTL(n.Value, y.s.names)
	if len(hits) > 0 {
		y.s.record(y.f, "ottl", hits, y.valueMapper(n), mustMap(y.m, y.off(n)))
	}
}
