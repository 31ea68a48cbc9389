package governanceprocessor // import "github.com/otelgov/otelcol-governance/processor/governanceprocessor"

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/policy"
	"github.com/otelgov/otelcol-governance/processor/governanceprocessor/internal/metadata"
	"github.com/otelgov/otelcol-governance/vocab"
)

// This file runs Weaver's advice policies in the processor: the policy set
// comes from findings::policies (compiled once, against the processor's
// registry) or from the registry extension's snapshot (reloaded with it).
// The engine is offered the samples through policies, an engine.Advisor
// that delegates to the policy.Advisor of the set in force, with this
// processor's budget. A processor without policies walks with an engine
// that has no Advisor: its cost is unchanged.

// errPolicy wraps a policy of findings::policies that does not load.
var errPolicy = errors.New("policy does not load")

// maxLoggedPolicyErrors bounds the policy errors logged per batch; every
// error is counted on processor_governance_policy_errors.
const maxLoggedPolicyErrors = 1

// policies is the processor's engine.Advisor. Its counters are cumulative
// over the advisors it used (one per policy set in force).
type policies struct {
	budget int
	logger *zap.Logger
	cur    atomic.Pointer[policy.Advisor]

	mu      sync.Mutex
	retired policy.AdvisorStats // guarded by mu: counts of replaced advisors
	// repeats are the samples the engine answered from an earlier sample
	// of the same key in the batch (engine.Batch.AdviceRepeats), counted
	// as memo hits.
	repeats atomic.Int64

	// findings count the policies' own IDs by (ID, level), bounded.
	fmu      sync.Mutex
	base     []attribute.KeyValue          // guarded by fmu (set once, by register)
	findings map[policyFindingKey]*counter // guarded by fmu
	ids      map[string]struct{}           // guarded by fmu: distinct IDs labelled
}

type policyFindingKey struct {
	id    string
	level vocab.Level
}

var _ engine.ShapeAdvisor = (*policies)(nil)

func newPolicies(f *findingsConfig, logger *zap.Logger) *policies {
	return &policies{
		budget: f.PolicyBudgetPerSecond, logger: logger,
		findings: map[policyFindingKey]*counter{}, ids: map[string]struct{}{},
	}
}

// Advise implements engine.Advisor.
func (p *policies) Advise(s *engine.Sample, dst []engine.Advice) []engine.Advice {
	if a := p.cur.Load(); a != nil {
		return a.Advise(s, dst)
	}
	return dst
}

// AttrsShapeFree implements engine.ShapeAdvisor: the set in force has
// value-free policies only, whose findings on attributes the engine's shape
// memo keeps.
func (p *policies) AttrsShapeFree() bool {
	a := p.cur.Load()
	return a != nil && a.AttrsShapeFree()
}

// AttrsTypeFree implements engine.ShapeAdvisor: no value-free policy of
// the set in force reads an attribute's inferred type.
func (p *policies) AttrsTypeFree() bool {
	a := p.cur.Load()
	return a != nil && a.AttrsTypeFree()
}

// Kinds implements engine.ShapeAdvisor: none without a set in force.
func (p *policies) Kinds() engine.SampleKinds {
	if a := p.cur.Load(); a != nil {
		return a.Kinds()
	}
	return 0
}

// AdviseKept implements engine.ShapeAdvisor.
func (p *policies) AdviseKept(s *engine.Sample, dst []engine.Advice) ([]engine.Advice, bool) {
	if a := p.cur.Load(); a != nil {
		return a.AdviseKept(s, dst)
	}
	return dst, false
}

// SampleKey implements engine.ShapeAdvisor.
func (p *policies) SampleKey(s *engine.Sample) (engine.AdviceKey, bool) {
	if a := p.cur.Load(); a != nil {
		return a.SampleKey(s)
	}
	return engine.AdviceKey{}, false
}

// use puts set in force (nil: none), keeping the counts of the advisor it
// replaces. Evaluations in flight on the old advisor when it is replaced
// may go uncounted.
func (p *policies) use(set *policy.Set) {
	p.mu.Lock()
	defer p.mu.Unlock()
	old := p.cur.Load()
	if old != nil && old.Set() == set {
		return
	}
	if old != nil {
		p.retired.Add(old.Stats())
	}
	if set == nil {
		p.cur.Store(nil)
		return
	}
	p.cur.Store(policy.NewAdvisor(set, policy.AdvisorOptions{BudgetPerSecond: p.budget}))
}

