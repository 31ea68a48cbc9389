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
	levels       [vocab.NumFindings]vocab.Level
	levelsSet    bool
	counts       [vocab.NumFindings]int64
	nonRegMetric int64
	nonRegEvent  int64
	signals      map[signalKey]*signalCoverage
}

type signalKey struct {
	kind registry.SignalKind
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
	counts [vocab.NumFindings]int64
	// names are the top names per finding and subject.
	names [vocab.NumFindings][vocab.NumSubjects]*sketch
}

// addFindings merges a batch's findings and definition coverage; r.slots
// maps the batch's service indexes. Called with r.mu held.
func (r *Report) addFindings(b *engine.Batch) {
	fs := &r.findings
	if len(b.Findings) == 0 && len(b.Signals) == 0 {
		return
	}
	fs.levels, fs.levelsSet = b.Levels, true
	for i := range b.Services {
		if i >= len(r.slots) {
			break
		}
		s := &b.Services[i]
		var has bool
		for _, n := range s.Findings {
			if n > 0 {
				has = true
				break
			}
		}
		if !has {
			continue
		}
		sr := r.slots[i]
		if sr.findings == nil {
			sr.findings = &serviceFindings{}
		}
		for f, n := range s.Findings {
			sr.findings.counts[f] += n
			fs.counts[f] += n
		}
	}
	for i := range b.Findings {
		f := &b.Findings[i]
		if f.Finding >= vocab.NumFindings || f.Subject >= vocab.NumSubjects {
			continue
		}
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
		n := sf.counts[f]
		if n == 0 {
			continue
		}
		fr := FindingReport{Level: r.level(f).String(), Count: n, Top: []FindingName{}}
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
	return out
}

func (r *Report) level(f vocab.Finding) vocab.Level {
	if r.findings.levelsSet {
		return r.findings.levels[f]
	}
	return vocab.DefaultLevel(f)
}

// documentFindings fills the totals and the coverage of the definitions
// seen, against ix. Called with r.mu held.
func (r *Report) documentFindings(out *Document, ix *registry.Index) {
	fs := &r.findings
	t := &out.Totals
	t.AdviceTypeCounts = map[string]int64{}
	t.AdviceLevelCounts = map[string]int64{}
	for f := range vocab.NumFindings {
		if n := fs.counts[f]; n > 0 {
			t.AdviceTypeCounts[f.String()] = n
			t.AdviceLevelCounts[r.level(f).String()] += n
			t.TotalAdvisories += n
		}
	}
	t.SeenNonRegistryMetrics = fs.nonRegMetric
	t.SeenNonRegistryEvents = fs.nonRegEvent
	out.Metrics, out.Events, out.Spans = []SignalReport{}, []SignalReport{}, []SignalReport{}
	for k, c := range fs.signals {
		var d *registry.Signal
		switch k.kind {
		case registry.SignalMetric:
			d = ix.MetricSignal(k.name)
		case registry.SignalEvent:
			d = ix.EventSignal(k.name)
		case registry.SignalSpan:
			d = ix.SpanSignal(k.name)
		case registry.SignalEntity:
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
		case registry.SignalMetric:
			out.Metrics = append(out.Metrics, sr)
			t.SeenRegistryMetrics++
		case registry.SignalEvent:
			out.Events = append(out.Events, sr)
			t.SeenRegistryEvents++
		case registry.SignalSpan:
			out.Spans = append(out.Spans, sr)
		case registry.SignalEntity:
		}
	}
	for _, l := range []*[]SignalReport{&out.Metrics, &out.Events, &out.Spans} {
		slices.SortFunc(*l, func(a, b SignalReport) int { return strings.Compare(a.Name, b.Name) })
	}
}
