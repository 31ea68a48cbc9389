package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/findingrules"
	"github.com/otelgov/otelcol-governance/policy"
	"github.com/otelgov/otelcol-governance/registry"
)

// policyFlags are check's advice policies and their data: Weaver's
// --advice-policies, --advice-data and --advice-preprocessor, and
// .weaver.toml's advice_policies, advice_data and advice_preprocessor
// (flags over file).
type policyFlags struct {
	dirs         []string
	data         string
	preprocessor string
	// dataKey and preKey name where data and preprocessor came from, for
	// errors: the flag, or the .weaver.toml key.
	dataKey, preKey string
}

func (p *policyFlags) bind(fs *pflag.FlagSet) {
	fs.StringArrayVar(&p.dirs, "advice-policies", nil, `directory of Rego advice policies (Weaver's package live_check_advice, *.rego, not recursive) run on every sample next to the built-in findings; their findings carry the policies' own IDs (repeatable; .weaver.toml's advice_policies, relative to that file; default: none)`)
	fs.StringVar(&p.data, "advice-data", "", `glob pattern of JSON/YAML files loaded into the policies' data, each nested by its path relative to the pattern's base directory (schemas/**/*.json puts schemas/user.json at data.user; other extensions are skipped), added before the preprocessor's result; needs --advice-policies (.weaver.toml's advice_data, relative to that file; default: none)`)
	fs.StringVar(&p.preprocessor, "advice-preprocessor", "", `jq program that derives the policies' data from Weaver's live-checker document (registry, semconv_attributes, semconv_templates, semconv_metrics, semconv_events) instead of Weaver's default preprocessor; needs --advice-policies (.weaver.toml's advice_preprocessor, relative to that file; default: Weaver's default data)`)
}

// fromConfig takes .weaver.toml's advice_policies, advice_data and
// advice_preprocessor, relative to the file, unless their flag is set.
func (p *policyFlags) fromConfig(cmd *cobra.Command, path string, s *liveCheckSection) {
	if s == nil {
		return
	}
	rel := func(flag string, v *string, dst *string) bool {
		if v == nil || cmd.Flags().Changed(flag) {
			return false
		}
		*dst = *v
		if !filepath.IsAbs(*dst) {
			*dst = filepath.Join(filepath.Dir(path), *dst)
		}
		return true
	}
	if s.AdvicePolicies != nil && !cmd.Flags().Changed("advice-policies") {
		var dir string
		rel("advice-policies", s.AdvicePolicies, &dir)
		p.dirs = []string{dir}
	}
	if rel("advice-data", s.AdviceData, &p.data) {
		p.dataKey = fmt.Sprintf("%s: [%q] advice_data", path, weaverSection)
	}
	if rel("advice-preprocessor", s.AdvicePreprocessor, &p.preprocessor) {
		p.preKey = fmt.Sprintf("%s: [%q] advice_preprocessor", path, weaverSection)
	}
}

// sources are the policies and their data, each named by its flag or
// .weaver.toml key in errors.
func (p *policyFlags) sources() *policy.Sources {
	return &policy.Sources{
		Dirs: p.dirs, Data: p.data, Preprocessor: p.preprocessor,
		Keys: [3]string{"--advice-policies", p.key(p.dataKey, "--advice-data"), p.key(p.preKey, "--advice-preprocessor")},
	}
}

// key is k, or flag when the value came from the flag.
func (p *policyFlags) key(k, flag string) string {
	if k == "" {
		return flag
	}
	return k
}

// advisor compiles the policies against ix: nil without policies, exit 2
// naming the flag or key and the file:line when a policy does not compile,
// the data does not read or the preprocessor fails, or when there is data
// or a preprocessor without policies (the built-in findings are Go, not
// Rego: nothing would read them). otelgov has no evaluation budget: every
// sample is evaluated, so that a check is reproducible.
func (p *policyFlags) advisor(ix *registry.Index) (*policy.Advisor, error) {
	s, err := p.sources().Load(ix, policy.Options{})
	if err != nil {
		return nil, badInput(err)
	}
	if s == nil {
		return nil, nil
	}
	return policy.NewAdvisor(s, policy.AdvisorOptions{}), nil
}

// setAdvisor sets a non-nil advisor as the engine's.
func setAdvisor(eo *engine.Options, a *policy.Advisor) {
	if a != nil {
		eo.Advisor = a
	}
}

// reportPolicyErrors writes the policies' evaluation errors (the first
// policy.MaxAdvisorErrors) and their count to w. They do not change the
// exit code: the findings of the policies that ran are reported.
func reportPolicyErrors(w io.Writer, a *policy.Advisor) {
	if a == nil {
		return
	}
	st := a.Stats()
	dropped := a.Set().Stats().Dropped
	if st.Errors == 0 && dropped == 0 {
		return
	}
	for _, err := range a.Errors() {
		fmt.Fprintf(w, "otelgov: warning: advice policy: %v\n", err)
	}
	fmt.Fprintf(w, "otelgov: warning: advice policies: %d evaluation error(s) (%d time-out(s)), %d finding(s) beyond %d per sample dropped\n",
		st.Errors, st.Timeouts, dropped, policy.MaxFindingsPerSample)
}

// checkOverrides refuses a --level-override of an ID that is not built in
// when no advice policy runs: only a policy could report it (a typo).
func (p *policyFlags) checkOverrides(overrides []string) error {
	if len(p.dirs) > 0 {
		return nil
	}
	for _, kv := range overrides {
		if id, _, _ := strings.Cut(kv, "="); findingrules.PolicyID(id) {
			return badInput(fmt.Errorf("--level-override: unknown finding ID %q (not Weaver's, and no --advice-policies)", id))
		}
	}
	return nil
}
