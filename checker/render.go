package checker

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
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
	case FormatText, FormatJSON, FormatJUnit, FormatMarkdown:
		return true
	}
	return false
}

// Render writes the result in format; failOn marks the findings that fail.
func Render(w io.Writer, format string, r *Result, failOn Level) error {
	switch format {
	case FormatText:
		return renderText(w, r, failOn)
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r.Document)
	case FormatJUnit:
		return renderJUnit(w, r, failOn)
	case FormatMarkdown:
		return renderMarkdown(w, r, failOn)
	}
	return fmt.Errorf("unknown format %q: want text, json, junit or markdown", format)
}

func (l Location) String() string {
	var b strings.Builder
	b.WriteString(l.Signal)
	b.WriteByte(' ')
	b.WriteString(l.Where)
	if l.Name != "" {
		fmt.Fprintf(&b, " %q", l.Name)
	}
	if l.Key != "" {
		fmt.Fprintf(&b, " key %s (%s)", l.Key, l.Type)
	}
	if l.Input != "" {
		b.WriteString(" at ")
		b.WriteString(l.Input)
	}
	return b.String()
}

func (f *Finding) title() string {
	if f.Key == "" {
		return f.ID
	}
	return f.ID + " " + f.Key
}

func summary(r *Result, failOn Level) (counts map[Level]int, line string) {
	counts = map[Level]int{}
	for _, s := range r.Services {
		for i := range s.Findings {
			counts[s.Findings[i].level]++
		}
	}
	verdict := "pass"
	if r.Fails(failOn) {
		verdict = "FAIL"
	}
	line = fmt.Sprintf("%s (--fail-on %s): %d violation(s), %d improvement(s), %d information finding(s) in %d service(s)",
		verdict, failOn, counts[LevelViolation], counts[LevelImprovement], counts[LevelInformation], len(r.Services))
	return counts, line
}

func renderText(w io.Writer, r *Result, failOn Level) error {
	fmt.Fprintf(w, "checked %d request(s): %d span(s), %d data point(s), %d log record(s)\n",
		r.Items.Requests, r.Items.Spans, r.Items.DataPoints, r.Items.LogRecords)
	for _, s := range r.Services {
		fmt.Fprintf(w, "\n%s\n", s.Service)
		if len(s.Findings) == 0 {
			fmt.Fprintln(w, "  no findings")
			continue
		}
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		for i := range s.Findings {
			f := &s.Findings[i]
			key := f.Key
			if key == "" {
				key = "-"
			}
			ex := ""
			if len(f.Examples) > 0 {
				ex = "e.g. " + f.Examples[0].String()
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%s\n", f.Level, f.ID, key, f.Count, ex)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	_, line := summary(r, failOn)
	_, err := fmt.Fprintf(w, "\n%s\n", line)
	return err
}

func renderMarkdown(w io.Writer, r *Result, failOn Level) error {
	_, line := summary(r, failOn)
	fmt.Fprintf(w, "## otelgov check\n\n**%s**\n\nChecked %d request(s): %d span(s), %d data point(s), %d log record(s).\n",
		line, r.Items.Requests, r.Items.Spans, r.Items.DataPoints, r.Items.LogRecords)
	for _, s := range r.Services {
		fmt.Fprintf(w, "\n### `%s`\n\n", mdEscape(s.Service))
		if len(s.Findings) == 0 {
			fmt.Fprintln(w, "No findings.")
			continue
		}
		fmt.Fprintln(w, "| level | finding | key | count | example |")
		fmt.Fprintln(w, "|---|---|---|---:|---|")
		for i := range s.Findings {
			f := &s.Findings[i]
			ex := ""
			if len(f.Examples) > 0 {
				ex = f.Examples[0].String()
			}
			mark := ""
			if failOn != LevelNone && f.level >= failOn {
				mark = ":x: "
			}
			fmt.Fprintf(w, "| %s%s | %s | `%s` | %d | %s |\n", mark, f.Level, f.ID, mdEscape(f.Key), f.Count, mdEscape(ex))
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
// finding; a case fails when its level is at or above failOn. A service
// without findings gets one passing case.
func renderJUnit(w io.Writer, r *Result, failOn Level) error {
	out := junitSuites{Name: "otelgov check"}
	for _, s := range r.Services {
		suite := junitSuite{Name: s.Service}
		if len(s.Findings) == 0 {
			suite.Cases = append(suite.Cases, junitCase{Name: "conformance", Classname: "otelgov." + s.Service})
		}
		for i := range s.Findings {
			f := &s.Findings[i]
			c := junitCase{Name: f.title(), Classname: "otelgov." + s.Service}
			var text strings.Builder
			fmt.Fprintf(&text, "%s: %d occurrence(s)\n", f.Level, f.Count)
			for _, ex := range f.Examples {
				fmt.Fprintf(&text, "e.g. %s\n", ex)
			}
			if failOn != LevelNone && f.level >= failOn {
				c.Failure = &junitFailure{
					Message: fmt.Sprintf("%s: %s (%d occurrence(s))", f.Level, f.title(), f.Count),
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
