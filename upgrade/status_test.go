package upgrade

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/queries"
)

// TestEvaluate: each of the four reasons holds the window open on its
// own, and only their absence ends it.
func TestEvaluate(t *testing.T) {
	clean := func() (*Fleet, *Consumers) {
		return &Fleet{Traffic: Traffic{Services: []string{"a"}}, Covered: true, InForce: true}, &Consumers{}
	}
	f, c := clean()
	s := Evaluate(f, c, 24*time.Hour)
	assert.True(t, s.Done)
	assert.Empty(t, s.Reasons)

	tests := []struct {
		name   string
		mutate func(*Fleet, *Consumers)
		reason string
	}{
		{"old name sent", func(f *Fleet, _ *Consumers) {
			f.Sent = []Sent{{Service: "a", Name: "rpc.response.status_code", Count: 7, Rate: 0.5}}
		}, `service "a" sent the old name rpc.response.status_code 7 time(s)`},
		{"window not covered", func(f *Fleet, _ *Consumers) { f.Covered = false }, "not observed in full"},
		{"transition not in force", func(f *Fleet, _ *Consumers) {
			f.InForce, f.Why = false, []string{"the transition configuration is not in force on 1 of 1 instance(s): {instance=\"a:8888\"}"}
		}, "not in force on 1 of 1 instance(s)"},
		{"transition not known", func(f *Fleet, _ *Consumers) { f.InForce = false }, "not known to be in force"},
		{"copies without the series", func(f *Fleet, _ *Consumers) { f.Copied = 3 }, "is the plan's configuration (deprecated_names) in force?"},
		{"a rule reads an old name", func(_ *Fleet, c *Consumers) {
			c.Reads = []Read{{Finding: queries.Finding{File: "rules.yaml", Line: 5, Where: "promql", Name: "rpc_response_status_code"}, Breaks: true}}
		}, "rules.yaml:5: promql reads the old name rpc_response_status_code"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, c := clean()
			tt.mutate(f, c)
			s := Evaluate(f, c, 24*time.Hour)
			assert.False(t, s.Done)
			require.Len(t, s.Reasons, 1)
			assert.Contains(t, s.Reasons[0], tt.reason)
		})
	}
	// A read of a name deprecated before the upgrade is not this window's.
	f, c = clean()
	c.Reads = []Read{{Finding: queries.Finding{File: "d.json", Line: 1, Name: "http_method"}}}
	assert.True(t, Evaluate(f, c, time.Hour).Done)
}
