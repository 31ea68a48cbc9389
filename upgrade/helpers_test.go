package upgrade

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/registry/change"
)

// The shared pair: v1.44.0 -> next-384d661 (unreleased main), where
// rpc.response.status_code becomes rpc.status_code and the older renames
// to it (rpc.grpc.status_code, ...) move with it.
const (
	oldDir = "../../shared/semconv/v1.44.0"
	newDir = "../../shared/semconv/next-384d661"
)

var pair = sync.OnceValues(func() ([2]*registry.Index, error) {
	o, err := registry.Load(registry.Sources{SemconvDir: oldDir})
	if err != nil {
		return [2]*registry.Index{}, err
	}
	n, err := registry.Load(registry.Sources{SemconvDir: newDir})
	return [2]*registry.Index{o, n}, err
})

// loadPair returns both registries and their change set.
func loadPair(t *testing.T) (oldIx, newIx *registry.Index, set *change.Set) {
	t.Helper()
	p, err := pair()
	require.NoError(t, err)
	set, err = change.Diff(p[0], p[1])
	require.NoError(t, err)
	return p[0], p[1], set
}
