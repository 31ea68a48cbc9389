package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	fixtureDeprecated = "../../e2e/testdata/otelgov/recorded-deprecated.jsonl"
	fixtureClean      = "../../e2e/testdata/otelgov/recorded-clean.jsonl"
)

func otelgov(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestCheckExitCodes(t *testing.T) {
	trunc := filepath.Join(t.TempDir(), "trunc.jsonl")
	b, err := os.ReadFile(fixtureDeprecated)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(trunc, b[:len(b)-100], 0o600)) //nolint:gosec // a path under t.TempDir()

	tests := []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"deprecated", []string{"check", fixtureDeprecated}, exitFindings, "violation    deprecated"},
		{"clean", []string{"check", fixtureClean}, exitClean, "pass (--fail-on violation): 0 violation(s)"},
		{"clean fails on improvement", []string{"check", "--fail-on", "improvement", fixtureClean}, exitFindings, "improvement  not_stable"},
		{"bad fail-on", []string{"check", "--fail-on", "error", fixtureClean}, exitBad, ""},
		{"level overrides", []string{
			"check", "--level-override", "deprecated=information",
			"--level-override", "required_attribute_not_present=improvement", fixtureDeprecated,
		}, exitClean, "information  deprecated"},
		{"profile extended", []string{"check", "--fail-on", "none", "--profile", "extended", fixtureDeprecated}, exitClean, "unexpected_attribute"},
		{"bad profile", []string{"check", "--profile", "weaverish", fixtureClean}, exitBad, ""},
		{"level override unknown id", []string{"check", "--level-override", "not_in_registry=violation", fixtureClean}, exitBad, ""},
		{"level override bad level", []string{"check", "--level-override", "deprecated=error", fixtureClean}, exitBad, ""},
		{"level override no level", []string{"check", "--level-override", "deprecated", fixtureClean}, exitBad, ""},
		{"fail-on none", []string{"check", "--fail-on", "none", fixtureDeprecated}, exitClean, "pass (--fail-on none)"},
		{"truncated", []string{"check", trunc}, exitBad, ""},
		{"missing file", []string{"check", "nope.jsonl"}, exitBad, ""},
		{"no input", []string{"check"}, exitBad, ""},
		{"bad format", []string{"check", "--format", "yaml", fixtureClean}, exitBad, ""},
		{"bad flag", []string{"check", "--nope"}, exitBad, ""},
		{"mutating mode without --listen", []string{"check", "--deprecated", "rename", fixtureClean}, exitBad, ""},
		{"bad mode", []string{"check", "--unknown", "burn", fixtureClean}, exitBad, ""},
		{"include-resources elsewhere", []string{"check", "--include-resources", "service.name=cart", fixtureDeprecated}, exitClean, "0 violation(s), 0 improvement(s), 0 information finding ID(s) in 0 service(s)"},
		{"include-resources match", []string{"check", "--include-resources", "service.name=cart,checkout", fixtureDeprecated}, exitFindings, "http.method"},
		{"include-resources bad", []string{"check", "--include-resources", "service.name", fixtureDeprecated}, exitBad, ""},
		{"explain", []string{"explain", "http.method"}, exitClean, "renamed to http.request.method"},
		{"explain unknown", []string{"explain", "acme.nothing"}, exitFindings, "no registry defines"},
		{"explain prometheus label", []string{"explain", "http_method"}, exitClean, "http_method is the Prometheus form of the deprecated attribute http.method\n  current Prometheus name: http_request_method"},
		{"explain prometheus series", []string{"explain", "http_server_duration_milliseconds_bucket"}, exitClean, "current Prometheus name: http_server_request_duration_seconds_bucket"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := otelgov(t, "", tt.args...)
			assert.Equal(t, tt.code, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
			assert.Contains(t, out, tt.out)
			if tt.code == exitBad {
				assert.NotEmpty(t, errOut)
			}
		})
	}
}

// The text report: per service, per finding ID with its level, count and
// top names, then the engine's example locations with file:line.
func TestCheckText(t *testing.T) {
	code, out, _ := otelgov(t, "", "check", fixtureDeprecated)
	require.Equal(t, exitFindings, code, out)
	assert.Regexp(t, `(?m)^checkout$`, out)
	assert.Regexp(t, `violation +deprecated +\d+ +http.method \(\d+\)`, out)
	assert.Contains(t, out, `e.g. traces span "op": key http.method at `+fixtureDeprecated+":1")
	assert.Contains(t, out, "FAIL (--fail-on violation)")
}

func TestRootHelp(t *testing.T) {
	code, out, _ := otelgov(t, "", "--help")
	require.Equal(t, exitClean, code)
	assert.Contains(t, out, "Weaver live-check's finding IDs")
	assert.Contains(t, out, "otelgov check --fail-on violation")
}

func TestCheckHelp(t *testing.T) {
	code, out, _ := otelgov(t, "", "check", "--help")
	require.Equal(t, exitClean, code)
	for _, s := range []string{"violation", "improvement", "information", "--fail-on improvement", "--level-override", "missing_attribute"} {
		assert.Contains(t, out, s)
	}
}

func TestCheckStdinAndTruncatedLocation(t *testing.T) {
	b, err := os.ReadFile(fixtureDeprecated)
	require.NoError(t, err)
	code, _, errOut := otelgov(t, string(b[:len(b)-100]), "check", "-")
	assert.Equal(t, exitBad, code)
	assert.Contains(t, errOut, "-:5 (byte ")
	assert.Contains(t, errOut, "truncated input")
}

func TestFixThenCheck(t *testing.T) {
	out := filepath.Join(t.TempDir(), "fixed.jsonl")
	code, _, errOut := otelgov(t, "", "fix", fixtureDeprecated, out)
	require.Equal(t, exitClean, code, errOut)
	assert.Contains(t, errOut, "5 request(s)")
	code, stdout, _ := otelgov(t, "", "check", out)
	assert.Equal(t, exitClean, code, stdout)

	code, _, errOut = otelgov(t, "", "fix", out, out)
	assert.Equal(t, exitBad, code)
	assert.Contains(t, errOut, "same file")
}
