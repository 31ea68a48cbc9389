package registry

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/otelgov/otelcol-governance/internal/registry/def"
	"github.com/otelgov/otelcol-governance/internal/registry/load"
)

// layer is one registry's definitions: the semantic conventions, one
// organisation registry, or one of its local dependencies.
type layer struct {
	name     string // for messages: "semconv", "acme", ...
	defs     *def.Defs
	embedded bool // definitions came from embedded_gen.go
}

// input is everything resolution needs.
type input struct {
	layers []layer
	// rules in precedence order: earlier rules files win.
	rules     []def.Rule
	schemaURL string
	// schemaFile names the schema file the renames came from.
	schemaFile string
	schema     *def.Defs // schema renames (SchemaRenames, MetricRenames)
	// matchers are the rules files' span matchers, in precedence order.
	matchers []def.Matcher
	// warnings are the loaders' and the shipped rules' (Index.Warnings).
	warnings []string
}

// origin says where a raw rename came from.
type origin uint8

const (
	fromRule origin = iota
	fromRegistry
	fromSchema
)

// rawRename is an unresolved one-hop rename.
type rawRename struct {
	scope  scope
	to     string
	origin origin
	where  string // file:line
}

type resolver struct {
	in       *input
	attrs    map[string]*Attribute
	defsOf   map[string]def.Attr
	raw      map[string][]rawRename
	metrics  map[string]*Metric
	disagree []Disagreement
}

func where(file string, line int) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d", file, line)
	}
	return file
}

func defWhere(l layer, file string, line int) string {
	if l.embedded {
		return "embedded:" + where(file, line)
	}
	return where(file, line)
}

// resolve merges, validates, collapses and indexes. It never returns a
// partially built index: any error aborts.
func resolve(in *input) (*Index, error) {
	r := &resolver{
		in:      in,
		attrs:   map[string]*Attribute{},
		defsOf:  map[string]def.Attr{},
		raw:     map[string][]rawRename{},
		metrics: map[string]*Metric{},
	}
	if err := r.mergeAttributes(); err != nil {
		return nil, err
	}
	if err := r.mergeMetrics(); err != nil {
		return nil, err
	}
	if err := r.checkRefs(); err != nil {
		return nil, err
	}
	if err := r.resolveMetrics(); err != nil {
		return nil, err
	}
	if err := r.collectRenames(); err != nil {
		return nil, err
	}
	if err := r.collapse(); err != nil {
		return nil, err
	}
	if err := r.resolveMigrations(); err != nil {
		return nil, err
	}
	ix, err := r.build()
	if err != nil {
		return nil, err
	}
	if err := r.buildGroups(ix); err != nil {
		return nil, err
	}
	return ix, nil
}

func sameAttr(a, b def.Attr) bool {
	return a.Type == b.Type && a.Template == b.Template && a.Stability == b.Stability &&
		slices.Equal(a.EnumStrings, b.EnumStrings) && slices.Equal(a.EnumInts, b.EnumInts) &&
		a.Deprecation == b.Deprecation && slices.Equal(a.DeprecatedMembers, b.DeprecatedMembers)
}

func (r *resolver) mergeAttributes() error {
	type seen struct {
		def   def.Attr
		layer int
		where string
	}
	all := map[string]seen{}
	for li, l := range r.in.layers {
		for _, d := range l.defs.Attributes {
			w := defWhere(l, d.File, d.Line)
			if prev, ok := all[d.Key]; ok {
				if prev.layer == li {
					return fmt.Errorf("%w: attribute %q defined twice: %s and %s", ErrInvalid, d.Key, prev.where, w)
				}
				if !sameAttr(prev.def, d) {
					return fmt.Errorf("%w: attribute %q has conflicting definitions: %s and %s", ErrInvalid, d.Key, prev.where, w)
				}
				continue
			}
			all[d.Key] = seen{d, li, w}
			src := d.File
			if l.embedded {
				src = ""
			}
			r.attrs[d.Key] = &Attribute{
				Key: d.Key, Type: d.Type, Template: d.Template, Stability: d.Stability,
				EnumStrings: d.EnumStrings, EnumInts: d.EnumInts, Deprecation: d.Deprecation,
				DeprecatedMembers: d.DeprecatedMembers,
				Source:            src,
			}
			d.File = w
			r.defsOf[d.Key] = d
		}
	}
	// renamed_to must name a defined attribute.
	for _, d := range r.defsOf {
		if d.Deprecation.Reason != DeprecatedRenamed {
			continue
		}
		if _, ok := r.attrs[d.Deprecation.RenamedTo]; !ok {
			return fmt.Errorf("%w: %s: attribute %q: renamed_to %q is not a known attribute", ErrInvalid, d.File, d.Key, d.Deprecation.RenamedTo)
		}
		if t := r.attrs[d.Deprecation.RenamedTo]; t.Template != d.Template {
			return fmt.Errorf("%w: %s: attribute %q: renamed_to %q: a template and a non-template cannot rename to each other", ErrInvalid, d.File, d.Key, d.Deprecation.RenamedTo)
		}
		if d.Deprecation.RenamedTo == d.Key {
			return fmt.Errorf("%w: %s: attribute %q is renamed to itself", ErrInvalid, d.File, d.Key)
		}
	}
	return nil
}

