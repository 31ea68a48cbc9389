package upgrade

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/common/model"
)

// The series that say which transition each governance processor instance
// runs (processor telemetry, one series per instance from its start).
const (
	seriesTransition    = `{__name__="otelcol_processor_governance_transition_info"}`
	seriesNamesInForce  = `{__name__="otelcol_processor_governance_deprecated_names_in_force"}`
	seriesRegistryInfo  = `{__name__="otelcol_processor_governance_registry_info"}`
	seriesShadowChanges = `{__name__=~"otelcol_processor_governance_shadow_changes(_total)?"}`
	seriesShadowBatches = `{__name__=~"otelcol_processor_governance_shadow_batches(_total)?"}`
)

// Instance is one governance processor instance (one processor of one
// pipeline's signal in one collector) that Prometheus scraped over the
// window, and the transition it says it runs.
type Instance struct {
	// ID is its labels without the transition's: job, instance, processor,
	// otel_signal and whatever else the scrape adds.
	ID string `json:"id"`
	// SchemaURL and Digest name the registry in force; Deprecated is its
	// deprecated mode; NamesDigest names its deprecated_names ("none" when
	// empty); Candidate is the digest of its shadow's candidate registry
	// ("none" without one).
	SchemaURL   string `json:"schema_url,omitempty"`
	Digest      string `json:"digest,omitempty"`
	Deprecated  string `json:"deprecated,omitempty"`
	NamesDigest string `json:"deprecated_names_digest,omitempty"`
	Candidate   string `json:"candidate_digest,omitempty"`
	// Names are its deprecated_names: mode, and whether the registry in
	// force deprecates (and so counts) the name.
	Names map[string]NameInForce `json:"deprecated_names,omitempty"`
	// Shadow: the evidence on this instance is its shadow's sample (its
	// candidate is the new registry), over ShadowBatches batches.
	Shadow        bool    `json:"shadow,omitempty"`
	ShadowBatches float64 `json:"shadow_batches,omitempty"`
	// Why says why the transition is not in force on it; empty when it is.
	Why []string `json:"why,omitempty"`

	changed bool
}

// NameInForce is one name of an instance's deprecated_names.
type NameInForce struct {
	Mode    string `json:"mode"`
	Counted bool   `json:"counted"`
}

// InForce reports whether the instance counts every name the change renames.
func (in *Instance) InForce() bool { return len(in.Why) == 0 }

// transitionLabels are transition_info's labels that describe the
// transition; the rest name the instance.
var transitionLabels = []model.LabelName{model.MetricNameLabel, "schema_url", "digest", "deprecated", "deprecated_names_digest", "candidate_digest"}

// instanceID names a series' instance: its labels without drop.
func instanceID(m model.Metric, drop ...model.LabelName) string {
	c := m.Clone()
	delete(c, model.MetricNameLabel)
	for _, l := range drop {
		delete(c, l)
	}
	return c.String()
}

// transitionKey names the transition a transition_info series describes.
func transitionKey(m model.Metric) string {
	var b strings.Builder
	for _, l := range transitionLabels[1:] {
		b.WriteString(string(m[l]))
		b.WriteByte(0)
	}
	return b.String()
}

