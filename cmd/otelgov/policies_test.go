package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A policy directory with a rule by name and a rule by value (docs/policies.md's
// worked example) and a span that breaks both.
const (
	policyByName = `package live_check_advice

import rego.v1

deny contains {
	"id": "acme_no_test_keys",
	"level": "violation",
	"message": sprintf("Attribute key '%s' must not contain 'test'", [input.sample.attribute.name]),
	"context": {"attribute_key": input.sample.attribute.name},
} if {
	input.sample.attribute
	contains(input.sample.attribute.name, "test")
}
`
	policyByValue = `package live_check_advice

import rego.v1

deny contains {"id": "acme_url_credentials", "level": "improvement", "message": "url.full carries credentials",
	"context": {"attribute_key": "url.full"}} if {
	input.sample.attribute.name == "url.full"
	regex.match(` + "`^[a-z]+://[^/@]+@`" + `, input.sample.attribute.value)
}
`
	policySpan = `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"shop"}}]},"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"GET /cart","kind":2,"attributes":[{"key":"url.full","value":{"stringValue":"https://bob:secret@shop.example/cart"}},{"key":"url.path","value":{"stringValue":"/cart"}}]},{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060709","name":"GET /ok","kind":2,"attributes":[{"key":"acme.test_run","value":{"stringValue":"42"}},{"key":"url.full","value":{"stringValue":"https://shop.example/ok"}}]}]}]}]}
`
)

// policyFixture writes the policies and the span; it returns the policy
// directory and the span file.
func policyFixture(t *testing.T) (dir, input string) {
	t.Helper()
	root := t.TempDir()
	dir = filepath.Join(root, "policies")
	require.NoError(t, os.MkdirAll(dir, 0o750))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "names.rego"), []byte(policyByName), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "values.rego"), []byte(policyByValue), 0o600))
	input = filepath.Join(root, "span.json")
	require.NoError(t, os.WriteFile(input, []byte(policySpan), 0o600))
	return dir, input
}

func TestCheckAdvicePolicies(t *testing.T) {
	dir, input := policyFixture(t)
	bad := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bad, "a.rego"), []byte("package live_check_advice\n\nimport rego.v1\n\ndeny contains x if {\n\tx := http.send({\"url\": \"http://x\"})\n}\n"), 0o600))

	tests := []struct {
		name      string
		args      []string
		code      int
		out, errs []string
		absent    []string
	}{
		{
			name: "both rules, with locations", args: []string{"--allow-prefixes", "acme."}, code: exitFindings,
			out: []string{
				"violation    acme_no_test_keys     1  acme.test_run (1)",
				`e.g. traces span "GET /ok": key acme.test_run at ` + input + ":1",
				"improvement  acme_url_credentials  1  url.full (1)",
				`e.g. traces span "GET /cart": key url.full at ` + input + ":1",
			},
		},
		{
			name: "fail-on above the policies' levels", args: []string{"--allow-prefixes", "acme.", "--level-override", "acme_no_test_keys=information"},
			code: exitClean, out: []string{"information  acme_no_test_keys", "improvement  acme_url_credentials"},
		},
		{
			name: "fail-on improvement", args: []string{"--allow-prefixes", "acme.", "--level-override", "acme_no_test_keys=information", "--fail-on", "improvement"},
			code: exitFindings, out: []string{"FAIL (--fail-on improvement)"},
		},
		{name: "junit", args: []string{"--format", "junit"}, code: exitFindings, out: []string{`acme_no_test_keys`, `acme_url_credentials`}},
		{name: "markdown", args: []string{"--format", "markdown"}, code: exitFindings, out: []string{"| :x: violation | `acme_no_test_keys` | 1 |", "| improvement | `acme_url_credentials` | 1 |"}},
		{name: "json", args: []string{"--format", "json"}, code: exitFindings, out: []string{`"acme_no_test_keys": 1`, `"acme_url_credentials": 1`}},
		{name: "weaver", args: []string{"--format", "weaver", "--no-stream"}, code: exitFindings, out: []string{`"id": "acme_no_test_keys"`, `"id": "acme_url_credentials"`}},
		{name: "no policies", args: nil, code: exitFindings, absent: []string{"acme_"}},
		{name: "does not compile", args: []string{"--advice-policies", bad}, code: exitBad, errs: []string{filepath.Join(bad, "a.rego") + ":6:7: undefined function http.send"}},
		{name: "missing directory", args: []string{"--advice-policies", filepath.Join(bad, "nope")}, code: exitBad, errs: []string{"--advice-policies"}},
		{name: "override of an unknown ID without policies", args: []string{"--advice-policies", "", "--level-override", "acme_x=violation"}, code: exitBad},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"check"}, tc.args...)
			if tc.name != "no policies" && !contains(tc.args, "--advice-policies") {
				args = append(args, "--advice-policies", dir)
			}
			code, out, errOut := otelgov(t, "", append(args, input)...)
			assert.Equal(t, tc.code, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
			for _, s := range tc.out {
				assert.Contains(t, out, s)
			}
			for _, s := range tc.errs {
				assert.Contains(t, errOut, s)
			}
			for _, s := range tc.absent {
				assert.NotContains(t, out, s)
			}
		})
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// .weaver.toml's advice_policies, relative to the file; the flag wins.
func TestCheckAdvicePoliciesConfig(t *testing.T) {
	dir, input := policyFixture(t)
	root := filepath.Dir(dir)
	require.NoError(t, os.WriteFile(filepath.Join(root, ".weaver.toml"), []byte("[\"live-check\"]\nadvice_policies = \"policies\"\n"), 0o600))
	work := filepath.Join(root, "sub")
	require.NoError(t, os.MkdirAll(work, 0o750))
	t.Chdir(work)
	code, out, errOut := otelgov(t, "", "check", input)
	assert.Equal(t, exitFindings, code, errOut)
	assert.Contains(t, out, "acme_no_test_keys")
	assert.Contains(t, out, "acme_url_credentials")

	other := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(other, "only.rego"), []byte(policyByName), 0o600))
	code, out, errOut = otelgov(t, "", "check", "--advice-policies", other, input)
	assert.Equal(t, exitFindings, code, errOut)
	assert.Contains(t, out, "acme_no_test_keys")
	assert.NotContains(t, out, "acme_url_credentials", "the flag wins over the file")
}

// .weaver.toml's finding_level_overrides relevel a policy's own ID, without
// the warning about IDs otelgov does not report.
func TestCheckAdvicePoliciesConfigOverride(t *testing.T) {
	dir, input := policyFixture(t)
	root := filepath.Dir(dir)
	toml := "[\"live-check\"]\nadvice_policies = \"policies\"\n[[\"live-check\".finding_level_overrides]]\nids = [\"acme_no_test_keys\"]\nlevel = \"information\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(root, ".weaver.toml"), []byte(toml), 0o600))
	t.Chdir(root)
	code, out, errOut := otelgov(t, "", "check", "--allow-prefixes", "acme.", input)
	assert.Equal(t, exitClean, code, "only an improvement is left\n%s\n%s", out, errOut)
	assert.Contains(t, out, "information  acme_no_test_keys")
	assert.NotContains(t, errOut, "is not one otelgov reports")
}
