package upgrade

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// RegistrySection is the governance processor's registry section for the
// new registry, as the plan writes it (keys as in the processor's config).
type RegistrySection struct {
	Embedded      bool     `yaml:"embedded"`
	SemconvDir    string   `yaml:"semconv_dir,omitempty"`
	OrgRegistries []string `yaml:"org_registries,omitempty"`
	RulesFiles    []string `yaml:"rules_files,omitempty"`
}

// Manual is a change the collector cannot carry over by itself.
type Manual struct {
	Item  string   `json:"item"`
	Name  string   `json:"name"`
	Kinds []string `json:"kinds"`
	Why   []string `json:"why"`
}

// Plan is the transition from the old registry to the new one.
type Plan struct {
	// Copy are the old names the transition configuration copies (old and
	// new side by side), sorted: exactly the names the change set makes
	// the collector rewrite, and that copy mode keeps beside their new
	// name (renames; not splits and merges, which apply in rename mode
	// only).
	Copy []string `json:"copy"`
	// Config is the governance processor's configuration for the window,
	// as YAML (processors::governance).
	Config string `json:"config"`
	// Steps are the steps in order.
	Steps []string `json:"steps"`
	// Manual are the changes a person must carry over.
	Manual []Manual `json:"manual"`
	// Moved are renames whose old target moves (a -> b before, a -> c
	// now): consumers saw b, and the collector cannot send b and c at
	// once; the consumers' --both form reads both. Renamed, not copied.
	Moved []Manual `json:"moved"`
}

// transitionConfig is the processor configuration the plan writes.
type transitionConfig struct {
	Processors map[string]processorConfig `yaml:"processors"`
}

type processorConfig struct {
	Registry        RegistrySection   `yaml:"registry"`
	Deprecated      string            `yaml:"deprecated"`
	DeprecatedNames map[string]string `yaml:"deprecated_names,omitempty"`
}

// ProcessorName is the component ID the plan's configuration is written
// under.
const ProcessorName = "governance"

// NewPlan writes the transition plan for the change set t, to the new
// registry reg. consumers and traffic, when not nil, name the files and
// services the steps concern.
func NewPlan(t *Touches, reg RegistrySection, consumers *Consumers, traffic *Traffic) (*Plan, error) {
	p := &Plan{Copy: []string{}, Manual: []Manual{}, Moved: []Manual{}}
	names := map[string]string{}
	for _, m := range []map[string]*Touch{t.Attributes, t.Metrics} {
		for _, name := range slices.Sorted(maps.Keys(m)) {
			tc := m[name]
			copyable := tc.Copyable()
			if tc.Rewritten && tc.OldTarget != "" {
				p.Moved = append(p.Moved, Manual{Item: tc.Item.String(), Name: name, Kinds: tc.KindNames(), Why: []string{
					"the old registry renamed it to " + tc.OldTarget + ", which consumers read; the new one renames it to " + tc.NewName + " and the collector sends only that",
				}})
			}
			if copyable {
				names[name] = "copy"
				p.Copy = append(p.Copy, name)
			}
			why := slices.Clone(tc.Manual)
			if tc.Breaks() && !copyable {
				why = append(why, "a split or merge applies in rename mode only: during the window the old key arrives as sent and the new keys are absent")
			}
			if len(why) > 0 {
				p.Manual = append(p.Manual, Manual{Item: tc.Item.String(), Name: name, Kinds: tc.KindNames(), Why: why})
			}
		}
	}
	slices.Sort(p.Copy)
	cfg := transitionConfig{Processors: map[string]processorConfig{ProcessorName: {
		Registry: reg, Deprecated: "rename", DeprecatedNames: names,
	}}}
	b, err := yaml.Marshal(&cfg)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	p.Config = "# otelgov upgrade plan: the governance processor for the transition window.\n" +
		"# Old and new names arrive side by side for exactly the names the new registry\n" +
		"# renames (deprecated_names: copy); every other deprecated name is renamed.\n" +
		"# Remove deprecated_names once `otelgov upgrade status` exits 0.\n" + string(b)
	p.Steps = steps(p, consumers, traffic)
	return p, nil
}

func steps(p *Plan, c *Consumers, t *Traffic) []string {
	var out []string
	files := func(both bool) string {
		if c == nil {
			return "DASHBOARDS_AND_RULES"
		}
		seen := map[string]bool{}
		for _, r := range c.Reads {
			if r.Breaks && (!both || r.Rewritable || r.Both != "") {
				seen[r.File] = true
			}
		}
		if len(seen) == 0 {
			return ""
		}
		return strings.Join(slices.Sorted(maps.Keys(seen)), " ")
	}
	if f := files(true); f != "" {
		out = append(out, "Before the collector changes: rewrite the consumers to read old or new names, `otelgov queries --write --both <new registry flags> "+f+"`; a read it cannot rewrite is listed with why, fix it by hand.")
	}
	out = append(out, fmt.Sprintf("Deploy the new registry with the transition configuration (%d name(s) copied, old and new side by side); the collectors count who still sends them in otelcol_processor_governance_service_deprecated_names.", len(p.Copy)))
	if t != nil {
		var svcs []string
		for _, s := range t.Sent {
			// A figure over all services names no producer to move.
			if s.Service != AllServices && !slices.Contains(svcs, s.Service) {
				svcs = append(svcs, s.Service)
			}
		}
		if len(svcs) > 0 {
			out = append(out, "Move the producers that send old names to the new ones (instrumentation or SDK upgrade): "+strings.Join(svcs, ", ")+".")
		}
	}
	if len(p.Manual) > 0 {
		out = append(out, fmt.Sprintf("Carry over by hand the %d change(s) the collector cannot migrate (listed below).", len(p.Manual)))
	}
	f := files(false)
	if f == "" {
		f = "<dashboards and rules>"
	}
	out = append(out, "Keep the window open while `otelgov upgrade status --prometheus URL --window 24h "+f+"` says a service still sends an old name.",
		"Once no service sends one, rewrite the consumers to the new names only, `otelgov queries --write <new registry flags> "+f+"` (it folds the (old or new) form back); `otelgov upgrade status` then exits 0.")
	out = append(out, "End the window: remove deprecated_names from the processor configuration (every deprecated name is renamed).")
	return out
}
