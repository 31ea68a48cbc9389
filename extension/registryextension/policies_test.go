package registryextension

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelgov/otelcol-governance/policy"
)

// A policy by name; policyByNameV2 reports another ID.
const (
	policyByName = `package live_check_advice

import rego.v1

deny contains {"id": "acme_no_test_keys", "level": "violation", "message": "no test keys"} if {
	contains(input.sample.attribute.name, "test")
}
`
	policyByNameV2 = `package live_check_advice

import rego.v1

deny contains {"id": "acme_no_tmp_keys", "level": "violation", "message": "no tmp keys"} if {
	contains(input.sample.attribute.name, "tmp")
}
`
	// policyBroken calls a function that does not exist (line 6).
	policyBroken = `package live_check_advice

import rego.v1

deny contains x if {
	x := nope(input)
}
`
)

// ids evaluates the snapshot's policies on one attribute key.
func ids(t *testing.T, set *policy.Set, key string) []string {
	t.Helper()
	in := policy.Input{Sample: policy.Attribute(key, pcommon.NewValueStr("v"))}
	fs, err := set.Eval(t.Context(), &in)
	require.NoError(t, err)
	out := []string{}
	for _, f := range fs {
		out = append(out, f.ID)
	}
	return out
}

// The policies reload with the registry; a policy that does not compile
// fails the reload and the last good ones stay in force.
func TestPoliciesReload(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "names.rego")
	writeAtomic(t, file, policyByName)
	e, _ := startTestExtension(t, nil, func(cfg *Config) { cfg.Policies = []string{dir} })
	s := e.Current()
	require.NotNil(t, s.Policies)
	assert.Equal(t, []string{"acme_no_test_keys"}, ids(t, s.Policies, "acme.test"))

	writeAtomic(t, file, policyByNameV2)
	e.check()
	s = e.Current()
	assert.Equal(t, int64(2), s.Generation)
	assert.Empty(t, ids(t, s.Policies, "acme.test"))
	assert.Equal(t, []string{"acme_no_tmp_keys"}, ids(t, s.Policies, "acme.tmp"))

	writeAtomic(t, file, policyBroken)
	e.check()
	assert.Same(t, s, e.Current(), "the last good registry and policies stay")
	e.mu.Lock()
	lastErr := e.lastErr
	e.mu.Unlock()
	require.NotNil(t, lastErr)
	assert.Contains(t, lastErr.Error, file+":6:")

	writeAtomic(t, file, policyByName)
	e.check()
	assert.Equal(t, int64(3), e.Current().Generation)
	assert.Equal(t, []string{"acme_no_test_keys"}, ids(t, e.Current().Policies, "acme.test"))
}

// Validate (otelcol validate) rejects a policy that does not compile,
// naming its file and line.
func TestPoliciesValidate(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "broken.rego")
	writeAtomic(t, file, policyBroken)
	cfg := createDefaultConfig().(*Config)
	cfg.Policies = []string{dir}
	err := cfg.Validate()
	require.ErrorIs(t, err, errPolicy)
	assert.Contains(t, err.Error(), file+":6:")

	cfg.Policies = []string{filepath.Join(dir, "missing")}
	require.ErrorIs(t, cfg.Validate(), errRegistryPath)
}

// policyByData reports a key listed in data.acme.denied (advice data) or
// in data.denied_keys (the preprocessor's result).
const policyByData = `package live_check_advice

import rego.v1

deny contains {"id": "acme_denied_key", "level": "violation", "message": "denied by data"} if {
	input.sample.attribute.name in data.acme.denied
}

deny contains {"id": "acme_preprocessed_key", "level": "violation", "message": "denied by the preprocessor"} if {
	input.sample.attribute.name in data.denied_keys
}
`

// advice_data and advice_preprocessor reach the policies and reload with
// them: a changed data file or program is a new generation; one that does
// not load fails the reload, naming the key and file, and the last good
// policies stay.
func TestPoliciesAdviceInputsReload(t *testing.T) {
	dir, data := t.TempDir(), t.TempDir()
	writeAtomic(t, filepath.Join(dir, "data.rego"), policyByData)
	writeAtomic(t, filepath.Join(data, "acme.yaml"), "denied: [acme.one]\n")
	jq := filepath.Join(t.TempDir(), "keys.jq")
	writeAtomic(t, jq, `{denied_keys: ["acme.two"]}`)
	e, _ := startTestExtension(t, nil, func(cfg *Config) {
		cfg.Policies = []string{dir}
		cfg.AdviceData = filepath.Join(data, "*.yaml")
		cfg.AdvicePreprocessor = jq
	})
	s := e.Current()
	require.NotNil(t, s.Policies)
	assert.Equal(t, []string{"acme_denied_key"}, ids(t, s.Policies, "acme.one"))
	assert.Equal(t, []string{"acme_preprocessed_key"}, ids(t, s.Policies, "acme.two"))

	writeAtomic(t, filepath.Join(data, "acme.yaml"), "denied: [acme.three]\n")
	writeAtomic(t, jq, `{denied_keys: ["acme.one"]}`)
	e.check()
	s = e.Current()
	assert.Equal(t, int64(2), s.Generation)
	assert.Equal(t, []string{"acme_denied_key"}, ids(t, s.Policies, "acme.three"))
	assert.Equal(t, []string{"acme_preprocessed_key"}, ids(t, s.Policies, "acme.one"))
	assert.Empty(t, ids(t, s.Policies, "acme.two"))

	writeAtomic(t, jq, "{\n  denied_keys: .x |\n}")
	e.check()
	assert.Same(t, s, e.Current(), "the last good policies stay")
	e.mu.Lock()
	lastErr := e.lastErr
	e.mu.Unlock()
	require.NotNil(t, lastErr)
	assert.Contains(t, lastErr.Error, "advice_preprocessor: advice preprocessor: "+jq+":3:1:")
}

// Validate rejects advice data that does not parse and a preprocessor
// that does not compile, naming the key and the file's line:col, and
// either without policies.
func TestPoliciesAdviceInputsValidate(t *testing.T) {
	dir, data := t.TempDir(), t.TempDir()
	writeAtomic(t, filepath.Join(dir, "data.rego"), policyByData)
	writeAtomic(t, filepath.Join(data, "acme.json"), "{\n  \"denied\": [,]\n}")
	cfg := createDefaultConfig().(*Config)
	cfg.Policies = []string{dir}
	cfg.AdviceData = filepath.Join(data, "*.json")
	err := cfg.Validate()
	require.ErrorIs(t, err, policy.ErrData)
	require.ErrorContains(t, err, "advice_data: advice data does not load: "+filepath.Join(data, "acme.json")+":2:14: invalid JSON")

	cfg.AdviceData = ""
	cfg.AdvicePreprocessor = filepath.Join(data, "none.jq")
	require.ErrorIs(t, cfg.Validate(), policy.ErrPreprocessor)

	cfg.Policies = nil
	cfg.AdvicePreprocessor = ""
	cfg.AdviceData = filepath.Join(data, "*.json")
	err = cfg.Validate()
	require.ErrorIs(t, err, policy.ErrNeedsPolicies)
	assert.ErrorContains(t, err, "advice_data: needs policies: set policies")
}
