package engine

import (
	"github.com/otelgov/otelcol-governance/registry"

	"github.com/otelgov/otelcol-governance/vocab"
)

// findingTally fills Batch.Findings and Batch.Signals while the walk runs
// (only with Options.Detail). Like the key tally, a direct-mapped cache in
// front of a reused map makes a repeated finding cost a few comparisons.
type findingTally struct {
	enabled bool
	index   map[findingKey]int // -> index in Batch.Findings
	recent  [recentSize]recentFinding
	// recentUsed lists the slots of recent set since the last reset, so
	// that reset clears only those (clearing all 10 KiB was most of the
	// fixed cost of a small batch).
	recentUsed []uint16
	signals    map[*registry.Group]int // -> index in Batch.Signals
	lastSig    *registry.Group
	lastIdx    int
}

type findingKey struct {
	service int
	finding vocab.Finding
	level   vocab.Level
	subject vocab.Subject
	name    string
}

type recentFinding struct {
	fk  findingKey
	idx int // index in Batch.Findings + 1; 0 for an empty slot
}

func newFindingTally() findingTally {
	return findingTally{
		enabled: true,
		index:   make(map[findingKey]int, 64),
		signals: make(map[*registry.Group]int, 16),
	}
}

func (f *findingTally) reset() {
	clear(f.index)
	clear(f.signals)
	for _, i := range f.recentUsed {
		f.recent[i] = recentFinding{}
	}
	f.recentUsed = f.recentUsed[:0]
	f.lastSig, f.lastIdx = nil, 0
}

// finding lists one finding, at level lv, for the current service by name
// (the service's count is the walker's), and returns its index in
// Batch.Findings (-1 without Options.Detail). id names a defined finding.
func (r *reportTally) finding(fi vocab.Finding, lv vocab.Level, subj vocab.Subject, name, id string) int {
	f := &r.findings
	if !f.enabled {
		return -1
	}
	svc := r.svcIdx
	slot := (slotHash(name) + svc*7 + int(fi)*3 + int(subj)) & (recentSize - 1)
	c := &f.recent[slot]
	if c.idx > 0 && c.fk.name == name && c.fk.service == svc && c.fk.finding == fi && c.fk.subject == subj && c.fk.level == lv {
		r.batch.Findings[c.idx-1].Count++
		return c.idx - 1
	}
	fk := findingKey{service: svc, finding: fi, level: lv, subject: subj, name: name}
	i, ok := f.index[fk]
	if ok {
		r.batch.Findings[i].Count++
	} else {
		i = len(r.batch.Findings)
		f.index[fk] = i
		r.batch.Findings = append(r.batch.Findings, FindingTally{Service: svc, Finding: fi, ID: id, Level: lv, Subject: subj, Name: name, Count: 1})
	}
	if c.idx == 0 {
		f.recentUsed = append(f.recentUsed, uint16(slot)) //nolint:gosec // slot < recentSize
	}
	*c = recentFinding{fk: fk, idx: i + 1}
	return i
}

// signal notes one item checked against d, carrying the attributes seen.
func (r *reportTally) signal(d *registry.Group, seen *registry.AttrBits) {
	f := &r.findings
	if !f.enabled {
		return
	}
	i := f.lastIdx
	if f.lastSig != d {
		var ok bool
		i, ok = f.signals[d]
		if !ok {
			i = len(r.batch.Signals)
			f.signals[d] = i
			r.batch.Signals = append(r.batch.Signals, SignalTally{Signal: d})
		}
		f.lastSig, f.lastIdx = d, i
	}
	st := &r.batch.Signals[i]
	st.Count++
	st.Seen = st.Seen.Or(*seen)
}
