package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/otelgov/otelcol-governance/checker"
	"github.com/otelgov/otelcol-governance/queries"
	"github.com/otelgov/otelcol-governance/vocab"
)

type queriesOptions struct {
	reg            registrySource
	format         string
	failOn         string
	write          bool
	both           bool
	skipUnreadable bool
}

func newQueries() *cobra.Command {
	var o queriesOptions
	cmd := &cobra.Command{
		Use:   "queries PATHS...",
		Short: "Find deprecated attribute and metric names in alert rules, dashboards and collector configs",
		Long: `queries scans the places that silently break when names change: Prometheus
rule files and PrometheusRule manifests, Grafana dashboards (plain, in
ConfigMaps, ConfigMapLists and GrafanaDashboards; a query variable's query
and its definition), Grafana alerting rules, collector configs and the
fragments of one split across --config files, OpenTelemetryCollector
resources and Helm values (OTTL statements and conditions, attributes/
resource/filter/groupbyattrs/k8s_attributes keys). Helm templates are read
outside their {{ }} blocks (one note per file says how many).
Directories are walked for .yaml, .yml and .json files; version-control
directories are skipped, other hidden ones are scanned; a file reached
through symlinks is scanned once.

Names are matched in OTel form (http.method) and in the forms Prometheus
stores them in after the OTLP translation (github.com/prometheus/otlptranslator:
http_method; http_server_duration_milliseconds_bucket; older translators'
forms too). A label renamed only on some metrics (direction, state) is a
finding only on those metrics. PromQL is parsed with the Prometheus parser;
Grafana variables and macros are substituted first.

--write rewrites PromQL, alert templates and OTTL in place where the rewrite
keeps what the query selects: one current name in every context, same
instrument and unit for metrics, a label's compared values migrated with it
(rpc_grpc_status_code!="0" -> rpc_response_status_code!="OK"), and the
rewritten query parses to the same selectors; otherwise the finding says why
not. No other byte changes: the text output lists every rewrite it made
(file:line:column, what, old and new bytes), and --format json lists them
("rewrites", planned when "written" is false), so that the listed rewrites
applied to the files as they were give the written files byte for byte.

--write --both is for a migration under way: each selector reading old names
becomes (old or new), the new branch reading the current names and migrated
values and relabelled back to the old label names (label_replace), so that
groupings, legends and $labels templates work on data of either kind; a
selector under a range is lifted with its function (rate(old[5m]) or
rate(new[5m])). Alert templates keep the old labels.

A deprecated name is a violation. Exit codes: 0 none left (or --fail-on
none), 1 findings not rewritten, 2 bad input or usage: a file or an
expression that cannot be read, unless --skip-unreadable.`,
		Example: `  otelgov queries distribution/k8s dashboards/
  otelgov queries --write monitoring/rules.yaml && promtool check rules monitoring/rules.yaml`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runQueries(cmd, &o, args)
		},
	}
	fs := cmd.Flags()
	o.reg.bind(fs)
	fs.StringVar(&o.format, "format", "text", "output: text or json")
	fs.StringVar(&o.failOn, "fail-on", "violation", "exit 1 on findings at or above: violation, improvement, information or none")
	fs.BoolVar(&o.write, "write", false, "rewrite PromQL, alert templates and OTTL names in place where the query keeps its meaning")
	fs.BoolVar(&o.both, "both", false, "with --write: rewrite each query to read the old and the current names at once (old or new), for a migration under way")
	fs.BoolVar(&o.skipUnreadable, "skip-unreadable", false, "do not exit 2 on files or expressions that cannot be read; count them in the summary")
	return cmd
}

func runQueries(cmd *cobra.Command, o *queriesOptions, paths []string) error {
	if o.format != "text" && o.format != "json" {
		return badInput(fmt.Errorf("--format: unknown format %q: want text or json", o.format))
	}
	failOn, err := checker.ParseFailOn(o.failOn)
	if err != nil {
		return badInput(fmt.Errorf("--fail-on: %w", err))
	}
	ix, err := o.reg.load(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	s := queries.NewScanner(queries.NewNames(ix))
	if o.both && !o.write {
		return badInput(fmt.Errorf("--both: needs --write"))
	}
	s.Write, s.Both = o.write, o.both
	res, err := s.ScanPaths(paths)
	if err != nil {
		return badInput(err)
	}
	out := cmd.OutOrStdout()
	if o.format == "json" {
		if err := printJSON(out, res); err != nil {
			return err
		}
	} else {
		writeQueries(out, &res)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(cmd.ErrOrStderr(), "otelgov: note: %s:%d: %s\n", n.File, n.Line, n.Message)
	}
	if res.Unreadable > 0 && !o.skipUnreadable {
		return badInput(fmt.Errorf("%d unreadable input(s) (see the notes); --skip-unreadable scans the rest", res.Unreadable))
	}
	// Every finding is a deprecated name: Weaver's deprecated finding.
	if failOn.Fails(vocab.DefaultLevel(vocab.FindingDeprecated)) {
		for _, f := range res.Findings {
			if !f.Rewritten {
				return findings()
			}
		}
	}
	return nil
}

func writeQueries(w io.Writer, res *queries.Result) {
	left, rewritten := 0, 0
	for _, f := range res.Findings {
		cur := f.Current
		if cur == "" {
			cur = "(none)"
		}
		fmt.Fprintf(w, "%s:%d: %s: deprecated %s %q", f.File, f.Line, f.Where, f.Kind, f.Name)
		if f.Name != f.Deprecated {
			fmt.Fprintf(w, " (OTel %s)", f.Deprecated)
		}
		fmt.Fprintf(w, "; current: %s", cur)
		switch {
		case f.Rewritten:
			fmt.Fprint(w, " [rewritten]")
			rewritten++
		case f.Rewritable:
			fmt.Fprint(w, " [--write rewrites it]")
			left++
		default:
			fmt.Fprintf(w, " [not rewritable: %s]", f.Why)
			left++
		}
		fmt.Fprintln(w)
	}
	if res.Written {
		for _, r := range res.Rewrites {
			fmt.Fprintf(w, "%s:%d:%d: rewrote %s %q -> %q", r.File, r.Line, r.Column, r.What, r.Old, r.New)
			if r.Name != "" && r.Name != r.Old {
				fmt.Fprintf(w, " (of %s)", r.Name)
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintf(w, "%d file(s) scanned: %d deprecated name(s) left, %d rewritten", res.Files, left, rewritten)
	if res.Written {
		fmt.Fprintf(w, " in %d rewrite(s)", len(res.Rewrites))
	}
	if res.Unreadable > 0 {
		fmt.Fprintf(w, "; %d unreadable input(s) not checked", res.Unreadable)
	}
	fmt.Fprintln(w)
}
