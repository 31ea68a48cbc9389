package queries

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/otelgov/otelcol-governance/queryfile"
	"github.com/otelgov/otelcol-governance/registry"
)

// Finding is one deprecated name in one file.
type Finding struct {
	File string `json:"file"`
	Line int    `json:"line"`
	// Where says what holds the name: promql, ottl, alert template,
	// <component> processor key.
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
	// Rewritten is set once --write has replaced it: its bytes changed
	// (with --both, into its Window form).
	Rewritten bool `json:"rewritten"`
	// Window is how the read sees data sent under either name during an
	// upgrade's transition window: its --write --both form, or why it has
	// none.
	Window Window `json:"window"`
}

// Window is a read's form for an upgrade's transition window, when some
// producers send the old name and some the new: what --write --both makes
// of the query that holds it, so that it reads the old or the new name.
type Window struct {
	// Form is the query (PromQL expression, OTTL statement) as --write
	// --both writes it; "" when --both leaves the query as it is.
	Form string `json:"form,omitempty"`
	// Works: during the window the read sees data under either name, in
	// Form or as it is (a legend or alert template whose expression's
	// window form keeps the old label).
	Works bool `json:"works"`
	// Why says why Form is empty: what keeps the read working, or why
	// --both cannot write a form (rewrite it by hand).
	Why string `json:"why,omitempty"`
}

// Note is something the scan could not read; not a finding.
type Note struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Message string `json:"message"`
	// Unreadable: input that could not be read (a file, or an expression
	// that does not parse); the command exits 2 unless --skip-unreadable.
	Unreadable bool `json:"unreadable,omitempty"`
}

// Rewrite is one replacement of bytes in a file: Old, at byte Offset (line
// Line, byte Column, both from 1), becomes New, each as the file writes it
// (escaped in a JSON string). A file's rewrites, applied in order to the
// file as it was read, give the file --write writes, byte for byte: no
// other byte changes.
type Rewrite struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Offset int    `json:"offset"`
	// What the bytes are (the Rewrite* constants): metric, label (in
	// PromQL or an alert template), label value (a compared value migrated
	// with its label), attribute (an OTTL attribute path's key), transition
	// (--both's (old or new)) or collapse (a --both transition written back
	// to its new branch).
	What string `json:"what"`
	// Name is the deprecated name, as written, that the rewrite migrates
	// (for a label value, its label's); "" for transitions.
	Name string `json:"name,omitempty"`
	Old  string `json:"old"`
	New  string `json:"new"`
}

// Result of a scan.
type Result struct {
	Files    int       `json:"files"`
	Findings []Finding `json:"findings"`
	Notes    []Note    `json:"notes"`
	// Rewrites lists every replacement of the rewritable findings, by file
	// and offset: made when Written, planned otherwise. Without Write, a
	// file that holds --both transitions gets the rewrites of its old
	// branches listed; --write collapses the transitions instead.
	Rewrites []Rewrite `json:"rewrites"`
	// Written: the scan ran with Write, and Rewrites are made (in the
	// files with ScanPaths, in the content ScanContent returns).
	Written bool `json:"written"`
	// Window: the scan ran with Both: the rewrites write window forms, and
	// a read left as it is may work in the window (Finding.Window.Works).
	Window bool `json:"window"`
	// Unreadable counts the unreadable notes.
	Unreadable int `json:"unreadable"`
}

