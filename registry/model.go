// Package registry loads the OpenTelemetry semantic conventions, their schema
// files, an organisation's own Weaver registry and declarative context rules,
// resolves them, and indexes the result into one immutable Index that the
// governance processor queries on its hot path without allocating.
//
// The package holds the public model (this file, enums.go, group.go,
// migration.go, attribute.go) and the Index (index.go and its tables), which
// consumers code against, plus Load and the resolver that builds the Index
// (load.go, resolve*.go, build.go, digest.go). Reading files is
// internal/registry/load's job, into the definitions of
// internal/registry/def; cmd/registrygen writes the embedded default
// (embedded_gen.go) from a semantic-conventions checkout.
package registry // import "github.com/otelgov/otelcol-governance/registry"

// Context is what a rename may depend on. It is passed by value on the hot path.
type Context struct {
	Location Location
	// SpanKind is set for span, span-event and span-link attributes.
	SpanKind SpanKind
	// MetricName is set for data-point attributes.
	MetricName string
	// SpanName is the span's name for span, span-event and span-link
	// attributes. Only renames scoped with apply_to_spans (schema files) or
	// spans: (rules files) read it; leave it empty when unknown, and such
	// renames then do not apply.
	SpanName string
}

// Attribute is one resolved registry entry. Treat it as read-only.
type Attribute struct {
	Key       string
	Type      Type
	Template  bool // template[...] type: Key is a prefix matched on a '.' boundary
	Stability Stability
	// EnumStrings / EnumInts hold enum member values; both nil for non-enums.
	EnumStrings []string
	EnumInts    []int64
	// DeprecatedMembers are the enum members the model marks deprecated,
	// with the value each is renamed to (see CurrentMember).
	DeprecatedMembers []DeprecatedMember
	// Migration is the value migration a rules file declares for this key
	// (values, convert, split, merge, move); nil for almost every key.
	Migration   *Migration
	Deprecation Deprecation
	// Source is the file that defined the attribute ("" for the embedded default).
	Source string
	// Placeholder is true for keys that no registry defines but that carry
	// scoped renames from a schema file or a rules file, such as `direction`
	// (renamed to disk.io.direction only on the process.disk.io metric).
	// Lookup returns them so that Target can be evaluated; apart from their
	// renames they are unknown: Type is TypeUnknown, Stability unspecified,
	// Deprecation zero, and the processor must treat them as unknown keys
	// wherever Target returns nil.
	Placeholder bool

	rename renameSet // resolved per-context rename targets
	// ordinal is the entry's position in the Index, the key of the group
	// definitions' position tables; matchBit is its bit in span matchers
	// plus one (0: no matcher names it).
	ordinal  int32
	matchBit uint8
	ref      Ref // this entry's Ref in its Index
}

// Metric is one resolved metric definition.
type Metric struct {
	Name        string
	Instrument  string // counter, updowncounter, histogram, gauge
	Unit        string
	Stability   Stability
	Deprecation Deprecation
	// RenamedTo is the collapsed current name, or "" when not renamed.
	RenamedTo string
	// Source is the file that defined the metric ("" for the embedded default
	// and for placeholders).
	Source string
	// Placeholder is true for old metric names that no registry defines but
	// that a schema file renames (rename_metrics). Only RenamedTo is set.
	Placeholder bool
}
