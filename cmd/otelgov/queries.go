package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/otelgov/otelcol-governance/checker"
	"github.com/otelgov/otelcol-governance/queries"
	"github.com/otelgov/otelcol-governance/vocab"
)

type queriesOptions struct {
	reg    registryFlags
	format string
	failOn string
	write  bool
}

func newQueries() *cobra.Command {
	var o queriesOptions
	cmd := &cobra.Command{
		Use:   "queries PATHS...",
		Short: "Find deprecated attribute and metric names in alert rules, dashboards and collector configs",
		Long: `queries scans the places that silently break when names change: Prometheus
rule files and PrometheusRule manifests, Grafana dashboards (also embedded in
ConfigMaps), collector configs and OpenTelemetryCollector resources (OTTL
statements and conditions, attributes/resource/filter/groupbyattrs keys).
Directories are walked for .yaml, .yml and .json files.

Names are matched in OTel form (http.method) and in the form Prometheus
stores them after the remote-write exporter or the Prometheus receiver
(http_method; http_server_duration_milliseconds_bucket). PromQL is parsed
with the Prometheus parser.

--write rewrites PromQL and OTTL in place where the rewrite is unambiguous
(one current name in every context, same instrument and unit for metrics,
and the rewritten query parses to the same tree), touching no other byte.

A deprecated name is a violation. Exit codes: 0 none left (or --fail-on
none), 1 findings not rewritten, 2 bad input or usage.`,
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
	fs.BoolVar(&o.write, "write", false, "rewrite unambiguous PromQL and OTTL names in place")
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
	ix, err := o.reg.load()
	if err != nil {
		return err
	}
	s := queries.NewScanner(queries.NewNames(ix))
	s.Write = o.write
	res, err := s.ScanPaths(paths)
	if err != nil {
		return badInput(err)
	}
	out := cmd.OutOrStdout()
	if o.format == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		writeQueries(out, &res)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(cmd.ErrOrStderr(), "otelgov: note: %s:%d: %s\n", n.File, n.Line, n.Message)
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
	fmt.Fprintf(w, "%d file(s) scanned: %d deprecated name(s) left, %d rewritten\n", res.Files, left, rewritten)
}