// finish orders the findings and rewrites by file (the rewrites of a file
// are in offset order) and counts the unreadable notes.
func (res *Result) finish() {
	sort.SliceStable(res.Findings, func(i, j int) bool {
		a, b := res.Findings[i], res.Findings[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	sort.SliceStable(res.Rewrites, func(i, j int) bool { return res.Rewrites[i].File < res.Rewrites[j].File })
	res.Unreadable = 0
	for _, n := range res.Notes {
		if n.Unreadable {
			res.Unreadable++
		}
	}
}

// Scanner scans files against a registry's names.
type Scanner struct {
	names *Names
	// Write applies the rewrites in place.
	Write bool
	// Both makes the PromQL rewrites transitional: each query reads the old
	// and the current names (see transition).
	Both bool
	seen map[string]bool // real paths scanned
	// parsed caches scanPromQL by expression: dashboards repeat theirs.
	parsed map[string]parsedExpr
}

type parsedExpr struct {
	hits  []hit
	sites []site
	p     *queryfile.PromQL
	err   error
}

// maxCached bounds the expression cache.
const maxCached = 1 << 16

func (s *Scanner) scanPromQL(expr string) ([]hit, error) {
	c := s.analyze(expr)
	return slices.Clone(c.hits), c.err
}

// analyze is scanPromQL's analysis of an expression, kept for its window
// form.
func (s *Scanner) analyze(expr string) parsedExpr {
	if c, ok := s.parsed[expr]; ok {
		return c
	}
	hits, sites, p, err := analyze(expr, s.names)
	if err == nil && len(hits) > 0 {
		verify(expr, hits, sites, s.names)
	}
	if s.parsed == nil || len(s.parsed) >= maxCached {
		s.parsed = map[string]parsedExpr{}
	}
	c := parsedExpr{hits, sites, p, err}
	s.parsed[expr] = c
	return c
}

// Scan checks files and directories against a registry (ScanPaths with
// the registry's names): the findings and the rewrites --write would make,
// as data. It writes nothing.
func Scan(ix *registry.Index, paths ...string) (Result, error) {
	return NewScanner(NewNames(ix)).ScanPaths(paths)
}

// NewScanner returns a scanner of names.
func NewScanner(n *Names) *Scanner { return &Scanner{names: n} }

// exts are the files a directory walk reads.
var exts = []string{".yaml", ".yml", ".json"}

// vcsDirs are version-control directories, skipped silently.
var vcsDirs = map[string]bool{".git": true, ".hg": true, ".svn": true, ".bzr": true, ".jj": true, "CVS": true, "_darcs": true}

// ScanPaths scans files and directories (recursively: .yaml, .yml, .json).
// A named path that does not exist is an error; inside a directory, a
// dangling symlink or an unreadable file is a note. A file reached twice
// (through symlinks) is scanned once.
func (s *Scanner) ScanPaths(paths []string) (Result, error) {
	res := Result{Findings: []Finding{}, Notes: []Note{}, Rewrites: []Rewrite{}, Written: s.Write, Window: s.Both}
	s.seen = map[string]bool{}
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
				res.Notes = append(res.Notes, Note{File: path, Message: "cannot read: " + err.Error(), Unreadable: true})
				if d != nil && d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				if path != p && vcsDirs[d.Name()] {
					return filepath.SkipDir
				}
				return nil
			}
			if !slices.Contains(exts, strings.ToLower(filepath.Ext(path))) {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				if _, err := os.Stat(path); err != nil {
					res.Notes = append(res.Notes, Note{File: path, Message: "dangling symlink: skipped"})
					return nil
				}
			}
			return s.scanFile(path, &res)
		})
		if err != nil {
			return res, err
		}
	}
	res.finish()
	return res, nil
}

// file is one file being scanned, with its pending edits.
type file struct {
	name    string
	content []byte
	x       *queryfile.File
	edits   []edit
	res     *Result
	// ruleLabels are the label rewrites of each rule's (or Grafana
	// target's) expressions, which its templates ($labels.x, {{x}}) follow.
	ruleLabels map[int]map[string]ruleLabel
	// templated are the offsets of a Helm template's PromQL expressions
	// that do not parse without their {{ }} blocks; templatedErr is the
	// first one's error. One note lists them.
	templated    []int
	templatedErr error
}

// maxListedLines bounds the lines a note lists.
const maxListedLines = 10

// noteTemplated writes the one note for a template's expressions that
// could not be checked.
func (f *file) noteTemplated() {
	if len(f.templated) == 0 {
		return
	}
	var lines []string
	for i, off := range f.templated {
		if i == maxListedLines {
			lines = append(lines, "…")
			break
		}
		lines = append(lines, strconv.Itoa(f.x.Line(off)))
	}
	f.note(f.templated[0], fmt.Sprintf("PromQL with template blocks: %d expression(s) not checked, line(s) %s (first: %v)",
		len(f.templated), strings.Join(lines, ", "), f.templatedErr), false)
}

