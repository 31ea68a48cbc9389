package registry

import (
	"fmt"
	"slices"
	"sort"
)

func (r *resolver) build() (*Index, error) {
	ix := &Index{
		metrics:   r.metrics,
		sources:   map[string][]string{},
		schemaURL: r.in.schemaURL,
		warnings:  slices.Clone(r.in.warnings),
	}
	for _, k := range sortedKeys(r.attrs) {
		ix.attrs = append(ix.attrs, r.attrs[k])
	}
	for _, k := range sortedKeys(r.metrics) {
		ix.metricList = append(ix.metricList, r.metrics[k])
	}
	// The table has fewer than 4 slots per attribute, and a Ref holds a
	// slot in 32-refSlotShift bits.
	if maxAttrs := 1 << (32 - refSlotShift - 2); len(ix.attrs) > maxAttrs {
		return nil, fmt.Errorf("%w: %d attributes, at most %d", ErrInvalid, len(ix.attrs), maxAttrs)
	}
	ix.table = newTable(ix.attrs)
	ix.prefixes = newPrefixTable(ix.attrs)

	st := &ix.stats
	for _, a := range ix.attrs {
		if a.Placeholder {
			st.Placeholders++
		} else {
			st.Known++
		}
		if a.Template {
			st.Templates++
		}
		if a.EnumStrings != nil || a.EnumInts != nil {
			st.Enums++
		}
		st.DeprecatedMembers += len(a.DeprecatedMembers)
		if a.Migration != nil {
			st.ValueMigrations++
		}
		switch a.Deprecation.Reason {
		case NotDeprecated:
		case DeprecatedRenamed:
			st.DeprecatedRenamed++
		case DeprecatedObsoleted:
			st.DeprecatedObsoleted++
		case DeprecatedUncategorized:
			st.DeprecatedUncategorized++
		case DeprecatedUnspecified:
			st.DeprecatedUnspecified++
		}
		if a.Renamed() {
			st.Renames++
			if a.Contextual() {
				st.ContextualRenames++
			}
		}
		var targets []string
		for _, rr := range a.rename.rules {
			if rr.target != nil && !slices.Contains(targets, rr.target.Key) {
				targets = append(targets, rr.target.Key)
			}
		}
		for _, t := range targets {
			ix.sources[t] = append(ix.sources[t], a.Key)
		}
	}
	for _, s := range ix.sources {
		if len(s) > 1 {
			st.ManyToOneTargets++
		}
	}
	for _, m := range ix.metricList {
		if !m.Placeholder {
			st.Metrics++
		}
		if m.RenamedTo != "" {
			st.MetricRenames++
		}
	}
	if r.in.schema != nil {
		st.SchemaAttributeRenames = len(r.in.schema.SchemaRenames)
		st.SchemaMetricRenames = len(r.in.schema.MetricRenames)
	}
	st.Rules = len(r.in.rules)
	sort.SliceStable(r.disagree, func(i, j int) bool {
		a, b := r.disagree[i], r.disagree[j]
		if a.Key != b.Key {
			return a.Key < b.Key
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Schema < b.Schema
	})
	ix.disagreements = slices.CompactFunc(r.disagree, func(a, b Disagreement) bool { return a == b })
	st.Disagreements = len(ix.disagreements)
	ix.digest = ix.computeDigest()
	return ix, nil
}
