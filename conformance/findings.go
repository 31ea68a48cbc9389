package conformance

import (
	"cmp"
	"slices"
	"strings"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// This file aggregates the engine's findings: per service, counts by
// finding ID and the top names each finding was reported for; over all
// services, Weaver's statistics (advice_level_counts, advice_type_counts,
// seen registry and non-registry metrics and events) and the coverage of
// every registry definition seen.

// maxSignalsSeen bounds the registry definitions whose coverage is kept.
// Names come from the registry, never from telemetry (unknown metric and
// event names are only counted and listed in the bounded top-N sketches).
const maxSignalsSeen = 1 << 14

// findingsState is the report's finding aggregate; guarded by Report.mu.
type findingsState struct {
	counts       levelCounts
	nonRegMetric int64
	nonRegEvent  int64
	signals      map[signalKey]*signalCoverage
	defined      definedFindings // the Advisor's IDs (advice.go)
}

type signalKey struct {
	kind registry.GroupKind
	name string
}

// signalCoverage is one registry definition's use: items checked and the
// attribute keys they carried.
type signalCoverage struct {
	count int64
	seen  map[string]struct{}
}

// serviceFindings is one service's finding aggregate, allocated on its
// first finding.
type serviceFindings struct {
	counts levelCounts
	// names are the top names per finding and subject.
	names [vocab.NumFindings][vocab.NumSubjects]*sketch
	// defined are the Advisor's IDs (advice.go).
	defined definedFindings
}

// levelCounts counts findings by ID and by the level they were reported
// at: the report takes each finding's level from the engine that counted
// it, never from its own configuration.
type levelCounts [vocab.NumFindings][vocab.NumLevels]int64

// total is the count of f at every level.
func (c *levelCounts) total(f vocab.Finding) (n int64) {
	for _, m := range c[f] {
		n += m
	}
	return n
}

// level is the most severe level f was counted at.
func (c *levelCounts) level(f vocab.Finding) vocab.Level {
	for l, n := range c[f] {
		if n > 0 {
			return vocab.Level(l)
		}
	}
	return vocab.DefaultLevel(f)
}

// addFindings merges a batch's findings and definition coverage; r.slots
// maps the batch's service indexes. Called with r.mu held. A service's
// findings are counted from the batch's per-name detail, which carries the
// level each was counted at.
func (r *Report) addFindings(b *engine.Batch) {
	fs := &r.findings
	for i := range b.Findings {
		f := &b.Findings[i]
		if f.Subject >= vocab.NumSubjects || f.Level >= vocab.NumLevels {
			continue
		}
		if f.Finding >= vocab.NumFindings {
			var sr *serviceReport
			if f.Service >= 0 && f.Service < len(r.slots) {
				sr = r.slots[f.Service]
			}
			r.addDefined(f, sr)
			continue
		}
		fs.counts[f.Finding][f.Level] += f.Count
		switch f.Finding {
		case vocab.FindingMissingMetric:
			fs.nonRegMetric += f.Count
		case vocab.FindingMissingEvent:
			fs.nonRegEvent += f.Count
		default:
		}
		if f.Service < 0 || f.Service >= len(r.slots) {
			continue
		}
		sr := r.slots[f.Service]
		if sr.findings == nil {
			sr.findings = &serviceFindings{}
		}
		sr.findings.counts[f.Finding][f.Level] += f.Count
		sk := &sr.findings.names[f.Finding][f.Subject]
		if *sk == nil {
			*sk = &sketch{capacity: sketchFactor * r.topKeys}
		}
		(*sk).add(f.Name, f.Count)
	}
	for i := range b.Signals {
		st := &b.Signals[i]
		d := st.Signal
		if d == nil {
			continue
		}
		k := signalKey{kind: d.Kind, name: d.Name}
		c, ok := fs.signals[k]
		if !ok {
			if len(fs.signals) >= maxSignalsSeen {
				continue
			}
			c = &signalCoverage{seen: map[string]struct{}{}}
			fs.signals[signalKey{kind: d.Kind, name: strings.Clone(d.Name)}] = c
		}
		c.count += st.Count
		for p := st.Seen.Next(0); p >= 0 && p < len(d.Attrs); p = st.Seen.Next(p + 1) {
			if _, ok := c.seen[d.Attrs[p].Key]; !ok {
				c.seen[strings.Clone(d.Attrs[p].Key)] = struct{}{}
			}
		}
	}
}

// findingsDoc renders one service's findings.
func (r *Report) findingsDoc(sf *serviceFindings) map[string]FindingReport {
	out := map[string]FindingReport{}
	if sf == nil {
		return out
	}
	for f := range vocab.NumFindings {
		n := sf.counts.total(f)
		if n == 0 {
			continue
		}
		lv := sf.counts.level(f)
		fr := FindingReport{
			Level: lv.String(), Count: n, Levels: levelMap(&sf.counts[f]), Top: []FindingName{},
			finding: f, level: lv,
		}
		for s := range vocab.NumSubjects {
			if sk := sf.names[f][s]; sk != nil {
				for _, kc := range sk.top(r.topKeys) {
					fr.Top = append(fr.Top, FindingName{Subject: s.String(), Name: kc.Key, Count: kc.Count, MaxError: kc.MaxError})
				}
			}
		}
		slices.SortStableFunc(fr.Top, func(a, b FindingName) int { return cmp.Compare(b.Count, a.Count) })
		fr.Top = fr.Top[:min(len(fr.Top), r.topKeys)]
		out[f.String()] = fr
	}
	r.definedDoc(sf, out)
	return out
}

// levelMap renders the non-zero counts of one finding by level.
func levelMap(c *[vocab.NumLevels]int64) map[string]int64 {
	m := map[string]int64{}
	for l, n := range c {
		if n > 0 {
			m[vocab.Level(l).String()] = n
		}
	}
	return m
}

// documentFindings fills the totals and the coverage of the definitions
// seen, against ix. Called with r.mu held.
func (r *Report) documentFindings(out *Document, ix *registry.Index) {
	fs := &r.findings
	t := &out.Totals
	t.AdviceTypeCounts = map[string]int64{}
	t.AdviceLevelCounts = map[string]int64{}
	for f := range vocab.NumFindings {
		for l, n := range fs.counts[f] {
			if n > 0 {
				t.AdviceTypeCounts[f.String()] += n
				t.AdviceLevelCounts[vocab.Level(l).String()] += n
				t.TotalAdvisories += n
			}
		}
	}
	r.definedTotals(t)
	t.SeenNonRegistryMetrics = fs.nonRegMetric
	t.SeenNonRegistryEvents = fs.nonRegEvent
	out.Metrics, out.Events, out.Spans = []SignalReport{}, []SignalReport{}, []SignalReport{}
	for k, c := range fs.signals {
		var d *registry.Group
		switch k.kind {
		case registry.GroupMetric:
			d = ix.MetricGroup(k.name)
		case registry.GroupEvent:
			d = ix.EventGroup(k.name)
		case registry.GroupSpan:
			d = ix.SpanGroup(k.name)
		case registry.GroupEntity:
		}
		if d == nil {
			continue // not in the registry in force any more
		}
		sr := SignalReport{Name: k.name, Count: c.count, Attributes: len(d.Attrs), SeenAttributes: []string{}}
		for _, a := range d.Attrs {
			if _, ok := c.seen[a.Key]; ok {
				sr.SeenAttributes = append(sr.SeenAttributes, a.Key)
			}
		}
		if sr.Attributes > 0 {
			sr.Coverage = float64(len(sr.SeenAttributes)) / float64(sr.Attributes)
		}
		switch k.kind {
		case registry.GroupMetric:
			out.Metrics = append(out.Metrics, sr)
			t.SeenRegistryMetrics++
		case registry.GroupEvent:
			out.Events = append(out.Events, sr)
			t.SeenRegistryEvents++
		case registry.GroupSpan:
			out.Spans = append(out.Spans, sr)
		case registry.GroupEntity:
		}
	}
	for _, l := range []*[]SignalReport{&out.Metrics, &out.Events, &out.Spans} {
		slices.SortFunc(*l, func(a, b SignalReport) int { return strings.Compare(a.Name, b.Name) })
	}
}