func (f *file) note(off int, msg string, unreadable bool) {
	f.res.Notes = append(f.res.Notes, Note{File: f.name, Line: f.x.Line(off), Message: msg, Unreadable: unreadable})
}

func (s *Scanner) scanFile(path string, res *Result) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		if abs, err := filepath.Abs(real); err == nil {
			real = abs
		}
		if s.seen[real] {
			return nil
		}
		s.seen[real] = true
	}
	b, err := os.ReadFile(path) //nolint:gosec // the user names the paths
	if err != nil {
		res.Notes = append(res.Notes, Note{File: path, Message: "cannot read: " + err.Error(), Unreadable: true})
		return nil
	}
	res.Files++
	out, err := s.scanContent(path, b, res, s.Write)
	if err != nil || !s.Write || bytes.Equal(out, b) {
		return err
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, st.Mode().Perm()) //nolint:gosec // the user names the paths
}

// ScanContent scans one file's content held in memory; name is reported
// and decides JSON or YAML (with the content's first byte). It returns the
// content with the rewrites applied (content itself when there are none)
// and writes nothing, Write or not; Write only decides, as for ScanPaths,
// whether findings are marked rewritten and --both transitions collapse.
func (s *Scanner) ScanContent(name string, content []byte) (Result, []byte, error) {
	res := Result{Files: 1, Findings: []Finding{}, Notes: []Note{}, Rewrites: []Rewrite{}, Written: s.Write, Window: s.Both}
	out, err := s.scanContent(name, content, &res, true)
	res.finish()
	return res, out, err
}

// scanContent scans a file's content, adds its findings, notes and
// rewrites to res and returns the content rewritten (when apply). With Write (not
// Both), the --both transitions of the file are collapsed first (see
// collapse) and the rewrites of the collapsed content are composed with
// them, so that every rewrite is listed against the content as read.
func (s *Scanner) scanContent(name string, orig []byte, res *Result, apply bool) ([]byte, error) {
	content := orig
	var collapsed []edit
	ruleLabels := map[int]map[string]ruleLabel{}
	if s.Write && !s.Both {
		// A query that --both rewrote reads (old or new): back to new only
		// first, then the old names left around it are rewritten below. The
		// labels a collapse moved to their new name are moved in the rule's
		// templates too, as --write alone moves them.
		collapsed = s.collapseEdits(name, orig, ruleLabels)
		var err error
		if content, err = applyFile(name, orig, collapsed); err != nil {
			return orig, err
		}
	}
	f := &file{name: name, content: content, res: res, x: queryfile.Extract(name, content), ruleLabels: ruleLabels}
	for _, n := range f.x.Notes {
		f.note(n.Off, n.Message, n.Unreadable)
	}
	// Expressions first: the templates of a rule or target follow them,
	// wherever they lie in the file.
	for _, templates := range []bool{false, true} {
		for i := range f.x.Queries {
			q := &f.x.Queries[i]
			if isTemplate(q.Kind) == templates {
				s.query(f, q)
			}
		}
	}
	f.noteTemplated()
	edits, err := compose(name, collapsed, sortEdits(f.edits))
	if err != nil {
		return orig, err
	}
	out := orig
	if apply { // a scan of files without --write discards the content
		if out, err = applyFile(name, orig, edits); err != nil {
			return orig, err
		}
	}
	line, lineStart, pos := 1, 0, 0 // edits are in offset order
	for _, e := range edits {
		for ; pos < e.off; pos++ {
			if orig[pos] == '\n' {
				line, lineStart = line+1, pos+1
			}
		}
		res.Rewrites = append(res.Rewrites, Rewrite{
			File: name, Line: line, Column: e.off - lineStart + 1, Offset: e.off,
			What: e.what, Name: e.name, Old: e.old, New: e.repl,
		})
	}
	return out, nil
}

func isTemplate(k queryfile.Kind) bool {
	return k == queryfile.KindTemplate || k == queryfile.KindLegend
}

