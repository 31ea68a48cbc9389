package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/findingrules"
)

// TestWeaverConfig: otelgov check reads the ["live-check"] section of a
// .weaver.toml (found by walking up, or --config), flags over file over
// defaults. The input gives, on log attributes, undefined_enum_variant
// (information), not_stable (improvement) and deprecated (violation).
func TestWeaverConfig(t *testing.T) {
	suite, err := filepath.Abs("../../checker/weaversuite/testdata")
	require.NoError(t, err)
	input := filepath.Join(suite, "otlp", "level_override.json")
	reg := []string{"--org-registry", filepath.Join(suite, "registries", "comprehensive")}

	tests := []struct {
		name   string
		toml   string // written to the parent of the working directory; "" none
		args   []string
		code   int
		stdout []string // substrings
		absent []string
		stderr string
	}{
		{name: "no config", args: []string{"--format", "weaver"}, code: exitFindings, stdout: []string{`"deprecated"`, `"not_stable"`, `"attribute_value": "foo"`}},
		{name: "fail_on from the file", toml: "[\"live-check\"]\nfail_on = \"none\"\n", args: []string{"--format", "weaver"}, code: exitClean},
		{name: "flag over file", toml: "[\"live-check\"]\nfail_on = \"none\"\n", args: []string{"--format", "weaver", "--fail-on", "violation"}, code: exitFindings},
		{name: "format json is Weaver's report", toml: "[\"live-check\"]\nformat = \"json\"\nno_stream = true\n", code: exitFindings, stdout: []string{`"statistics"`, `"samples"`}},
		{
			name: "exclude by id", toml: "[[\"live-check\".finding_filters]]\nexclude = [\"deprecated\"]\n",
			args: []string{"--format", "weaver"}, code: exitClean, stdout: []string{`"not_stable"`}, absent: []string{`"id": "deprecated"`},
		},
		{
			name: "exclude by id, text report", toml: "[[\"live-check\".finding_filters]]\nexclude = [\"deprecated\"]\n",
			code: exitClean, stdout: []string{"not_stable", "0 violation(s)"}, absent: []string{"  deprecated "},
		},
		{
			name: "override before min_level",
			toml: "[[\"live-check\".finding_level_overrides]]\nids = [\"undefined_enum_variant\"]\nlevel = \"violation\"\n" +
				"[[\"live-check\".finding_filters]]\nmin_level = \"violation\"\n",
			args: []string{"--format", "weaver", "--fail-on", "none"}, code: exitClean,
			stdout: []string{`"undefined_enum_variant"`, `"deprecated"`}, absent: []string{`"not_stable"`},
		},
		{
			name: "scoped by sample name glob",
			toml: "[[\"live-check\".finding_filters]]\nsample_names = [\"test.dep*\"]\nexclude = [\"not_stable\", \"undefined_enum_variant\"]\n",
			args: []string{"--format", "weaver"}, code: exitFindings,
			stdout: []string{`"undefined_enum_variant"`, `"deprecated"`}, absent: []string{`"not_stable"`},
		},
		{
			name: "exclude_samples", toml: "[[\"live-check\".finding_filters]]\nexclude_samples = [\"test.deprecated\"]\n",
			args: []string{"--format", "weaver"}, code: exitClean, stdout: []string{`"undefined_enum_variant"`}, absent: []string{`"deprecated"`, `"not_stable"`},
		},
		{
			name: "signal_type scope", toml: "[[\"live-check\".finding_filters]]\nsignal_type = \"span\"\nexclude = [\"deprecated\"]\n",
			args: []string{"--format", "weaver"}, code: exitFindings, stdout: []string{`"deprecated"`},
		},
		{
			name: "scoped rule in the text report", toml: "[[\"live-check\".finding_filters]]\nsignal_type = \"log\"\nexclude = [\"deprecated\"]\n",
			code: exitClean, stdout: []string{"not_stable", "0 violation(s)"}, absent: []string{"  deprecated "},
		},
		{
			name: "scoped rule in the json report", toml: "[[\"live-check\".finding_filters]]\nexclude_samples = [\"test.deprecated\"]\n",
			args: []string{"--format", "json"}, code: exitClean, stdout: []string{`"undefined_enum_variant"`}, absent: []string{`"deprecated"`, `"not_stable"`},
		},
		{
			name: "scoped override in the text report",
			toml: "[[\"live-check\".finding_level_overrides]]\nids = [\"deprecated\"]\nlevel = \"information\"\nsignal_type = \"log\"\nsample_names = [\"test.*\"]\n",
			code: exitClean, stdout: []string{"information  deprecated"},
		},
		{
			name: "--level-override over the file's override",
			toml: "[[\"live-check\".finding_level_overrides]]\nids = [\"deprecated\"]\nlevel = \"information\"\n",
			args: []string{"--level-override", "deprecated=violation"}, code: exitFindings, stdout: []string{"violation    deprecated"},
		},
		{name: "bad signal_type", toml: "[[\"live-check\".finding_filters]]\nsignal_type = \"trace\"\n", code: exitBad, stderr: `finding_filters[0].signal_type: unknown signal type "trace"`},
		{name: "unknown ID warned", toml: "[[\"live-check\".finding_filters]]\nexclude = [\"my_policy\"]\n", code: exitFindings, stderr: `finding_filters[0].exclude: "my_policy" is not a built-in finding ID and no advice policy runs`},
		{name: "unknown key", toml: "[\"live-check\"]\nfail_onn = \"none\"\n", code: exitBad, stderr: `.weaver.toml: ["live-check"]: unknown key fail_onn`},
		{name: "unknown filter key", toml: "[[\"live-check\".finding_filters]]\nexlude = [\"x\"]\n", code: exitBad, stderr: "unknown key finding_filters.exlude"},
		{name: "bad level", toml: "[[\"live-check\".finding_filters]]\nmin_level = \"high\"\n", code: exitBad, stderr: `finding_filters[0].min_level: invalid level "high"`},
		{name: "bad fail_on", toml: "[\"live-check\"]\nfail_on = \"always\"\n", code: exitBad, stderr: `fail_on: invalid level "always"`},
		{name: "override without level", toml: "[[\"live-check\".finding_level_overrides]]\nids = [\"deprecated\"]\n", code: exitBad, stderr: "finding_level_overrides[0].level: missing"},
		{name: "bad glob", toml: "[[\"live-check\".finding_filters]]\nsample_names = [\"a[b\"]\n", args: []string{"--format", "weaver"}, code: exitBad, stderr: `invalid sample name pattern "a[b"`},
		{name: "bad TOML", toml: "[\"live-check\"\nfail_on = 1\n", code: exitBad, stderr: ".weaver.toml:1:"},
		{name: "advice_policies read, relative to the file", toml: "[\"live-check\"]\nadvice_policies = \"policies\"\n", code: exitBad, stderr: `001/policies: no such file or directory`},
		{name: "other Weaver keys warned", toml: "[\"live-check\"]\nno_stats = true\n[\"live-check\".otlp]\ngrpc_port = 4317\n", code: exitFindings, stderr: "no_stats is read but not acted on"},
		{name: "[live_check] is not Weaver's section", toml: "[live_check]\nfail_on = \"none\"\n", code: exitFindings, stderr: `[live_check] is ignored (as Weaver ignores it)`},
		{name: "other sections left alone", toml: "[registry]\nfoo = 1\n[\"live-check\"]\nfail_on = \"none\"\n", code: exitClean},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			work := filepath.Join(root, "sub", "dir")
			require.NoError(t, os.MkdirAll(work, 0o750))
			if tc.toml != "" {
				require.NoError(t, os.WriteFile(filepath.Join(root, ".weaver.toml"), []byte(tc.toml), 0o600))
			}
			t.Chdir(work)
			var out, errb bytes.Buffer
			args := append(append(append([]string{"check"}, reg...), tc.args...), input)
			code := run(args, strings.NewReader(""), &out, &errb)
			assert.Equal(t, tc.code, code, "stderr: %s", errb.String())
			for _, s := range tc.stdout {
				assert.Contains(t, out.String(), s)
			}
			for _, s := range tc.absent {
				assert.NotContains(t, out.String(), s)
			}
			if tc.stderr != "" {
				assert.Contains(t, errb.String(), tc.stderr)
			}
		})
	}
}

