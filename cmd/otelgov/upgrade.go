package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
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
)

// sideFlags are one registry of registry diff and of an upgrade: OLD or
// NEW (--old, --new), a semantic-conventions directory or "embedded", with
// its own org registries and rules files (--old-org-registry, --old-rules,
// ...).
type sideFlags struct {
	name          string // old or new
	dir           string
	orgRegistries []string
	rulesFiles    []string
}

// bind binds the side's directory flag (--old, --new; default def) and
// its sources.
func (s *sideFlags) bind(fs *pflag.FlagSet, def string) {
	fs.StringVar(&s.dir, s.name, def, fmt.Sprintf(`the %s registry: a semantic-conventions checkout (model/, schemas/) or "embedded" (the conventions compiled into otelgov)`, s.name))
	s.bindSources(fs)
}

// bindSources binds what the side loads on top of its directory.
func (s *sideFlags) bindSources(fs *pflag.FlagSet) {
	fs.StringArrayVar(&s.orgRegistries, s.name+"-org-registry", nil, fmt.Sprintf("an organisation registry directory or manifest loaded on top of the %s registry (repeatable)", s.name))
	fs.StringArrayVar(&s.rulesFiles, s.name+"-rules", nil, fmt.Sprintf("an extra context-rule file of the %s registry (repeatable)", s.name))
}

// registry is the side as the registry flags of one registry.
func (s *sideFlags) registry() *registryFlags {
	r := &registryFlags{embedded: true, orgRegistries: s.orgRegistries, rulesFiles: s.rulesFiles}
	if s.dir != embeddedSide {
		r.embedded, r.semconvDir = false, s.dir
	}
	return r
}

func (s *sideFlags) load() (*registry.Index, error) {
	if s.dir == "" {
		return nil, badInput(fmt.Errorf("--%s: needs a semantic-conventions directory or %q", s.name, embeddedSide))
	}
	return s.registry().loadAs(fmt.Sprintf("--%s %s: registry does not load", s.name, s.dir))
}

// section is the processor's registry section for this side.
func (s *sideFlags) section() upgrade.RegistrySection {
	r := upgrade.RegistrySection{OrgRegistries: s.orgRegistries, RulesFiles: s.rulesFiles}
	if s.dir == embeddedSide {
		r.Embedded = true
	} else {
		r.SemconvDir = s.dir
	}
	return r
}

// flag is the side as command-line flags, for the commands a plan prints.
func (s *sideFlags) flags() string {
	var b strings.Builder
	if s.dir == embeddedSide {
		b.WriteString("--embedded")
	} else {
		b.WriteString("--semconv-dir " + s.dir)
	}
	for _, o := range s.orgRegistries {
		b.WriteString(" --org-registry " + o)
	}
	for _, r := range s.rulesFiles {
		b.WriteString(" --rules " + r)
	}
	return b.String()
}

// upgradeFlags are the flags plan and status share.
type upgradeFlags struct {
	old, new   sideFlags
	prometheus string
	window     time.Duration
	format     string
}

func (u *upgradeFlags) bind(fs *pflag.FlagSet) {
	u.old.name, u.new.name = "old", "new"
	u.old.bind(fs, embeddedSide)
	u.new.bind(fs, "")
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
	if oldIx, err = u.old.load(); err != nil {
		return nil, nil, nil, err
	}
	if newIx, err = u.new.load(); err != nil {
		return nil, nil, nil, err
	}
	if set, err = change.Diff(oldIx, newIx); err != nil {
		return nil, nil, nil, badInput(err)
	}
	for _, w := range set.Old.Warnings {
		fmt.Fprintf(stderr, "otelgov: warning: old registry %s: %s\n", u.old.dir, w)
	}
	for _, w := range set.New.Warnings {
		fmt.Fprintf(stderr, "otelgov: warning: new registry %s: %s\n", u.new.dir, w)
	}
	return oldIx, newIx, set, nil
}

// fleet asks Prometheus about the collectors over the window and, with
// oldIx, about the touched metrics' series; unreachable or empty is exit 2.
func (u *upgradeFlags) fleet(ctx context.Context, t *upgrade.Touches, oldIx *registry.Index) (*upgrade.Fleet, error) {
	p, err := upgrade.NewPrometheus(u.prometheus)
	if err != nil {
		return nil, badInput(err)
	}
	now := time.Now()
	f, err := p.Fleet(ctx, t, u.window, now)
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
  --window); a service sending none is listed as such;
- the plan: a governance processor configuration that copies exactly the
  renamed names (old and new side by side: deprecated_names) and renames the
  rest, written to --output; the steps in order; what the collector cannot
  migrate (a unit without a factor, a merge).

