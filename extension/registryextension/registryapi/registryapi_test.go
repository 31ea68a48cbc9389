package registryapi_test

import (
	"context"
	"testing"

	"github.com/otelgov/otelcol-governance/engine"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"

	"github.com/otelgov/otelcol-governance/extension/registryextension/registryapi"
	"github.com/otelgov/otelcol-governance/vocab"
)

type host map[component.ID]component.Component

func (h host) GetExtensions() map[component.ID]component.Component { return h }

type plain struct{}

func (plain) Start(context.Context, component.Host) error { return nil }
func (plain) Shutdown(context.Context) error              { return nil }

type reg struct{ plain }

func (reg) Current() *registryapi.Snapshot { return &registryapi.Snapshot{Generation: 7} }
func (reg) Report(*registryapi.Batch)      {}

func TestLookup(t *testing.T) {
	id := component.MustNewID("governance_registry")
	other := component.MustNewIDWithName("governance_registry", "other")
	h := host{id: reg{}, other: plain{}}

	r, err := registryapi.Lookup(h, id)
	require.NoError(t, err)
	assert.Equal(t, int64(7), r.Current().Generation)

	_, err = registryapi.Lookup(h, component.MustNewIDWithName("governance_registry", "missing"))
	require.ErrorIs(t, err, registryapi.ErrNotFound)
	require.NotErrorIs(t, err, registryapi.ErrWrongType)
	require.ErrorContains(t, err, `"governance_registry/missing": registry extension not found`)

	_, err = registryapi.Lookup(h, other)
	require.ErrorIs(t, err, registryapi.ErrWrongType)
	require.NotErrorIs(t, err, registryapi.ErrNotFound)
}

func TestOutcomeNames(t *testing.T) {
	seen := map[string]bool{}
	for o := range vocab.NumOutcomes {
		n := o.String()
		assert.NotEqual(t, "invalid", n)
		assert.False(t, seen[n], n)
		seen[n] = true
	}
	assert.Equal(t, "invalid", vocab.NumOutcomes.String())
	assert.Equal(t, "deprecated", engine.KeyDeprecated.String())
}

func TestBatchReset(t *testing.T) {
	b := &registryapi.Batch{Generation: 3}
	b.Services = append(b.Services, registryapi.ServiceTally{Service: "a"})
	b.Keys = append(b.Keys, registryapi.KeyTally{Key: "k"})
	b.Reset()
	assert.Zero(t, b.Generation)
	assert.Empty(t, b.Services)
	assert.Empty(t, b.Keys)
	assert.Positive(t, cap(b.Services))
}