func (r *resolver) mergeMetrics() error {
	type seen struct {
		def   def.Metric
		layer int
		where string
	}
	all := map[string]seen{}
	for li, l := range r.in.layers {
		for _, d := range l.defs.Metrics {
			w := defWhere(l, d.File, d.Line)
			if prev, ok := all[d.Name]; ok {
				same := prev.def.Instrument == d.Instrument && prev.def.Unit == d.Unit &&
					prev.def.Stability == d.Stability && prev.def.Deprecation == d.Deprecation
				if prev.layer == li {
					return fmt.Errorf("%w: metric %q defined twice: %s and %s", ErrInvalid, d.Name, prev.where, w)
				}
				if !same {
					return fmt.Errorf("%w: metric %q has conflicting definitions: %s and %s", ErrInvalid, d.Name, prev.where, w)
				}
				continue
			}
			all[d.Name] = seen{d, li, w}
			src := d.File
			if l.embedded {
				src = ""
			}
			r.metrics[d.Name] = &Metric{
				Name: d.Name, Instrument: d.Instrument, Unit: d.Unit, Stability: d.Stability,
				Deprecation: d.Deprecation, Source: src,
			}
		}
	}
	for name, s := range all {
		dep := s.def.Deprecation
		if dep.Reason != DeprecatedRenamed {
			continue
		}
		if _, ok := r.metrics[dep.RenamedTo]; !ok {
			return fmt.Errorf("%w: %s: metric %q: renamed_to %q is not a known metric", ErrInvalid, s.where, name, dep.RenamedTo)
		}
	}
	return nil
}

func (r *resolver) checkRefs() error {
	for _, l := range r.in.layers {
		for _, ref := range l.defs.Refs {
			if _, ok := r.attrs[ref.Key]; !ok {
				return fmt.Errorf("%w: %s: ref %q is not a known attribute", ErrInvalid, defWhere(l, ref.File, ref.Line), ref.Key)
			}
		}
	}
	return nil
}