Exit codes: 0 the plan is written and the collector migrates every change;
1 a change needs a person (listed); 2 bad input: a registry that does not
load, a recording or consumer file that cannot be read, a collector or
Prometheus that does not answer, or Prometheus without the collectors'
series.`,
		Example: `  otelgov upgrade plan --new ../semconv-next --output transition.yaml dashboards/ rules/
  otelgov upgrade plan --new ../semconv-next --recording recorded.jsonl --from http://127.0.0.1:13134
  otelgov upgrade plan --new ../semconv-next --prometheus http://prometheus:9090 --window 168h dashboards/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runUpgradePlan(cmd, &u, recordings, from, output, args)
		},
	}
	fs := cmd.Flags()
	u.bind(fs)
	u.bindPrometheus(fs, "a Prometheus, Thanos or Mimir HTTP API over the collectors' :8888 series, read over --window for what services send (optional)")
	fs.StringArrayVar(&recordings, "recording", nil, "an OTLP recording (what otelgov check reads) to read what services send (repeatable)")
	fs.StringArrayVar(&from, "from", nil, "the base URL of a running collector's governance_registry extension (e.g. http://127.0.0.1:13134) whose /conformance says what services send (repeatable)")
	fs.StringVar(&output, "output", "", `write the transition configuration to this file ("": print it with the report)`)
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

func runUpgradePlan(cmd *cobra.Command, u *upgradeFlags, recordings, from []string, output string, paths []string) error {
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
		addTraffic(upgrade.ConformanceTraffic(&doc, t, "conformance "+redactURL(base)+conformanceDoc.path))
	}
	if u.prometheus != "" {
		f, err := u.fleet(cmd.Context(), t, oldIx)
		if err != nil {
			return err
		}
		addTraffic(&f.Traffic)
	}
	rep.Traffic = traffic
	if rep.Plan, err = upgrade.NewPlan(t, u.new.section(), rep.Consumers, traffic); err != nil {
		return err
	}
	for i, s := range rep.Plan.Steps {
		rep.Plan.Steps[i] = strings.ReplaceAll(s, "<new registry flags>", u.new.flags())
	}
	if output != "" {
		if err := os.WriteFile(output, []byte(rep.Plan.Config), 0o600); err != nil {
			return badInput(fmt.Errorf("--output: %w", err))
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
	fmt.Fprintf(w, "Upgrade %s (%s) -> %s (%s)\n", u.old.dir, rep.Old.Version, u.new.dir, rep.New.Version)
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
			if !sending[svc] {
				fmt.Fprintf(w, "  %s: sends no name the change touches\n", svc)
			}
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
		fmt.Fprintf(w, "  manual: %s %s (%s): %s\n", m.Item, m.Name, strings.Join(m.Kinds, ", "), strings.Join(m.Why, "; "))
	}
	if output != "" {
		fmt.Fprintf(w, "\nTransition configuration written to %s\n", output)
		return
	}
	fmt.Fprintf(w, "\nTransition configuration:\n%s", p.Config)
}

func newUpgradeStatus() *cobra.Command {
	var u upgradeFlags
	cmd := &cobra.Command{
		Use:   "status --new DIR [--old DIR] --prometheus URL [--window 24h] [PATHS...]",
		Short: "Whether the transition window can end: no service sent an old name over the window and no dashboard or rule reads one",
		Long: `status answers from live data whether an upgrade's transition window (the
plan's deprecated_names) can end. Over --window, Prometheus (--prometheus:
Prometheus, Thanos or Mimir over the collectors' :8888) must show that no
service sent a name the plan copies
(otelcol_processor_governance_service_deprecated_names did not grow and no
series of it appeared), and Prometheus must hold the collectors' series from
before the window. The dashboards and rules at PATHS, read against the new
registry, must read no name the upgrade renames (rewrite them with otelgov
queries --write).

Exit codes: 0 the window can end; 1 not yet, with the reasons; 2 bad input:
a registry that does not load, an unreadable file, Prometheus unreachable or
without the collectors' series (never a silent "no impact").`,
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
	f, err := u.fleet(cmd.Context(), t, nil)
	if err != nil {
		return err
	}
	st := upgrade.Evaluate(f, c, u.window)
	out := cmd.OutOrStdout()
	if u.format == "json" {
		if err := printJSON(out, st); err != nil {
			return err
		}
	} else if st.Done {
		fmt.Fprintf(out, "done: over the last %s no service of %d sent an old name and no consumer reads one; remove deprecated_names\n", u.window, len(st.Services))
	} else {
		fmt.Fprintf(out, "not yet:\n")
		for _, r := range st.Reasons {
			fmt.Fprintf(out, "  %s\n", r)
		}
	}
	if !st.Done {
		return findings()
	}
	return nil
}