// collapseEdits are the edits that write back to their new branch the
// transition queries of a file (see collapse and collapseOTTL); labels
// gets, per rule, the labels they moved to their new name.
func (s *Scanner) collapseEdits(name string, b []byte, labels map[int]map[string]ruleLabel) []edit {
	x := queryfile.Extract(name, b)
	var edits []edit
	for i := range x.Queries {
		q := &x.Queries[i]
		var es []edit
		var moved map[string]string
		switch q.Kind {
		case queryfile.KindPromQL:
			es, moved = collapse(q.Text, s.names)
		case queryfile.KindOTTL:
			es = collapseOTTL(q.Text, s.names)
		default:
			continue
		}
		mapped := false
		for _, e := range es {
			if fe, ok := fileEdit(b, q, e); ok {
				edits = append(edits, fe)
				mapped = true
			}
		}
		if mapped && q.Rule != 0 {
			for old, repl := range moved {
				if labels[q.Rule] == nil {
					labels[q.Rule] = map[string]ruleLabel{}
				}
				labels[q.Rule][old] = ruleLabel{repl: repl}
			}
		}
	}
	return sortEdits(edits)
}

// sortEdits orders edits by offset and drops repeats (a query read twice).
func sortEdits(edits []edit) []edit {
	slices.SortFunc(edits, func(a, b edit) int { return a.off - b.off })
	return slices.Compact(edits)
}

// applyFile applies edits to a file's content (applyEdits), touching no
// other byte.
func applyFile(name string, content []byte, edits []edit) ([]byte, error) {
	if len(edits) == 0 {
		return content, nil
	}
	out, ok := applyEdits(string(content), edits)
	if !ok {
		return nil, fmt.Errorf("%s: internal error: overlapping or stale edits", name)
	}
	return []byte(out), nil
}

// compose turns then, edits of the content that first made, into edits of
// the content first was applied to, with first's own: one list that
// reproduces both. An edit of then inside one of first's replacements is
// an internal error (a collapsed transition holds current names only).
func compose(name string, first, then []edit) ([]edit, error) {
	if len(first) == 0 {
		return then, nil
	}
	out := make([]edit, 0, len(first)+len(then))
	delta, i := 0, 0 // delta: offset in first's output minus offset in its input
	for _, e := range then {
		for i < len(first) && first[i].off+delta+len(first[i].repl) <= e.off {
			out = append(out, first[i])
			delta += len(first[i].repl) - len(first[i].old)
			i++
		}
		if i < len(first) && first[i].off+delta < e.off+len(e.old) {
			return nil, fmt.Errorf("%s: internal error: edit at byte %d inside a collapsed transition", name, e.off)
		}
		e.off -= delta
		out = append(out, e)
	}
	return append(out, first[i:]...), nil
}

// ruleLabel is what a rule's (or Grafana target's) expression does with a
// label its templates read.
type ruleLabel struct {
	repl   string // --write's new name; "" when it keeps the label
	why    string // why it keeps it
	window Window // the expression's window form
}

func (s *Scanner) query(f *file, q *queryfile.Query) {
	switch q.Kind {
	case queryfile.KindPromQL:
		hits, err := s.scanPromQL(q.Text)
		if err != nil && !q.Optional && !errors.Is(err, queryfile.ErrNotPromQL) {
			w := Window{Why: "the expression does not parse; rewrite it by hand"}
			for i := range hits {
				hits[i].window = w
			}
			s.record(f, q, "promql", hits)
			s.ruleLabels(f, q, hits, nil, w)
		}
		if err != nil {
			switch {
			case q.Optional || errors.Is(err, queryfile.ErrNotPromQL):
			case f.x.Template:
				if len(f.templated) == 0 {
					f.templatedErr = err
				}
				f.templated = append(f.templated, q.Off)
			default:
				f.note(q.Off, "PromQL does not parse: "+err.Error(), true)
			}
			return
		}
		var w Window
		var wEdits []edit
		if len(hits) > 0 {
			w, wEdits = s.promWindow(f, q, hits)
		}
		if s.Both {
			hits = bothHits(hits, w, wEdits)
		}
		for i := range hits {
			hits[i].window = w
		}
		s.ruleLabels(f, q, hits, s.record(f, q, "promql", hits), w)
	case queryfile.KindTemplate, queryfile.KindLegend:
		where := "alert template"
		switch {
		case q.Kind == queryfile.KindLegend && strings.HasSuffix(q.Name, "/field"):
			where = "field template"
		case q.Kind == queryfile.KindLegend:
			where = "legend"
		}
		s.record(f, q, where, templateHits(q.Text, q.Kind, s.names, f.ruleLabels[q.Rule], s.Both))
	case queryfile.KindOTTL:
		hits := scanOTTL(q.Text, s.names)
		if len(hits) > 0 {
			w, wEdits := s.ottlWindow(f, q, hits)
			if s.Both {
				hits = bothHits(hits, w, wEdits)
			}
			for i := range hits {
				hits[i].window = w
			}
		}
		s.record(f, q, "ottl", hits)
	case queryfile.KindKey:
		s.record(f, q, q.Component+" processor key", configKey(q.Text, s.names))
	}
}

