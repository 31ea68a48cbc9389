package policy_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/engine/enginetest"
	"github.com/otelgov/otelcol-governance/policy"
)

// instrumentPolicy names each instrument a metric sample can carry, in
// Weaver's spelling (SampleInstrument, serialized untagged: the registry's
// lower-case instruments, and "Summary" / "Unspecified" for the OTLP types
// it has none for, src/registry/otlp/conversion.rs at afa9700c).
const instrumentPolicy = header + `instruments := {"Summary": "summary_seen", "Unspecified": "unspecified_seen", "counter": "counter_seen",
	"updowncounter": "updowncounter_seen", "gauge": "gauge_seen", "histogram": "histogram_seen"}

deny contains {"id": instruments[input.sample.metric.instrument], "level": "information", "message": input.sample.metric.name} if {
	input.sample.metric
}

deny contains {"id": "summary_rule", "level": "violation", "message": input.sample.metric.name} if {
	input.sample.metric.instrument == "Summary"
}
`

// TestInstrumentAsWeaver: a Weaver user's rule on
// input.sample.metric.instrument == "Summary" (or "Unspecified", for a
// metric without data) fires here as it does in Weaver.
func TestInstrumentAsWeaver(t *testing.T) {
	ix := suiteRegistry(t, "metrics")
	s, err := source(t, ix, policy.Options{}, instrumentPolicy)
	require.NoError(t, err)
	md := enginetest.InstrumentMetrics()
	got := map[string][]string{}
	require.NoError(t, s.Metrics(context.Background(), ix, md, func(ev *policy.Event) {
		got[ev.Message] = append(got[ev.Message], ev.ID)
	}))
	assert.Equal(t, map[string][]string{
		"a.summary": {"summary_rule", "summary_seen"}, "a.metric.without.data": {"unspecified_seen"},
		"a.counter": {"counter_seen"}, "an.updowncounter": {"updowncounter_seen"}, "a.gauge": {"gauge_seen"},
		"a.histogram": {"histogram_seen"}, "an.exponential.histogram": {"histogram_seen"},
	}, sorted(got))
}

func sorted(m map[string][]string) map[string][]string {
	for _, v := range m {
		slices.Sort(v)
	}
	return m
}