// instances reads, over the window w ending at at, every governance
// processor instance and the transition it runs.
func (p *Prometheus) instances(ctx context.Context, w string, at time.Time) (map[string]*Instance, error) {
	now, err := p.query(ctx, fmt.Sprintf(`last_over_time(%s[%s])`, seriesTransition, w), at)
	if err != nil {
		return nil, err
	}
	out := map[string]*Instance{}
	current := map[string]string{}
	for _, s := range now {
		id := instanceID(s.Metric, transitionLabels...)
		if in := out[id]; in != nil {
			in.changed = true
			continue
		}
		out[id] = &Instance{
			ID: id, SchemaURL: string(s.Metric["schema_url"]), Digest: string(s.Metric["digest"]),
			Deprecated: string(s.Metric["deprecated"]), NamesDigest: string(s.Metric["deprecated_names_digest"]),
			Candidate: string(s.Metric["candidate_digest"]), Names: map[string]NameInForce{},
		}
		current[id] = transitionKey(s.Metric)
	}
	before, err := p.query(ctx, fmt.Sprintf(`last_over_time(%s[%s] offset %s)`, seriesTransition, w, w), at)
	if err != nil {
		return nil, err
	}
	// An instance seen before the window must have run its current
	// transition then too: otherwise it changed within the window.
	seen := map[string]bool{}
	had := map[string]bool{}
	for _, s := range before {
		id := instanceID(s.Metric, transitionLabels...)
		had[id] = true
		if transitionKey(s.Metric) == current[id] {
			seen[id] = true
		}
	}
	for id, in := range out {
		if had[id] && !seen[id] {
			in.changed = true
		}
	}
	names, err := p.query(ctx, fmt.Sprintf(`last_over_time(%s[%s])`, seriesNamesInForce, w), at)
	if err != nil {
		return nil, err
	}
	for _, s := range names {
		if in := out[instanceID(s.Metric, "deprecated_name", "mode")]; in != nil {
			in.Names[string(s.Metric["deprecated_name"])] = NameInForce{Mode: string(s.Metric["mode"]), Counted: s.Value == 1}
		}
	}
	// An instance that has the registry's info but not the transition's
	// does not say which transition it runs (a collector built before it).
	infos, err := p.query(ctx, fmt.Sprintf(`last_over_time(%s[%s])`, seriesRegistryInfo, w), at)
	if err != nil {
		return nil, err
	}
	for _, s := range infos {
		id := instanceID(s.Metric, "schema_url", "digest", "generation")
		if out[id] == nil {
			out[id] = &Instance{ID: id, Why: []string{"does not say which transition it runs (it exports otelcol_processor_governance_registry_info but not otelcol_processor_governance_transition_info: a collector built before this release?)"}}
		}
	}
	return out, nil
}

// maxNamed bounds the names listed in one reason.
const maxNamed = 5

// named lists names, at most maxNamed of them.
func named(names []string) string {
	if len(names) <= maxNamed {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:maxNamed], ", ") + fmt.Sprintf(" and %d more", len(names)-maxNamed)
}

// check says why the transition that counts every name of want is not in
// force on the instance; newDigest is the new registry's digest.
func (in *Instance) check(want []string, newDigest string) {
	if len(in.Why) > 0 {
		return
	}
	if in.changed {
		in.Why = append(in.Why, "its transition configuration or registry changed within the window, so the window's counts are not all from it")
	}
	var notDeprecated, renames, uncounted []string
	for _, n := range want {
		if st, ok := in.Names[n]; ok {
			if !st.Counted {
				notDeprecated = append(notDeprecated, n)
			}
			continue
		}
		switch {
		case in.Candidate == newDigest && in.Digest != newDigest:
			in.Shadow = true
		case in.Digest == newDigest && in.Deprecated == "rename":
			renames = append(renames, n)
		default:
			uncounted = append(uncounted, n)
		}
	}
	if len(notDeprecated) > 0 {
		in.Why = append(in.Why, fmt.Sprintf("lists %s in deprecated_names, but its registry (digest %s) does not deprecate them: they are counted nowhere", named(notDeprecated), in.Digest))
	}
	if len(renames) > 0 {
		in.Why = append(in.Why, fmt.Sprintf("renames %s without counting them (it runs the new registry with deprecated: rename and does not list them in deprecated_names): a hop after it never sees the old names", named(renames)))
	}
	if len(uncounted) > 0 {
		in.Why = append(in.Why, fmt.Sprintf("does not count %s (not in its deprecated_names, %s; registry digest %s)", named(uncounted), in.NamesDigest, in.Digest))
	}
	if in.Shadow && in.ShadowBatches <= 0 {
		in.Why = append(in.Why, "its shadow (candidate: the new registry) evaluated no batch over the window")
	}
}

