package infer

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/infer/infertest"
	"github.com/otelgov/otelcol-governance/otlpfile"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

const realAppDir = "../e2e/testdata/realapp"

type enumLabel struct {
	Enum       bool   `yaml:"enum"`
	Identifier bool   `yaml:"identifier"`
	Reason     string `yaml:"reason"`
}

// readRecording accumulates the recording at path.
func readRecording(t *testing.T, acc *Accumulator, path string) {
	t.Helper()
	require.NoError(t, infertest.EachRecord(path, func(rec *otlpfile.Record) error {
		switch rec.Kind {
		case vocab.KindTraces:
			acc.Traces(rec.Traces, path)
		case vocab.KindMetrics:
			acc.Metrics(rec.Metrics, path)
		case vocab.KindLogs:
			acc.Logs(rec.Logs, path)
		case vocab.KindUnknown, vocab.NumKinds:
		}
		return nil
	}))
}

// TestLabelledEnums holds infer to the committed labels
// (e2e/testdata/realapp/enum-labels.yaml): on the real application's
// recording (its keys judged as though no registry knew them) and the
// issue's application in small, every proposed key is labelled, at least
// 9 in 10 proposed enums are labelled enums, and no identifier is
// proposed as one.
func TestLabelledEnums(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(realAppDir, "enum-labels.yaml"))
	require.NoError(t, err)
	var labels map[string]map[string]enumLabel
	require.NoError(t, yaml.Unmarshal(b, &labels))

	// A registry without the semantic conventions: one unrelated key.
	bare := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bare, "r.yaml"), []byte("file_format: definition/2\nattributes:\n  - key: zz.unrelated\n    type: string\n    brief: x\n    stability: development\n"), 0o600))
	noSemconv, err := registry.Load(registry.Sources{OrgRegistries: []string{bare}})
	require.NoError(t, err)

	app := filepath.Join(t.TempDir(), "app.jsonl")
	f, err := os.Create(app)
	require.NoError(t, err)
	require.NoError(t, infertest.AppRecording(f))
	require.NoError(t, f.Close())

	recordings := map[string]struct {
		path string
		ix   *registry.Index
	}{
		"real": {filepath.Join(realAppDir, "grpc-gateway-otel-tracing.jsonl"), noSemconv},
		"app":  {app, defaultIndex(t)},
	}
	proposed, right := 0, 0
	for name, r := range recordings {
		acc := New(Limits{})
		readRecording(t, acc, r.path)
		p := Propose(acc.Evidence(), r.ix, Options{})
		require.NotEmpty(t, p.Attributes, name)
		for _, a := range p.Attributes {
			l, ok := labels[name][a.Key]
			if !assert.True(t, ok, "%s: proposed key %s has no label in enum-labels.yaml", name, a.Key) {
				continue
			}
			if a.Enum == nil {
				continue
			}
			proposed++
			if l.Enum {
				right++
			} else {
				t.Logf("%s: %s proposed as enum %v, labelled not one: %s", name, a.Key, a.Enum, l.Reason)
			}
			assert.False(t, l.Identifier, "%s: identifier %s proposed as an enum", name, a.Key)
		}
		var enums []string
		for _, a := range p.Attributes {
			if a.Enum != nil {
				enums = append(enums, a.Key)
			}
		}
		slices.Sort(enums)
		t.Logf("%s: enums proposed: %s", name, strings.Join(enums, ", "))
	}
	require.Positive(t, proposed, "the recordings must give enums to judge")
	assert.GreaterOrEqual(t, 10*right, 9*proposed, "%d of %d proposed enums labelled right", right, proposed)
}
