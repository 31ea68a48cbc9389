package policy

import (
	"sync/atomic"
	"time"
)

// Budget bounds evaluations per second across goroutines, for the
// collector's hot path: a value-dependent policy (or a memo miss) is
// evaluated only while the second's budget lasts, and the caller counts
// what it skipped. otelgov check has none: its verdicts are reproducible.
type Budget struct {
	perSecond int64
	now       func() time.Time
	second    atomic.Int64 // the Unix second the count is of
	used      atomic.Int64
}

// NewBudget allows perSecond evaluations each second; now is the clock
// (time.Now when nil). A budget of zero or less allows none.
func NewBudget(perSecond int, now func() time.Time) *Budget {
	if now == nil {
		now = time.Now
	}
	return &Budget{perSecond: int64(perSecond), now: now}
}

// Allow takes one evaluation from the current second's budget. It does not
// allocate; at a second's turn a few concurrent callers may be counted
// against either second.
func (b *Budget) Allow() bool {
	if b.perSecond <= 0 {
		return false
	}
	sec := b.now().Unix()
	if cur := b.second.Load(); cur != sec && b.second.CompareAndSwap(cur, sec) {
		b.used.Store(0)
	}
	return b.used.Add(1) <= b.perSecond
}
