package queryfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// jnode is a JSON value with the offset of its first byte in the document.
type jnode struct {
	obj, arr bool
	str      bool
	s        string // a string's value
	off      int    // of the value's first byte ('"' for strings)
	end      int    // after the value's last byte (strings only)
	keys     []string
	kids     []*jnode
}

func (n *jnode) get(key string) *jnode {
	if n == nil || !n.obj {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.kids[i]
		}
	}
	return nil
}

// parseJSON builds the tree of a JSON document; errOff is where a syntax
// error lies.
func parseJSON(doc []byte) (root *jnode, errOff int, err error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var stack []*jnode
	var pendingKey string
	wantKey := false
	add := func(n *jnode) {
		if len(stack) == 0 {
			if root == nil {
				root = n
			}
			return
		}
		p := stack[len(stack)-1]
		if p.obj {
			p.keys = append(p.keys, pendingKey)
			wantKey = true
		}
		p.kids = append(p.kids, n)
	}
	for {
		before := int(dec.InputOffset())
		t, err := dec.Token()
		if errors.Is(err, io.EOF) {
			if root == nil {
				return nil, 0, errors.New("empty document")
			}
			return root, 0, nil
		}
		if err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				return nil, int(se.Offset), err
			}
			return nil, before, err
		}
		after := int(dec.InputOffset())
		switch v := t.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				n := &jnode{obj: v == '{', arr: v == '[', off: before}
				add(n)
				stack = append(stack, n)
				wantKey = v == '{'
			default:
				stack = stack[:len(stack)-1]
				wantKey = len(stack) > 0 && stack[len(stack)-1].obj
			}
		case string:
			if wantKey {
				pendingKey = v
				wantKey = false
				continue
			}
			start := before + bytes.IndexByte(doc[before:after], '"')
			add(&jnode{str: true, s: v, off: start, end: after})
		default:
			add(&jnode{off: before})
		}
	}
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
		for _, k := range n.kids {
			f.jsonWalk(k, m, esc, datasource, title)
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
	queryHolder := ref != nil || (typ != nil && typ.str && typ.s == "query")
	for i, k := range n.keys {
		v := n.kids[i]
		if !v.str {
			f.jsonWalk(v, m, esc, datasource, title)
			continue
		}
		if !promql || strings.TrimSpace(v.s) == "" {
			continue
		}
		switch k {
		case "expr", "query", "definition":
			if k != "expr" && !queryHolder || k == "definition" && n.get("query") != nil {
				continue // not a query, or the definition of one read under "query"
			}
			name := title
			if r := n.get("refId"); r != nil && r.str && !strings.HasPrefix(title, "variable ") {
				name += "/" + r.s
			}
			q := Query{
				Kind: KindPromQL, Text: v.s, Optional: k != "expr", Name: name,
				Map:    chain(jsonStringMap(f.doc[v.off:v.end], v.off), m),
				Off:    mustMap(m, v.off),
				Escape: func(s string) string { return esc(jsonEscape(s)) },
			}
			f.Queries = append(f.Queries, q)
		}
	}
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

// jsonEscape encodes s as the content of a JSON string.
func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// jsonStringMap maps offsets in a decoded JSON string to offsets in the
// document (raw is the string with its quotes, base the opening quote's
// offset); bytes decoded from escapes do not map.
func jsonStringMap(raw []byte, base int) Map {
	var idx []int32 // decoded byte i -> raw offset, -1 for bytes from escapes
	escaped := bytes.IndexByte(raw, '\\') >= 0
	if !escaped {
		n := len(raw) - 2
		return func(off int) (int, bool) {
			if off < 0 || off > n {
				return 0, false
			}
			return base + 1 + off, true
		}
	}
	for i := 1; i < len(raw)-1; {
		if raw[i] != '\\' {
			idx = append(idx, int32(base+i))
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
	idx = append(idx, int32(base+len(raw)-1)) // the closing quote: end of text
	return func(off int) (int, bool) {
		if off < 0 || off >= len(idx) || idx[off] < 0 {
			return 0, false
		}
		return int(idx[off]), true
	}
}
