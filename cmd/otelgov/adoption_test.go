package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/infer"
	"github.com/otelgov/otelcol-governance/infer/infertest"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// realRecording is the real application's recording
// (e2e/testdata/realapp/record.sh).
const realRecording = "../../e2e/testdata/realapp/grpc-gateway-otel-tracing.jsonl"

// adoptionRecordings are the recordings R of the adoption property: the
// issue's application in small, infertest's workload, random
// applications, the real one.
func adoptionRecordings(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	out := map[string]string{}
	write := func(name string, fn func(*bytes.Buffer) error) {
		var b bytes.Buffer
		require.NoError(t, fn(&b))
		p := filepath.Join(dir, name+".jsonl")
		require.NoError(t, os.WriteFile(p, b.Bytes(), 0o600))
		out[name] = p
	}
	write("app", func(b *bytes.Buffer) error { return infertest.AppRecording(b) })
	write("workload", func(b *bytes.Buffer) error { return infertest.Write(b) })
	for seed := range uint64(6) {
		write(fmt.Sprintf("random-%d", seed), func(b *bytes.Buffer) error { return infertest.RandomRecording(b, seed) })
	}
	out["real"] = realRecording
	return out
}

// TestAdoptionProperty is issue 44's property: for every recording R,
// `check --org-registry $(infer R) R` has no finding on a name that
// `check R` found conformant (no finding at all), and no missing_* but on
// names infer listed as skipped; in both findings profiles.
func TestAdoptionProperty(t *testing.T) {
	base, err := registry.Default()
	require.NoError(t, err)
	for name, rec := range adoptionRecordings(t) {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "acme")
			code, out, errOut := otelgov(t, "", "registry", "infer", "--output", dir, "--format", "json", rec)
			require.Equal(t, exitClean, code, errOut)
			adopted, err := registry.Load(registry.Sources{Embedded: true, OrgRegistries: []string{dir}})
			require.NoError(t, err)
			var sum infer.Summary
			require.NoError(t, json.Unmarshal([]byte(out), &sum))
			skipped := map[string]bool{}
			for _, in := range sum.Proposal.Skipped.Names {
				skipped[in.Name] = true
			}
			require.Equal(t, int64(len(sum.Proposal.Skipped.Names)), sum.Proposal.Skipped.Distinct, "every skipped name listed")
			for _, profile := range []vocab.Profile{vocab.ProfileWeaver, vocab.ProfileExtended} {
				before, err := infertest.Findings(base, rec, profile)
				require.NoError(t, err)
				after, err := infertest.Findings(adopted, rec, profile)
				require.NoError(t, err)
				for k, ids := range after {
					// An *_attribute_not_present finding is about a key the
					// item lacks, never a sent key; adoption adds them when a
					// near-miss, now renamed, makes a span match a semantic
					// convention's definition (http_method: an HTTP span).
					ids = slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return strings.HasSuffix(id, "_attribute_not_present") })
					if _, had := before[k]; !had && len(ids) > 0 {
						assert.Fail(t, "a conformant name got findings once the registry was adopted", "%s %s: %v", profile, k, ids)
					}
					_, n, _ := strings.Cut(k, " ")
					for _, id := range ids {
						if slices.Contains(missingIDs, id) && !skipped[n] {
							assert.Fail(t, "missing_* after adoption", "%s %s: %s", profile, k, id)
						}
					}
				}
			}
		})
	}
}