// TestWeaverConfigFlag: --config names the file; it wins over the one
// found by walking up.
func TestWeaverConfigFlag(t *testing.T) {
	suite, err := filepath.Abs("../../checker/weaversuite/testdata")
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".weaver.toml"), []byte("[\"live-check\"]\nfail_on = \"violation\"\n"), 0o600))
	named := filepath.Join(dir, "ci.toml")
	require.NoError(t, os.WriteFile(named, []byte("[\"live-check\"]\nfail_on = \"none\"\nformat = \"jsonl\"\n"), 0o600))
	t.Chdir(dir)
	var out, errb bytes.Buffer
	code := run([]string{
		"check", "--config", named, "--org-registry", filepath.Join(suite, "registries", "comprehensive"),
		filepath.Join(suite, "otlp", "level_override.json"),
	}, strings.NewReader(""), &out, &errb)
	require.Equal(t, exitClean, code, errb.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 5, "jsonl: resource, scope, two logs, statistics")
	var stats map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[4]), &stats))
	assert.InDelta(t, 3, stats["total_advisories"], 0)

	code = run([]string{"check", "--config", filepath.Join(dir, "missing.toml"), "x"}, strings.NewReader(""), &out, &errb)
	assert.Equal(t, exitBad, code)
	assert.Contains(t, errb.String(), "missing.toml")
}