// resolveMetrics applies registry metric renames, then schema rename_metrics
// for names the registry does not define, and collapses chains.
func (r *resolver) resolveMetrics() error {
	next := map[string]string{}
	for name, m := range r.metrics {
		if m.Deprecation.Reason == DeprecatedRenamed {
			next[name] = m.Deprecation.RenamedTo
		}
	}
	if r.in.schema != nil {
		// Newest version first: the latest statement about a name wins.
		mr := slices.Clone(r.in.schema.MetricRenames)
		sort.SliceStable(mr, func(i, j int) bool { return load.VersionLess(mr[j].Version, mr[i].Version) })
		seen := map[string]bool{}
		for _, x := range mr {
			if seen[x.From] {
				continue
			}
			seen[x.From] = true
			if m, ok := r.metrics[x.From]; ok {
				if m.Deprecation.Reason == DeprecatedRenamed {
					continue // compared after collapsing, below
				}
				r.disagree = append(r.disagree, Disagreement{
					Kind: "metric", Key: x.From,
					Registry:   describeDeprecation(m.Deprecation),
					Schema:     fmt.Sprintf("rename_metrics %s -> %s (%s)", x.From, x.To, x.Version),
					Resolution: "registry wins: not renamed",
					Where:      where(r.in.schemaFile, x.Line),
				})
				continue
			}
			next[x.From] = x.To
			r.metrics[x.From] = &Metric{Name: x.From, Placeholder: true}
		}
	}
	final := func(name string) (string, error) {
		path := []string{name}
		cur := name
		for {
			n, ok := next[cur]
			if !ok {
				return cur, nil
			}
			if slices.Contains(path, n) {
				return "", fmt.Errorf("%w: metric rename cycle: %s -> %s", ErrInvalid, strings.Join(path, " -> "), n)
			}
			path = append(path, n)
			cur = n
		}
	}
	names := sortedKeys(r.metrics)
	for _, name := range names {
		m := r.metrics[name]
		if _, ok := next[name]; !ok {
			continue
		}
		f, err := final(name)
		if err != nil {
			return err
		}
		if tm, ok := r.metrics[f]; !ok || tm.Placeholder {
			r.disagree = append(r.disagree, Disagreement{
				Kind: "metric", Key: name,
				Schema:     fmt.Sprintf("rename_metrics chain ends at %q", f),
				Resolution: "dropped: target is not a known metric",
				Where:      r.in.schemaFile,
			})
			delete(r.metrics, name)
			continue
		}
		m.RenamedTo = f
	}
	// Schema rename_metrics for registry-renamed metrics: compare targets.
	if r.in.schema != nil {
		for _, x := range r.in.schema.MetricRenames {
			m, ok := r.metrics[x.From]
			if !ok || m.Placeholder || m.Deprecation.Reason != DeprecatedRenamed {
				continue
			}
			sf, err := final(x.To)
			if err != nil {
				return err
			}
			if sf != m.RenamedTo {
				r.disagree = append(r.disagree, Disagreement{
					Kind: "metric", Key: x.From,
					Registry:   "renamed to " + m.RenamedTo,
					Schema:     fmt.Sprintf("rename_metrics %s -> %s (%s), collapses to %s", x.From, x.To, x.Version, sf),
					Resolution: "registry wins: renamed to " + m.RenamedTo,
					Where:      where(r.in.schemaFile, x.Line),
				})
			}
		}
	}
	return nil
}

// metricScope returns names plus the current (collapsed) name of each, so a
// scoped rename matches data points whether or not the metric was renamed.
func (r *resolver) metricScope(names []string) []string {
	if len(names) == 0 {
		return nil
	}
	out := slices.Clone(names)
	for _, n := range names {
		if m, ok := r.metrics[n]; ok && m.RenamedTo != "" {
			out = append(out, m.RenamedTo)
		}
	}
	return sortedNames(out)
}

func sectionScope(section string) scope {
	s := scope{kinds: allSpanKinds}
	switch section {
	case def.SectionAll:
		s.locs = allLocations
	case def.SectionResources:
		s.locs = 1 << LocationResource
	case def.SectionSpans:
		// Span links have no section of their own in file_format 1.1.0;
		// their attributes describe a span, so they follow spans.
		s.locs = 1<<LocationSpan | 1<<LocationSpanLink
	case def.SectionSpanEvents:
		s.locs = 1 << LocationSpanEvent
	case def.SectionMetrics:
		s.locs = 1 << LocationDataPoint
	case def.SectionLogs:
		s.locs = 1 << LocationLog
	}
	return s
}

func describeDeprecation(d Deprecation) string {
	switch d.Reason {
	case NotDeprecated:
		return "not deprecated"
	case DeprecatedRenamed:
		return "renamed to " + d.RenamedTo
	case DeprecatedObsoleted:
		return "obsoleted"
	case DeprecatedUncategorized:
		return "uncategorized: " + d.Note
	case DeprecatedUnspecified:
		return "deprecated (unspecified): " + d.Note
	}
	return "unknown"
}

