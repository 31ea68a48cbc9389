package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/otelgov/otelcol-governance/checker"
	"github.com/otelgov/otelcol-governance/findingrules"
)

// weaverConfigFile is the project configuration Weaver reads, found by
// walking up from the working directory (weaver_config, afa9700c).
const weaverConfigFile = ".weaver.toml"

// weaverSection is the section Weaver's live-check reads: the
// #[weaver_command(section = "live-check")] of src/registry/live_check.rs.
// The [live_check] of Weaver's README example is not read by Weaver.
const weaverSection = "live-check"

// liveCheckSection is Weaver's LiveCheckConfig
// (crates/weaver_config/src/live_check.rs): every key Weaver knows, so that
// a key Weaver does not know is an error here too.
type liveCheckSection struct {
	FindingFilters        []findingrules.Filter        `toml:"finding_filters"`
	FindingLevelOverrides []findingrules.LevelOverride `toml:"finding_level_overrides"`
	InputSource           *string                      `toml:"input_source"`
	InputFormat           *string                      `toml:"input_format"`
	Format                *string                      `toml:"format"`
	Templates             *string                      `toml:"templates"`
	NoStream              *bool                        `toml:"no_stream"`
	NoStats               *bool                        `toml:"no_stats"`
	FailOn                *string                      `toml:"fail_on"`
	Output                *string                      `toml:"output"`
	AdvicePolicies        *string                      `toml:"advice_policies"`
	AdviceData            *string                      `toml:"advice_data"`
	AdvicePreprocessor    *string                      `toml:"advice_preprocessor"`
	OTLP                  *map[string]any              `toml:"otlp"`
	Emit                  *map[string]any              `toml:"emit"`
	unsupported           []string                     // Weaver keys otelgov check does not act on
	warnings              []string
	unknownIDs            []string // warnings, unless advice policies may report the IDs
	// v2 is the [registry] section's v2 (Weaver's shared registry
	// configuration, crates/weaver_config/src/registry.rs); nil when unset.
	v2 *bool
}

// weaverConfig is check's --config and what it read.
type weaverConfig struct {
	path     string // --config
	noStream bool   // --no-stream
	found    string // the file read, "" when none
	section  *liveCheckSection
	// rules are --level-override, then the file's finding_level_overrides
	// and finding_filters (flags over file: the first override that
	// matches wins).
	rules *findingrules.Rules
}

func (c *weaverConfig) bind(fs *pflag.FlagSet) {
	fs.StringVar(&c.path, "config", "", `Weaver project configuration whose ["live-check"] section sets fail_on, format, no_stream, finding_filters, finding_level_overrides, advice_policies, advice_data and advice_preprocessor, and whose [registry] v2 sets --v2 (flags win over it; the rules apply in every --format and with --listen) (default: .weaver.toml found by walking up from the working directory, none if there is none)`)
	fs.BoolVar(&c.noStream, "no-stream", false, `with --format weaver: write Weaver's report shape (one {"statistics", "samples"} object) instead of one document per sample then the statistics`)
}