// ruleLabels notes what a rule's expression does with the labels it reads,
// for the rule's templates; ok says which hits are rewritten (nil: none).
func (s *Scanner) ruleLabels(f *file, q *queryfile.Query, hits []hit, ok []bool, w Window) {
	if q.Rule == 0 {
		return
	}
	for i, h := range hits {
		if h.kind != KindAttribute {
			continue
		}
		rl := f.ruleLabels[q.Rule]
		if rl == nil {
			rl = map[string]ruleLabel{}
			f.ruleLabels[q.Rule] = rl
		}
		l := ruleLabel{why: h.why, window: w}
		if ok != nil && ok[i] && !s.Both {
			l.repl = h.replacement
		}
		rl[h.written] = l
	}
}

// bothHits are --both's hits: rewritten, each, when the window form is
// written (the first carries its edits), none otherwise.
func bothHits(hits []hit, w Window, edits []edit) []hit {
	for i := range hits {
		hits[i].edits, hits[i].replacement = nil, ""
		hits[i].rewritable = w.Form != ""
		if !hits[i].rewritable {
			hits[i].why = w.Why
		}
	}
	if len(hits) > 0 && w.Form != "" {
		hits[0].edits = edits
	}
	return hits
}

// windowForm checks a query's window edits against the file: they must map
// onto it (see fileEdit). It returns the window and the edits.
func windowForm(f *file, q *queryfile.Query, edits []edit, why string) (Window, []edit) {
	switch {
	case why != "":
		return Window{Why: why}, nil
	case len(edits) == 0:
		return Window{Why: "no selector to rewrite: write the window form by hand"}, nil
	}
	for _, e := range edits {
		if _, ok := fileEdit(f.content, q, e); !ok {
			return Window{Why: "the names are written with escapes (JSON \\u, YAML quoting) or across folded lines in the file; write the window form by hand"}, nil
		}
	}
	form, ok := applyEdits(q.Text, slices.Clone(edits))
	if !ok {
		return Window{Why: "the window form's edits overlap"}, nil
	}
	return Window{Form: form, Works: true}, edits
}

// promWindow is the window form of a PromQL query with hits.
func (s *Scanner) promWindow(f *file, q *queryfile.Query, hits []hit) (Window, []edit) {
	if strings.Contains(q.Text, "label_") {
		if es, _ := collapse(q.Text, s.names); len(es) > 0 {
			return Window{Works: true, Why: "already in its window form (--write --both wrote it)"}, nil
		}
	}
	c := s.analyze(q.Text)
	if c.p != nil && c.p.LabelValues != "" {
		return Window{Why: "Grafana's label_values() takes a series selector, not the (old or new) expression: it lists the values of the names as written until --write renames them; until then a producer moved to the new name is missing from the variable"}, nil
	}
	edits, why := transitionOf(q.Text, hits, c.sites, c.p, s.Both)
	return windowForm(f, q, edits, why)
}

// ottlWindow is the window form of an OTTL statement or condition with hits.
func (s *Scanner) ottlWindow(f *file, q *queryfile.Query, hits []hit) (Window, []edit) {
	if strings.Contains(q.Text, " != nil and (") && len(collapseOTTL(q.Text, s.names)) > 0 {
		return Window{Works: true, Why: "already in its window form (--write --both wrote it)"}, nil
	}
	edits, why := ottlTransition(q.Text, hits)
	return windowForm(f, q, edits, why)
}