// FuzzWeaverConfig: any .weaver.toml is read or refused with an error
// naming the file, never a panic.
func FuzzWeaverConfig(f *testing.F) {
	for _, s := range []string{
		"",
		"[\"live-check\"]\nfail_on = \"none\"\nformat = \"json\"\n",
		"[[\"live-check\".finding_filters]]\nexclude = [\"deprecated\"]\nmin_level = \"improvement\"\nsample_names = [\"http.*\"]\n",
		"[[\"live-check\".finding_level_overrides]]\nids = [\"x\"]\nlevel = \"violation\"\nsignal_type = \"span\"\n",
		"[live_check]\nfail_on = 1\n",
		"\"live-check\" = 3\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sec, err := parseWeaverConfig("w.toml", []byte(s), io.Discard)
		if err != nil {
			if !strings.Contains(err.Error(), "w.toml") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		if _, err := findingrules.Compile(sec.FindingFilters, sec.FindingLevelOverrides); err != nil {
			t.Fatalf("rules read but not compiled: %v", err)
		}
	})
}

// TestV2Mode: --v2, or [registry] v2 in .weaver.toml (the flag wins), checks
// as Weaver's --v2: the legacy registry's definitions state no stability,
// which v2 reads as development (not_stable).
func TestV2Mode(t *testing.T) {
	suite, err := filepath.Abs("../../checker/weaversuite/testdata")
	require.NoError(t, err)
	input := filepath.Join(suite, "otlp", "legacy.json")
	reg := []string{"--org-registry", filepath.Join(suite, "registries", "legacy"), "--format", "weaver"}
	for _, tc := range []struct {
		name      string
		toml      string
		args      []string
		code      int
		notStable bool // not_stable reported
		stderr    string
	}{
		{name: "v1 by default", code: exitClean},
		{name: "--v2", args: []string{"--v2"}, code: exitClean, notStable: true},
		{name: "[registry] v2", toml: "[registry]\nv2 = true\npath = \"elsewhere\"\n", code: exitClean, notStable: true},
		{name: "--v2=false over the file", toml: "[registry]\nv2 = true\n", args: []string{"--v2=false"}, code: exitClean},
		{name: "bad v2", toml: "[registry]\nv2 = \"yes\"\n", code: exitBad, stderr: "[registry] v2 must be a boolean"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.toml != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, ".weaver.toml"), []byte(tc.toml), 0o600))
			}
			t.Chdir(dir)
			var out, errb bytes.Buffer
			code := run(append(append(append([]string{"check"}, reg...), tc.args...), input), strings.NewReader(""), &out, &errb)
			require.Equal(t, tc.code, code, errb.String())
			assert.Equal(t, tc.notStable, strings.Contains(out.String(), `"id": "not_stable"`), out.String())
			if tc.stderr != "" {
				assert.Contains(t, errb.String(), tc.stderr)
			}
		})
	}
}
