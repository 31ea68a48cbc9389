package registry

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEmbeddedEqualsFreshLoad compares the embedded default with a fresh
// load of the shared data: digest and every resolved entry.
func TestEmbeddedEqualsFreshLoad(t *testing.T) {
	fresh := freshLoad(t)
	emb, err := Default()
	require.NoError(t, err)

	assert.Equal(t, fresh.Digest(), emb.Digest())
	assert.Equal(t, string(fresh.canonical()), string(emb.canonical()))
	assert.Equal(t, fresh.Stats(), emb.Stats())
	assert.Equal(t, fresh.SchemaURL(), emb.SchemaURL())

	fa, ea := fresh.Attributes(), emb.Attributes()
	require.Len(t, ea, len(fa))
	for i := range fa {
		f, e := fa[i], ea[i]
		require.Equal(t, f.Key, e.Key)
		assert.Empty(t, e.Source, "embedded entries have no source file")
		if !f.Placeholder {
			assert.NotEmpty(t, f.Source, f.Key)
		}
		assert.Equal(t, f.Type, e.Type, f.Key)
		assert.Equal(t, f.Template, e.Template, f.Key)
		assert.Equal(t, f.Stability, e.Stability, f.Key)
		assert.Equal(t, f.Placeholder, e.Placeholder, f.Key)
		assert.Equal(t, f.EnumStrings, e.EnumStrings, f.Key)
		assert.Equal(t, f.EnumInts, e.EnumInts, f.Key)
		assert.Equal(t, f.Deprecation, e.Deprecation, f.Key)
		require.Len(t, e.rename.rules, len(f.rename.rules), f.Key)
		for j, fr := range f.rename.rules {
			er := e.rename.rules[j]
			assert.Equal(t, fr.scope, er.scope, f.Key)
			assert.Equal(t, fr.target == nil, er.target == nil, f.Key)
			if fr.target != nil && er.target != nil {
				assert.Equal(t, fr.target.Key, er.target.Key, f.Key)
				// Targets point into their own index.
				assert.Same(t, emb.Lookup(er.target.Key), er.target)
			}
		}
		assert.Equal(t, fresh.Sources(f.Key), emb.Sources(e.Key), f.Key)
	}
	fm, em := fresh.Metrics(), emb.Metrics()
	require.Len(t, em, len(fm))
	for i := range fm {
		f, e := *fm[i], *em[i]
		f.Source, e.Source = "", ""
		assert.Equal(t, f, e)
	}
	assert.Equal(t, fresh.Disagreements(), emb.Disagreements())

	// The digest is content-sensitive.
	other, err := Load(Sources{Embedded: true, RulesFiles: []string{"testdata/acme-rules.yaml"}})
	require.NoError(t, err)
	assert.NotEqual(t, emb.Digest(), other.Digest())
	assert.True(t, slices.IsSortedFunc(ea, func(a, b *Attribute) int {
		switch {
		case a.Key < b.Key:
			return -1
		case a.Key > b.Key:
			return 1
		}
		return 0
	}))
}
