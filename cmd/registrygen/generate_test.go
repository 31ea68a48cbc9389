package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/registry"
)

// sharedSemconv is the semantic-conventions checkout next to the
// repository (test input, never copied into it).
const sharedSemconv = "../../../shared/semconv/v1.44.0"

func requireShared(t testing.TB) string {
	t.Helper()
	for _, dir := range []string{os.Getenv("SEMCONV_DIR"), sharedSemconv} {
		if dir == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "model")); err == nil { //nolint:gosec // the test input directory, from the developer\'s SEMCONV_DIR
			return dir
		}
	}
	if os.Getenv("CI") != "" { // in CI a missing input must fail, not pass
		t.Fatal("shared semconv data absent in CI (set SEMCONV_DIR)")
	}
	t.Skip("shared semconv data absent (set SEMCONV_DIR)")
	return ""
}

// TestEmbeddedUpToDate regenerates embedded_gen.go from the shared data and
// diffs it with the committed file.
func TestEmbeddedUpToDate(t *testing.T) {
	dir := requireShared(t)
	want, err := generate(dir)
	require.NoError(t, err)
	got, err := os.ReadFile("../../registry/embedded_gen.go")
	require.NoError(t, err)
	if string(got) != string(want) {
		t.Fatalf("embedded_gen.go is stale: run `go run ./cmd/registrygen -semconv %s -out registry/embedded_gen.go` from the repository root", dir)
	}
	// Deterministic: a second run gives the same bytes.
	again, err := generate(dir)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(again))
}

func TestIdent(t *testing.T) {
	assert.Equal(t, "TypeStringArray", ident("Type", registry.TypeStringArray.String()))
	assert.Equal(t, "StabilityReleaseCandidate", ident("Stability", registry.StabilityReleaseCandidate.String()))
	assert.Equal(t, "RequirementConditionallyRequired", ident("Requirement", registry.RequirementConditionallyRequired.String()))
	assert.Equal(t, "DeprecatedRenamed", ident("Deprecated", registry.DeprecatedRenamed.String()))
}
