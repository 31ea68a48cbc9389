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