// collectRenames builds each key's ordered one-hop renames:
//  1. rules files, in the order given (user files before the shipped one);
//  2. the registry's renamed_to, unless a rule for the key replaces it;
//  3. schema-file renames, only for keys the registry has no verdict on
//     (keys no registry defines, or whose registry rename a rule replaced);
//     more specific scopes first, then newer versions first.
func (r *resolver) collectRenames() error {
	replaced := map[string]string{} // key -> rule location
	for _, rd := range r.in.rules {
		w := where(rd.File, rd.Line)
		if rd.ReplaceRegistry {
			if _, ok := replaced[rd.Key]; !ok {
				replaced[rd.Key] = w
			}
		}
		for _, rr := range rd.Renames {
			ta, ok := r.attrs[rr.To]
			if !ok {
				return fmt.Errorf("%w: %s: rule for %q: target %q is not a known attribute", ErrInvalid, where(rd.File, rr.Line), rd.Key, rr.To)
			}
			if ta.Template {
				return fmt.Errorf("%w: %s: rule for %q: target %q is a template", ErrInvalid, where(rd.File, rr.Line), rd.Key, rr.To)
			}
			if rr.To == rd.Key {
				return fmt.Errorf("%w: %s: rule renames %q to itself", ErrInvalid, where(rd.File, rr.Line), rd.Key)
			}
			sc := scope{
				locs:    locMask(rr.Locations),
				kinds:   kindMask(rr.SpanKinds),
				metrics: r.metricScope(rr.Metrics),
				spans:   sortedNames(rr.Spans),
			}
			r.raw[rd.Key] = append(r.raw[rd.Key], rawRename{scope: sc, to: rr.To, origin: fromRule, where: where(rd.File, rr.Line)})
		}
	}
	for key, d := range r.defsOf {
		if d.Deprecation.Reason == DeprecatedRenamed {
			if w, ok := replaced[key]; ok {
				r.disagree = append(r.disagree, Disagreement{
					Kind: "rule", Key: key,
					Registry:   "renamed to " + d.Deprecation.RenamedTo + " in every context",
					Schema:     "",
					Resolution: "rule " + w + " replaces the registry rename; only its scoped renames and the schema file's apply",
					Where:      w,
				})
				continue
			}
			r.raw[key] = append(r.raw[key], rawRename{scope: anyScope, to: d.Deprecation.RenamedTo, origin: fromRegistry, where: d.File})
		}
	}
	if r.in.schema == nil {
		return nil
	}
	srs := slices.Clone(r.in.schema.SchemaRenames)
	spec := func(s def.SchemaRename) int {
		switch {
		case len(s.Metrics) > 0 || len(s.Spans) > 0:
			return 2
		case s.Section != def.SectionAll:
			return 1
		}
		return 0
	}
	sort.SliceStable(srs, func(i, j int) bool {
		if a, b := spec(srs[i]), spec(srs[j]); a != b {
			return a > b
		}
		return load.VersionLess(srs[j].Version, srs[i].Version)
	})
	for _, s := range srs {
		w := where(r.in.schemaFile, s.Line)
		sc := sectionScope(s.Section)
		sc.metrics = r.metricScope(s.Metrics)
		sc.spans = sortedNames(s.Spans)
		d, known := r.defsOf[s.From]
		_, isReplaced := replaced[s.From]
		if known && !isReplaced {
			r.schemaVsRegistry(s, d, sc, w)
			continue
		}
		r.raw[s.From] = append(r.raw[s.From], rawRename{scope: sc, to: s.To, origin: fromSchema, where: w})
	}
	return nil
}

// registryFinal follows registry renamed_to only (no context).
func (r *resolver) registryFinal(key string) string {
	for range 64 {
		d, ok := r.defsOf[key]
		if !ok || d.Deprecation.Reason != DeprecatedRenamed {
			return key
		}
		key = d.Deprecation.RenamedTo
	}
	return key
}

// schemaVsRegistry records a schema-file rename of a key the registry has a
// verdict on. The registry wins; agreeing statements are not listed.
func (r *resolver) schemaVsRegistry(s def.SchemaRename, d def.Attr, sc scope, w string) {
	schemaFinal := r.registryFinal(s.To)
	says := fmt.Sprintf("%s -> %s in %s (%s)", s.From, s.To, sc, s.Version)
	if schemaFinal != s.To {
		says += ", collapses to " + schemaFinal
	}
	if d.Deprecation.Reason == DeprecatedRenamed {
		regFinal := r.registryFinal(s.From)
		if regFinal == schemaFinal {
			return
		}
		r.disagree = append(r.disagree, Disagreement{
			Kind: "target", Key: s.From,
			Registry: "renamed to " + d.Deprecation.RenamedTo, Schema: says,
			Resolution: "registry wins: renamed to " + regFinal, Where: w,
		})
		return
	}
	res := "registry wins: not renamed"
	if raws := r.raw[s.From]; len(raws) > 0 {
		res = "registry wins; rules file renames it: " + raws[0].where
	}
	r.disagree = append(r.disagree, Disagreement{
		Kind: "not_renamed", Key: s.From,
		Registry: describeDeprecation(d.Deprecation), Schema: says,
		Resolution: res, Where: w,
	})
}

