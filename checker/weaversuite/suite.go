// Package weaversuite holds the Weaver conformance suite: the expectations
// that open-telemetry/weaver's live-check tests assert (the live checker's
// tests, the advisors' unit tests, the samples under its data/ directory,
// the finding modifier's tests and the CLI's --fail-on tests), translated
// into OTLP input, registries and expected findings, and a runner that puts
// them through the same engine and checker that otelgov check uses.
//
// testdata/suite.yaml lists the cases and the Weaver tests left out, with
// the reason; testdata/README.md says where each file comes from.
package weaversuite // import "github.com/otelgov/otelcol-governance/checker/weaversuite"

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/checker"
	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/otlpfile"
	"github.com/otelgov/otelcol-governance/policy"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// Suite is testdata/suite.yaml.
type Suite struct {
	// Weaver is the repository and commit the expectations were read from.
	Weaver struct {
		Repository string `yaml:"repository"`
		Commit     string `yaml:"commit"`
	} `yaml:"weaver"`
	Cases      []Case      `yaml:"cases"`
	Exclusions []Exclusion `yaml:"exclusions"`
}

// Case is one input checked against one registry, with what Weaver reports.
type Case struct {
	Name string `yaml:"name"`
	// WeaverTest is the Weaver test (file::function) or sample it comes from.
	WeaverTest string `yaml:"weaver_test"`
	// Registry is a directory under testdata/registries, or "embedded"
	// (semantic conventions v1.44.0 as shipped).
	Registry string `yaml:"registry"`
	// Input is an OTLP JSON file under testdata/otlp.
	Input string `yaml:"input"`
	// V2 runs the case in Weaver's v2 mode (--v2, engine.Options.V2).
	V2 bool `yaml:"v2"`
	// Profile is the findings profile the case runs under; empty: weaver.
	Profile string `yaml:"profile"`
	// LevelOverrides are finding ID -> level, as findings::level_overrides.
	LevelOverrides map[string]string `yaml:"level_overrides"`
	// FailOn maps a --fail-on threshold to whether the check must fail.
	FailOn map[string]bool `yaml:"fail_on"`
	// FindingFilters and FindingLevelOverrides are the .weaver.toml rules
	// of the case (Weaver's keys), applied by the engine: the recorder,
	// the checker and the Weaver report all see them.
	FindingFilters        []FilterYAML   `yaml:"finding_filters"`
	FindingLevelOverrides []OverrideYAML `yaml:"finding_level_overrides"`
	// AdvicePolicies, AdviceData and AdvicePreprocessor are Weaver's
	// --advice-policies (a directory), --advice-data (a glob pattern) and
	// --advice-preprocessor (a jq file), relative to testdata: the
	// policies run next to the built-in findings, as in otelgov check.
	AdvicePolicies     string `yaml:"advice_policies"`
	AdviceData         string `yaml:"advice_data"`
	AdvicePreprocessor string `yaml:"advice_preprocessor"`
	// Note says how the Weaver test was translated, where that is not plain.
	Note   string        `yaml:"note"`
	Expect []Expectation `yaml:"expect"`
}

// Expectation is a count of findings: those matching every selector that is
// set must number exactly Count.
type Expectation struct {
	ID         string `yaml:"id"`
	Level      string `yaml:"level"`
	Name       string `yaml:"name"` // attribute key, metric or event name the finding is about
	SignalType string `yaml:"signal_type"`
	SignalName string `yaml:"signal_name"`
	SampleType string `yaml:"sample_type"`
	Count      int    `yaml:"count"`
	// Source, when set, says that the expectation is read from Weaver's
	// source (file:line) rather than asserted by a test.
	Source string `yaml:"source"`
	// Pending, when set, is why the engine does not meet the expectation
	// yet. A pending expectation that passes fails the suite, so that the
	// list stays true.
	Pending string `yaml:"pending"`
}

// Exclusion is a Weaver test that has no translation, with the reason.
type Exclusion struct {
	WeaverTest string `yaml:"weaver_test"`
	// Expectations is how many assertions of the test are left out.
	Expectations int    `yaml:"expectations"`
	Reason       string `yaml:"reason"`
}

// Finding is one finding the engine reported, as the suite compares it.
type Finding struct {
	ID, Level, Subject, Name, SignalType, SignalName, SampleType string
}

// Result is what a case produced.
type Result struct {
	Findings []Finding
	// Check is the checker's result over the same input: what otelgov
	// check renders and gates on.
	Check checker.Result
	// Weaver are the findings of otelgov check --format weaver's report
	// over the same input, after the case's rules.
	Weaver []Finding
	// WeaverFails is the Weaver report's --fail-on verdict.
	WeaverFails func(checker.FailOn) bool
}

// Load reads suite.yaml from dir.
func Load(dir string) (*Suite, error) {
	data, err := os.ReadFile(filepath.Join(dir, "suite.yaml"))
	if err != nil {
		return nil, err
	}
	var s Suite
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("suite.yaml: %w", err)
	}
	return &s, nil
}

// String names an expectation in test output.
func (e *Expectation) String() string {
	var b strings.Builder
	add := func(k, v string) {
		if v != "" {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(k + "=" + v)
		}
	}
	add("id", e.ID)
	add("level", e.Level)
	add("name", e.Name)
	add("signal_type", e.SignalType)
	add("signal_name", e.SignalName)
	add("sample_type", e.SampleType)
	if b.Len() == 0 {
		b.WriteString("all")
	}
	fmt.Fprintf(&b, " count=%d", e.Count)
	return b.String()
}

