package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/registry/change"
)

type diffOptions struct {
	old, new registrySource // their dir is OLD and NEW
	format   string
	failOn   string
}

func newRegistryDiff() *cobra.Command {
	var o diffOptions
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Every change from one registry to another: names, enum members, types, units, instruments, requirement levels, attribute sets",
		Long: `diff compares two registries and lists every change from OLD to NEW, as the
governance processor will see it: attribute renames with chains collapsed
(a -> b, b -> c is a -> c; a rename whose target moves is a change),
removals, obsoletions, additions; enum members renamed, removed, added; type
changes with the value map that follows; unit changes with their conversion
factor where one is known; instrument changes; metric, event and span
renames; requirement-level and attribute-set changes per metric, event and
span; stability changes; splits and merges. Each change says whether the
processor can migrate data automatically, and if not, why.

OLD and NEW are each a semantic-conventions directory (with model/ and
schemas/) or "embedded" (the conventions compiled into otelgov), with their
own organisation registries and rules files. The shipped rules are applied
to both sides; on a release they were not written for, a rule naming what
the release lacks is left out, with a warning on stderr.

Formats: text (default), json (the change model), markdown (a pull-request
comment), weaver (Weaver's v1 SchemaChanges: added, renamed, obsoleted,
uncategorized, removed, matched by name, as weaver registry diff writes).

Exit codes: 0 a report, 1 a change of a --fail-on kind, 2 a registry that
does not load, or usage.`,
		Example: `  otelgov registry diff ../semconv/v1.40.0 embedded
  otelgov registry diff embedded ./semconv --new-org-registry ./acme --format markdown
  otelgov registry diff embedded ./semconv --fail-on attribute_removed,metric_removed`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			render, ok := diffFormats[o.format]
			if !ok {
				return badInput(fmt.Errorf("--format: unknown format %q: want text, json, markdown or weaver", o.format))
			}
			failOn, err := parseKinds(o.failOn)
			if err != nil {
				return badInput(fmt.Errorf("--fail-on: %w", err))
			}
			o.old.dir, o.new.dir = args[0], args[1]
			oldIx, err := o.old.load(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			newIx, err := o.new.load(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			set, err := change.Diff(oldIx, newIx)
			if err != nil {
				return err
			}
			stderr := cmd.ErrOrStderr()
			if err := render(cmd.OutOrStdout(), set, [2]string{args[0], args[1]}); err != nil {
				return err
			}
			for _, c := range set.Changes {
				if failOn[c.Kind] {
					fmt.Fprintf(stderr, "otelgov: fail: %d change(s) of a --fail-on kind (%s)\n", countOf(set, failOn), o.failOn)
					return findings()
				}
			}
			return nil
		},
	}
	fs := cmd.Flags()
	o.old, o.new = newSide("old"), newSide("new")
	o.old.bind(fs)
	o.new.bind(fs)
	fs.StringVar(&o.format, "format", "text", "output: text, json, markdown or weaver (Weaver's v1 SchemaChanges)")
	fs.StringVar(&o.failOn, "fail-on", "", `exit 1 when the diff has a change of one of these kinds, comma-separated (e.g. "attribute_removed,metric_removed"; default: none, exit 0 with the report)`)
	return cmd
}

// parseKinds parses a comma-separated list of change kinds ("" is none).
func parseKinds(s string) (map[change.Kind]bool, error) {
	out := map[change.Kind]bool{}
	if s == "" {
		return out, nil
	}
	for _, name := range strings.Split(s, ",") {
		k, ok := change.ParseKind(strings.TrimSpace(name))
		if !ok {
			names := make([]string, 0, len(change.Kinds()))
			for _, k := range change.Kinds() {
				names = append(names, k.String())
			}
			return nil, fmt.Errorf("unknown change kind %q: want one of %s", name, strings.Join(names, ", "))
		}
		out[k] = true
	}
	return out, nil
}

func countOf(set *change.Set, kinds map[change.Kind]bool) int {
	n := 0
	for _, c := range set.Changes {
		if kinds[c.Kind] {
			n++
		}
	}
	return n
}

type diffRenderer func(w io.Writer, set *change.Set, names [2]string) error

var diffFormats = map[string]diffRenderer{
	"text":     renderDiffText,
	"json":     renderDiffJSON,
	"markdown": renderDiffMarkdown,
	"weaver":   renderDiffWeaver,
}

func renderDiffJSON(w io.Writer, set *change.Set, _ [2]string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(set)
}

func renderDiffWeaver(w io.Writer, set *change.Set, _ [2]string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(set.Weaver())
}

// sideName names a side in the reports: its argument, and the registry by
// its own schema URL's version (a directory's, never the embedded
// release's) and its content digest (equal digests: the same registry).
func sideName(arg string, s change.Side) string {
	var parts []string
	if s.Version != "" && s.Version != arg {
		parts = append(parts, s.Version)
	}
	if s.Digest != "" {
		parts = append(parts, "digest "+shortDigest(s.Digest))
	}
	if len(parts) == 0 {
		return arg
	}
	return arg + " (" + strings.Join(parts, ", ") + ")"
}

