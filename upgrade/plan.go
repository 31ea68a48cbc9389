package upgrade

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/registry"
)

// PlanInput is what a plan is written for.
type PlanInput struct {
	// Registry is the new registry as the collectors load it (paths where
	// they are mounted): the configuration carries it as the extension's
	// registry source and as the processor's registry section.
	Registry registry.Sources
	// RegistryFlags are the same registry as otelgov's registry flags
	// (--semconv-dir DIR --org-registry ...), for the commands the steps
	// print.
	RegistryFlags string
	// Window is the span the status step reads (status --window); zero
	// is 24h, status's default.
	Window time.Duration
	// Consumers and Traffic, when not nil, name the files and services the
	// steps concern.
	Consumers *Consumers
	Traffic   *Traffic
}

// Manual is a change the collector cannot carry over by itself (or, in
// Moved, a rename whose target moves).
type Manual struct {
	Item string `json:"item"`
	Name string `json:"name"`
	// Context is the metric, span or event a per-signal change is on
	// (Name is then the attribute key); "" else.
	Context string   `json:"context,omitempty"`
	Kinds   []string `json:"kinds"`
	Why     []string `json:"why"`
}

// Plan is the transition from the old registry to the new one.
type Plan struct {
	// Copy are the old names the transition configuration copies (old and
	// new side by side), sorted: exactly the names the change set makes
	// the collector rewrite, and that copy mode keeps beside their new
	// name (renames; not splits and merges, which apply in rename mode
	// only).
	Copy []string `json:"copy"`
	// Config is the governance processor's configuration for the window
	// on a collector that loads its own registry (a sidecar, or a
	// collector that is the only hop), as YAML (processors::governance):
	// the Hops' "collector" form, the same keys as the "sidecar" form.
	Config string `json:"config"`
	// Hops are the forms of the transition configuration, one per kind of
	// hop in the deployment we ship (gateway, sidecar, collector), each a
	// fragment to merge into that hop's configuration.
	Hops []Hop `json:"hops"`
	// Steps are the steps in order.
	Steps []string `json:"steps"`
	// Manual are the changes a person must carry over.
	Manual []Manual `json:"manual"`
	// Moved are renames whose old target moves (a -> b before, a -> c
	// now): consumers saw b, and the collector cannot send b and c at
	// once; the consumers' --both form reads both. Renamed, not copied.
	Moved []Manual `json:"moved"`
}

// Hop is the transition configuration of one kind of hop.
type Hop struct {
	// Name is the hop: HopGateway, HopSidecar or HopCollector; the file
	// otelgov upgrade plan --output writes is Name + ".yaml".
	Name string `json:"name"`
	// Shipped are the configurations of distribution/ this form is for.
	Shipped []string `json:"shipped,omitempty"`
	// Why says what the hop does during the window, and why.
	Why string `json:"why"`
	// Config is the fragment, as YAML, to merge into the hop's collector
	// configuration (a second --config, or the keys copied into the CR's
	// spec.config).
	Config string `json:"config"`
}

// Hop returns the plan's hop of that name (HopGateway, HopSidecar or
// HopCollector).
func (p *Plan) Hop(name string) (Hop, bool) {
	for _, h := range p.Hops {
		if h.Name == name {
			return h, true
		}
	}
	return Hop{}, false
}

// The hops of the deployment we ship.
const (
	// HopGateway takes the registry from the governance_registry
	// extension (distribution/config.yaml, the gateway CR): the hop that
	// counts who still sends an old name.
	HopGateway = "gateway"
	// HopSidecar runs the processor's own registry in front of the
	// gateway (the sidecar CR): the first hop, which sees what the
	// application sends.
	HopSidecar = "sidecar"
	// HopCollector is a collector with its own registry that is the only
	// hop; its form is the sidecar's.
	HopCollector = "collector"
)

// transitionConfig is the configuration fragment the plan writes.
type transitionConfig struct {
	Extensions map[string]extensionConfig `yaml:"extensions,omitempty"`
	Processors map[string]processorConfig `yaml:"processors"`
}

// extensionConfig is the governance_registry extension's registry source
// (its keys: no embedded, semconv_dir "" is the embedded release).
type extensionConfig struct {
	SemconvDir    string   `yaml:"semconv_dir,omitempty"`
	OrgRegistries []string `yaml:"org_registries,omitempty"`
	RulesFiles    []string `yaml:"rules_files,omitempty"`
}

type processorConfig struct {
	Registry        any               `yaml:"registry"`
	Deprecated      string            `yaml:"deprecated"`
	DeprecatedNames map[string]string `yaml:"deprecated_names,omitempty"`
}

// extensionRef is the processor's registry section on the extension.
type extensionRef struct {
	Extension string `yaml:"extension"`
}

// The component IDs the plan's configuration is written under, as in the
// configurations we ship.
const (
	ProcessorName = "governance"
	ExtensionName = "governance_registry"
)

// header is the comment above every form.
const header = "# otelgov upgrade plan: the %s's configuration for the transition window.\n%s"

// wrapComment writes s as YAML comment lines of at most 78 columns.
func wrapComment(s string) string {
	var b strings.Builder
	line := "#"
	for _, w := range strings.Fields(s) {
		if len(line)+1+len(w) > 78 && line != "#" {
			b.WriteString(line + "\n")
			line = "#"
		}
		line += " " + w
	}
	return b.String() + line + "\n"
}

