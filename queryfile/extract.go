package queryfile

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"unicode/utf8"
)

// Kind is what a Query holds.
type Kind uint8

const (
	// KindPromQL is a PromQL expression, Grafana variables allowed.
	KindPromQL Kind = iota + 1
	// KindOTTL is an OTTL statement or condition.
	KindOTTL
	// KindKey is an attribute key given as a collector component's setting.
	KindKey
	// KindTemplate is an alert's label or annotation template: it reads
	// labels as $labels.x or .Labels.x.
	KindTemplate
	// KindLegend is a Grafana target's legendFormat: it reads labels as
	// {{x}}.
	KindLegend
)

var kindNames = [...]string{
	KindPromQL:   "promql",
	KindOTTL:     "ottl",
	KindKey:      "config key",
	KindTemplate: "alert template",
	KindLegend:   "legend",
}

// String returns the kind's name.
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "unknown"
}

// Map turns an offset in a query's text into an offset in the file; ok is
// false where the file's bytes differ from the text's (escapes, folding).
type Map func(off int) (fileOff int, ok bool)

// Query is one query found in a file.
type Query struct {
	Kind Kind
	Text string
	// Off is the file offset of the value holding Text: the position to
	// report when an offset inside Text does not map.
	Off int
	// Map maps offsets in Text to offsets in the file.
	Map Map
	// Escape encodes replacement text for the container of Text in the file
	// (a JSON string, a YAML double-quoted scalar); identity elsewhere.
	Escape func(string) string
	// Optional: the PromQL came from a Grafana "query" or "definition" field,
	// which may belong to another data source; a parse failure is no error.
	Optional bool
	// Rule numbers the alert or recording rule, or the Grafana target, the
	// query belongs to: its expression and its templates (annotations,
	// labels, the target's legendFormat) share it; 0 elsewhere.
	Rule int
	// Name says where the query is: "group/alert", "panel title/refId".
	Name string
	// Record is a recording rule's name.
	Record string
	// Component is the collector component type of OTTL and keys.
	Component string
}

// Note is something in a file that could not be read.
type Note struct {
	// Off is the file offset the note is about.
	Off     int
	Message string
	// Unreadable: this part of the file could not be read at all (not
	// merely one expression).
	Unreadable bool
}

// File is what Extract found in one file.
type File struct {
	Queries []Query
	Notes   []Note
	// Unreadable: nothing in the file could be read (bad JSON or YAML, a
	// binary file, a template with nothing outside its blocks).
	Unreadable bool
	// Template: the file was read as a Helm template, outside its {{ }}
	// blocks.
	Template bool

	lines []int
	rules int
	doc   []byte // the JSON document being walked
}

// Line is the 1-based line of a file offset.
func (f *File) Line(off int) int {
	return sort.Search(len(f.lines), func(i int) bool { return f.lines[i] > off })
}

// IsJSON reports whether a file is read as JSON: by its name or its first
// byte.
func IsJSON(name string, data []byte) bool {
	t := bytes.TrimSpace(bom(data))
	n := len(name)
	return (n > 5 && (name[n-5:] == ".json" || name[n-5:] == ".JSON")) || (len(t) > 0 && t[0] == '{' && !bytes.HasPrefix(t, []byte("{{")))
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

func bom(b []byte) []byte { return bytes.TrimPrefix(b, utf8BOM) }

// Extract finds the queries in a file's content; name decides JSON or YAML
// with the content's first byte.
func Extract(name string, data []byte) *File {
	f := &File{lines: lineStarts(data)}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		f.Unreadable = true
		f.Notes = append(f.Notes, Note{Message: "not a text file (binary or not UTF-8)", Unreadable: true})
		return f
	}
	start := 0
	if bytes.HasPrefix(data, utf8BOM) {
		start = len(utf8BOM)
	}
	body := data[start:]
	shift := func(off int) (int, bool) { return start + off, true }
	if IsJSON(name, data) {
		if !f.json(body, shift, identity) {
			f.Unreadable = true
		}
		return f
	}
	if looksLikeTemplate(body) && !parsesAsYAML(body) {
		f.Template = true
		blanked, skipped, first := blankTemplate(body)
		if !f.yamlDocs(blanked, shift, 0) {
			f.Unreadable = true
			return f
		}
		// One note for the file: a chart template holds dozens of blocks.
		f.Notes = append(f.Notes, Note{
			Off:     start + first,
			Message: fmt.Sprintf("read as a Helm template: checked outside its {{ }} blocks (%d skipped)", skipped),
		})
		return f
	}
	if !f.yamlDocs(body, shift, 0) {
		f.Unreadable = true
	}
	return f
}

func identity(s string) string { return s }

func lineStarts(b []byte) []int {
	out := []int{0}
	for i, c := range b {
		if c == '\n' {
			out = append(out, i+1)
		}
	}
	return out
}

// yamlErrLine reads the line number of a YAML error ("yaml: line 7: ...").
var yamlErrLine = regexp.MustCompile(`line (\d+)`)

func errLine(msg string) int {
	if m := yamlErrLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}
