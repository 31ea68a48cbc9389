package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/conformance"
	"github.com/otelgov/otelcol-governance/otlpfile"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/registry/change"
	"github.com/otelgov/otelcol-governance/upgrade"
	"github.com/otelgov/otelcol-governance/vocab"
)

// upgradeFlags are the flags plan and status share.
type upgradeFlags struct {
	old, new   registrySource
	prometheus string
	window     time.Duration
	format     string
}

func (u *upgradeFlags) bind(fs *pflag.FlagSet) {
	u.old, u.new = newSide("old"), newSide("new")
	u.old.bindDir(fs, embeddedSide)
	u.old.bind(fs)
	u.new.bindDir(fs, "")
	u.new.bind(fs)
	fs.DurationVar(&u.window, "window", 24*time.Hour, "the span of live data read from Prometheus, ending now")
	fs.StringVar(&u.format, "format", "text", "output: text or json")
}

func (u *upgradeFlags) bindPrometheus(fs *pflag.FlagSet, usage string) {
	fs.StringVar(&u.prometheus, "prometheus", "", usage)
}

// changes loads both registries and their change set, and warns on
// stderr of what loading them left out.
func (u *upgradeFlags) changes(stderr io.Writer) (oldIx, newIx *registry.Index, set *change.Set, err error) {
	if u.format != "text" && u.format != "json" {
		return nil, nil, nil, badInput(fmt.Errorf("--format: unknown format %q: want text or json", u.format))
	}
	if u.window < time.Second {
		return nil, nil, nil, badInput(fmt.Errorf("--window: %s is shorter than a second", u.window))
	}
	if oldIx, err = u.old.load(stderr); err != nil {
		return nil, nil, nil, err
	}
	if newIx, err = u.new.load(stderr); err != nil {
		return nil, nil, nil, err
	}
	if set, err = change.Diff(oldIx, newIx); err != nil {
		return nil, nil, nil, badInput(err)
	}
	return oldIx, newIx, set, nil
}

// fleet asks Prometheus about the collectors over the window (and which
// transition each runs, against newIx) and, with oldIx, about the touched
// metrics' series; unreachable, not Prometheus, a rejected query or no
// series is exit 2.
func (u *upgradeFlags) fleet(ctx context.Context, t *upgrade.Touches, newIx, oldIx *registry.Index) (*upgrade.Fleet, error) {
	p, err := upgrade.NewPrometheus(u.prometheus)
	if err != nil {
		return nil, badInput(err)
	}
	now := time.Now()
	f, err := p.Fleet(ctx, t, newIx.Digest(), u.window, now)
	if err != nil {
		return nil, badInput(fmt.Errorf("--prometheus: %w", err))
	}
	if oldIx != nil {
		series, err := p.MetricSeries(ctx, t, oldIx, now)
		if err != nil {
			return nil, badInput(fmt.Errorf("--prometheus: %w", err))
		}
		f.Add(&upgrade.Traffic{Sent: series})
	}
	return f, nil
}

