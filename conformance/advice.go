package conformance

import (
	"cmp"
	"slices"
	"strings"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/vocab"
)

// This file aggregates the findings an engine's Advisor defined (the
// policies' own IDs, >= vocab.NumFindings). They are kept by ID, never by
// number: a reloaded policy set numbers its IDs afresh. At most
// vocab.MaxDefinedFindings IDs are kept per service and over all services;
// the rest count under OtherFinding.

// OtherFinding is the entry of defined findings beyond the bound.
const OtherFinding = "_other"

// definedFinding is one defined ID's aggregate.
type definedFinding struct {
	counts [vocab.NumLevels]int64
	names  [vocab.NumSubjects]*sketch // per service only
}

// definedFindings are defined findings by ID, bounded.
type definedFindings map[string]*definedFinding

// get returns id's entry, adding it (or _other beyond the bound).
func (d *definedFindings) get(id string) *definedFinding {
	if *d == nil {
		*d = definedFindings{}
	}
	if e, ok := (*d)[id]; ok {
		return e
	}
	if len(*d) >= vocab.MaxDefinedFindings {
		id = OtherFinding
		if e, ok := (*d)[id]; ok {
			return e
		}
	}
	e := &definedFinding{}
	(*d)[strings.Clone(id)] = e
	return e
}

// addDefined merges one defined finding of a batch; sr is its service's
// entry (nil when the batch's service is not mapped). Called with r.mu
// held.
func (r *Report) addDefined(f *engine.FindingTally, sr *serviceReport) {
	id, _ := vocab.Bound(f.ID)
	if id == "" {
		id = OtherFinding
	}
	r.findings.defined.get(id).counts[f.Level] += f.Count
	if sr == nil {
		return
	}
	if sr.findings == nil {
		sr.findings = &serviceFindings{}
	}
	e := sr.findings.defined.get(id)
	e.counts[f.Level] += f.Count
	sk := &e.names[f.Subject]
	if *sk == nil {
		*sk = &sketch{capacity: sketchFactor * r.topKeys}
	}
	(*sk).add(f.Name, f.Count)
}

// definedDoc adds a service's defined findings to out.
func (r *Report) definedDoc(sf *serviceFindings, out map[string]FindingReport) {
	for id, e := range sf.defined {
		var n int64
		lv := vocab.NumLevels
		for l, c := range e.counts {
			n += c
			if c > 0 && lv == vocab.NumLevels {
				lv = vocab.Level(l) // the most severe
			}
		}
		if n == 0 {
			continue
		}
		fr := FindingReport{Level: lv.String(), Count: n, Levels: levelMap(&e.counts), Top: []FindingName{}, finding: vocab.NumFindings, level: lv}
		for s := range vocab.NumSubjects {
			if sk := e.names[s]; sk != nil {
				for _, kc := range sk.top(r.topKeys) {
					if kc.Key == "" {
						continue
					}
					fr.Top = append(fr.Top, FindingName{Subject: s.String(), Name: kc.Key, Count: kc.Count, MaxError: kc.MaxError})
				}
			}
		}
		slices.SortStableFunc(fr.Top, func(a, b FindingName) int { return cmp.Compare(b.Count, a.Count) })
		fr.Top = fr.Top[:min(len(fr.Top), r.topKeys)]
		out[id] = fr
	}
}

// definedTotals adds the defined findings to the document's totals.
func (r *Report) definedTotals(t *Totals) {
	for id, e := range r.findings.defined {
		for l, n := range e.counts {
			if n > 0 {
				t.AdviceTypeCounts[id] += n
				t.AdviceLevelCounts[vocab.Level(l).String()] += n
				t.TotalAdvisories += n
			}
		}
	}
}
