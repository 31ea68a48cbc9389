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
		{"deprecated", []string{"check", fixtureDeprecated}, exitFindings, "deprecated         http.method"},
		{"clean", []string{"check", fixtureClean}, exitClean, "no findings"},
		{"fail-on none", []string{"check", "--fail-on", "none", fixtureDeprecated}, exitClean, "pass (--fail-on none)"},
		{"truncated", []string{"check", trunc}, exitBad, ""},
		{"missing file", []string{"check", "nope.jsonl"}, exitBad, ""},
		{"no input", []string{"check"}, exitBad, ""},
		{"bad format", []string{"check", "--format", "yaml", fixtureClean}, exitBad, ""},
		{"bad flag", []string{"check", "--nope"}, exitBad, ""},
		{"mutating mode without --listen", []string{"check", "--deprecated", "rename", fixtureClean}, exitBad, ""},
		{"bad mode", []string{"check", "--unknown", "burn", fixtureClean}, exitBad, ""},
		{"include-resources elsewhere", []string{"check", "--include-resources", "service.name=cart", fixtureDeprecated}, exitClean, "checked 5 request(s)"},
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
