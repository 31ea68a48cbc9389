package weaversuite

import (
	"fmt"

	"github.com/otelgov/otelcol-governance/checker"
	"github.com/otelgov/otelcol-governance/findingrules"
	"github.com/otelgov/otelcol-governance/vocab"
)

// FilterYAML is one of Weaver's [[live-check.finding_filters]], with its
// keys: findingrules.Filter's fields, in its order.
type FilterYAML struct {
	Exclude        []string `yaml:"exclude"`
	MinLevel       string   `yaml:"min_level"`
	ExcludeSamples []string `yaml:"exclude_samples"`
	SignalType     string   `yaml:"signal_type"`
	SampleNames    []string `yaml:"sample_names"`
}

// OverrideYAML is one of Weaver's [[live-check.finding_level_overrides]].
type OverrideYAML struct {
	IDs         []string `yaml:"ids"`
	Level       string   `yaml:"level"`
	SignalType  string   `yaml:"signal_type"`
	SampleNames []string `yaml:"sample_names"`
}

// rules compiles the case's finding_level_overrides, then its older
// level_overrides map, and its finding_filters.
func (c *Case) rules() (*findingrules.Rules, error) {
	var fs []findingrules.Filter
	for _, f := range c.FindingFilters {
		fs = append(fs, findingrules.Filter(f))
	}
	var os []findingrules.LevelOverride
	for _, o := range c.FindingLevelOverrides {
		os = append(os, findingrules.LevelOverride(o))
	}
	old, err := findingrules.OverridesOf("level_overrides", c.LevelOverrides)
	if err != nil {
		return nil, fmt.Errorf("case %s: %w", c.Name, err)
	}
	r, err := findingrules.Compile(fs, append(os, old...))
	if err != nil {
		return nil, fmt.Errorf("case %s: %w", c.Name, err)
	}
	return r, nil
}

// weaverFindings are the findings of a Weaver report, as the suite compares
// them: the name is the finding's context (attribute key, metric, event or
// span definition), the sample type where in the sample it was placed.
func weaverFindings(samples []*checker.WeaverSample) []Finding {
	var out []Finding
	add := func(sampleType vocab.SampleType, r *checker.WeaverResult) {
		if r == nil {
			return
		}
		for i := range r.AllAdvice {
			f := &r.AllAdvice[i]
			wf := Finding{ID: f.ID, Level: f.Level, SampleType: sampleType.String()}
			for subj := range vocab.NumSubjects {
				k := vocab.SubjectContextKey(subj).String()
				if v, ok := f.Context[k].(string); ok {
					wf.Name, wf.Subject = v, subj.String()
				}
			}
			if f.SignalType != nil {
				wf.SignalType = *f.SignalType
			}
			if f.SignalName != nil {
				wf.SignalName = *f.SignalName
			}
			if wf.Name == "" {
				// Weaver's context names no subject for some findings on a
				// signal (the candidate entities, an unsupported
				// instrument): the engine's name is the signal's.
				wf.Name = wf.SignalName
				wf.Subject = map[string]string{
					vocab.SignalMetric.String(): vocab.SubjectMetric.String(), vocab.SignalLog.String(): vocab.SubjectEvent.String(),
				}[wf.SignalType]
			}
			wf.Context, wf.Message = f.Context, f.Message
			out = append(out, wf)
		}
	}
	attrs := func(as []*checker.WeaverAttribute) {
		for _, a := range as {
			add(vocab.SampleAttribute, a.LiveCheckResult)
		}
	}
	for _, s := range samples {
		switch {
		case s.Resource != nil:
			attrs(s.Resource.Attributes)
			add(vocab.SampleResource, s.Resource.LiveCheckResult)
		case s.Span != nil:
			attrs(s.Span.Attributes)
			for _, e := range s.Span.SpanEvents {
				attrs(e.Attributes)
			}
			for _, l := range s.Span.SpanLinks {
				attrs(l.Attributes)
			}
			add(vocab.SampleSpan, s.Span.LiveCheckResult)
		case s.Metric != nil:
			for _, p := range s.Metric.DataPoints {
				attrs(p.Attributes)
				add(p.SampleType(), p.LiveCheckResult)
			}
			add(vocab.SampleMetric, s.Metric.LiveCheckResult)
		case s.Log != nil:
			attrs(s.Log.Attributes)
			add(vocab.SampleLog, s.Log.LiveCheckResult)
		}
	}
	return out
}