// active reports whether a policy set is in force.
func (p *policies) active() bool { return p.cur.Load() != nil }

// stats are the counts of every advisor used.
func (p *policies) stats() policy.AdvisorStats {
	p.mu.Lock()
	st := p.retired
	p.mu.Unlock()
	if a := p.cur.Load(); a != nil {
		st.Add(a.Stats())
	}
	st.MemoHits += p.repeats.Load()
	return st
}

// record counts one batch's policy findings under their IDs and logs the
// first errors kept since the last batch.
func (p *policies) record(b *engine.Batch) {
	if b.AdviceRepeats > 0 {
		p.repeats.Add(b.AdviceRepeats)
	}
	if len(b.Advice) > 0 {
		p.fmu.Lock()
		for i := range b.Advice {
			at := &b.Advice[i]
			p.counter(at.ID, at.Level).add(at.Count)
		}
		p.fmu.Unlock()
	}
	a := p.cur.Load()
	if a == nil {
		return
	}
	for i, err := range a.Errors() {
		if i < maxLoggedPolicyErrors {
			p.logger.Warn("Advice policy evaluation failed; the data passes unchanged (counted on otelcol_processor_governance_policy_errors)", zap.Error(err))
		}
	}
}

// counter returns the series of (id, level): an ID beyond
// vocab.MaxDefinedFindings distinct ones is labelled _other. Called with
// fmu held.
func (p *policies) counter(id string, lv vocab.Level) *counter {
	if _, ok := p.ids[id]; !ok {
		if len(p.ids) >= vocab.MaxDefinedFindings {
			id = policy.OtherID
		} else {
			p.ids[id] = struct{}{}
		}
	}
	k := policyFindingKey{id: id, level: lv}
	c, ok := p.findings[k]
	if !ok {
		c = &counter{opts: observeOpts(p.base, attribute.String("policy_finding", id), attribute.String("level", lv.String()))}
		p.findings[k] = c
	}
	return c
}

// register labels the policy counters with base (the processor's
// attributes) and registers their callbacks.
func (p *policies) register(tb *metadata.TelemetryBuilder, base []attribute.KeyValue) error {
	p.fmu.Lock()
	p.base = base
	p.fmu.Unlock()
	opts := observeOpts(base)
	obs := func(get func(*policy.AdvisorStats) int64) func(context.Context, metric.Int64Observer) error {
		return func(_ context.Context, o metric.Int64Observer) error {
			st := p.stats()
			if n := get(&st); n > 0 {
				o.Observe(n, opts...)
			}
			return nil
		}
	}
	return errors.Join(
		tb.RegisterProcessorGovernancePolicyEvaluationsCallback(obs(func(s *policy.AdvisorStats) int64 { return s.Evaluations })),
		tb.RegisterProcessorGovernancePolicyMemoHitsCallback(obs(func(s *policy.AdvisorStats) int64 { return s.MemoHits })),
		tb.RegisterProcessorGovernancePolicyBudgetSkipsCallback(obs(func(s *policy.AdvisorStats) int64 { return s.BudgetSkips })),
		tb.RegisterProcessorGovernancePolicyErrorsCallback(obs(func(s *policy.AdvisorStats) int64 { return s.Errors })),
		tb.RegisterProcessorGovernancePolicyTimeoutsCallback(obs(func(s *policy.AdvisorStats) int64 { return s.Timeouts })),
		tb.RegisterProcessorGovernancePolicyFindingsCallback(func(_ context.Context, o metric.Int64Observer) error {
			p.fmu.Lock()
			defer p.fmu.Unlock()
			for _, c := range p.findings {
				c.observe(o)
			}
			return nil
		}),
	)
}

// policySources are findings::policies, advice_data and
// advice_preprocessor.
func (f *findingsConfig) policySources() *policy.Sources {
	return &policy.Sources{Dirs: f.Policies, Data: f.AdviceData, Preprocessor: f.AdvicePreprocessor}
}

// checkPolicies compiles the policies, reads the advice data and compiles
// the preprocessor without a registry, for Validate: the error names the
// key and the file, line and column.
func checkPolicies(s *policy.Sources) error {
	if err := s.Check(); err != nil {
		return fmt.Errorf("%w: %w", errPolicy, err)
	}
	return nil
}