// record turns hits into findings and, when every edit maps onto the file
// exactly, edits; ok tells which hits are rewritable in the file.
func (s *Scanner) record(f *file, q *queryfile.Query, where string, hits []hit) (ok []bool) {
	ok = make([]bool, len(hits))
	for i, h := range hits {
		fd := Finding{
			File: f.name, Where: where, Kind: h.kind, Name: h.written,
			Deprecated: h.rename.Old, CurrentOTel: h.rename.Current, Why: h.why, Current: h.current,
			Window: h.window,
		}
		off := q.Off
		if h.first >= 0 {
			if o, good := q.Map(h.first); good {
				off = o
			}
		}
		fd.Line = f.x.Line(off)
		if h.rewritable {
			var edits []edit
			good := true
			for _, e := range h.edits {
				fe, mapped := fileEdit(f.content, q, e)
				if !mapped {
					good = false
					break
				}
				edits = append(edits, fe)
			}
			if good {
				fd.Rewritable, ok[i], fd.Rewritten = true, true, s.Write
				f.edits = append(f.edits, edits...)
			} else {
				fd.Why = "the name is written with escapes (JSON \\u, YAML quoting) or across folded lines in the file; rewrite it by hand"
			}
		}
		f.res.Findings = append(f.res.Findings, fd)
	}
	return ok
}

// fileEdit maps an edit of a query's text onto the file: its old text must
// lie there as the container writes it (verbatim, or escaped as a JSON or
// YAML double-quoted string), from the mapped first byte to the mapped last.
func fileEdit(content []byte, q *queryfile.Query, e edit) (edit, bool) {
	fo, ok := q.Map(e.off)
	if !ok {
		return edit{}, false
	}
	for _, old := range []string{e.old, q.Escape(e.old)} {
		last, lok := fo, true
		if len(e.old) > 1 {
			last, lok = q.Map(e.off + len(e.old) - 1)
		}
		if lok && last-fo == len(old)-1 && bytes.HasPrefix(content[fo:], []byte(old)) {
			return edit{off: fo, old: old, repl: q.Escape(e.repl), what: e.what, name: e.name}, true
		}
	}
	return edit{}, false
}

// labelRef is a label a template reads: its name and offset.
type labelRef struct {
	name string
	off  int
}

// templatePrefixes introduce a label in an alert template.
var templatePrefixes = []string{"$labels.", ".Labels."}

// templateRefs are the labels a template reads: $labels.x, .Labels.x and
// index $labels "x" in an alert template, {{x}} (spaces allowed) in a
// legend, ${__field.labels.x} in a panel's field display name or data link.
func templateRefs(v string, kind queryfile.Kind) []labelRef {
	ident := func(start int) int {
		end := start
		for end < len(v) && (v[end] == '_' || v[end] >= 'a' && v[end] <= 'z' || v[end] >= 'A' && v[end] <= 'Z' || (end > start && v[end] >= '0' && v[end] <= '9')) {
			end++
		}
		return end
	}
	var refs []labelRef
	if kind == queryfile.KindLegend {
		// ${__field.labels.x}: a field display name or data link.
		for i := 0; ; {
			j := strings.Index(v[i:], "${__field.labels.")
			if j < 0 {
				break
			}
			start := i + j + len("${__field.labels.")
			end := ident(start)
			if end > start && end < len(v) && v[end] == '}' {
				refs = append(refs, labelRef{v[start:end], start})
			}
			i = max(end, start)
		}
		for i := 0; ; {
			j := strings.Index(v[i:], "{{")
			if j < 0 {
				break
			}
			start := i + j + 2
			for start < len(v) && v[start] == ' ' {
				start++
			}
			end := ident(start)
			k := end
			for k < len(v) && v[k] == ' ' {
				k++
			}
			if end > start && strings.HasPrefix(v[k:], "}}") {
				refs = append(refs, labelRef{v[start:end], start})
			}
			i = max(end, start)
		}
		slices.SortFunc(refs, func(a, b labelRef) int { return a.off - b.off })
		return refs
	}
	// {{ index $labels "http.method" }}: a label name that is no identifier.
	for _, prefix := range []string{`index $labels "`, `index .Labels "`} {
		for i := 0; ; {
			j := strings.Index(v[i:], prefix)
			if j < 0 {
				break
			}
			start := i + j + len(prefix)
			end := strings.IndexAny(v[start:], "\"\\")
			if end > 0 && v[start+end] == '"' {
				refs = append(refs, labelRef{v[start : start+end], start})
			}
			i = start
		}
	}
	for _, prefix := range templatePrefixes {
		for i := 0; ; {
			j := strings.Index(v[i:], prefix)
			if j < 0 {
				break
			}
			start := i + j + len(prefix)
			end := ident(start)
			if end > start {
				refs = append(refs, labelRef{v[start:end], start})
			}
			i = max(end, start)
		}
	}
	slices.SortFunc(refs, func(a, b labelRef) int { return a.off - b.off })
	return refs
}