// Matches reports whether f matches every selector of e.
func (e *Expectation) Matches(f *Finding) bool {
	return sel(e.ID, f.ID) && sel(e.Level, f.Level) && sel(e.Name, f.Name) &&
		sel(e.SignalType, f.SignalType) && sel(e.SignalName, f.SignalName) && sel(e.SampleType, f.SampleType)
}

// sel matches one selector; a selector with '*' is a glob ("entity_*").
func sel(want, got string) bool {
	if want == "" || want == got {
		return true
	}
	if strings.Contains(want, "*") {
		ok, err := path.Match(want, got)
		return err == nil && ok
	}
	return false
}

// CountIn is how many of fs match e.
func (e *Expectation) CountIn(fs []Finding) int {
	n := 0
	for i := range fs {
		if e.Matches(&fs[i]) {
			n++
		}
	}
	return n
}

// Options are the engine options of a case: read-only, findings on, the
// case's level overrides and profile.
func (c *Case) Options() (engine.Options, error) {
	o := engine.Options{
		Deprecated:    engine.DeprecatedOff,
		Unknown:       engine.UnknownKeep,
		TypeMismatch:  engine.TypeMismatchKeep,
		EnumViolation: engine.EnumViolationKeep,
		Findings:      true,
		V2:            c.V2,
	}
	r, err := c.rules()
	if err != nil {
		return o, err
	}
	o.Rules = r
	p, err := parseProfile(c.Profile)
	if err != nil {
		return o, fmt.Errorf("case %s: %w", c.Name, err)
	}
	setProfile(&o, p)
	return o, nil
}

// Run checks the case's input against its registry.
func (c *Case) Run(dir string) (*Result, error) {
	ix, err := c.registry(dir)
	if err != nil {
		return nil, err
	}
	opts, err := c.Options()
	if err != nil {
		return nil, err
	}
	if opts.Advisor, err = c.advisor(dir, ix); err != nil {
		return nil, err
	}
	rec := &recorder{}
	eo := opts
	eo.Sink = rec
	e := engine.New(eo)
	ch := checker.New(ix, checker.Options{Engine: opts})
	ww := checker.NewWeaverWriter(io.Discard, ix, checker.WeaverOptions{Engine: opts, Report: true})
	err = c.records(dir, func(r *otlpfile.Record, where string) {
		w := e.Walker(ix, true)
		switch r.Kind {
		case vocab.KindTraces:
			w.Traces(r.Traces)
			ch.Traces(r.Traces, where)
			ww.Traces(r.Traces)
		case vocab.KindMetrics:
			w.Metrics(r.Metrics)
			ch.Metrics(r.Metrics, where)
			ww.Metrics(r.Metrics)
		case vocab.KindLogs:
			w.Logs(r.Logs)
			ch.Logs(r.Logs, where)
			ww.Logs(r.Logs)
		case vocab.KindUnknown, vocab.NumKinds:
		}
		e.Release(w)
	})
	if err != nil {
		return nil, err
	}
	if err := ww.Close(); err != nil {
		return nil, err
	}
	return &Result{
		Findings: rec.findings, Check: ch.Result(),
		Weaver: weaverFindings(ww.Samples()), WeaverFails: ww.Fails,
	}, nil
}

// advisor compiles the case's advice policies with their data, as
// otelgov check does (no budget); nil without policies.
func (c *Case) advisor(dir string, ix *registry.Index) (engine.Advisor, error) {
	rel := func(p string) string {
		if p == "" {
			return ""
		}
		return filepath.Join(dir, p)
	}
	src := policy.Sources{Data: rel(c.AdviceData), Preprocessor: rel(c.AdvicePreprocessor)}
	if c.AdvicePolicies != "" {
		src.Dirs = []string{rel(c.AdvicePolicies)}
	}
	set, err := src.Load(ix, policy.Options{})
	if err != nil || set == nil {
		if err != nil {
			err = fmt.Errorf("case %s: %w", c.Name, err)
		}
		return nil, err
	}
	return policy.NewAdvisor(set, policy.AdvisorOptions{}), nil
}

func (c *Case) registry(dir string) (*registry.Index, error) {
	if c.Registry == "embedded" {
		return registry.Default()
	}
	if c.Registry == "" {
		return nil, fmt.Errorf("case %s: no registry", c.Name)
	}
	return registry.Load(registry.Sources{OrgRegistries: []string{filepath.Join(dir, "registries", c.Registry)}})
}

func (c *Case) records(dir string, fn func(*otlpfile.Record, string)) error {
	name := filepath.Join(dir, "otlp", c.Input)
	f, err := os.Open(name) //nolint:gosec // test data named by suite.yaml
	if err != nil {
		return fmt.Errorf("case %s: %w", c.Name, err)
	}
	defer func() { _ = f.Close() }()
	r, err := otlpfile.NewReader(f, otlpfile.Options{Name: name})
	if err != nil {
		return err
	}
	defer func() { _ = r.Close() }()
	n := 0
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		n++
		fn(&rec, fmt.Sprintf("%s:%d", c.Input, rec.Line))
	}
	if n == 0 {
		return fmt.Errorf("case %s: %s holds no OTLP request", c.Name, name)
	}
	return nil
}

// recorder is a FindingSink that keeps every finding.
type recorder struct{ findings []Finding }

func (r *recorder) Emit(ev *engine.FindingEvent) bool {
	id := ev.ID
	if id == "" {
		id = ev.Finding.String()
	}
	r.findings = append(r.findings, Finding{
		ID: strings.Clone(id), Level: ev.Level.String(), Subject: ev.Subject.String(),
		Name: strings.Clone(ev.Name), SignalType: ev.SignalType, SignalName: strings.Clone(ev.SignalName),
		SampleType: ev.SampleType,
	})
	return true
}