// shortDigest is a digest's first 12 hex digits, as reports show it (the
// JSON has it whole).
func shortDigest(d string) string { return d[:min(len(d), 12)] }

// detail is what a report shows of a change beyond String: its scope,
// value map, split or merge keys, factor, and why it cannot be migrated.
func detail(c *change.Change) string {
	var parts []string
	if c.Scope != nil {
		parts = append(parts, "in "+scopeText(c.Scope))
	}
	if c.Factor != 0 && c.Factor != 1 {
		parts = append(parts, "factor "+strconv.FormatFloat(c.Factor, 'g', -1, 64))
	}
	if len(c.Into) > 0 {
		parts = append(parts, "keys "+strings.Join(c.Into, ", "))
	}
	if n := len(c.Values); n > 0 {
		parts = append(parts, fmt.Sprintf("value map of %d", n))
	}
	if !c.Migratable {
		parts = append(parts, "not migratable: "+c.Why)
	}
	return strings.Join(parts, "; ")
}

func scopeText(s *registry.Scope) string {
	var parts []string
	if s.Locations != nil {
		l := make([]string, len(s.Locations))
		for i, x := range s.Locations {
			l[i] = x.String()
		}
		parts = append(parts, strings.Join(l, ","))
	}
	if s.SpanKinds != nil {
		k := make([]string, len(s.SpanKinds))
		for i, x := range s.SpanKinds {
			k[i] = x.String()
		}
		parts = append(parts, "span kinds "+strings.Join(k, ","))
	}
	if s.Metrics != nil {
		parts = append(parts, "metrics "+strings.Join(s.Metrics, ","))
	}
	if s.Spans != nil {
		parts = append(parts, "spans "+strings.Join(s.Spans, ","))
	}
	if len(parts) == 0 {
		return "every context"
	}
	return strings.Join(parts, "; ")
}

func notMigratable(changes []change.Change) int {
	n := 0
	for _, c := range changes {
		if !c.Migratable {
			n++
		}
	}
	return n
}

func summaryLine(set *change.Set) string {
	counts := set.Count()
	parts := make([]string, 0, len(counts))
	for _, k := range set.Kinds() {
		parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
	}
	if len(parts) == 0 {
		return "no changes"
	}
	return fmt.Sprintf("%d change(s), %d not migratable automatically: %s", len(set.Changes), notMigratable(set.Changes), strings.Join(parts, ", "))
}

func renderDiffText(w io.Writer, set *change.Set, names [2]string) error {
	fmt.Fprintf(w, "registry diff %s -> %s\n", sideName(names[0], set.Old), sideName(names[1], set.New))
	counts := set.Count()
	for _, k := range set.Kinds() {
		fmt.Fprintf(w, "\n%s (%d)\n", k, counts[k])
		for _, c := range set.Of(k) {
			if d := detail(&c); d != "" {
				fmt.Fprintf(w, "  %s  [%s]\n", strings.TrimPrefix(c.String(), k.String()+" "), d)
			} else {
				fmt.Fprintf(w, "  %s\n", strings.TrimPrefix(c.String(), k.String()+" "))
			}
		}
	}
	_, err := fmt.Fprintf(w, "\n%s\n", summaryLine(set))
	return err
}

func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func mdCode(s string) string {
	if s == "" {
		return ""
	}
	return "`" + strings.ReplaceAll(s, "`", "'") + "`"
}

func renderDiffMarkdown(w io.Writer, set *change.Set, names [2]string) error {
	fmt.Fprintf(w, "## otelgov registry diff\n\n%s → %s\n\n**%s**\n", mdCode(sideName(names[0], set.Old)), mdCode(sideName(names[1], set.New)), summaryLine(set))
	if len(set.Changes) == 0 {
		return nil
	}
	counts := set.Count()
	fmt.Fprint(w, "\n| change | count | not migratable |\n|---|---:|---:|\n")
	for _, k := range set.Kinds() {
		fmt.Fprintf(w, "| `%s` | %d | %d |\n", k, counts[k], notMigratable(set.Of(k)))
	}
	for _, k := range set.Kinds() {
		fmt.Fprintf(w, "\n<details><summary><code>%s</code> (%d)</summary>\n\n| name | new name | on | old | new | notes |\n|---|---|---|---|---|---|\n", k, counts[k])
		for _, c := range set.Of(k) {
			name := c.Name
			if c.Member != "" {
				name += "=" + c.Member
			}
			oldV, newV := c.OldValue, c.NewValue
			mark := ""
			if !c.Migratable {
				mark = ":warning: "
			}
			fmt.Fprintf(w, "| %s%s | %s | %s | %s | %s | %s |\n", mark, mdCode(name), mdCode(c.NewName), mdCode(c.Context),
				mdCell(oldV), mdCell(newV), mdCell(detail(&c)))
		}
		fmt.Fprint(w, "\n</details>\n")
	}
	return nil
}