// transition reads every instance's transition over the window and checks
// it against the names the change renames (t.Copied()): Fleet.Instances,
// Fleet.InForce, Fleet.Why, and the shadow's counts where the evidence is
// the shadow's.
func (p *Prometheus) transition(ctx context.Context, f *Fleet, t *Touches, newDigest, w string, at time.Time, src string) error {
	ins, err := p.instances(ctx, w, at)
	if err != nil {
		return err
	}
	want := t.Copied()
	if slices.ContainsFunc(slices.Collect(maps.Values(ins)), func(in *Instance) bool { return in.Candidate == newDigest }) {
		batches, err := p.query(ctx, fmt.Sprintf(`increase(%s[%s])`, seriesShadowBatches, w), at)
		if err != nil {
			return err
		}
		for _, s := range batches {
			if in := ins[instanceID(s.Metric)]; in != nil {
				in.ShadowBatches += float64(s.Value)
			}
		}
	}
	var shadowIDs []string
	for _, id := range slices.Sorted(maps.Keys(ins)) {
		in := ins[id]
		in.check(want, newDigest)
		f.Instances = append(f.Instances, *in)
		if in.InForce() && in.Shadow {
			shadowIDs = append(shadowIDs, id)
		}
	}
	f.InForce = len(ins) > 0
	var off []string
	for _, in := range f.Instances {
		if !in.InForce() {
			f.InForce = false
			off = append(off, in.ID)
		}
	}
	switch {
	case len(ins) == 0:
		f.Why = append(f.Why, "the transition configuration is not in force: no collector says which transition it runs (Prometheus holds no otelcol_processor_governance_transition_info over the window)")
	case len(off) > 0:
		f.Why = append(f.Why, fmt.Sprintf("the transition configuration is not in force on %d of %d instance(s): %s", len(off), len(ins), strings.Join(off, ", ")))
		for _, in := range f.Instances {
			for _, why := range in.Why {
				f.Why = append(f.Why, in.ID+": "+why)
			}
		}
	}
	if len(shadowIDs) == 0 {
		return nil
	}
	f.Notes = append(f.Notes, fmt.Sprintf("on %s the evidence is the shadow registry's (candidate: the new registry), which evaluates a sample of the batches (shadow::sample_every): a service that sends an old name rarely can be missed", strings.Join(shadowIDs, ", ")))
	return p.shadowSent(ctx, f, shadowIDs, w, at, src)
}

// shadowSent adds what the shadows of the instances ids counted over the
// window: per service, the changes of a renaming kind (the shadow counts
// kinds, not names).
func (p *Prometheus) shadowSent(ctx context.Context, f *Fleet, ids []string, w string, at time.Time, src string) error {
	kinds := slices.Sorted(func(yield func(string) bool) {
		for k := range rewriting {
			if !yield(k.String()) {
				return
			}
		}
	})
	sel := strings.Replace(seriesShadowChanges, "}", fmt.Sprintf(`,change_kind=~%q}`, strings.Join(kinds, "|")), 1)
	vec, err := p.query(ctx, fmt.Sprintf(`increase(%s[%s])`, sel, w), at)
	if err != nil {
		return err
	}
	sum := map[[2]string]float64{}
	for _, s := range vec {
		if s.Value <= 0 || !slices.Contains(ids, instanceID(s.Metric, "service_name", "change_kind")) {
			continue
		}
		sum[[2]string{string(s.Metric["service_name"]), string(s.Metric["change_kind"])}] += float64(s.Value)
	}
	for _, k := range slices.SortedFunc(maps.Keys(sum), func(a, b [2]string) int { return strings.Compare(a[0]+"\x00"+a[1], b[0]+"\x00"+b[1]) }) {
		item := "attribute"
		if strings.HasPrefix(k[1], "metric_") {
			item = "metric"
		}
		f.Sent = append(f.Sent, Sent{
			Service: k[0], Item: item, Name: "(" + k[1] + ")", Kinds: []string{k[1]},
			Count: int64(math.Round(sum[k])), Source: src + " shadow (sampled)", Sampled: true,
		})
	}
	return nil
}
