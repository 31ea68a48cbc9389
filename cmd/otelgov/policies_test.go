package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// The policy of Weaver's README "Loading Additional Rego Data"
// (crates/weaver_live_check/README.md at afa9700c): a user.id that is not
// in data.user.allowed_ids, which --advice-data "schemas/**/*.json" loads
// from schemas/user.json.
const (
	policyAllowedIDs = `package live_check_advice

import rego.v1

deny contains {"id": "invalid_user_id", "level": "violation", "message": "not allowed",
	"context": {"attribute_key": attr.name, "attribute_value": attr.value}} if {
	attr := input.sample.attribute
	attr.name == "user.id"
	not attr.value in data.user.allowed_ids
}
`
	userSpan = `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"shop"}}]},"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"GET /cart","kind":2,"attributes":[{"key":"user.id","value":{"stringValue":"%s"}}]}]}]}]}
`
)

// adviceFixture writes the README's policy and data and a span whose
// user.id is id; it returns the root, the policy directory and the span.
func adviceFixture(t *testing.T, id string) (root, dir, input string) {
	t.Helper()
	root = t.TempDir()
	dir = filepath.Join(root, "policies")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "schemas"), 0o750))
	require.NoError(t, os.MkdirAll(dir, 0o750))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ids.rego"), []byte(policyAllowedIDs), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(root, "schemas", "user.json"), []byte(`{"allowed_ids": ["usr_123", "usr_456"]}`), 0o600))
	input = filepath.Join(root, "span.json")
	require.NoError(t, os.WriteFile(input, []byte(fmt.Sprintf(userSpan, id)), 0o600))
	return root, dir, input
}

// --advice-data and --advice-preprocessor, as flags and as .weaver.toml
// keys relative to the file (flags win); their errors are exit 2 naming
// the flag or key and the file.
func TestCheckAdviceData(t *testing.T) {
	root, dir, allowed := adviceFixture(t, "usr_123")
	_, _, denied := adviceFixture(t, "usr_999")
	data := filepath.Join(root, "schemas", "**", "*.json")
	jq := filepath.Join(root, "user.jq")
	require.NoError(t, os.WriteFile(jq, []byte("{user: {allowed_ids: [\"usr_999\"]}}\n"), 0o600))
	failJQ := filepath.Join(root, "fail.jq")
	require.NoError(t, os.WriteFile(failJQ, []byte(".semconv_attributes[\"user.id\"] | error(\"no \" + .name)\n"), 0o600))
	badJQ := filepath.Join(root, "bad.jq")
	require.NoError(t, os.WriteFile(badJQ, []byte("{\n  user: .x |\n}\n"), 0o600))
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		found bool
		errs  []string
	}{
		{name: "allowed with data", args: []string{"--advice-policies", dir, "--advice-data", data, allowed}, code: exitClean},
		{name: "denied with data", args: []string{"--advice-policies", dir, "--advice-data", data, denied}, code: exitFindings, found: true},
		{name: "preprocessor's list", args: []string{"--advice-policies", dir, "--advice-preprocessor", jq, denied}, code: exitClean},
		{name: "data and preprocessor conflict", args: []string{"--advice-policies", dir, "--advice-data", data, "--advice-preprocessor", jq, denied}, code: exitBad, errs: []string{"--advice-data: ", "data.user set twice"}},
		{name: "preprocessor does not compile", args: []string{"--advice-policies", dir, "--advice-preprocessor", badJQ, denied}, code: exitBad, errs: []string{"--advice-preprocessor: advice preprocessor: " + badJQ + ":3:1: unexpected token"}},
		{name: "preprocessor fails on the registry", args: []string{"--advice-policies", dir, "--advice-preprocessor", failJQ, denied}, code: exitBad, errs: []string{"--advice-preprocessor: advice preprocessor: " + failJQ + ": error: no user.id"}},
		{name: "missing data", args: []string{"--advice-policies", dir, "--advice-data", filepath.Join(root, "nope", "*.json"), denied}, code: exitBad, errs: []string{"--advice-data: ", "nope"}},
		{name: "data without policies", args: []string{"--advice-data", data, denied}, code: exitBad, errs: []string{"--advice-data: needs policies: set --advice-policies"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := otelgov(t, "", append([]string{"check", "--fail-on", "violation", "--allow-prefixes", "user."}, tc.args...)...)
			assert.Equal(t, tc.code, code, "%s\n%s", out, errOut)
			assert.Equal(t, tc.found, strings.Contains(out, "invalid_user_id"), out)
			for _, e := range tc.errs {
				assert.Contains(t, errOut, e)
			}
		})
	}

	toml := "[\"live-check\"]\nadvice_policies = \"policies\"\nadvice_data = \"schemas/**/*.json\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(root, ".weaver.toml"), []byte(toml), 0o600))
	t.Chdir(t.TempDir())
	code, out, errOut := otelgov(t, "", "check", "--config", filepath.Join(root, ".weaver.toml"), "--fail-on", "violation", "--allow-prefixes", "user.", denied)
	assert.Equal(t, exitFindings, code, errOut)
	assert.Contains(t, out, "invalid_user_id")
	assert.NotContains(t, errOut, "advice_data is read but not acted on")
	code, _, errOut = otelgov(t, "", "check", "--config", filepath.Join(root, ".weaver.toml"), "--advice-preprocessor", jq, "--fail-on", "violation", "--allow-prefixes", "user.", denied)
	assert.Equal(t, exitBad, code, "the file's data and the flag's preprocessor both set data.user")
	assert.Contains(t, errOut, `.weaver.toml: ["live-check"] advice_data: `)

	toml = "[\"live-check\"]\nadvice_preprocessor = \"bad.jq\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(root, ".weaver.toml"), []byte(toml), 0o600))
	code, _, errOut = otelgov(t, "", "check", "--config", filepath.Join(root, ".weaver.toml"), "--advice-policies", dir, denied)
	assert.Equal(t, exitBad, code)
	assert.Contains(t, errOut, `.weaver.toml: ["live-check"] advice_preprocessor: advice preprocessor: `+badJQ+":3:1:")
}
