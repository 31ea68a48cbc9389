package infer

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Summary is what registry infer proposed and wrote, and why.
type Summary struct {
	// Output is the registry directory; File the file written ("" when
	// nothing was new).
	Output string `json:"output"`
	File   string `json:"file,omitempty"`
	Format string `json:"format"`
	// Added and Kept are the writer's: what was appended, and what the
	// file already defined and kept as written.
	Added    []string  `json:"added"`
	Kept     []string  `json:"kept"`
	Proposal *Proposal `json:"proposal"`
	// MemoryBound is the evidence's memory bound in bytes (Limits.Bytes).
	MemoryBound int64 `json:"memory_bound_bytes"`
}

// Summary formats.
const (
	FormatText = "text"
	FormatJSON = "json"
)

// Render writes s as text or JSON.
func (s *Summary) Render(w io.Writer, format string) error {
	if format == FormatJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	return s.text(w)
}

func (s *Summary) text(w io.Writer) error {
	p := s.Proposal
	b := &strings.Builder{}
	if s.File == "" {
		fmt.Fprintf(b, "registry infer: nothing new for %s\n", s.Output)
	} else {
		fmt.Fprintf(b, "registry infer: %s (%s): %d addition(s)\n", s.File, s.Format, len(s.Added))
	}
	fmt.Fprintf(b, "read: %d span(s), %d data point(s), %d log record(s)\n", p.Items.Spans, p.Items.DataPoints, p.Items.LogRecords)
	fmt.Fprintf(b, "already defined by the loaded registries (not proposed): %d attribute(s), %d metric(s), %d span(s), %d event(s)\n",
		p.Defined.Attributes, p.Defined.Metrics, p.Defined.Spans, p.Defined.Events)
	tw := tabwriter.NewWriter(b, 2, 4, 2, ' ', 0)
	if len(p.Attributes) > 0 {
		fmt.Fprintf(tw, "\nattributes (%d):\n", len(p.Attributes))
		for _, a := range p.Attributes {
			t := a.Type
			if a.Enum != nil {
				t = fmt.Sprintf("enum %v", a.Enum)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", a.Key, t, a.Why)
		}
	}
	if len(p.Renames) > 0 {
		fmt.Fprintf(tw, "\nrenames: deprecated, renamed_to the registry name (%d):\n", len(p.Renames))
		for _, a := range p.Renames {
			fmt.Fprintf(tw, "  %s\t-> %s\t%s\n", a.Key, a.RenamedTo, a.Why)
		}
	}
	groups := func(title string, gs []ProposedGroup, head func(g ProposedGroup) string) {
		if len(gs) == 0 {
			return
		}
		fmt.Fprintf(tw, "\n%s (%d):\n", title, len(gs))
		for _, g := range gs {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", head(g), refsText(g.Attributes), g.Why)
		}
	}
	groups("metrics", p.Metrics, func(g ProposedGroup) string {
		return fmt.Sprintf("%s %s %q", g.Name, g.Instrument, g.Unit)
	})
	groups("spans", p.Spans, func(g ProposedGroup) string {
		return fmt.Sprintf("%s %s (%q)", g.Type, g.SpanKind, g.Name)
	})
	groups("events", p.Events, func(g ProposedGroup) string { return g.Name })
	if len(p.NearDuplicates) > 0 {
		fmt.Fprintf(tw, "\nnear-duplicates, candidates for one name (%d):\n", len(p.NearDuplicates))
		for _, g := range p.NearDuplicates {
			fmt.Fprintf(tw, "  %s\n", strings.Join(g, ", "))
		}
	}
	if len(p.Warnings) > 0 {
		fmt.Fprintf(tw, "\nwarnings (%d):\n", len(p.Warnings))
		for _, x := range p.Warnings {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", x.Kind, x.Name, x.Message)
		}
	}
	if len(p.NameFindings) > 0 {
		fmt.Fprintf(tw, "\nname findings, Weaver's default policy (%d):\n", len(p.NameFindings))
		for _, f := range p.NameFindings {
			fmt.Fprintf(tw, "  %s\t%s\t%s %s\n", f.Level, f.ID, f.What, f.Name)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(s.Kept) > 0 {
		fmt.Fprintf(b, "\nkept as written (already in %s): %d definition(s)\n", s.Output, len(s.Kept))
	}
	o := p.Overflow
	if o.Attributes+o.Metrics+o.Spans+o.Events > 0 {
		fmt.Fprintf(b, "\nleft out by the limits (raise --max-attributes, --max-groups): %d attribute, %d metric, %d span and %d event occurrence(s)\n",
			o.Attributes, o.Metrics, o.Spans, o.Events)
	}
	if o.Summaries > 0 {
		fmt.Fprintf(b, "\n%d summary metric(s) not proposed: a summary has no registry instrument\n", o.Summaries)
	}
	if sk := p.Skipped; sk.Occurrences > 0 {
		fmt.Fprintf(b, "\nskipped: %d distinct name(s) that cannot be registry IDs as written (%d occurrence(s)); not proposed, everything else is: rename them at the source\n", sk.Distinct, sk.Occurrences)
		for _, in := range sk.Names {
			fmt.Fprintf(b, "  %s %q: %s (first in %s)\n", in.What, in.Name, in.Reason, in.Input)
		}
		if n := sk.Distinct - int64(len(sk.Names)); n > 0 {
			fmt.Fprintf(b, "  and %d more\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func refsText(refs []ProposedRef) string {
	if len(refs) == 0 {
		return "-"
	}
	parts := make([]string, 0, len(refs))
	for _, r := range refs {
		t := r.Key + " " + r.RequirementLevel
		if !r.Written {
			t += " (defined elsewhere: not written)"
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, ", ")
}
