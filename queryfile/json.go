package queryfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// jnode is a JSON value with the offset of its first byte in the document.
// Values are held inline in their container (a string costs no allocation
// of its own).
type jnode struct {
	obj, arr bool
	str      bool
	s        string // a string's value
	off      int    // of the value's first byte ('"' for strings)
	end      int    // after the value's last byte (strings only)
	c        *jcont // an object's or array's members
}

// jcont holds a container's members; keys only for objects.
type jcont struct {
	keys []string
	kids []jnode
}

func (n *jnode) get(key string) *jnode {
	if n == nil || !n.obj {
		return nil
	}
	for i, k := range n.c.keys {
		if k == key {
			return &n.c.kids[i]
		}
	}
	return nil
}

// maxJSONDepth bounds nesting, so that a hostile file cannot exhaust the
// stack.
const maxJSONDepth = 10000

// jsonParser is a small JSON reader that keeps every value's offset; it is
// several times faster than encoding/json's token stream, which matters for
// dashboards of tens of megabytes.
type jsonParser struct {
	doc    []byte
	i      int
	depth  int
	intern map[string]string // short strings seen: keys and repeated values
}

// scalar stands for every number, true, false and null: nothing reads them.
var scalar = jnode{}

// maxInterned bounds the intern table and the length of interned strings.
const (
	maxInterned    = 1 << 14
	maxInternedLen = 64
)

type jsonError struct {
	off int
	msg string
}

func (e *jsonError) Error() string { return e.msg }

func (p *jsonParser) fail(msg string) error {
	return &jsonError{off: p.i, msg: fmt.Sprintf("%s at byte %d", msg, p.i)}
}