func newUpgradePlan() *cobra.Command {
	var (
		u          upgradeFlags
		recordings []string
		from       []string
		output     string
		// collectorPaths are LOCAL=COLLECTOR prefixes of --collector-path.
		collectorPaths []string
	)
	cmd := &cobra.Command{
		Use:   "plan --new DIR [--old DIR] [PATHS...]",
		Short: "What a new registry changes for the consumers at PATHS and for the services, and the collector configuration for the transition",
		Long: `plan compares the old registry (--old, default the embedded one) with the new
one (--new) and reports:

- impact on consumers: the dashboards, alert and recording rules and
  collector configs at PATHS, read against the new registry (as otelgov
  queries does), that read a name the new registry makes the collector
  rewrite; whether otelgov queries --write rewrites each, and the line as
  --write --both writes it for the transition window (reads old or new);
- impact on traffic: per service, the old keys, values and metrics sent, with
  their count, rate and, for metrics, series, from recordings (--recording,
  what otelgov check reads), running collectors' /conformance (--from) and a
  fleet's Prometheus over the collectors' :8888 series (--prometheus, over
  --window); a service sending none is listed as such, but only from a
  source that could count the names: where a collector Prometheus scrapes
  does not run the transition configuration, its services are "not known";
- the plan: the transition configuration, which copies exactly the renamed
  names (old and new side by side: deprecated_names) and renames the rest,
  in one form per hop of the deployment we ship, every one copying and
  counting the same names, so that no hop renames an old name before a hop
  that counts it (gateway.yaml: the governance_registry extension's
  registry source and the processor's deprecated_names; sidecar.yaml: the
  processor's own registry, the new one, and the same deprecated_names, on
  the first hop, which sees what the application sends; collector.yaml:
  the same for a collector with its own registry that is the only hop),
  written to the directory --output, with the registry's paths as the
  collectors mount them (--collector-path); the steps in order; under
  manual, every change a
  person must carry over, with its reason (producers must now send an
  attribute, a unit without a factor, an instrument change, a merge, a split
  during the window: the change model decides, see docs/upgrade.md).

Exit codes: 0 the plan is written and the collector migrates every change;
1 a change needs a person (listed under manual; the plan is written all the
same); 2 bad input: a registry that does not load or is not a registry, a
recording or consumer file that cannot be read, a collector that does not
answer, a --prometheus that is unreachable, not a Prometheus HTTP API (a
404) or rejects a query, or Prometheus without the collectors' series.`,
		Example: `  otelgov upgrade plan --new ../semconv-next --output transition/ --collector-path ../semconv-next=/conf/semconv-next dashboards/ rules/
  otelgov upgrade plan --new ../semconv-next --recording recorded.jsonl --from http://127.0.0.1:13180
  otelgov upgrade plan --new ../semconv-next --prometheus http://prometheus:9090 --window 168h dashboards/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runUpgradePlan(cmd, &u, recordings, from, output, collectorPaths, args)
		},
	}
	fs := cmd.Flags()
	u.bind(fs)
	u.bindPrometheus(fs, "a Prometheus, Thanos or Mimir HTTP API over the collectors' :8888 series, read over --window for what services send (optional)")
	fs.StringArrayVar(&recordings, "recording", nil, "an OTLP recording (what otelgov check reads) to read what services send (repeatable)")
	fs.StringArrayVar(&from, "from", nil, "the base URL of a running collector's governance_registry extension (e.g. http://127.0.0.1:13180) whose /conformance says what services send (repeatable)")
	fs.StringVar(&output, "output", "", `write the transition configuration to this directory, one file per hop: gateway.yaml, sidecar.yaml, collector.yaml (created when missing; "": print them with the report)`)
	fs.StringArrayVar(&collectorPaths, "collector-path", nil, `LOCAL=COLLECTOR: write a registry path under LOCAL as under COLLECTOR in the configuration, where the collectors mount it, e.g. "../semconv-next=/conf/semconv-next" (repeatable; default: the paths as given)`)
	return cmd
}

// recordingSink feeds a Recorder from otelgov check's reader.
type recordingSink struct{ r *upgrade.Recorder }

func (s recordingSink) Traces(td ptrace.Traces, _ string)    { s.r.Traces(td) }
func (s recordingSink) Metrics(md pmetric.Metrics, _ string) { s.r.Metrics(md) }
func (s recordingSink) Logs(ld plog.Logs, _ string)          { s.r.Logs(ld) }

// maxListed bounds the names of a list in the text report.
const maxListed = 10

// planReport is plan's JSON output.
type planReport struct {
	Old       change.Side        `json:"old"`
	New       change.Side        `json:"new"`
	Consumers *upgrade.Consumers `json:"consumers,omitempty"`
	Traffic   *upgrade.Traffic   `json:"traffic,omitempty"`
	Plan      *upgrade.Plan      `json:"plan"`
}

func runUpgradePlan(cmd *cobra.Command, u *upgradeFlags, recordings, from []string, output string, collectorPaths, paths []string) error {
	remap, err := parseCollectorPaths(collectorPaths)
	if err != nil {
		return err
	}
	oldIx, newIx, set, err := u.changes(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	t := upgrade.NewTouches(set)
	rep := planReport{Old: set.Old, New: set.New}
	if len(paths) > 0 {
		if rep.Consumers, err = upgrade.ScanConsumers(t, newIx, paths); err != nil {
			return badInput(err)
		}
		if rep.Consumers.Unreadable > 0 {
			for _, n := range rep.Consumers.Notes {
				fmt.Fprintf(cmd.ErrOrStderr(), "otelgov: note: %s:%d: %s\n", n.File, n.Line, n.Message)
			}
			return badInput(fmt.Errorf("%d consumer input(s) cannot be read (see the notes)", rep.Consumers.Unreadable))
		}
	}
	var traffic *upgrade.Traffic
	addTraffic := func(tr *upgrade.Traffic) {
		if traffic == nil {
			traffic = &upgrade.Traffic{Sent: []upgrade.Sent{}, Services: []string{}}
		}
		traffic.Add(tr)
	}
	for _, f := range recordings {
		r := upgrade.NewRecorder(t)
		read, err := checkFile(cmd.InOrStdin(), otlpfile.Options{Name: f}, recordingSink{r})
		if err != nil {
			return badInput(err)
		}
		if read.items == 0 {
			return badInput(fmt.Errorf("--recording %s: no span, data point or log record (%s)", f, read))
		}
		addTraffic(r.Traffic(f))
	}
	client := newFromClient()
	for _, base := range from {
		var doc conformance.Document
		if err := getFrom(cmd.Context(), client, base, conformanceDoc, &doc); err != nil {
			return badInput(fmt.Errorf("--from %s: %w", redactURL(base), err))
		}
		addTraffic(upgrade.ConformanceTraffic(&doc, t, newIx.Digest(), "conformance "+redactURL(base)+conformanceDoc.path))
	}
	if u.prometheus != "" {
		f, err := u.fleet(cmd.Context(), t, newIx, oldIx)
		if err != nil {
			return err
		}
		addTraffic(&f.Traffic)
	}
	rep.Traffic = traffic
	rep.Plan, err = upgrade.NewPlan(t, upgrade.PlanInput{
		Registry: remap(u.new.sources()), RegistryFlags: u.new.flags(), Window: u.window,
		Consumers: rep.Consumers, Traffic: traffic,
	})
	if err != nil {
		return err
	}
	if output != "" {
		if err := os.MkdirAll(output, 0o750); err != nil {
			return badInput(fmt.Errorf("--output: %w", err))
		}
		for _, h := range rep.Plan.Hops {
			if err := os.WriteFile(filepath.Join(output, h.Name+".yaml"), []byte(h.Config), 0o600); err != nil {
				return badInput(fmt.Errorf("--output: %w", err))
			}
		}
	}
	out := cmd.OutOrStdout()
	if u.format == "json" {
		if err := printJSON(out, rep); err != nil {
			return err
		}
	} else {
		writePlan(out, u, &rep, output)
	}
	if n := len(rep.Plan.Manual); n > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "otelgov: %d change(s) the collector cannot migrate: a person must carry them over (see the plan)\n", n)
		return findings()
	}
	return nil
}

func writePlan(w io.Writer, u *upgradeFlags, rep *planReport, output string) {
	fmt.Fprintf(w, "Upgrade %s -> %s\n", sideName(u.old.dir, rep.Old), sideName(u.new.dir, rep.New))
	if c := rep.Consumers; c != nil {
		fmt.Fprintf(w, "\nImpact on consumers: %d file(s) scanned, %d read(s) that break, %d of them rewritten by otelgov queries --write\n", c.Files, c.Breaking, c.Rewritable)
		for _, r := range c.Reads {
			if !r.Breaks {
				continue
			}
			fmt.Fprintf(w, "  %s:%d: %s reads %s (%s; now %s)", r.File, r.Line, r.Where, r.Name, strings.Join(r.Kinds, ", "), strings.Join(r.CurrentOTel, ", "))
			if r.Rewritable {
				fmt.Fprint(w, " [--write rewrites it]\n")
			} else {
				fmt.Fprintf(w, " [not rewritable: %s]\n", r.Why)
			}
			if l := windowLine(&r.Finding); l != "" {
				fmt.Fprintf(w, "    %s\n", l)
			}
		}
		if n := len(c.Kept); n > 0 {
			names := c.Kept[:min(n, maxListed)]
			more := ""
			if n > maxListed {
				more = fmt.Sprintf(" and %d more (--format json lists them)", n-maxListed)
			}
			fmt.Fprintf(w, "  %d name(s) kept as sent (removed, or deprecated without a replacement: the collector does not rewrite them, so reads keep working while producers send them): %s%s\n", n, strings.Join(names, ", "), more)
		}
	}
	if t := rep.Traffic; t != nil {
		fmt.Fprintf(w, "\nImpact on traffic (%s): %d service(s) seen\n", strings.Join(t.Sources, ", "), len(t.Services))
		sending := map[string]bool{}
		for _, s := range t.Sent {
			sending[s.Service] = true
			fmt.Fprintf(w, "  %s: %s %s", s.Service, s.Item, s.Name)
			if s.NewName != "" {
				fmt.Fprintf(w, " -> %s", s.NewName)
			}
			fmt.Fprintf(w, " (%s)", strings.Join(s.Kinds, ", "))
			if s.Count > 0 {
				fmt.Fprintf(w, ": %d", s.Count)
			}
			if s.Rate > 0 {
				fmt.Fprintf(w, ", %.3g/s", s.Rate)
			}
			if s.Series > 0 {
				fmt.Fprintf(w, ", %d series", s.Series)
			}
			for _, v := range slices.Sorted(maps.Keys(s.Values)) {
				fmt.Fprintf(w, ", value %q x%d", v, s.Values[v])
			}
			fmt.Fprintf(w, " [%s]\n", s.Source)
		}
		for _, svc := range t.Services {
			switch {
			case sending[svc]:
			case slices.Contains(t.Unknown, svc):
				fmt.Fprintf(w, "  %s: not known whether it sends a name the change touches (see below)\n", svc)
			default:
				fmt.Fprintf(w, "  %s: sends no name the change touches\n", svc)
			}
		}
		if t.Folded > 0 {
			fmt.Fprintf(w, "  %d resource(s) of services beyond the first %d of a recording counted under %s\n", t.Folded, upgrade.DefaultServiceLimit, vocab.ServiceOther)
		}
		for _, why := range t.Unproven {
			fmt.Fprintf(w, "  not known: %s\n", why)
		}
	}
	p := rep.Plan
	fmt.Fprintf(w, "\nPlan: %d name(s) copied during the window\n", len(p.Copy))
	for i, s := range p.Steps {
		fmt.Fprintf(w, "  %d. %s\n", i+1, s)
	}
	for _, m := range p.Moved {
		fmt.Fprintf(w, "  moved: %s %s: %s\n", m.Item, m.Name, strings.Join(m.Why, "; "))
	}
	for _, m := range p.Manual {
		if m.Context != "" {
			fmt.Fprintf(w, "  manual: attribute %s on %s %s (%s): %s\n", m.Name, m.Item, m.Context, strings.Join(m.Kinds, ", "), strings.Join(m.Why, "; "))
			continue
		}
		fmt.Fprintf(w, "  manual: %s %s (%s): %s\n", m.Item, m.Name, strings.Join(m.Kinds, ", "), strings.Join(m.Why, "; "))
	}
	for _, h := range p.Hops {
		if output != "" {
			fmt.Fprintf(w, "\nTransition configuration, %s: written to %s\n", hopTitle(h), filepath.Join(output, h.Name+".yaml"))
			continue
		}
		fmt.Fprintf(w, "\nTransition configuration, %s:\n%s", hopTitle(h), h.Config)
	}
}

// hopTitle names a hop and the shipped configurations it is for.
func hopTitle(h upgrade.Hop) string {
	if len(h.Shipped) == 0 {
		return h.Name
	}
	return h.Name + " (" + strings.Join(h.Shipped, ", ") + ")"
}

// parseCollectorPaths parses --collector-path LOCAL=COLLECTOR into the
// function that writes a registry's paths as the collectors see them.
func parseCollectorPaths(specs []string) (func(registry.Sources) registry.Sources, error) {
	type prefix struct{ local, collector string }
	var ps []prefix
	for _, spec := range specs {
		l, c, ok := strings.Cut(spec, "=")
		if !ok || l == "" || c == "" {
			return nil, badInput(fmt.Errorf("--collector-path: want LOCAL=COLLECTOR, got %q", spec))
		}
		ps = append(ps, prefix{filepath.Clean(l), filepath.Clean(c)})
	}
	one := func(p string) string {
		clean := filepath.Clean(p)
		for _, x := range ps {
			if clean == x.local {
				return x.collector
			}
			if rest, ok := strings.CutPrefix(clean, x.local+string(filepath.Separator)); ok {
				return filepath.Join(x.collector, rest)
			}
		}
		return p
	}
	return func(s registry.Sources) registry.Sources {
		if s.SemconvDir != "" {
			s.SemconvDir = one(s.SemconvDir)
		}
		s.OrgRegistries = slices.Clone(s.OrgRegistries)
		for i, p := range s.OrgRegistries {
			s.OrgRegistries[i] = one(p)
		}
		s.RulesFiles = slices.Clone(s.RulesFiles)
		for i, p := range s.RulesFiles {
			s.RulesFiles[i] = one(p)
		}
		return s
	}, nil
}

func newUpgradeStatus() *cobra.Command {
	var u upgradeFlags
	cmd := &cobra.Command{
		Use:   "status --new DIR [--old DIR] --prometheus URL [--window 24h] [PATHS...]",
		Short: "Whether the transition window can end: no service sent an old name over the window and no dashboard or rule reads one",
		Long: `status answers from live data whether an upgrade's transition window (the
plan's deprecated_names) can end. Over --window, Prometheus (--prometheus:
Prometheus, Thanos or Mimir over the collectors' :8888) must show that:

- the transition is in force on every governance processor instance it
  scraped, for the whole window: each says so in
  otelcol_processor_governance_transition_info and
  otelcol_processor_governance_deprecated_names_in_force, counting every
  name the change renames (or its shadow registry's candidate is the new
  registry: evidence on a sample of the batches, said in a note). An
  instance that does not count them, or that renames them before they are
  counted (a sidecar on the new registry without deprecated_names), is
  named, and status is "not yet": never "done" from missing series;
- no service sent a name the plan copies
  (otelcol_processor_governance_service_deprecated_names did not grow and no
  series of it appeared);
- Prometheus holds the collectors' series from before the window.

The dashboards and rules at PATHS, read against the new registry, must read
no name the upgrade renames (rewrite them with otelgov queries --write).

Exit codes: 0 the window can end; 1 not yet, with the reasons (a script
under set -e stops on it: test the code instead); 2 bad input: a registry
that does not load, an unreadable file, a --prometheus that is unreachable,
not a Prometheus HTTP API (a 404) or rejects a query, or Prometheus without
the collectors' series (never a silent "no impact").`,
		Example: `  otelgov upgrade status --new ../semconv-next --prometheus http://prometheus:9090 dashboards/ rules/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runUpgradeStatus(cmd, &u, args)
		},
	}
	fs := cmd.Flags()
	u.bind(fs)
	u.bindPrometheus(fs, "a Prometheus, Thanos or Mimir HTTP API over the collectors' :8888 series (required)")
	return cmd
}

func runUpgradeStatus(cmd *cobra.Command, u *upgradeFlags, paths []string) error {
	if u.prometheus == "" {
		return badInput(errors.New("--prometheus: required: status answers from the collectors' series"))
	}
	_, newIx, set, err := u.changes(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	t := upgrade.NewTouches(set)
	var c *upgrade.Consumers
	if len(paths) > 0 {
		if c, err = upgrade.ScanConsumers(t, newIx, paths); err != nil {
			return badInput(err)
		}
	}
	f, err := u.fleet(cmd.Context(), t, newIx, nil)
	if err != nil {
		return err
	}
	st := upgrade.Evaluate(f, c, u.window)
	out := cmd.OutOrStdout()
	if u.format == "json" {
		if err := printJSON(out, st); err != nil {
			return err
		}
	} else {
		if st.Done {
			fmt.Fprintf(out, "done: over the last %s, with the transition in force on %d instance(s), no service of %d sent an old name and no consumer reads one; remove deprecated_names\n", u.window, len(st.Instances), len(st.Services))
		} else {
			fmt.Fprintf(out, "not yet:\n")
			for _, r := range st.Reasons {
				fmt.Fprintf(out, "  %s\n", r)
			}
		}
		for _, n := range st.Notes {
			fmt.Fprintf(out, "note: %s\n", n)
		}
	}
	if !st.Done {
		return findings()
	}
	return nil
}
