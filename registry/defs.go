package registry

// This file holds the loaded, not yet resolved definitions. The loaders
// produce them, the generator writes them as Go literals into
// embedded_gen.go, and resolve turns them into an Index. Keeping the
// pre-resolution form in the binary means Default() runs exactly the same
// resolution as a fresh Load, which the tests compare.

// attrDef is one attribute definition as written in a registry file.
type attrDef struct {
	Key         string
	Type        Type
	Template    bool
	Stability   Stability
	EnumStrings []string
	EnumInts    []int64
	Deprecation Deprecation
	File        string // file that defined it (relative to the registry root for semconv)
	Line        int

	// DeprecatedMembers are the enum members marked deprecated (load_members.go).
	DeprecatedMembers []DeprecatedMember
}

// attrRef is an attribute reference (`ref:`) seen in a group; after merging
// every ref must name a defined attribute.
type attrRef struct {
	Key  string
	File string
	Line int
}

// metricDef is one metric definition as written in a registry file.
type metricDef struct {
	Name        string
	Instrument  string
	Unit        string
	Stability   Stability
	Deprecation Deprecation
	File        string
	Line        int
}

// Schema-file sections, as named in file_format 1.1.0.
const (
	sectionAll        = "all"
	sectionResources  = "resources"
	sectionSpans      = "spans"
	sectionSpanEvents = "span_events"
	sectionMetrics    = "metrics"
	sectionLogs       = "logs"
)

// schemaRename is one attribute_map entry of a schema file's rename_attributes.
type schemaRename struct {
	Version string // schema version the change belongs to, e.g. "1.21.0"
	Section string // one of the section* constants
	From    string
	To      string
	Spans   []string // apply_to_spans (spans section only)
	Metrics []string // apply_to_metrics (metrics section only)
	Line    int
}

// metricRename is one rename_metrics entry of a schema file.
type metricRename struct {
	Version string
	From    string
	To      string
	Line    int
}

// ruleDef is one entry of a rules file: the context-aware renames of one key.
type ruleDef struct {
	Key string
	// ReplaceRegistry drops the registry's unconditional renamed_to for Key:
	// only the renames of this rule (and, for keys the registry then has no
	// verdict on, the schema files' scoped renames) apply.
	ReplaceRegistry bool
	Renames         []ruleRename
	File            string
	Line            int

	// Migration is the value migration of the rule (file_format
	// otelgov.rules/2, values.go); nil when the rule only renames.
	Migration *migrationDef
}

// ruleRename is one scoped target of a rule.
type ruleRename struct {
	To        string
	Locations []Location // empty: every location
	SpanKinds []SpanKind // empty: every span kind (and non-span locations)
	Metrics   []string   // empty: every metric
	Spans     []string   // empty: every span name
	Line      int
}

// defs is everything loaded from a set of sources, before resolution.
type defs struct {
	SchemaURL  string
	Attributes []attrDef
	Refs       []attrRef
	Metrics    []metricDef
	// Groups are the model's groups with their attribute references and
	// requirement levels (group definitions).
	Groups        []groupDef
	SchemaRenames []schemaRename
	MetricRenames []metricRename
	// SchemaFile names the schema file the renames came from, for messages.
	SchemaFile string
}