// templateHits are the labels an alert template ($labels.http_method) or a
// Grafana legend ({{http_method}}) reads; one is rewritten only as its
// rule's (target's) expression rewrites the label, so that the template
// does not render empty. In the window (both) it is kept: the expression's
// window form keeps the old label in its output.
func templateHits(v string, kind queryfile.Kind, n *Names, labels map[string]ruleLabel, both bool) []hit {
	var hits []hit
	byName := map[string]int{}
	for _, ref := range templateRefs(v, kind) {
		name, start := ref.name, ref.off
		r, ok := n.Label(name, nil)
		l, inExpr := labels[name]
		if !ok && !inExpr {
			continue
		} else if r == nil {
			r = &Rename{Old: name}
			if l.repl != "" {
				r.New = l.repl
			}
		}
		if k, seen := byName[name]; seen {
			if hits[k].rewritable {
				hits[k].edits = append(hits[k].edits, edit{off: start, old: name, repl: hits[k].replacement, what: RewriteLabel, name: name})
			}
			continue
		}
		h := hit{kind: KindAttribute, written: name, rename: r, first: start, why: r.Why}
		if r.New != "" {
			h.current = WrittenLabel(r.New, name)
		}
		switch {
		case !inExpr:
			h.why = "the expression does not read this label; rewrite both by hand"
			h.window.Why = "the expression does not read this label, so its window form cannot keep it; rewrite both by hand"
		case l.window.Works:
			h.window = Window{Works: true, Why: "kept as it is: the expression's window form keeps the old label in its output"}
		default:
			h.window.Why = "the expression has no window form: " + whyOr(l.window.Why, "its old names are not rewritable")
		}
		switch {
		case !inExpr:
		case both && l.window.Works:
			h.why = "--both keeps the old label in the expression's output; a later --write moves both to the new name"
		case both:
			h.why = h.window.Why
		case l.repl != "":
			h.rewritable, h.replacement = true, l.repl
			h.current = l.repl
			h.edits = []edit{{off: start, old: name, repl: l.repl, what: RewriteLabel, name: name}}
		default:
			h.why = "the expression keeps this label: " + whyOr(l.why, "not rewritable there")
		}
		byName[name] = len(hits)
		hits = append(hits, h)
	}
	return hits
}

func whyOr(why, or string) string {
	if why != "" {
		return why
	}
	return or
}

// configKey is an attribute key given as a plain config value. It is
// reported only: --write rewrites queries (PromQL, OTTL), not pipeline
// configuration, whose keys must match what the data carries at that point
// of the pipeline.
func configKey(key string, n *Names) []hit {
	r := n.Attribute(key)
	if r == nil {
		return nil
	}
	h := hit{kind: KindAttribute, written: key, rename: r, first: 0, why: r.Why, current: r.New}
	if h.why == "" {
		h.why = "a processor key; change it when the data it sees carries " + r.New
	}
	h.window.Why = "a processor key names one key: --both leaves it; while the collector copies the name, a processor after it sees both"
	return []hit{h}
}