func (p *jsonParser) space() {
	for p.i < len(p.doc) {
		switch p.doc[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// parseJSON builds the tree of a JSON document; errOff is where a syntax
// error lies.
func parseJSON(doc []byte) (root *jnode, errOff int, err error) {
	p := &jsonParser{doc: doc, intern: map[string]string{}}
	p.space()
	if p.i == len(doc) {
		return nil, 0, errors.New("empty document")
	}
	var v jnode
	v, err = p.value()
	root = &v
	if err == nil {
		p.space()
		if p.i != len(doc) {
			err = p.fail("invalid character " + strconv.QuoteRune(rune(doc[p.i])) + " after top-level value")
		}
	}
	if err != nil {
		var je *jsonError
		if errors.As(err, &je) {
			return nil, je.off, err
		}
		return nil, p.i, err
	}
	return root, 0, nil
}

func (p *jsonParser) value() (jnode, error) {
	if p.i >= len(p.doc) {
		return jnode{}, p.fail("unexpected end of JSON input")
	}
	switch c := p.doc[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		return p.str()
	case c == '-' || c >= '0' && c <= '9':
		start := p.i
		for p.i < len(p.doc) && bytes.IndexByte([]byte("+-0123456789.eE"), p.doc[p.i]) >= 0 {
			p.i++
		}
		if p.i == start+1 && c == '-' {
			return jnode{}, p.fail("invalid number")
		}
		return scalar, nil
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(p.doc[p.i:], []byte(lit)) {
				p.i += len(lit)
				return scalar, nil
			}
		}
		return jnode{}, p.fail("invalid character " + strconv.QuoteRune(rune(c)) + " looking for beginning of value")
	}
}

func (p *jsonParser) enter() error {
	p.depth++
	if p.depth > maxJSONDepth {
		return p.fail("nesting deeper than " + strconv.Itoa(maxJSONDepth))
	}
	return nil
}

func (p *jsonParser) object() (jnode, error) {
	if err := p.enter(); err != nil {
		return jnode{}, err
	}
	defer func() { p.depth-- }()
	n := jnode{obj: true, off: p.i, c: &jcont{}}
	p.i++
	p.space()
	if p.i < len(p.doc) && p.doc[p.i] == '}' {
		p.i++
		return n, nil
	}
	for {
		p.space()
		if p.i >= len(p.doc) || p.doc[p.i] != '"' {
			return jnode{}, p.fail("expected a string key")
		}
		k, err := p.str()
		if err != nil {
			return jnode{}, err
		}
		p.space()
		if p.i >= len(p.doc) || p.doc[p.i] != ':' {
			return jnode{}, p.fail("expected ':' after object key")
		}
		p.i++
		p.space()
		v, err := p.value()
		if err != nil {
			return jnode{}, err
		}
		n.c.keys = append(n.c.keys, k.s)
		n.c.kids = append(n.c.kids, v)
		done, err := p.next('}', "object key:value pair")
		if err != nil {
			return jnode{}, err
		}
		if done {
			return n, nil
		}
	}
}

func (p *jsonParser) array() (jnode, error) {
	if err := p.enter(); err != nil {
		return jnode{}, err
	}
	defer func() { p.depth-- }()
	n := jnode{arr: true, off: p.i, c: &jcont{}}
	p.i++
	p.space()
	if p.i < len(p.doc) && p.doc[p.i] == ']' {
		p.i++
		return n, nil
	}
	for {
		p.space()
		v, err := p.value()
		if err != nil {
			return jnode{}, err
		}
		n.c.kids = append(n.c.kids, v)
		done, err := p.next(']', "array element")
		if err != nil {
			return jnode{}, err
		}
		if done {
			return n, nil
		}
	}
}

// next reads what follows a member of an object or an element of an array
// (after, for the error): a comma (another one follows) or the closing
// byte (done).
func (p *jsonParser) next(closing byte, after string) (done bool, err error) {
	p.space()
	if p.i >= len(p.doc) {
		return false, p.fail("unexpected end of JSON input")
	}
	switch p.doc[p.i] {
	case ',':
		p.i++
		return false, nil
	case closing:
		p.i++
		return true, nil
	default:
		return false, p.fail("invalid character " + strconv.QuoteRune(rune(p.doc[p.i])) + " after " + after)
	}
}

func (p *jsonParser) str() (jnode, error) {
	start := p.i
	escaped := false
	for p.i++; p.i < len(p.doc); p.i++ {
		switch c := p.doc[p.i]; {
		case c == '\\':
			escaped = true
			p.i++
		case c == '"':
			p.i++
			raw := p.doc[start:p.i]
			n := jnode{str: true, off: start, end: p.i}
			if !escaped {
				n.s = p.str1(raw[1 : len(raw)-1])
				return n, nil
			}
			var ok bool
			if n.s, ok = unescape(raw[1 : len(raw)-1]); !ok {
				if err := json.Unmarshal(raw, &n.s); err != nil {
					p.i = start
					return jnode{}, p.fail("invalid string: " + err.Error())
				}
			}
			return n, nil
		case c < 0x20:
			return jnode{}, p.fail("control character in string")
		}
	}
	return jnode{}, p.fail("unexpected end of JSON input in a string")
}

// json reads a JSON document (a dashboard, a dashboard list, an alerting
// rule export) whose bytes map to the file through m; esc encodes text for
// the document's own container. It returns false when the document is not
// valid JSON.
func (f *File) json(doc []byte, m Map, esc func(string) string) bool {
	f.doc = doc
	root, errOff, err := parseJSON(doc)
	if err != nil {
		off, _ := m(errOff)
		f.Notes = append(f.Notes, Note{Off: off, Message: "invalid JSON: " + err.Error(), Unreadable: true})
		return false
	}
	f.jsonWalk(root, m, esc, "", "")
	return true
}

// jsonWalk finds PromQL under "expr" (strict), "query" and "definition"
// (optional) keys of objects whose data source is Prometheus or unknown.
func (f *File) jsonWalk(n *jnode, m Map, esc func(string) string, datasource, title string) {
	if n == nil {
		return
	}
	if n.arr {
		for i := range n.c.kids {
			f.jsonWalk(&n.c.kids[i], m, esc, datasource, title)
		}
		return
	}
	if !n.obj {
		return
	}
	if ds := datasourceType(n.get("datasource")); ds != "" {
		datasource = ds
	}
	if t := n.get("title"); t != nil && t.str {
		title = "panel " + t.s
	}
	if v, t := n.get("name"), n.get("type"); v != nil && v.str && t != nil && t.str && t.s == "query" {
		title = "variable " + v.s
	}
	promql := !notPromQL(datasource)
	// "query" and "definition" are PromQL only in a query variable or a
	// target (refId); elsewhere they are other settings.
	typ, ref := n.get("type"), n.get("refId")
	queryHolder := ref != nil || (typ != nil && typ.str && typ.s == "query") || strings.HasPrefix(title, "variable ")
	// A target's expression and its legend share a rule number: the legend
	// reads the labels the expression returns.
	rule := 0
	if e := n.get("expr"); ref != nil && e != nil && e.str && promql {
		f.rules++
		rule = f.rules
	}
	// A panel: its field display templates (${__field.labels.x} in a
	// display name or a data link) read the labels of its one target.
	if targets := n.get("targets"); targets != nil && targets.arr && promql {
		defer f.fieldTemplates(n, f.rules, m, esc, title)
	}
	for i, k := range n.c.keys {
		v := &n.c.kids[i]
		if !v.str {
			f.jsonWalk(v, m, esc, datasource, title)
			continue
		}
		if !promql || strings.TrimSpace(v.s) == "" {
			continue
		}
		switch k {
		case "legendFormat":
			if rule == 0 || !strings.Contains(v.s, "{{") {
				continue // __auto, a fixed text
			}
			name := title
			if r := n.get("refId"); r != nil && r.str {
				name += "/" + r.s
			}
			f.Queries = append(f.Queries, Query{
				Kind: KindLegend, Text: v.s, Rule: rule, Name: name + "/legend",
				Map:    chain(jsonStringMap(f.doc[v.off:v.end], v.off), m),
				Off:    mustMap(m, v.off),
				Escape: func(s string) string { return esc(jsonEscape(s)) },
			})
		case "expr", "query", "definition":
			if k != "expr" && !queryHolder {
				continue // not a query
			}
			name := title
			if r := n.get("refId"); r != nil && r.str && !strings.HasPrefix(title, "variable ") {
				name += "/" + r.s
			}
			if k == "definition" {
				// A variable's definition is what Grafana's variable editor
				// shows; it repeats the query, and is read and rewritten
				// with it.
				name += "/definition"
			}
			q := Query{
				Kind: KindPromQL, Text: v.s, Optional: k != "expr", Name: name, Rule: rule,
				Map:    chain(jsonStringMap(f.doc[v.off:v.end], v.off), m),
				Off:    mustMap(m, v.off),
				Escape: func(s string) string { return esc(jsonEscape(s)) },
			}
			f.Queries = append(f.Queries, q)
		}
	}
}

// fieldTemplates reads the field display templates of panel n (whose
// targets were numbered after before): under fieldConfig and links, each
// string holding ${__field.labels. is a KindLegend query, sharing the rule
// of the panel's target when it has exactly one.
func (f *File) fieldTemplates(n *jnode, before int, m Map, esc func(string) string, title string) {
	rule := 0
	if f.rules == before+1 {
		rule = f.rules
	}
	var walk func(v *jnode)
	walk = func(v *jnode) {
		switch {
		case v == nil:
		case v.str:
			if strings.Contains(v.s, "${__field.labels.") {
				f.Queries = append(f.Queries, Query{
					Kind: KindLegend, Text: v.s, Rule: rule, Name: title + "/field",
					Map:    chain(jsonStringMap(f.doc[v.off:v.end], v.off), m),
					Off:    mustMap(m, v.off),
					Escape: func(s string) string { return esc(jsonEscape(s)) },
				})
			}
		case v.obj || v.arr:
			for i := range v.c.kids {
				walk(&v.c.kids[i])
			}
		}
	}
	walk(n.get("fieldConfig"))
	walk(n.get("links"))
}

// datasourceType is a Grafana data source's type or name ("" unknown).
func datasourceType(n *jnode) string {
	switch {
	case n == nil:
		return ""
	case n.str:
		return strings.ToLower(n.s)
	case n.obj:
		if t := n.get("type"); t != nil && t.str {
			return strings.ToLower(t.s)
		}
	}
	return ""
}

// otherLanguages are data sources whose queries are not PromQL.
var otherLanguages = []string{
	"loki", "tempo", "elasticsearch", "opensearch", "influx", "mysql", "postgres", "mssql",
	"cloudwatch", "graphite", "jaeger", "zipkin", "testdata", "-- grafana --", "grafana",
	"pyroscope", "parca", "clickhouse", "x-ray", "stackdriver", "azure", "__expr__", "expression",
}

func notPromQL(ds string) bool {
	if ds == "" || strings.HasPrefix(ds, "$") || strings.Contains(ds, "prometheus") || strings.Contains(ds, "mimir") || strings.Contains(ds, "thanos") || strings.Contains(ds, "victoriametrics") {
		return false
	}
	for _, o := range otherLanguages {
		if ds == o || strings.Contains(ds, o) {
			return true
		}
	}
	return false
}

func chain(inner, outer Map) Map {
	return func(off int) (int, bool) {
		o, ok := inner(off)
		if !ok {
			return 0, false
		}
		return outer(o)
	}
}

func mustMap(m Map, off int) int {
	o, _ := m(off)
	return o
}

var jsonPlain = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

// jsonEscape encodes s as the content of a JSON string, as Grafana writes
// it (no HTML escaping).
func jsonEscape(s string) string {
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		plain = s[i] >= 0x20 && s[i] < 0x80
	}
	if plain { // only quotes and backslashes to escape
		return jsonPlain.Replace(s)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	out := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	return string(out[1 : len(out)-1])
}

// jsonStringMap maps offsets in a decoded JSON string to offsets in the
// document (raw is the string with its quotes, base the opening quote's
// offset); bytes decoded from escapes do not map.
func jsonStringMap(raw []byte, base int) Map {
	if bytes.IndexByte(raw, '\\') < 0 {
		n := len(raw) - 2
		return func(off int) (int, bool) {
			if off < 0 || off > n {
				return 0, false
			}
			return base + 1 + off, true
		}
	}
	var idx []int // decoded byte i -> raw offset, -1 for bytes from escapes
	built := false
	return func(off int) (int, bool) {
		if !built {
			idx, built = escapedIndex(raw, base), true
		}
		if off < 0 || off >= len(idx) || idx[off] < 0 {
			return 0, false
		}
		return idx[off], true
	}
}

// escapedIndex maps each decoded byte of a JSON string with escapes to its
// raw offset (-1 for bytes decoded from an escape).
func escapedIndex(raw []byte, base int) []int {
	var idx []int
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
	return append(idx, base+len(raw)-1) // the closing quote: end of text
}

// str1 is b as a string, shared with earlier equal short strings.
func (p *jsonParser) str1(b []byte) string {
	if len(b) > maxInternedLen {
		return string(b)
	}
	if s, ok := p.intern[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(p.intern) < maxInterned {
		p.intern[s] = s
	}
	return s
}

// unescape decodes the common JSON escapes; ok is false for \u escapes and
// anything else, which encoding/json then decodes.
func unescape(b []byte) (string, bool) {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(b) {
			return "", false
		}
		switch b[i] {
		case '"', '\\', '/':
			out = append(out, b[i])
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		default:
			return "", false
		}
	}
	return string(out), true
}