// collapse resolves every key's raw renames into final, chain-collapsed,
// scoped targets, creating placeholders for keys no registry defines.
func (r *resolver) collapse() error {
	keys := sortedKeys(r.raw)
	for _, k := range keys {
		if _, ok := r.attrs[k]; !ok {
			r.attrs[k] = &Attribute{Key: k, Placeholder: true}
		}
	}
	for _, k := range keys {
		out, err := r.resolveFrom(k, anyScope, []string{k}, nil)
		if err != nil {
			return err
		}
		var rules []renameRule
		for _, h := range out {
			if shadowed(rules, h.scope) {
				continue // an earlier rule already decides every context of h
			}
			t := r.attrs[h.to]
			if t != nil && t.Template != r.attrs[k].Template {
				if h.origin == fromRule {
					return fmt.Errorf("%w: %s: rule for %q: template and non-template keys cannot rename to each other", ErrInvalid, h.where, k)
				}
				if h.origin == fromSchema {
					r.disagree = append(r.disagree, Disagreement{
						Kind: "unknown_target", Key: k,
						Schema:     fmt.Sprintf("%s -> %s in %s", k, h.to, h.scope),
						Resolution: "not renamed there: template and non-template do not rename to each other",
						Where:      h.where,
					})
				}
				t = nil
			} else if t == nil || t.Placeholder {
				if h.origin == fromSchema {
					r.disagree = append(r.disagree, Disagreement{
						Kind: "unknown_target", Key: k,
						Schema:     fmt.Sprintf("%s -> %s in %s", k, h.to, h.scope),
						Resolution: "not renamed there: target is not a known attribute",
						Where:      h.where,
					})
				}
				t = nil
			}
			rules = append(rules, renameRule{scope: h.scope, target: t})
		}
		// Trailing "keeps its name" rules are no-ops.
		for len(rules) > 0 && rules[len(rules)-1].target == nil {
			rules = rules[:len(rules)-1]
		}
		a := r.attrs[k]
		a.rename = newRenameSet(rules)
		if a.Placeholder && len(rules) == 0 {
			delete(r.attrs, k)
		}
	}
	return nil
}

// shadowed reports whether an earlier rule already matches every context of
// sc, so a rule for sc could never fire.
func shadowed(rules []renameRule, sc scope) bool {
	for _, r := range rules {
		if r.scope.covers(sc) {
			return true
		}
	}
	return false
}

// hop is a collapsed rename: in scope, the key ends up as to.
type hop struct {
	scope  scope
	to     string
	origin origin // origin of the last hop
	where  string
}

// resolveFrom returns, first match wins, what key becomes within sc. path
// holds the chain so far (keys, and the file:line of each hop between them)
// for cycle detection and messages.
func (r *resolver) resolveFrom(key string, sc scope, path, wheres []string) ([]hop, error) {
	var out []hop
	for _, rr := range r.raw[key] {
		in := sc.intersect(rr.scope)
		if in.empty() {
			continue
		}
		nextPath := append(slices.Clip(path), rr.to)
		nextWheres := append(slices.Clip(wheres), rr.where)
		if slices.Contains(path, rr.to) {
			return nil, fmt.Errorf("%w: rename cycle: %s", ErrInvalid, chainString(nextPath, nextWheres))
		}
		if len(path) > 32 {
			return nil, fmt.Errorf("%w: rename chain too long: %s", ErrInvalid, chainString(nextPath, nextWheres))
		}
		sub, err := r.resolveFrom(rr.to, in, nextPath, nextWheres)
		if err != nil {
			return nil, err
		}
		out = append(out, sub...)
		out = append(out, hop{scope: in, to: rr.to, origin: rr.origin, where: rr.where})
	}
	return out, nil
}

// chainString renders "a -(file:line)-> b -(file:line)-> c".
func chainString(keys, wheres []string) string {
	var b strings.Builder
	b.WriteString(keys[0])
	for i, w := range wheres {
		b.WriteString(" -(" + w + ")-> " + keys[i+1])
	}
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var errNoSource = errors.New("no source: set Embedded, SemconvDir or OrgRegistries")
