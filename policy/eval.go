package policy

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/otelgov/otelcol-governance/engine"
)

// Stats are a Set's counters since it was compiled.
type Stats struct {
	// Evaluations of a policy group on one sample (memo hits excluded).
	Evaluations int64
	// MemoHits are value-free evaluations answered from the memo.
	MemoHits int64
	// Errors are evaluations that failed (time-outs included) or reported a
	// finding of an invalid shape.
	Errors int64
	// Timeouts are evaluations that ran out of time.
	Timeouts int64
	// Dropped are findings beyond MaxFindingsPerSample.
	Dropped int64
	// BudgetSkips are evaluations Advise skipped for want of budget.
	BudgetSkips int64
	// MemoEntries, MemoBytes and MemoResets describe the memo now.
	MemoEntries, MemoBytes int
	MemoResets             int64
}

type counters struct {
	evaluations, memoHits, errors, timeouts, dropped, budgetSkips atomic.Int64
}

// Stats returns the Set's counters.
func (s *Set) Stats() Stats {
	e, b, r := s.memo.stats()
	return Stats{
		Evaluations: s.n.evaluations.Load(), MemoHits: s.n.memoHits.Load(), Errors: s.n.errors.Load(),
		Timeouts: s.n.timeouts.Load(), Dropped: s.n.dropped.Load(), BudgetSkips: s.n.budgetSkips.Load(), MemoEntries: e, MemoBytes: b, MemoResets: r,
	}
}

// Eval evaluates every policy on in: the value-free ones through the memo,
// the value-dependent ones always. Findings of the policies that did not
// fail are returned with the error of those that did.
func (s *Set) Eval(ctx context.Context, in *Input) ([]Finding, error) {
	free, _, err1 := s.EvalValueFree(ctx, in)
	dep, err2 := s.EvalValueDependent(ctx, in)
	return append(free, dep...), errors.Join(err1, err2)
}

// EvalValueFree evaluates the value-free policies on in, from the memo
// when its key was seen (hit). The returned slice is shared: read only.
func (s *Set) EvalValueFree(ctx context.Context, in *Input) (fs []Finding, hit bool, err error) {
	if s.free == nil {
		return nil, false, nil
	}
	k := in.Key()
	if fs, ok := s.memo.get(k); ok {
		s.n.memoHits.Add(1)
		return fs, true, nil
	}
	fs, err = s.run(ctx, s.free, in)
	if err == nil {
		s.memo.put(k, fs)
	}
	return fs, false, err
}

// EvalValueDependent evaluates the value-dependent policies on in.
func (s *Set) EvalValueDependent(ctx context.Context, in *Input) ([]Finding, error) {
	if s.dep == nil {
		return nil, nil
	}
	return s.run(ctx, s.dep, in)
}

// run evaluates q on in within the Set's time-out.
func (s *Set) run(ctx context.Context, q *prepared, in *Input) ([]Finding, error) {
	s.n.evaluations.Add(1)
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	deny, err := q.eval(ctx, in.document())
	if err != nil {
		s.n.errors.Add(1)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			s.n.timeouts.Add(1)
			return nil, fmt.Errorf("%w after %s: %w", ErrTimeout, s.timeout, located(err))
		}
		return nil, fmt.Errorf("policy evaluation: %w", located(err))
	}
	if deny == nil {
		return nil, nil
	}
	var out []Finding
	var errs []error
	set, ok := deny.(ast.Set)
	if !ok {
		errs = append(errs, fmt.Errorf("%w: deny is not a set", ErrFinding))
		set = ast.NewSet()
	}
	for _, t := range set.Slice() {
		f, err := s.parseTerm(t)
		switch {
		case err != nil:
			errs = append(errs, err)
		case len(out) >= MaxFindingsPerSample:
			s.n.dropped.Add(1)
		default:
			out = append(out, f)
		}
	}
	if len(errs) > 0 {
		s.n.errors.Add(1)
		return out, errors.Join(errs...)
	}
	return out, nil
}

// parseTerm parses one member of the deny set.
func (s *Set) parseTerm(t *ast.Term) (Finding, error) {
	v, err := ast.JSON(t.Value)
	if err != nil {
		return Finding{}, fmt.Errorf("%w: %w", ErrFinding, err)
	}
	return s.ids.parseFinding(v)
}

// memoOnly answers a sample of key k from the memo when it holds k: the
// one lookup of a memo hit, without the Input (Advisor.Advise, which asks
// only when the value-free group alone can fire on k's kind).
func (s *Set) memoOnly(k *Key) ([]Finding, bool) {
	fs, ok := s.memo.get(*k)
	if ok {
		s.n.memoHits.Add(1)
	}
	return fs, ok
}

// Outcome is what one Advise did: policy groups evaluated, value-free
// findings answered from the memo, and groups the budget skipped.
type Outcome struct {
	Evaluations, MemoHits, Skipped int
}

// Advise is the one evaluation of a sample for a front-end: the value-free
// policies from the memo, evaluated on a miss only within b; the
// value-dependent ones only within b. A nil b is no budget (otelgov check:
// every sample is evaluated). Each group's findings are handed to found,
// which must not keep the slice (a memo hit's is shared). What b skipped is
// counted (Stats.BudgetSkips) and in the Outcome; the errors of the groups
// that failed are returned together, the others' findings handed over.
func (s *Set) Advise(ctx context.Context, in *Input, b *Budget, found func([]Finding)) (Outcome, error) {
	return s.advise(ctx, in.Key(), in, b, found)
}

// advise is Advise with in's key k.
func (s *Set) advise(ctx context.Context, k Key, in *Input, b *Budget, found func([]Finding)) (Outcome, error) {
	var o Outcome
	var errFree, errDep error
	if s.freeFires(k.Kind) {
		if fs, ok := s.memo.get(k); ok {
			s.n.memoHits.Add(1)
			o.MemoHits++
			found(fs)
		} else if b == nil || b.Allow() {
			o.Evaluations++
			var fs []Finding
			if fs, errFree = s.run(ctx, s.free, in); errFree == nil {
				s.memo.put(k, fs)
			}
			found(fs)
		} else {
			o.Skipped++
		}
	}
	if s.depFires(k.Kind) {
		if b == nil || b.Allow() {
			o.Evaluations++
			var fs []Finding
			fs, errDep = s.run(ctx, s.dep, in)
			found(fs)
		} else {
			o.Skipped++
		}
	}
	if o.Skipped > 0 {
		s.n.budgetSkips.Add(int64(o.Skipped))
	}
	if errFree != nil || errDep != nil {
		return o, errors.Join(errFree, errDep)
	}
	return o, nil
}

// freeFires and depFires report whether the free and the dep group are
// evaluated on a sample of kind k: they exist, and some deny rule of the
// group can fire on that kind (Module.FiresOn). On a sample of any other
// kind every deny rule of the group is undefined, so skipping it gives the
// same findings: a value-dependent policy on logs leaves the attributes'
// findings value-free, and the engine's shape memo on.
func (s *Set) freeFires(k engine.SampleKind) bool { return s.free != nil && fires(s.freeOn, k) }

func (s *Set) depFires(k engine.SampleKind) bool { return s.dep != nil && fires(s.depOn, k) }
