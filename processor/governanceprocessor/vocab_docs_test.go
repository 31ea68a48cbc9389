package governanceprocessor

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/registry/change"
	"github.com/otelgov/otelcol-governance/vocab"
)

// This file ties the names kept by hand outside the code (metadata.yaml's
// enums, the README tables) to the vocab package: a test fails when they
// disagree.

func names[T interface {
	~uint8 | ~uint16
	String() string
}](from, to T) []string {
	var out []string
	for v := from; v < to; v++ {
		out = append(out, v.String())
	}
	return out
}

// vocabEnums are the enum-valued telemetry attributes and their names.
func vocabEnums() map[string][]string {
	var kinds []string
	for _, k := range vocab.Kinds {
		kinds = append(kinds, k.String())
	}
	return map[string][]string{
		"finding":     names(vocab.Finding(0), vocab.NumFindings),
		"level":       names(vocab.Level(0), vocab.NumLevels),
		"outcome":     names(vocab.Outcome(0), vocab.NumOutcomes),
		"reason":      names(vocab.DropReason(0), vocab.NumReasons),
		"otel.signal": kinds,
		"location":    names(registry.LocationResource, registry.Location(engine.NumLocations)),
		"target":      names(engine.SchemaLevel(0), engine.NumSchemaLevels),
		"change_kind": changeKinds(),
		// The deprecated modes: the global one and one listed name's.
		"deprecated": deprecatedModes,
		"mode":       deprecatedModes,
	}
}

// deprecatedModes are the engine's deprecated modes.
var deprecatedModes = []string{string(engine.DeprecatedRename), string(engine.DeprecatedCopy), string(engine.DeprecatedOff)}

// changeKinds are registry/change's kinds, the shadow's change_kind.
func changeKinds() []string {
	var out []string
	for _, k := range change.Kinds() {
		out = append(out, k.String())
	}
	return out
}

// notVocab are enum attributes that are not the engine's vocabulary.
var notVocab = map[string]bool{
	"result":           true, // the registry extension's reload result: success, failure
	"candidate_status": true, // the shadow's candidate: loaded, failed
}

func TestMetadataEnumsMatchVocab(t *testing.T) {
	want := vocabEnums()
	for _, path := range []string{"metadata.yaml", "../../extension/registryextension/metadata.yaml"} {
		t.Run(path, func(t *testing.T) {
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			var md struct {
				Attributes map[string]struct {
					Enum []string `yaml:"enum"`
				} `yaml:"attributes"`
			}
			require.NoError(t, yaml.Unmarshal(b, &md))
			for name, a := range md.Attributes {
				if len(a.Enum) == 0 || notVocab[name] {
					continue
				}
				w, ok := want[name]
				if !assert.True(t, ok, "%s: enum attribute %q is not in the vocabulary", path, name) {
					continue
				}
				assert.Equal(t, w, a.Enum, "%s: enum of %q (order as in vocab)", path, name)
			}
		})
	}
}

// tableRows returns the first two cells of each row of the markdown table
// that follows heading in a README ("" for the file's first table), without
// the backquotes.
func tableRows(t *testing.T, path, heading string) [][2]string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	s := string(b)
	i := strings.Index(s, heading)
	require.GreaterOrEqual(t, i, 0, "%s: %q not found", path, heading)
	var rows [][2]string
	inTable := false
	for _, line := range strings.Split(s[i+len(heading):], "\n") {
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 2 || strings.HasPrefix(strings.TrimSpace(cells[0]), "--") {
			continue
		}
		rows = append(rows, [2]string{strings.TrimSpace(cells[0]), strings.TrimSpace(cells[1])})
	}
	require.NotEmpty(t, rows, "%s: no table after %q", path, heading)
	return rows[1:] // the header
}

var backquoted = regexp.MustCompile("`([a-z_]+)`")

func TestREADMEOutcomesMatchVocab(t *testing.T) {
	var got []string
	for _, r := range tableRows(t, "README.md", "`outcome` is one of:") {
		got = append(got, strings.Trim(r[0], "`"))
	}
	assert.Equal(t, names(vocab.Outcome(0), vocab.NumOutcomes), got)
}

// weaverCompat is the reference page of the findings (it holds the tables
// that were the processor README's comparison and the root README's levels).
const weaverCompat = "../../docs/weaver-compatibility.md"

// TestREADMEFindingsMatchVocab: the comparison with Weaver lists every
// finding ID the engine reports with its default level, and the level table
// partitions them by level (both in docs/weaver-compatibility.md).
func TestREADMEFindingsMatchVocab(t *testing.T) {
	levels := map[string]string{}
	for _, r := range tableRows(t, weaverCompat, "## Compared with Weaver live-check") {
		id := strings.Trim(r[0], "`")
		if f, ok := vocab.ParseFinding(id); ok {
			levels[id] = r[1]
			assert.Equal(t, vocab.DefaultLevel(f).String(), r[1], "weaver-compatibility.md: level of %s", id)
		}
	}
	for f := range vocab.NumFindings {
		assert.Contains(t, levels, f.String(), "weaver-compatibility.md: finding %s is not listed", f)
	}

	byLevel := map[string][]string{}
	for _, r := range tableRows(t, weaverCompat, "## Finding IDs by level") {
		_, ok := vocab.ParseLevel(r[0])
		require.True(t, ok, "weaver-compatibility.md: %q is not a level", r[0])
		for _, m := range backquoted.FindAllStringSubmatch(r[1], -1) {
			byLevel[r[0]] = append(byLevel[r[0]], m[1])
		}
	}
	for l := range vocab.NumLevels {
		var want []string
		for f := range vocab.NumFindings {
			if vocab.DefaultLevel(f) == l {
				want = append(want, f.String())
			}
		}
		got := byLevel[l.String()]
		slices.Sort(got)
		slices.Sort(want)
		assert.Equal(t, want, got, "weaver-compatibility.md: finding IDs at level %s", l)
	}
}
