package checker

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/otelgov/otelcol-governance/conformance"
	"github.com/otelgov/otelcol-governance/vocab"
)

// Formats of Render.
const (
	FormatText     = "text"
	FormatJSON     = "json"
	FormatJUnit    = "junit"
	FormatMarkdown = "markdown"
)

// ValidFormat reports whether f is a format Render knows.
func ValidFormat(f string) bool {
	switch f {
	case FormatText, FormatJSON, FormatJUnit, FormatMarkdown, FormatWeaver, FormatWeaverLines:
		return true
	}
	return false
}

// Render writes the result in format; failOn marks the findings that fail.
func Render(w io.Writer, format string, r *Result, failOn FailOn) error {
	switch format {
	case FormatText:
		return renderText(w, r, failOn)
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r.JSON())
	case FormatJUnit:
		return renderJUnit(w, r, failOn)
	case FormatMarkdown:
		return renderMarkdown(w, r, failOn)
	}
	return fmt.Errorf("unknown format %q: want text, json, junit or markdown", format)
}

// JSONResult is the document of --format json: every field of the
// conformance report's document (the registry extension's /conformance, at
// the top level, so a /conformance reader reads it as is), plus what was
// checked and the example locations:
//
//	{
//	  ...the /conformance document (generation, digest, totals, services, ...),
//	  "items":    {"requests": 3, "spans": 2, "data_points": 0, "log_records": 1,
//	               "metrics_without_data_points": 0},
//	  "examples": {"<service entry>": {"<finding ID>": [
//	    {"signal": "traces", "signal_type": "span", "signal_name": "GET /api/cart",
//	     "subject": "key", "name": "http.method", "input": "in.jsonl:1"}]}}
//	}
//
// Service entries are the document's services[].service; each finding ID
// lists at most MaxExamples examples, the first the engine reported.
type JSONResult struct {
	conformance.Document
	Items    Items                           `json:"items"`
	Examples map[string]map[string][]Example `json:"examples"`
	// Replacements are, by subject (key, metric, event) and name, what to
	// use instead of each name a deprecated finding is about (its top
	// names and examples in every service):
	//
	//	"replacements": {"key": {"net.peer.name": {"reason": "uncategorized",
	//	  "note": "Replaced by `server.address` on client spans and ...",
	//	  "current": [{"name": "server.address", "contexts": ["span, span_event, span_link (client, producer)"]},
	//	              {"name": "client.address", "contexts": ["span, span_event, span_link (server, consumer)"]}]}}}
	Replacements map[string]map[string]*Replacement `json:"replacements"`
}

// JSON returns the --format json document of r.
func (r *Result) JSON() JSONResult {
	out := JSONResult{
		Document: r.Document, Items: r.Items, Examples: map[string]map[string][]Example{},
		Replacements: map[string]map[string]*Replacement{},
	}
	for _, s := range r.Services {
		for i := range s.Findings {
			f := &s.Findings[i]
			for _, nr := range f.Replacements {
				if out.Replacements[nr.Subject] == nil {
					out.Replacements[nr.Subject] = map[string]*Replacement{}
				}
				out.Replacements[nr.Subject][nr.Name] = nr.Replacement
			}
			if len(f.Examples) == 0 {
				continue
			}
			if out.Examples[s.Service] == nil {
				out.Examples[s.Service] = map[string][]Example{}
			}
			out.Examples[s.Service][f.ID] = f.Examples
		}
	}
	return out
}

// String is the example as the text renderers print it, e.g.
// `traces span "GET /api/cart": key http.method at in.jsonl:3`.
func (e Example) String() string {
	var b strings.Builder
	b.WriteString(e.Signal)
	b.WriteByte(' ')
	if e.SignalType == "" {
		b.WriteString("scope") // a scope and its attributes have no signal type
	} else {
		b.WriteString(e.SignalType)
	}
	if e.SignalName != "" {
		fmt.Fprintf(&b, " %q", e.SignalName)
	}
	if e.Subject == "key" || e.Name != e.SignalName {
		fmt.Fprintf(&b, ": %s %s", e.Subject, e.Name)
	}
	if e.EntityTypes != nil {
		fmt.Fprintf(&b, " (none of the entities [%s])", strings.Join(e.EntityTypes, ", "))
	}
	if e.Input != "" {
		b.WriteString(" at ")
		b.WriteString(e.Input)
	}
	return b.String()
}

// String is what was checked, as the text renderers print it: "3
// request(s): 2 span(s), 0 data point(s), 1 log record(s)", and ", 1
// metric(s) without data points" when there were any.
func (it Items) String() string {
	s := fmt.Sprintf("%d request(s): %d span(s), %d data point(s), %d log record(s)", it.Requests, it.Spans, it.DataPoints, it.LogRecords)
	if it.MetricsWithoutData > 0 {
		s += fmt.Sprintf(", %d metric(s) without data points", it.MetricsWithoutData)
	}
	return s
}

// String is the replacement line of the text renderers: "http.method ->
// http.request.method".
func (nr NamedReplacement) String() string { return nr.Name + " -> " + nr.Replacement.String() }

// maxNames is how many top names the text renderers print per finding.
const maxNames = 3

// names are the finding's most frequent names, e.g. "http.method (5),
// http.status_code (5), +1 more".
func (f *Finding) names() string {
	return firstNames(len(f.Top), ", ", func(i int) string { return fmt.Sprintf("%s (%d)", f.Top[i].Name, f.Top[i].Count) })
}

