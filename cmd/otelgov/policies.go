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

// policyFlags are check's advice policies: Weaver's --advice-policies and
// .weaver.toml's advice_policies (flags over file).
type policyFlags struct {
	dirs []string
}

func (p *policyFlags) bind(fs *pflag.FlagSet) {
	fs.StringArrayVar(&p.dirs, "advice-policies", nil, `directory of Rego advice policies (Weaver's package live_check_advice, *.rego, not recursive) run on every sample next to the built-in findings; their findings carry the policies' own IDs (repeatable; .weaver.toml's advice_policies, relative to that file; default: none)`)
}

// fromConfig takes .weaver.toml's advice_policies unless the flag is set.
func (p *policyFlags) fromConfig(cmd *cobra.Command, path string, s *liveCheckSection) {
	if s == nil || s.AdvicePolicies == nil || cmd.Flags().Changed("advice-policies") {
		return
	}
	dir := *s.AdvicePolicies
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(path), dir)
	}
	p.dirs = []string{dir}
}

// advisor compiles the policies against ix: nil without policies, exit 2
// naming file:line when one does not compile. otelgov has no evaluation
// budget: every sample is evaluated, so that a check is reproducible.
func (p *policyFlags) advisor(ix *registry.Index) (*policy.Advisor, error) {
	if len(p.dirs) == 0 {
		return nil, nil
	}
	s, err := policy.LoadDirs(ix, policy.Options{}, p.dirs...)
	if err != nil {
		return nil, badInput(fmt.Errorf("--advice-policies: %w", err))
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
