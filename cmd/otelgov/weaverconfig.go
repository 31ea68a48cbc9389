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
	"github.com/otelgov/otelcol-governance/vocab"
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
	FindingFilters        []findingFilterTOML `toml:"finding_filters"`
	FindingLevelOverrides []levelOverrideTOML `toml:"finding_level_overrides"`
	InputSource           *string             `toml:"input_source"`
	InputFormat           *string             `toml:"input_format"`
	Format                *string             `toml:"format"`
	Templates             *string             `toml:"templates"`
	NoStream              *bool               `toml:"no_stream"`
	NoStats               *bool               `toml:"no_stats"`
	FailOn                *string             `toml:"fail_on"`
	Output                *string             `toml:"output"`
	AdvicePolicies        *string             `toml:"advice_policies"`
	AdviceData            *string             `toml:"advice_data"`
	AdvicePreprocessor    *string             `toml:"advice_preprocessor"`
	OTLP                  *map[string]any     `toml:"otlp"`
	Emit                  *map[string]any     `toml:"emit"`
	unsupported           []string            // Weaver keys otelgov check does not act on
	warnings              []string
	unknownIDs            []string // warnings, unless advice policies may report the IDs
	filters               []checker.FindingFilter
	overrides             []checker.FindingLevelOverride
}

type findingFilterTOML struct {
	Exclude        []string `toml:"exclude"`
	MinLevel       *string  `toml:"min_level"`
	SignalType     *string  `toml:"signal_type"`
	ExcludeSamples []string `toml:"exclude_samples"`
	SampleNames    []string `toml:"sample_names"`
}

type levelOverrideTOML struct {
	IDs         []string `toml:"ids"`
	Level       *string  `toml:"level"`
	SignalType  *string  `toml:"signal_type"`
	SampleNames []string `toml:"sample_names"`
}

// weaverConfig is check's --config and what it read.
type weaverConfig struct {
	path     string // --config
	noStream bool   // --no-stream
	found    string // the file read, "" when none
	section  *liveCheckSection
	modifier *checker.Modifier
}

func (c *weaverConfig) bind(fs *pflag.FlagSet) {
	fs.StringVar(&c.path, "config", "", `Weaver project configuration whose ["live-check"] section sets fail_on, format, no_stream, finding_filters and finding_level_overrides (flags win over it) (default: .weaver.toml found by walking up from the working directory, none if there is none)`)
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
func (c *weaverConfig) apply(cmd *cobra.Command, rep *reportFlags) error {
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
	m, err := checker.NewModifier(s.filters, s.overrides)
	if err != nil {
		return badInput(fmt.Errorf("%s: [%q]: %w", path, weaverSection, err))
	}
	c.modifier = m
	if m.Scoped() && !isWeaverFormat(rep.format) {
		return badInput(fmt.Errorf("%s: [%q] finding_filters or finding_level_overrides with signal_type, sample_names or exclude_samples need the per-sample report: use --format weaver (format = \"json\"); --format %s reports aggregates", path, weaverSection, rep.format))
	}
	return nil
}

// listenSupported refuses, with --listen, what only the file reading
// applies yet: the Weaver report and the .weaver.toml rules.
func (c *weaverConfig) listenSupported(listen bool, format string) error {
	if !listen {
		return nil
	}
	if isWeaverFormat(format) {
		return badInput(fmt.Errorf("--format %s (or format = \"json\"/\"jsonl\" in %s) is not supported with --listen yet", format, weaverConfigFile))
	}
	if c.modifier != nil {
		return badInput(fmt.Errorf("%s: finding_filters and finding_level_overrides are not applied by --listen yet; check a recording instead, or use --config naming a file without them", c.found))
	}
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
	raw, ok := doc[weaverSection]
	if !ok {
		return &liveCheckSection{}, nil
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
	return &s, nil
}

// validate checks the values and converts the rules.
func (s *liveCheckSection) validate() error {
	if s.FailOn != nil {
		if _, err := checker.ParseFailOn(*s.FailOn); err != nil {
			return fmt.Errorf("fail_on: %w", err)
		}
	}
	level := func(key, v string) (vocab.Level, error) {
		l, ok := vocab.ParseLevel(v)
		if !ok {
			return 0, fmt.Errorf("%s: invalid level %q: want violation, improvement or information", key, v)
		}
		return l, nil
	}
	// An ID otelgov does not report may be a custom policy's (Weaver
	// takes any string): a warning, not an error.
	ids := func(key string, list []string) error {
		for _, id := range list {
			if _, ok := vocab.ParseFinding(id); !ok {
				s.unknownIDs = append(s.unknownIDs, fmt.Sprintf("%s: finding ID %q is not one otelgov reports: the rule never matches", key, id))
			}
		}
		return nil
	}
	for i, f := range s.FindingFilters {
		key := fmt.Sprintf("finding_filters[%d]", i)
		out := checker.FindingFilter{Exclude: f.Exclude, ExcludeSamples: f.ExcludeSamples, SampleNames: f.SampleNames}
		if err := ids(key+".exclude", f.Exclude); err != nil {
			return err
		}
		if f.MinLevel != nil {
			l, err := level(key+".min_level", *f.MinLevel)
			if err != nil {
				return err
			}
			out.MinLevel = &l
		}
		if f.SignalType != nil {
			out.SignalType = *f.SignalType
		}
		s.filters = append(s.filters, out)
	}
	for i, o := range s.FindingLevelOverrides {
		key := fmt.Sprintf("finding_level_overrides[%d]", i)
		if o.Level == nil {
			return fmt.Errorf("%s.level: missing (required)", key)
		}
		l, err := level(key+".level", *o.Level)
		if err != nil {
			return err
		}
		if err := ids(key+".ids", o.IDs); err != nil {
			return err
		}
		out := checker.FindingLevelOverride{IDs: o.IDs, Level: l, SampleNames: o.SampleNames}
		if o.SignalType != nil {
			out.SignalType = *o.SignalType
		}
		s.overrides = append(s.overrides, out)
	}
	for k, set := range map[string]bool{
		"input_source": s.InputSource != nil, "input_format": s.InputFormat != nil, "templates": s.Templates != nil,
		"no_stats": s.NoStats != nil, "output": s.Output != nil, "advice_data": s.AdviceData != nil,
		"advice_preprocessor": s.AdvicePreprocessor != nil, "otlp": s.OTLP != nil, "emit": s.Emit != nil,
	} {
		if set {
			s.unsupported = append(s.unsupported, k)
		}
	}
	slices.Sort(s.unsupported)
	return nil
}
