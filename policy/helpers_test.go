package policy_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/otlpfile"
	"github.com/otelgov/otelcol-governance/policy"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// suite is the Weaver conformance suite's test data.
const suite = "../checker/weaversuite/testdata"

// weaverPolicies is Weaver's policies, copied (testdata/weaver/README.md).
const weaverPolicies = "testdata/weaver"

func suiteRegistry(t testing.TB, name string) *registry.Index {
	t.Helper()
	ix, err := registry.Load(registry.Sources{OrgRegistries: []string{filepath.Join(suite, "registries", name)}})
	require.NoError(t, err)
	return ix
}

func load(t testing.TB, ix *registry.Index, opts policy.Options, dirs ...string) *policy.Set {
	t.Helper()
	s, err := policy.LoadDirs(ix, opts, dirs...)
	require.NoError(t, err)
	return s
}

// source compiles one inline policy.
func source(t testing.TB, ix *registry.Index, opts policy.Options, text string) (*policy.Set, error) {
	t.Helper()
	return policy.Compile(ix, opts, policy.Source{File: "inline.rego", Text: text})
}

// readOTLP calls fn for each request of a suite OTLP file.
func readOTLP(t testing.TB, name string, fn func(*otlpfile.Record)) {
	t.Helper()
	path := filepath.Join(suite, "otlp", name)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r, err := otlpfile.NewReader(f, otlpfile.Options{Name: path})
	require.NoError(t, err)
	defer r.Close()
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		require.NoError(t, err)
		fn(&rec)
	}
}

// countIDs runs s over a suite OTLP file and counts the findings by ID.
func countIDs(t testing.TB, s *policy.Set, ix *registry.Index, name string) map[string]int {
	t.Helper()
	n := map[string]int{}
	walkSuite(t, s, ix, name, func(ev *policy.Event) { n[ev.ID]++ })
	return n
}

// walkSuite runs s over a suite OTLP file.
func walkSuite(t testing.TB, s *policy.Set, ix *registry.Index, name string, emit policy.Emit) {
	t.Helper()
	ctx := context.Background()
	readOTLP(t, name, func(r *otlpfile.Record) {
		switch r.Kind {
		case vocab.KindTraces:
			require.NoError(t, s.Traces(ctx, ix, r.Traces, emit))
		case vocab.KindMetrics:
			require.NoError(t, s.Metrics(ctx, ix, r.Metrics, emit))
		case vocab.KindLogs:
			require.NoError(t, s.Logs(ctx, ix, r.Logs, emit))
		case vocab.KindUnknown, vocab.NumKinds:
			t.Fatalf("unknown record in %s", name)
		}
	})
}

// firedKinds runs s over a suite OTLP file and returns, by finding ID, the
// engine's sample kinds it fired on (a kind the engine does not name as
// every kind).
func firedKinds(t testing.TB, s *policy.Set, ix *registry.Index, name string) map[string]engine.SampleKinds {
	t.Helper()
	out := map[string]engine.SampleKinds{}
	walkSuite(t, s, ix, name, func(ev *policy.Event) {
		ks := engine.AllSampleKinds
		for k := range engine.NumSampleKinds {
			if k.String() == ev.Sample.String() {
				ks = 1 << k
			}
		}
		out[ev.ID] |= ks
	})
	return out
}
