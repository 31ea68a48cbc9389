package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/otelgov/otelcol-governance/extension/registryextension/registryapi"
	"github.com/otelgov/otelcol-governance/queries"
)

type explainOptions struct {
	reg      registrySource
	format   string
	metric   string
	spanName string
}

// explanation is explain's JSON: the extension's attribute document and the
// metric document, whichever the registry knows.
type explanation struct {
	Attribute *registryapi.AttributeInfo `json:"attribute,omitempty"`
	Metric    *registryapi.MetricInfo    `json:"metric,omitempty"`
	// Prometheus lists, for a name in Prometheus form (http_method,
	// http_server_duration_milliseconds_bucket), the deprecated OTel names
	// it comes from.
	Prometheus *promExplanation `json:"prometheus,omitempty"`
}

type promExplanation struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // attribute or metric
	// From are the deprecated OTel names normalised to Name.
	From []string `json:"from"`
	// Current is Name after the rename, in Prometheus form ("" when there
	// is none or it depends on the context).
	Current string `json:"current,omitempty"`
	Why     string `json:"why,omitempty"`
}

func newExplain() *cobra.Command {
	var o explainOptions
	cmd := &cobra.Command{
		Use:   "explain KEY|METRIC",
		Short: "What the registry says about an attribute key or a metric name",
		Long: `explain prints what the registry in force says about an attribute key or a
metric name: type, stability, enum members, deprecation, and the key's
current name in each context. The content is the governance_registry
extension's GET /registry/attributes/{key}. A name in Prometheus form
(http_method, http_server_duration_milliseconds_bucket) is traced back to
the deprecated OTel name it comes from.

Exit codes: 0 known, 1 no registry knows the name, 2 usage.`,
		Example: `  otelgov explain http.method
  otelgov explain http_server_duration_milliseconds_bucket
  otelgov explain --format json http.server.duration`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.format != "text" && o.format != "json" {
				return badInput(fmt.Errorf("--format: unknown format %q: want text or json", o.format))
			}
			ix, err := o.reg.load(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			var ex explanation
			if a := registryapi.Describe(ix, 1, args[0], o.metric, o.spanName); a.Entry != "" {
				ex.Attribute = &a
			}
			if m, ok := registryapi.DescribeMetric(ix, args[0]); ok {
				ex.Metric = &m
			}
			if ex.Attribute == nil && ex.Metric == nil {
				ex.Prometheus = promForm(queries.NewNames(ix), args[0])
				if p := ex.Prometheus; p != nil && len(p.From) == 1 {
					// Explain the OTel name the Prometheus name comes from.
					if p.Kind == string(queries.KindAttribute) {
						a := registryapi.Describe(ix, 1, p.From[0], o.metric, o.spanName)
						ex.Attribute = &a
					} else if m, ok := registryapi.DescribeMetric(ix, p.From[0]); ok {
						ex.Metric = &m
					}
				}
			}
			out := cmd.OutOrStdout()
			if o.format == "json" {
				if err := printJSON(out, ex); err != nil {
					return err
				}
			} else {
				writeExplanation(out, args[0], &ex)
			}
			if ex.Attribute == nil && ex.Metric == nil && ex.Prometheus == nil {
				return findings()
			}
			return nil
		},
	}
	fs := cmd.Flags()
	o.reg.bind(fs)
	fs.StringVar(&o.format, "format", "text", "output: text or json")
	fs.StringVar(&o.metric, "metric", "", "the metric a data-point attribute belongs to (selects metric-scoped renames)")
	fs.StringVar(&o.spanName, "span-name", "", "the span name (selects span-name-scoped renames)")
	return cmd
}

