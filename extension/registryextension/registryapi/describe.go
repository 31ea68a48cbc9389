package registryapi

import (
	"slices"

	"github.com/otelgov/otelcol-governance/registry"
)

// Describe is what the registry ix (of generation generation) says about
// one attribute key: the body of the extension's GET
// /registry/attributes/{key} and of otelgov explain. metricName and spanName
// select renames scoped to a metric or a span name ("" for none).
func Describe(ix *registry.Index, generation int64, key, metricName, spanName string) AttributeInfo {
	out := AttributeInfo{Key: key, Generation: generation, CurrentNames: []ContextName{}}
	a := ix.Lookup(key)
	if a == nil {
		return out
	}
	out.Known = !a.Placeholder
	out.Entry = a.Key
	out.Template = a.Template
	out.Placeholder = a.Placeholder
	out.Source = a.Source
	if !a.Placeholder {
		out.Type = a.Type.String()
		out.Stability = a.Stability.String()
		out.EnumStrings = slices.Clone(a.EnumStrings)
		out.EnumInts = slices.Clone(a.EnumInts)
	}
	out.DeprecatedMembers = deprecatedMembers(a)
	out.ValueMigration = valueMigration(a)
	if a.Deprecation.Reason != registry.NotDeprecated {
		out.Deprecated = &Deprecation{
			Reason:    a.Deprecation.Reason.String(),
			RenamedTo: a.Deprecation.RenamedTo,
			Note:      a.Deprecation.Note,
		}
	}
	for _, c := range a.CurrentNames(key, metricName, spanName) {
		cn := ContextName{
			Location: c.Context.Location.String(), MetricName: c.Context.MetricName,
			SpanName: c.Context.SpanName, Name: c.Name, Renamed: c.Renamed,
		}
		if c.ByKind {
			cn.SpanKind = c.Context.SpanKind.String()
		}
		out.CurrentNames = append(out.CurrentNames, cn)
	}
	return out
}

// MetricInfo is what the registry says about one metric name.
type MetricInfo struct {
	Name  string `json:"name"`
	Known bool   `json:"known"` // some registry defines the metric
	// Placeholder: only known as the old name of a schema-file rename.
	Placeholder bool         `json:"placeholder"`
	Instrument  string       `json:"instrument,omitempty"`
	Unit        string       `json:"unit,omitempty"`
	Stability   string       `json:"stability,omitempty"`
	Deprecated  *Deprecation `json:"deprecated,omitempty"`
	// RenamedTo is the current name after following renames; "" when not
	// renamed.
	RenamedTo string `json:"renamed_to,omitempty"`
	Source    string `json:"source,omitempty"`
}

// DescribeMetric is what ix says about a metric name; ok is false when no
// registry knows the name.
func DescribeMetric(ix *registry.Index, name string) (MetricInfo, bool) {
	out := MetricInfo{Name: name}
	m := ix.Metric(name)
	if m == nil {
		return out, false
	}
	out.Known = !m.Placeholder
	out.Placeholder = m.Placeholder
	out.RenamedTo = m.RenamedTo
	out.Source = m.Source
	if !m.Placeholder {
		out.Instrument = m.Instrument
		out.Unit = m.Unit
		out.Stability = m.Stability.String()
	}
	if m.Deprecation.Reason != registry.NotDeprecated {
		out.Deprecated = &Deprecation{
			Reason:    m.Deprecation.Reason.String(),
			RenamedTo: m.Deprecation.RenamedTo,
			Note:      m.Deprecation.Note,
		}
	}
	return out, true
}
