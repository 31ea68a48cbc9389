package policy

import (
	"errors"
	"fmt"

	"github.com/otelgov/otelcol-governance/registry"
)

// Config keys of Sources, as the collector's components name them (after
// Weaver's .weaver.toml keys advice_policies, advice_data and
// advice_preprocessor).
const (
	KeyPolicies     = "policies"
	KeyData         = "advice_data"
	KeyPreprocessor = "advice_preprocessor"
)

// ErrNeedsPolicies: advice data or a preprocessor without policies, which
// nothing would read (the built-in findings are not Rego).
var ErrNeedsPolicies = errors.New("needs policies")

// Sources are a Set's policies and their data as a component configures
// them: policy directories, Weaver's advice data (a glob pattern, "" for
// none) and a jq preprocessor (a file, "" for Weaver's default data).
// Errors name the key: Keys, by default KeyPolicies, KeyData and
// KeyPreprocessor.
type Sources struct {
	Dirs         []string
	Data         string
	Preprocessor string
	// Keys name Dirs, Data and Preprocessor in errors (a command's flags);
	// an empty name is the component's key.
	Keys [3]string
}

// key is the name of source i (0 policies, 1 data, 2 preprocessor).
func (s *Sources) key(i int) string {
	if s.Keys[i] != "" {
		return s.Keys[i]
	}
	return [...]string{KeyPolicies, KeyData, KeyPreprocessor}[i]
}

// Check validates the sources without a registry, for a component's
// Validate: the policies compile, the data files read and parse, the
// preprocessor compiles.
func (s *Sources) Check() error {
	if len(s.Dirs) == 0 {
		return s.needsPolicies()
	}
	var errs []error
	if err := Check(s.Dirs...); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", s.key(0), err))
	}
	_, _, err := s.inputs()
	return errors.Join(append(errs, err)...)
}

func (s *Sources) needsPolicies() error {
	var errs []error
	if s.Data != "" {
		errs = append(errs, fmt.Errorf("%s: %w: set %s (the built-in findings do not read the policies' data)", s.key(1), ErrNeedsPolicies, s.key(0)))
	}
	if s.Preprocessor != "" {
		errs = append(errs, fmt.Errorf("%s: %w: set %s (the built-in findings do not read the policies' data)", s.key(2), ErrNeedsPolicies, s.key(0)))
	}
	return errors.Join(errs...)
}

// inputs reads the data and compiles the preprocessor.
func (s *Sources) inputs() (map[string]any, *Preprocessor, error) {
	var data map[string]any
	var pre *Preprocessor
	var errs []error
	if s.Data != "" {
		d, err := ReadData(s.Data)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.key(1), err))
		}
		data = d
	}
	if s.Preprocessor != "" {
		p, err := LoadPreprocessor(s.Preprocessor)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.key(2), err))
		}
		pre = p
	}
	return data, pre, errors.Join(errs...)
}

// Load reads the sources and compiles the policies against ix with opts
// (whose Data and Preprocessor it sets); nil without policies.
func (s *Sources) Load(ix *registry.Index, opts Options) (*Set, error) {
	if len(s.Dirs) == 0 {
		return nil, s.needsPolicies()
	}
	data, pre, err := s.inputs()
	if err != nil {
		return nil, err
	}
	opts.Data, opts.Preprocessor = data, pre
	set, err := LoadDirs(ix, opts, s.Dirs...)
	if err != nil {
		i := 0
		switch {
		case errors.Is(err, ErrPreprocessor):
			i = 2
		case errors.Is(err, ErrDataConflict):
			i = 1
		}
		return nil, fmt.Errorf("%s: %w", s.key(i), err)
	}
	return set, nil
}

// Watched are the paths whose content the sources are read from: what a
// reload fingerprints.
func (s *Sources) Watched() []string {
	out := append([]string(nil), s.Dirs...)
	if s.Data != "" {
		out = append(out, DataRoot(s.Data))
	}
	if s.Preprocessor != "" {
		out = append(out, s.Preprocessor)
	}
	return out
}
