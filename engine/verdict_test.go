package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/registry"
)

// TestVerdictAgreesWithTheWalk: for single-attribute spans, Verdict gives
// the outcome a read-only walk counts.
func TestVerdictAgreesWithTheWalk(t *testing.T) {
	e, ix := newTestEngine(t, defaultOptions())
	for _, tt := range []struct {
		key  string
		val  any
		want Outcome
	}{
		{"http.response.status_code", int64(200), OutcomeConformant},
		{"http.response.status_code", "200", OutcomeTypeMismatch},
		{"http.request.method", "GET", OutcomeConformant},
		{"network.transport", "carrier-pigeon", OutcomeEnumViolation},
		{"url.path", []any{"a"}, OutcomeTypeMismatch},
	} {
		td := ptrace.NewTraces()
		s := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		require.NoError(t, s.Attributes().FromRaw(map[string]any{tt.key: tt.val}))
		w := e.Walker(ix, true)
		w.Traces(td)
		walked := NumOutcomes
		for o, n := range w.Counts().Attrs[registry.LocationSpan] {
			if n > 0 {
				walked = Outcome(o)
			}
		}
		e.Release(w)
		a := ix.Lookup(tt.key)
		require.NotNil(t, a, tt.key)
		v, _ := s.Attributes().Get(tt.key)
		assert.Equal(t, tt.want, Verdict(a, v), "%s=%v", tt.key, tt.val)
		assert.Equal(t, walked, Verdict(a, v), "%s=%v: the walk counted %s", tt.key, tt.val, walked)
	}
}

func TestGoverns(t *testing.T) {
	opts := defaultOptions()
	opts.IncludeResources = map[string][]string{"k8s.namespace.name": {"shop"}}
	e, _ := newTestEngine(t, opts)
	m := ptrace.NewTraces().ResourceSpans().AppendEmpty().Resource().Attributes()
	assert.False(t, e.Governs(m))
	m.PutStr("k8s.namespace.name", "shop")
	assert.True(t, e.Governs(m))
	all, _ := newTestEngine(t, defaultOptions())
	assert.True(t, all.Governs(ptrace.NewTraces().ResourceSpans().AppendEmpty().Resource().Attributes()))
}
