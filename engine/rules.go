package engine

import (
	"github.com/otelgov/otelcol-governance/findingrules"
	"github.com/otelgov/otelcol-governance/vocab"
)

// ruleTable compiles Options.Rules: rules without scope become the level and
// keep of each ID, looked up per finding; scoped rules are applied per
// finding with its sample (rule), and need the walk's sample context
// (sinkState), which is then maintained as for a sink.
type ruleTable struct {
	on     bool // Options.Rules is set
	scoped bool // Options.Rules.Scoped()
	keep   [vocab.NumFindings]bool
}

func newRuleTable(r *findingrules.Rules, levels *[vocab.NumFindings]vocab.Level) ruleTable {
	if r == nil {
		return ruleTable{}
	}
	t := ruleTable{on: true, scoped: r.Scoped()}
	if t.scoped {
		for f := range t.keep {
			t.keep[f] = true
		}
		return t
	}
	*levels, t.keep = r.Table()
	return t
}

// rule applies Options.Rules to one finding reported at lv: its level, and
// whether it is kept (and counted).
func (w *Walker) rule(f vocab.Finding, lv vocab.Level, subj vocab.Subject, name, id string) (vocab.Level, bool) {
	t := &w.e.findingRules
	if !t.scoped && f < vocab.NumFindings {
		return lv, t.keep[f]
	}
	ss := &w.grp.sink
	s := findingrules.Sample{SignalType: ss.signalType}
	if f >= vocab.NumFindings {
		// An Advisor's own ID: rules name it as a string; its level is
		// the advisor's and is counted as such (Batch.Advice).
		s.ID = id
		if !t.scoped {
			return w.e.opts.Rules.Apply(f, lv, &findingrules.Sample{ID: id})
		}
	}
	switch w.sampleType(f, subj) {
	case vocab.SampleAttribute.String():
		s.Name, s.Named = name, true
	case vocab.SampleSpan.String(), vocab.SampleMetric.String(), vocab.SampleLog.String():
		// Weaver's sample_name: the span's name, the metric's, the log's
		// event name ("" too is a name).
		s.Name, s.Named = ss.signalName, true
		if w.memo.rec != nil {
			w.memo.rec.needName = true // memo.go: the entry holds for this name only
		}
	}
	l, keep := w.e.opts.Rules.Apply(f, lv, &s)
	if keep && l != lv && f < vocab.NumFindings {
		if w.memo.rec != nil {
			w.memo.rec.relevel(f, l)
		}
		if w.svc != &w.noService {
			w.relevel(f, l, 1)
		}
	}
	return l, keep
}

// relevel counts n findings at level l, not Engine.Level's, in
// Batch.Relevelled: a short list, searched from its end.
func (w *Walker) relevel(f vocab.Finding, l vocab.Level, n int64) {
	svc, rl := w.report.svcIdx, w.tally.Relevelled
	for i := len(rl) - 1; i >= 0; i-- {
		if c := &rl[i]; c.Service == svc && c.Finding == f && c.Level == l {
			c.Count += n
			return
		}
	}
	w.tally.Relevelled = append(rl, LevelCount{Service: svc, Finding: f, Level: l, Count: n})
}

// tracksSample reports whether the walk keeps the sample context of the
// sink and the scoped rules.
func (e *Engine) tracksSample() bool { return e.opts.Sink != nil || e.findingRules.scoped }