// useInstead is the replacements of the finding's first names, for a
// one-line message: "; use instead: http.method -> http.request.method".
func (f *Finding) useInstead() string {
	if len(f.Replacements) == 0 {
		return ""
	}
	return "; use instead: " + firstNames(len(f.Replacements), "; ", func(i int) string { return f.Replacements[i].String() })
}

// firstNames joins the first maxNames of n items with sep, and says how
// many more there are.
func firstNames(n int, sep string, item func(int) string) string {
	var b strings.Builder
	for i := range n {
		if i == maxNames {
			fmt.Fprintf(&b, "%s+%d more", sep, n-maxNames)
			break
		}
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(item(i))
	}
	return b.String()
}

func summary(r *Result, failOn FailOn) string {
	var counts [vocab.NumLevels]int
	for _, s := range r.Services {
		for i := range s.Findings {
			counts[s.Findings[i].level]++
		}
	}
	verdict := "pass"
	if r.Fails(failOn) {
		verdict = "FAIL"
	}
	return fmt.Sprintf("%s (--fail-on %s): %d violation(s), %d improvement(s), %d information finding ID(s) in %d service(s)",
		verdict, failOn, counts[vocab.LevelViolation], counts[vocab.LevelImprovement], counts[vocab.LevelInformation], len(r.Services))
}

func renderText(w io.Writer, r *Result, failOn FailOn) error {
	fmt.Fprintf(w, "checked %s\n", r.Items)
	for _, s := range r.Services {
		fmt.Fprintf(w, "\n%s\n", s.Service)
		if len(s.Findings) == 0 {
			fmt.Fprintln(w, "  no findings")
			continue
		}
		idw, nw := 0, 0
		for i := range s.Findings {
			idw = max(idw, len(s.Findings[i].ID))
			nw = max(nw, len(strconv.FormatInt(s.Findings[i].Count, 10)))
		}
		for i := range s.Findings {
			f := &s.Findings[i]
			fmt.Fprintf(w, "  %-11s  %-*s  %*d  %s\n", f.Level, idw, f.ID, nw, f.Count, f.names())
			for _, nr := range f.Replacements {
				fmt.Fprintf(w, "      %s\n", nr)
			}
			for _, ex := range f.Examples {
				fmt.Fprintf(w, "      e.g. %s\n", ex)
			}
		}
	}
	_, err := fmt.Fprintf(w, "\n%s\n", summary(r, failOn))
	return err
}

func renderMarkdown(w io.Writer, r *Result, failOn FailOn) error {
	fmt.Fprintf(w, "## otelgov check\n\n**%s**\n\nChecked %s.\n", summary(r, failOn), r.Items)
	for _, s := range r.Services {
		fmt.Fprintf(w, "\n### `%s`\n\n", mdEscape(s.Service))
		if len(s.Findings) == 0 {
			fmt.Fprintln(w, "No findings.")
			continue
		}
		fmt.Fprintln(w, "| level | finding | count | names | example |")
		fmt.Fprintln(w, "|---|---|---:|---|---|")
		for i := range s.Findings {
			f := &s.Findings[i]
			ex := ""
			if len(f.Examples) > 0 {
				ex = f.Examples[0].String()
			}
			mark := ""
			if failOn.Fails(f.level) {
				mark = ":x: "
			}
			fmt.Fprintf(w, "| %s%s | `%s` | %d | %s | %s |\n", mark, f.Level, f.ID, f.Count, mdEscape(f.names()), mdEscape(ex))
		}
		first := true
		for i := range s.Findings {
			for _, nr := range s.Findings[i].Replacements {
				if first {
					fmt.Fprint(w, "\nUse instead:\n\n")
					first = false
				}
				fmt.Fprintf(w, "- `%s` -> %s\n", mdEscape(nr.Name), mdEscape(nr.Replacement.String()))
			}
		}
	}
	return nil
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "`", "'", "\n", " ").Replace(s)
}

// JUnit XML, the dialect CI systems read (Jenkins, GitLab, GitHub actions).
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// renderJUnit writes one test suite per service and one test case per
// finding ID; a case fails when its level is at or above failOn. A service
// without findings gets one passing case.
func renderJUnit(w io.Writer, r *Result, failOn FailOn) error {
	out := junitSuites{Name: "otelgov check"}
	for _, s := range r.Services {
		suite := junitSuite{Name: s.Service}
		if len(s.Findings) == 0 {
			suite.Cases = append(suite.Cases, junitCase{Name: "conformance", Classname: "otelgov." + s.Service})
		}
		for i := range s.Findings {
			f := &s.Findings[i]
			c := junitCase{Name: f.ID, Classname: "otelgov." + s.Service}
			var text strings.Builder
			fmt.Fprintf(&text, "%s: %d occurrence(s)\n", f.Level, f.Count)
			for _, n := range f.Top {
				fmt.Fprintf(&text, "%s %s: %d\n", n.Subject, n.Name, n.Count)
			}
			for _, nr := range f.Replacements {
				fmt.Fprintf(&text, "use instead: %s\n", nr)
			}
			for _, ex := range f.Examples {
				fmt.Fprintf(&text, "e.g. %s\n", ex)
			}
			if failOn.Fails(f.level) {
				c.Failure = &junitFailure{
					Message: fmt.Sprintf("%s: %s (%d occurrence(s): %s)%s", f.Level, f.ID, f.Count, f.names(), f.useInstead()),
					Type:    f.Level,
					Text:    text.String(),
				}
				suite.Failures++
			} else {
				c.SystemOut = text.String()
			}
			suite.Cases = append(suite.Cases, c)
		}
		suite.Tests = len(suite.Cases)
		out.Tests += suite.Tests
		out.Failures += suite.Failures
		out.Suites = append(out.Suites, suite)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
