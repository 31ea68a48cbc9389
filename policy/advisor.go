package policy

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/vocab"
)

// MaxAdvisorErrors bounds the errors an Advisor keeps for its front-end to
// log (Advisor.Errors); every error is counted (Set.Stats).
const MaxAdvisorErrors = 8

// AdvisorOptions configure an Advisor.
type AdvisorOptions struct {
	// BudgetPerSecond bounds the evaluations per second (the collector's
	// findings::policy_budget_per_second): value-dependent policies and the
	// value-free ones' memo misses (Set.Advise); the samples beyond it are
	// skipped and counted (AdvisorStats.BudgetSkips). Levels, of built-in
	// and policy IDs alike, are the engine's finding rules'
	// (engine.Options.Rules).
	// Zero means no budget: every sample is evaluated (otelgov check,
	// whose verdicts are reproducible).
	BudgetPerSecond int
	// Now is the clock of the budget; nil means time.Now.
	Now func() time.Time
}

var _ engine.ShapeAdvisor = (*Advisor)(nil)

// Advisor evaluates a Set's policies on the samples of the engine's walk
// (engine.Options.Advisor): the value-free policies through the Set's memo,
// the value-dependent ones within the budget. It never fails the walk: an
// error or a time-out is counted and the first MaxAdvisorErrors are kept.
//
// Memo: the value-free policies' findings are memoized in the Set, per Key
// (the sample's kind, name, inferred type or instrument and unit, and
// registry definitions), bounded (MemoLimits); a memo hit builds no Input,
// takes no lock and allocates nothing. The Advisor is an
// engine.ShapeAdvisor: when the Set has value-free policies only, their
// findings on an attribute are a function of the attribute's shape (key,
// inferred type, registry attribute, the signal's registry group), so the
// engine's shape memo keeps them in its entries and replays them at its
// hits, and this memo is asked for the attributes of a new shape and for
// the other samples (resource, span, metric, log...). A Set with a
// value-dependent policy that can fire on attributes (Module.FiresOn)
// turns the shape memo off: every attribute is offered with its value.
type Advisor struct {
	s    *Set
	opts AdvisorOptions

	// budget bounds the value-dependent evaluations (nil: none).
	budget *Budget
	// n are this Advisor's counters (a Set's own count every Advisor of
	// it: the processors of one registry extension share its Set).
	n struct{ evaluations, memoHits, errors, timeouts, skips atomic.Int64 }

	mu   sync.Mutex
	errs []error // guarded by mu; at most MaxAdvisorErrors
}

// NewAdvisor returns the Advisor of s.
func NewAdvisor(s *Set, opts AdvisorOptions) *Advisor {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	a := &Advisor{s: s, opts: opts}
	if opts.BudgetPerSecond > 0 {
		a.budget = NewBudget(opts.BudgetPerSecond, opts.Now)
	}
	return a
}

// Set is the Advisor's policy set.
func (a *Advisor) Set() *Set { return a.s }

// AdvisorStats are an Advisor's counters.
type AdvisorStats struct {
	// Evaluations of a policy group on one sample (memo hits excluded).
	Evaluations int64
	// MemoHits are value-free evaluations answered from the memo.
	MemoHits int64
	// Errors are evaluations that failed, time-outs included.
	Errors int64
	// Timeouts are evaluations that ran out of time.
	Timeouts int64
	// BudgetSkips are samples the value-dependent policies skipped, the
	// per-second budget spent.
	BudgetSkips int64
}

// Add adds o to s.
func (s *AdvisorStats) Add(o AdvisorStats) {
	s.Evaluations += o.Evaluations
	s.MemoHits += o.MemoHits
	s.Errors += o.Errors
	s.Timeouts += o.Timeouts
	s.BudgetSkips += o.BudgetSkips
}

// Stats returns the Advisor's counters.
func (a *Advisor) Stats() AdvisorStats {
	return AdvisorStats{
		Evaluations: a.n.evaluations.Load(), MemoHits: a.n.memoHits.Load(), Errors: a.n.errors.Load(),
		Timeouts: a.n.timeouts.Load(), BudgetSkips: a.n.skips.Load(),
	}
}

// Errors returns the first errors kept (at most MaxAdvisorErrors) and
// forgets them, so that a front-end logs each once.
func (a *Advisor) Errors() []error {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := a.errs
	a.errs = nil
	return out
}

// keep counts err and keeps it when there is room.
func (a *Advisor) keep(err error) {
	a.n.errors.Add(1)
	if errors.Is(err, ErrTimeout) {
		a.n.timeouts.Add(1)
	}
	a.mu.Lock()
	if len(a.errs) < MaxAdvisorErrors {
		a.errs = append(a.errs, err)
	}
	a.mu.Unlock()
}