// hops writes the forms of the transition configuration: the gateway's
// (the extension's registry source) and the own-registry form, written for
// the sidecar and for a collector that is the only hop. Every form copies
// the same names, so every hop counts and none renames an old name before
// a hop that counts it.
func hops(in PlanInput, names map[string]string) ([]Hop, error) {
	src := in.Registry
	gateway := transitionConfig{
		Extensions: map[string]extensionConfig{ExtensionName: {SemconvDir: src.SemconvDir, OrgRegistries: src.OrgRegistries, RulesFiles: src.RulesFiles}},
		Processors: map[string]processorConfig{ProcessorName: {Registry: extensionRef{Extension: ExtensionName}, Deprecated: "rename", DeprecatedNames: names}},
	}
	own := transitionConfig{Processors: map[string]processorConfig{ProcessorName: {Registry: src, Deprecated: "rename", DeprecatedNames: names}}}
	out := []Hop{
		{
			Name: HopGateway, Shipped: []string{"distribution/config.yaml", "distribution/k8s/collector/gateway.yaml"},
			Why: "the extension loads the new registry and, in the same change, the processor copies the names it renames (old and new side by side) and counts who still sends them per service; it receives the old names because the sidecars in front of it copy them rather than rename them; deploy both keys at once, never the new registry without deprecated_names",
		},
		{
			Name: HopSidecar, Shipped: []string{"distribution/k8s/collector/sidecar.yaml"},
			Why: "the first hop, which sees what the application sends: the processor's own registry moves to the new one (mounted from the ConfigMaps otelgov registry configmaps writes, in the application's namespace) in the same change as deprecated_names, so it copies each old name beside the new one and counts who still sends it; never the new registry without deprecated_names, which renames the old name before any hop counts it (a false \"done\")",
		},
		{
			Name: HopCollector,
			Why:  "a collector with its own registry that is the only hop: the sidecar's form, the new registry with the same copies, counting itself",
		},
	}
	for i, c := range []transitionConfig{gateway, own, own} {
		b, err := yaml.Marshal(&c)
		if err != nil {
			return nil, fmt.Errorf("plan: %w", err)
		}
		out[i].Config = fmt.Sprintf(header, out[i].Name, wrapComment(out[i].Why)) + string(b)
	}
	return out, nil
}

// NewPlan writes the transition plan for the change set t, as in says.
func NewPlan(t *Touches, in PlanInput) (*Plan, error) {
	// Copy is exactly what status checks every instance counts (Copied).
	p := &Plan{Copy: append([]string{}, t.Copied()...), Manual: slices.Clone(t.Manual), Moved: []Manual{}}
	if p.Manual == nil {
		p.Manual = []Manual{}
	}
	names := map[string]string{}
	for _, name := range p.Copy {
		names[name] = "copy"
	}
	for _, m := range []map[string]*Touch{t.Attributes, t.Metrics} {
		for _, name := range slices.Sorted(maps.Keys(m)) {
			if tc := m[name]; tc.Rewritten && tc.OldTarget != "" {
				p.Moved = append(p.Moved, Manual{Item: tc.Item.String(), Name: name, Kinds: tc.KindNames(), Why: []string{
					"the old registry renamed it to " + tc.OldTarget + ", which consumers read; the new one renames it to " + tc.NewName + " and the collector sends only that",
				}})
			}
		}
	}
	var err error
	if p.Hops, err = hops(in, names); err != nil {
		return nil, err
	}
	collector, ok := p.Hop(HopCollector)
	if !ok {
		return nil, fmt.Errorf("upgrade: the plan has no %q hop", HopCollector)
	}
	p.Config = collector.Config
	p.Steps = steps(p, in)
	return p, nil
}

func steps(p *Plan, in PlanInput) []string {
	c, t := in.Consumers, in.Traffic
	window := in.Window
	if window == 0 {
		window = 24 * time.Hour
	}
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
		out = append(out, "Before the collector changes: rewrite the consumers to read old or new names, `otelgov queries --write --both "+in.RegistryFlags+" "+f+"`; a read it cannot rewrite is listed with why, fix it by hand.")
	}
	out = append(out, fmt.Sprintf("Deploy the transition configuration on every hop (upgrade plan --output DIR writes %s.yaml, %s.yaml and %s.yaml): the gateways take the new registry from the %s extension, the sidecars (and a collector that is the only hop) load it as the processor's own registry, each in the same change as deprecated_names (%d name(s) copied, old and new side by side); every hop counts who still sends them in otelcol_processor_governance_service_deprecated_names, and none renames an old name before a hop that counts it, since a copy keeps it.", HopGateway, HopSidecar, HopCollector, ExtensionName, len(p.Copy)))
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
	out = append(out, "Keep the window open while `otelgov upgrade status --prometheus URL --window "+durationArg(window)+" "+f+"` says a service still sends an old name.",
		"Once no service sends one, rewrite the consumers to the new names only, `otelgov queries --write "+in.RegistryFlags+" "+f+"` (it folds the (old or new) form back); `otelgov upgrade status` then exits 0.")
	out = append(out, "End the window: remove deprecated_names from every hop's processor configuration (every deprecated name is renamed); the sidecars keep the new registry, mounted or embedded in the image you move them to.")
	return out
}

// durationArg writes d as a --window flag is written: 24h, not 24h0m0s.
func durationArg(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