// promForm matches a Prometheus-form name against the deprecated names.
func promForm(n *queries.Names, name string) *promExplanation {
	if r, ok := n.Label(name, nil); ok {
		p := &promExplanation{Name: name, Kind: string(queries.KindAttribute), From: []string{r.Old}, Why: r.Why}
		if r.New != "" {
			p.Current = queries.PromLabel(r.New)
		}
		return p
	}
	if r, cur, ok := n.SeriesRename(name); ok {
		return &promExplanation{Name: name, Kind: string(queries.KindMetric), From: []string{r.Old}, Current: cur, Why: r.Why}
	}
	return nil
}

func writeExplanation(w io.Writer, name string, ex *explanation) {
	if ex.Attribute == nil && ex.Metric == nil && ex.Prometheus == nil {
		fmt.Fprintf(w, "%s: no registry defines this attribute key or metric name\n", name)
		return
	}
	if p := ex.Prometheus; p != nil {
		fmt.Fprintf(w, "%s is the Prometheus form of the deprecated %s %s\n", p.Name, p.Kind, strings.Join(p.From, ", "))
		if p.Current != "" {
			fmt.Fprintf(w, "  current Prometheus name: %s\n", p.Current)
		}
		if p.Why != "" {
			fmt.Fprintf(w, "  note: %s\n", p.Why)
		}
	}
	if a := ex.Attribute; a != nil {
		fmt.Fprintf(w, "attribute %s\n", a.Key)
		if a.Entry != a.Key {
			fmt.Fprintf(w, "  matches:     %s%s\n", a.Entry, map[bool]string{true: " (template)"}[a.Template])
		}
		if a.Placeholder {
			fmt.Fprintln(w, "  defined:     no (only known as the old name of a scoped rename)")
		} else {
			fmt.Fprintf(w, "  type:        %s\n  stability:   %s\n", a.Type, a.Stability)
		}
		if len(a.EnumStrings) > 0 {
			fmt.Fprintf(w, "  enum:        %s\n", strings.Join(a.EnumStrings, ", "))
		}
		if len(a.EnumInts) > 0 {
			fmt.Fprintf(w, "  enum:        %v\n", a.EnumInts)
		}
		if d := a.Deprecated; d != nil {
			fmt.Fprintf(w, "  deprecated:  %s", d.Reason)
			if d.RenamedTo != "" {
				fmt.Fprintf(w, ", renamed to %s", d.RenamedTo)
			}
			if d.Note != "" {
				fmt.Fprintf(w, " (%s)", strings.TrimSpace(d.Note))
			}
			fmt.Fprintln(w)
		}
		if a.Source != "" {
			fmt.Fprintf(w, "  source:      %s\n", a.Source)
		}
		renamed := false
		for _, cn := range a.CurrentNames {
			if !cn.Renamed {
				continue
			}
			if !renamed {
				fmt.Fprintln(w, "  current name by context:")
				renamed = true
			}
			ctx := cn.Location
			if cn.SpanKind != "" {
				ctx += " (" + cn.SpanKind + ")"
			}
			fmt.Fprintf(w, "    %-24s %s\n", ctx, cn.Name)
		}
		if !renamed && a.Deprecated != nil {
			fmt.Fprintln(w, "  current name: none; the processor keeps the key and counts it as deprecated")
		}
	}
	if m := ex.Metric; m != nil {
		fmt.Fprintf(w, "metric %s\n", m.Name)
		if m.Placeholder {
			fmt.Fprintln(w, "  defined:     no (only known as the old name of a schema-file rename)")
		} else {
			fmt.Fprintf(w, "  instrument:  %s\n  unit:        %s\n  stability:   %s\n", m.Instrument, m.Unit, m.Stability)
		}
		if d := m.Deprecated; d != nil {
			fmt.Fprintf(w, "  deprecated:  %s", d.Reason)
			if d.Note != "" {
				fmt.Fprintf(w, " (%s)", strings.TrimSpace(d.Note))
			}
			fmt.Fprintln(w)
		}
		if m.RenamedTo != "" {
			fmt.Fprintf(w, "  renamed to:  %s\n", m.RenamedTo)
		}
	}
}