// sample is the policy sample of an engine sample.
func sample(s *engine.Sample) Sample {
	switch s.Kind {
	case engine.SampleAttribute:
		return Attribute(s.Key, s.Value)
	case engine.SampleSpan:
		return Span(s.Span)
	case engine.SampleSpanEvent:
		return SpanEvent(s.SpanEvent)
	case engine.SampleSpanLink:
		return SpanLink(s.SpanLink)
	case engine.SampleMetric:
		return Metric(s.Metric)
	case engine.SampleNumberDataPoint:
		return NumberDataPoint(s.NumberPoint)
	case engine.SampleHistogramDataPoint:
		return HistogramDataPoint(s.HistogramPoint)
	case engine.SampleExponentialHistogramDataPoint:
		return ExponentialHistogramDataPoint(s.ExpPoint)
	case engine.SampleExemplar:
		return Exemplar(s.Exemplar)
	case engine.SampleLog:
		return Log(s.Log)
	case engine.SampleScope:
		return Scope(s.Scope, s.SchemaURL)
	case engine.SampleResource, engine.NumSampleKinds:
	}
	return Resource(s.Resource)
}

// Advise implements engine.Advisor.
func (a *Advisor) Advise(s *engine.Sample, dst []engine.Advice) []engine.Advice {
	dst, _ = a.advise(s, dst)
	return dst
}

// AttrsShapeFree implements engine.ShapeAdvisor: no value-dependent policy
// of the Set can fire on an attribute.
func (a *Advisor) AttrsShapeFree() bool { return !a.s.depFires(engine.SampleAttribute) }

// AttrsTypeFree implements engine.ShapeAdvisor: no value-free policy
// reads an attribute's inferred type (a value-dependent one that can fire
// on attributes turns the shape memo off).
func (a *Advisor) AttrsTypeFree() bool { return !a.s.readsType }

// Kinds implements engine.ShapeAdvisor: the sample kinds some policy of
// the Set can fire on (Set.FiresOn).
func (a *Advisor) Kinds() engine.SampleKinds { return a.s.firesOn }

// AdviseKept implements engine.ShapeAdvisor: the findings may be kept
// unless the budget skipped an evaluation or one failed.
func (a *Advisor) AdviseKept(s *engine.Sample, dst []engine.Advice) ([]engine.Advice, bool) {
	return a.advise(s, dst)
}

// SampleKey implements engine.ShapeAdvisor: the value-free policies'
// memo key of the sample (the engine compares the signal type and name
// itself); none when a value-dependent policy can fire on the sample's
// kind.
func (a *Advisor) SampleKey(s *engine.Sample) (engine.AdviceKey, bool) {
	k := sampleKey(s)
	if a.s.depFires(k.Kind) {
		return engine.AdviceKey{}, false
	}
	return k, true
}

// advise is Advise; kept reports that the findings are the value-free
// policies' only, all evaluated or from the memo.
func (a *Advisor) advise(s *engine.Sample, dst []engine.Advice) (_ []engine.Advice, kept bool) {
	if s.Kind >= engine.NumSampleKinds {
		return dst, true
	}
	k := sampleKey(s)
	free, dep := a.s.freeFires(k.Kind), a.s.depFires(k.Kind)
	if !free && !dep {
		return dst, true // no policy can fire on the sample: nothing to ask
	}
	if !dep {
		if fs, ok := a.s.memoOnly(&k); ok {
			a.n.memoHits.Add(1)
			return a.append(dst, s, fs), true
		}
	}
	in := Input{
		Sample: sample(s), Resource: s.Resource, HasResource: s.HasResource, Scope: s.Scope, HasScope: s.HasScope,
		ScopeSchemaURL: s.SchemaURL, Attribute: s.Attr, Group: s.Group,
	}
	o, err := a.s.advise(context.Background(), k, &in, a.budget, func(fs []Finding) { dst = a.append(dst, s, fs) })
	for _, c := range [...]struct {
		n *atomic.Int64
		d int
	}{{&a.n.evaluations, o.Evaluations}, {&a.n.memoHits, o.MemoHits}, {&a.n.skips, o.Skipped}} {
		if c.d > 0 {
			c.n.Add(int64(c.d))
		}
	}
	if err != nil {
		a.keep(err)
	}
	return dst, err == nil && o.Skipped == 0 && !dep
}

// append adds fs as the engine's findings on s.
func (a *Advisor) append(dst []engine.Advice, s *engine.Sample, fs []Finding) []engine.Advice {
	for i := range fs {
		f := &fs[i]
		ad := engine.Advice{Finding: f.Finding, ID: f.ID, Level: f.Level}
		switch s.Kind {
		case engine.SampleAttribute:
			ad.Subject, ad.Name = vocab.SubjectKey, s.Key
		case engine.SampleMetric, engine.SampleNumberDataPoint, engine.SampleHistogramDataPoint,
			engine.SampleExponentialHistogramDataPoint, engine.SampleExemplar:
			ad.Subject, ad.Name = vocab.SubjectMetric, s.SignalName
		case engine.SampleLog:
			ad.Subject, ad.Name = vocab.SubjectEvent, s.SignalName
		case engine.SampleResource, engine.SampleScope:
			ad.Subject, ad.Name = vocab.SubjectKey, ""
		case engine.SampleSpan, engine.SampleSpanEvent, engine.SampleSpanLink, engine.NumSampleKinds:
			ad.Subject, ad.Name = vocab.SubjectSpan, s.SignalName
		}
		dst = append(dst, ad)
	}
	return dst
}
