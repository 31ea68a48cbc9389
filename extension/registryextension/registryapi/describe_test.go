package registryapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/registry"
)

func TestDescribe(t *testing.T) {
	ix, err := registry.Default()
	require.NoError(t, err)

	a := Describe(ix, 3, "http.method", "", "")
	assert.True(t, a.Known)
	assert.Equal(t, int64(3), a.Generation)
	require.NotNil(t, a.Deprecated)
	assert.Equal(t, "http.request.method", a.Deprecated.RenamedTo)
	require.NotEmpty(t, a.CurrentNames)
	assert.Equal(t, "http.request.method", a.CurrentNames[0].Name)

	assert.False(t, Describe(ix, 1, "acme.nothing", "", "").Known)

	m, ok := DescribeMetric(ix, "http.server.duration")
	require.True(t, ok)
	assert.True(t, m.Placeholder)
	assert.Equal(t, "http.server.request.duration", m.RenamedTo)
	m, ok = DescribeMetric(ix, "http.server.request.duration")
	require.True(t, ok)
	assert.Equal(t, "histogram", m.Instrument)
	assert.Equal(t, "s", m.Unit)
	_, ok = DescribeMetric(ix, "acme.nothing")
	assert.False(t, ok)
}
