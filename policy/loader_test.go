package policy_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelgov/otelcol-governance/policy"
)

func TestLoaderKeepsLastGood(t *testing.T) {
	ix := suiteRegistry(t, "comprehensive")
	dir := t.TempDir()
	file := filepath.Join(dir, "p.rego")
	write := func(id string) {
		require.NoError(t, os.WriteFile(file, []byte(header+`deny contains {"id": "`+id+`", "level": "violation", "message": "m"} if input.sample.attribute
`), 0o600))
	}
	ids := func(s *policy.Set) []string {
		in := policy.Input{Sample: policy.Attribute("a.b", pcommon.NewValueEmpty())}
		fs, err := s.Eval(context.Background(), &in)
		require.NoError(t, err)
		var out []string
		for _, f := range fs {
			out = append(out, f.ID)
		}
		return out
	}
	l := policy.NewLoader(policy.Options{}, dir)
	write("first")
	s, changed, err := l.Load(ix)
	require.NoError(t, err)
	assert.True(t, changed)
	assert.Equal(t, []string{"first"}, ids(s))

	s2, changed, err := l.Load(ix)
	require.NoError(t, err)
	assert.False(t, changed)
	assert.Same(t, s, s2)

	write("second")
	s, changed, err = l.Load(ix)
	require.NoError(t, err)
	assert.True(t, changed)
	assert.Equal(t, []string{"second"}, ids(s))

	require.NoError(t, os.WriteFile(file, []byte(header+"deny contains x if {\n"), 0o600))
	s3, changed, err := l.Load(ix)
	require.ErrorIs(t, err, policy.ErrCompile)
	assert.Contains(t, err.Error(), "p.rego:")
	assert.False(t, changed)
	assert.Same(t, s, s3, "the last good set stays")
	assert.Equal(t, []string{"second"}, ids(s3))

	// A new registry recompiles the same sources.
	write("second")
	ix2 := suiteRegistry(t, "comprehensive")
	_, changed, err = l.Load(ix2)
	require.NoError(t, err)
	assert.True(t, changed)
}

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
	fs, skipped, err := s.Advise(ctx, &in, b, nil)
	require.NoError(t, err)
	assert.Zero(t, skipped)
	ids := map[string]bool{}
	for _, f := range fs {
		ids[f.ID] = true
	}
	assert.True(t, ids["contains_test"], "value-dependent policy evaluated: %v", ids)
	assert.True(t, ids["missing_namespace"] || ids["extends_namespace"] || len(fs) > 0)

	// The budget (2) is spent: the value-free policy answers from the
	// memo, the value-dependent one is skipped.
	fs, skipped, err = s.Advise(ctx, &in, b, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, skipped)
	for _, f := range fs {
		assert.NotEqual(t, "contains_test", f.ID)
	}
	// A new key misses the memo: skipped too.
	in2 := policy.Input{Sample: policy.Attribute("other.key", pcommon.NewValueEmpty())}
	_, skipped, err = s.Advise(ctx, &in2, b, nil)
	require.NoError(t, err)
	assert.Equal(t, 2, skipped)
	assert.EqualValues(t, 3, s.Stats().BudgetSkips)
	// No budget: everything is evaluated.
	_, skipped, err = s.Advise(ctx, &in2, nil, nil)
	require.NoError(t, err)
	assert.Zero(t, skipped)
}
