package upgrade

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/conformance"
	"github.com/otelgov/otelcol-governance/engine"
)

// TestConformanceTraffic: the conformance report of a collector on the new
// registry, in copy mode for rpc.response.status_code, built by the
// engine and the report the extension serves, names the service that
// sends the old key with its count and rate.
func TestConformanceTraffic(t *testing.T) {
	_, newIx, set := loadPair(t)
	e := engine.New(engine.Options{
		Deprecated: engine.DeprecatedRename, Unknown: engine.UnknownKeep, TypeMismatch: engine.TypeMismatchKeep,
		EnumViolation: engine.EnumViolationKeep, Detail: true, Findings: true,
		DeprecatedNames: map[string]engine.DeprecatedMode{"rpc.response.status_code": engine.DeprecatedCopy},
	})
	td := ptrace.NewTraces()
	spans(t, td, "old", 6, map[string]any{"rpc.response.status_code": "OK"})
	spans(t, td, "new", 2, map[string]any{"rpc.status_code": "OK"})
	w := e.Walker(newIx, false)
	w.Traces(td)
	rep := conformance.New(conformance.Limits{MaxServices: 10, TopKeys: 10}, t0)
	rep.Add(w.Batch(), t0)
	e.Release(w)
	doc := rep.Document(newIx, 1, "", t0.Add(3*time.Second))

	// As otelgov's --from reads it: the document through its JSON.
	data, err := json.Marshal(doc)
	require.NoError(t, err)
	var read conformance.Document
	require.NoError(t, json.Unmarshal(data, &read))
	tr := ConformanceTraffic(&read, NewTouches(set), newIx.Digest(), "conformance test")
	assert.Contains(t, tr.Services, "old")
	assert.Contains(t, tr.Services, "new")
	require.Len(t, tr.Sent, 1)
	assert.Equal(t, "old", tr.Sent[0].Service)
	assert.Equal(t, "rpc.response.status_code", tr.Sent[0].Name)
	assert.Equal(t, int64(6), tr.Sent[0].Count)
	assert.InDelta(t, 2.0, tr.Sent[0].Rate, 1e-9)
	assert.Empty(t, tr.Unknown, "a collector on the new registry is evidence")

	// A collector on another registry (the old one, where the old name is
	// current) counts nothing of it: its silent services are unknown.
	read.Digest = "sha256:old"
	tr = ConformanceTraffic(&read, NewTouches(set), newIx.Digest(), "conformance test")
	assert.Equal(t, []string{"new"}, tr.Unknown)
	require.Len(t, tr.Unproven, 1)
	assert.Contains(t, tr.Unproven[0], `runs the registry with digest "sha256:old", not the new registry`)
}