// findWeaverConfig walks up from dir to the first .weaver.toml.
func findWeaverConfig(dir string) string {
	for {
		p := filepath.Join(dir, weaverConfigFile)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// apply reads the configuration and sets what the flags left unset (flags
// over file over defaults, as Weaver), warning on stderr about the keys it
// does not act on.
func (c *weaverConfig) apply(cmd *cobra.Command, rep *reportFlags, eng *engineFlags) error {
	path := c.path
	if path == "" {
		wd, err := os.Getwd()
		if err != nil {
			return badInput(fmt.Errorf("finding %s: %w", weaverConfigFile, err))
		}
		path = findWeaverConfig(wd)
	}
	if path != "" {
		data, err := os.ReadFile(path) //nolint:gosec // the user names the file, or it is the project's
		if err != nil {
			return badInput(fmt.Errorf("--config: %w", err))
		}
		s, err := parseWeaverConfig(path, data, cmd.ErrOrStderr())
		if err != nil {
			return badInput(err)
		}
		c.found, c.section = path, s
	}
	s := c.section
	if s == nil {
		s = &liveCheckSection{}
	}
	fs := cmd.Flags()
	if s.FailOn != nil && !fs.Changed("fail-on") {
		rep.failOn = *s.FailOn
	}
	if s.Format != nil && !fs.Changed("format") {
		f, ok := weaverFormats[*s.Format]
		if !ok {
			fmt.Fprintf(cmd.ErrOrStderr(), "otelgov: warning: %s: [%q] format = %q: otelgov check has no such format, using %s\n", path, weaverSection, *s.Format, rep.format)
		} else {
			rep.format = f
		}
	}
	if s.NoStream != nil && !fs.Changed("no-stream") {
		c.noStream = *s.NoStream
	}
	if s.v2 != nil && !fs.Changed("v2") {
		eng.v2 = *s.v2
	}
	for _, k := range s.unsupported {
		fmt.Fprintf(cmd.ErrOrStderr(), "otelgov: warning: %s: [%q] %s is read but not acted on by otelgov check\n", path, weaverSection, k)
	}
	warnings := s.warnings
	if s.AdvicePolicies == nil && !fs.Changed("advice-policies") {
		// Otherwise a policy may report the ID.
		warnings = append(warnings, s.unknownIDs...)
	}
	for _, w := range warnings {
		fmt.Fprintf(cmd.ErrOrStderr(), "otelgov: warning: %s: [%q] %s\n", path, weaverSection, w)
	}
	flags, err := eng.levelOverrides()
	if err != nil {
		return err
	}
	// The file's rules compiled alone in validate: this cannot fail on them.
	r, err := findingrules.Compile(s.FindingFilters, append(flags, s.FindingLevelOverrides...))
	if err != nil {
		return badInput(fmt.Errorf("%s: [%q]: %w", path, weaverSection, err))
	}
	c.rules = r
	return nil
}

// weaverFormats maps Weaver's format values to check's: json and jsonl are
// Weaver's report; ansi (Weaver's default) is check's text.
var weaverFormats = map[string]string{
	"json": checker.FormatWeaver, "jsonl": checker.FormatWeaverLines, "ansi": checker.FormatText,
	checker.FormatWeaver: checker.FormatWeaver, checker.FormatText: checker.FormatText,
	checker.FormatJUnit: checker.FormatJUnit, checker.FormatMarkdown: checker.FormatMarkdown,
}

// parseWeaverConfig reads the ["live-check"] section of a .weaver.toml;
// other sections are other Weaver commands' and are left alone. A key
// Weaver does not know or a bad value is an error naming the file and key.
func parseWeaverConfig(path string, data []byte, stderr io.Writer) (*liveCheckSection, error) {
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col := de.Position()
			return nil, fmt.Errorf("%s:%d:%d: %s", path, line, col, de.Error())
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, ok := doc["live_check"]; ok {
		fmt.Fprintf(stderr, "otelgov: warning: %s: [live_check] is ignored (as Weaver ignores it): the section Weaver reads is [%q]\n", path, weaverSection)
	}
	v2, err := registryV2(path, doc)
	if err != nil {
		return nil, err
	}
	raw, ok := doc[weaverSection]
	if !ok {
		return &liveCheckSection{v2: v2}, nil
	}
	if _, ok := raw.(map[string]any); !ok {
		return nil, fmt.Errorf("%s: %q must be a table", path, weaverSection)
	}
	// Decode the section alone, strictly: re-encoded, it keeps its keys.
	sub, err := toml.Marshal(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: [%q]: %w", path, weaverSection, err)
	}
	var s liveCheckSection
	dec := toml.NewDecoder(bytes.NewReader(sub))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		var sm *toml.StrictMissingError
		if errors.As(err, &sm) {
			keys := make([]string, 0, len(sm.Errors))
			for i := range sm.Errors {
				keys = append(keys, strings.Join(sm.Errors[i].Key(), "."))
			}
			return nil, fmt.Errorf("%s: [%q]: unknown key %s (Weaver's live-check keys: finding_filters, finding_level_overrides, input_source, input_format, format, templates, no_stream, no_stats, fail_on, output, advice_policies, advice_data, advice_preprocessor, otlp, emit)", path, weaverSection, strings.Join(keys, ", "))
		}
		return nil, fmt.Errorf("%s: [%q]: %w", path, weaverSection, err)
	}
	if err := s.validate(); err != nil {
		return nil, fmt.Errorf("%s: [%q] %w", path, weaverSection, err)
	}
	s.v2 = v2
	return &s, nil
}

// registryV2 reads v2 from the [registry] section, which every Weaver
// command shares; its other keys name the registry, which otelgov check
// takes from its own flags, and are left alone.
func registryV2(path string, doc map[string]any) (*bool, error) {
	reg, ok := doc["registry"]
	if !ok {
		return nil, nil
	}
	t, ok := reg.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: registry must be a table", path)
	}
	v, ok := t["v2"]
	if !ok {
		return nil, nil
	}
	b, ok := v.(bool)
	if !ok {
		return nil, fmt.Errorf("%s: [registry] v2 must be a boolean, got %v", path, v)
	}
	return &b, nil
}

// validate checks the values and converts the rules.
func (s *liveCheckSection) validate() error {
	if s.FailOn != nil {
		if _, err := checker.ParseFailOn(*s.FailOn); err != nil {
			return fmt.Errorf("fail_on: %w", err)
		}
	}
	// An ID otelgov does not report may be a custom policy's (Weaver
	// takes any string): a warning, not an error.
	r, err := findingrules.Compile(s.FindingFilters, s.FindingLevelOverrides)
	if err != nil {
		return err
	}
	for _, u := range r.UnknownIDs() {
		s.unknownIDs = append(s.unknownIDs, fmt.Sprintf("%s is not a built-in finding ID and no advice policy runs: the rule never matches it", u))
	}
	for k, set := range map[string]bool{
		"input_source": s.InputSource != nil, "input_format": s.InputFormat != nil, "templates": s.Templates != nil,
		"no_stats": s.NoStats != nil, "output": s.Output != nil, "otlp": s.OTLP != nil, "emit": s.Emit != nil,
	} {
		if set {
			s.unsupported = append(s.unsupported, k)
		}
	}
	slices.Sort(s.unsupported)
	return nil
}
