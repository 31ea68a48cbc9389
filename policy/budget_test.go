package policy_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelgov/otelcol-governance/policy"
)

func TestBudget(t *testing.T) {
	now := time.Unix(100, 0)
	b := policy.NewBudget(3, func() time.Time { return now })
	got := 0
	for range 10 {
		if b.Allow() {
			got++
		}
	}
	assert.Equal(t, 3, got)
	now = now.Add(time.Second)
	assert.True(t, b.Allow(), "a new second refills")
	assert.False(t, policy.NewBudget(0, nil).Allow())
	assert.Zero(t, testing.AllocsPerRun(100, func() { b.Allow() }))
}

// Advise: memo hits cost no budget; misses and value-dependent policies
// spend it, and what it skipped is counted.
func TestAdviseBudget(t *testing.T) {
	ix := suiteRegistry(t, "comprehensive")
	s := load(t, ix, policy.Options{}, weaverPolicies+"/default", weaverPolicies+"/live_check_advice")
	now := time.Unix(1, 0)
	b := policy.NewBudget(2, func() time.Time { return now })
	ctx := context.Background()
	in := policy.Input{Sample: policy.Attribute("test.string", pcommon.NewValueEmpty())}
	fs, o, err := advise(ctx, s, &in, b)
	require.NoError(t, err)
	assert.Zero(t, o.Skipped)
	ids := map[string]bool{}
	for _, f := range fs {
		ids[f.ID] = true
	}
	assert.True(t, ids["contains_test"], "value-dependent policy evaluated: %v", ids)
	assert.True(t, ids["missing_namespace"] || ids["extends_namespace"] || len(fs) > 0)

	// The budget (2) is spent: the value-free policy answers from the
	// memo, the value-dependent one is skipped.
	fs, o, err = advise(ctx, s, &in, b)
	require.NoError(t, err)
	assert.Equal(t, policy.Outcome{MemoHits: 1, Skipped: 1}, o)
	for _, f := range fs {
		assert.NotEqual(t, "contains_test", f.ID)
	}
	// A new key misses the memo: skipped too.
	in2 := policy.Input{Sample: policy.Attribute("other.key", pcommon.NewValueEmpty())}
	_, o, err = advise(ctx, s, &in2, b)
	require.NoError(t, err)
	assert.Equal(t, policy.Outcome{Skipped: 2}, o)
	assert.EqualValues(t, 3, s.Stats().BudgetSkips)
	// No budget: everything is evaluated.
	_, o, err = advise(ctx, s, &in2, nil)
	require.NoError(t, err)
	assert.Equal(t, policy.Outcome{Evaluations: 2}, o)
}

// advise collects what Set.Advise hands over.
func advise(ctx context.Context, s *policy.Set, in *policy.Input, b *policy.Budget) ([]policy.Finding, policy.Outcome, error) {
	var out []policy.Finding
	o, err := s.Advise(ctx, in, b, func(fs []policy.Finding) { out = append(out, fs...) })
	return out, o, err
}
