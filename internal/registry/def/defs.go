package def

// This file holds the loaded, not yet resolved definitions. The loaders
// produce them, the generator writes them as Go literals into
// embedded_gen.go, and resolve turns them into an Index. Keeping the
// pre-resolution form in the binary means Default() runs exactly the same
// resolution as a fresh Load, which the tests compare.

// Attr is one attribute definition as written in a registry file.
type Attr struct {
	Key         string
	Type        Type
	Template    bool
	Stability   Stability
	EnumStrings []string
	EnumInts    []int64
	Deprecation Deprecation
	File        string // file that defined it (relative to the registry root for semconv)
	Line        int

	// DeprecatedMembers are the enum members marked deprecated (internal/registry/load/members.go).
	DeprecatedMembers []DeprecatedMember
}

// AttrRef is an attribute reference (`ref:`) seen in a group; after merging
// every ref must name a defined attribute.
type AttrRef struct {
	Key  string
	File string
	Line int
}

// Metric is one metric definition as written in a registry file.
type Metric struct {
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
	SectionAll        = "all"
	SectionResources  = "resources"
	SectionSpans      = "spans"
	SectionSpanEvents = "span_events"
	SectionMetrics    = "metrics"
	SectionLogs       = "logs"
)

// SchemaRename is one attribute_map entry of a schema file's rename_attributes.
type SchemaRename struct {
	Version string // schema version the change belongs to, e.g. "1.21.0"
	Section string // one of the section* constants
	From    string
	To      string
	Spans   []string // apply_to_spans (spans section only)
	Metrics []string // apply_to_metrics (metrics section only)
	Line    int
}

// MetricRename is one rename_metrics entry of a schema file.
type MetricRename struct {
	Version string
	From    string
	To      string
	Line    int
}

// Rule is one entry of a rules file: the context-aware renames of one key.
type Rule struct {
	Key string
	// ReplaceRegistry drops the registry's unconditional renamed_to for Key:
	// only the renames of this rule (and, for keys the registry then has no
	// verdict on, the schema files' scoped renames) apply.
	ReplaceRegistry bool
	Renames         []RuleRename
	File            string
	Line            int

	// Migration is the value migration of the rule (file_format
	// otelgov.rules/2); nil when the rule only renames.
	Migration *Migration
}

// RuleRename is one scoped target of a rule.
type RuleRename struct {
	To        string
	Locations []Location // empty: every location
	SpanKinds []SpanKind // empty: every span kind (and non-span locations)
	Metrics   []string   // empty: every metric
	Spans     []string   // empty: every span name
	Line      int
}

// Defs is everything loaded from a set of sources, before resolution.
type Defs struct {
	SchemaURL  string
	Attributes []Attr
	Refs       []AttrRef
	Metrics    []Metric
	// Groups are the model's groups with their attribute references and
	// requirement levels (group definitions).
	Groups        []Group
	SchemaRenames []SchemaRename
	MetricRenames []MetricRename
	// SchemaFile names the schema file the renames came from, for messages.
	SchemaFile string
	// Warnings are the inputs accepted with leniency, each "file:line: key:
	// message" (Weaver accepts them too): renamed_to next to a reason other
	// than renamed, which is ignored.
	Warnings []string
}

// Group types as written in the v1 model; v2 sections map onto them.
const (
	GroupAttributes = "attribute_group"
	GroupSpan       = "span"
	GroupMetric     = "metric"
	GroupEvent      = "event"
	GroupEntity     = "entity"
)

// Group is one group of the model: an attribute group, span, metric,
// event or entity, with its own attribute references and the groups it
// inherits from.
type Group struct {
	ID   string
	Type string // one of the group* constants; "" for other group types (none of the four kinds)
	// Name is the metric name, event name or entity name.
	Name string
	// Parents are inherited in order (v1 extends, v2 ref_group and
	// refinements' ref); the group's own Attrs win over inherited ones.
	Parents   []string
	SpanKind  SpanKind
	HasKind   bool
	Stability Stability
	// Deprecation is the group's own deprecation (an event, a metric, an
	// entity), as declared.
	Deprecation Deprecation
	// Entities are the group's entity_associations (metrics and events).
	Entities []EntityAssociation
	Attrs    []GroupAttr
	File     string
	Line     int
}

// EntityAssociation is one item of entity_associations: an entity named by
// Entity, or a group of associations of which one (OneOf) or all (AllOf)
// must be satisfied. Exactly one of the three is set.
type EntityAssociation struct {
	Entity string
	OneOf  []EntityAssociation
	AllOf  []EntityAssociation
}

// GroupAttr is one attribute of a group with its requirement level.
type GroupAttr struct {
	Key   string
	Level RequirementLevel
	// HasLevel: the reference states its level. A reference that does not
	// keeps the level it inherits (recommended when it inherits none).
	HasLevel bool
}

// Matcher is one span matcher of a rules file.
type Matcher struct {
	Span      string
	SpanKinds []SpanKind
	Present   []string
	Absent    []string
	File      string
	Line      int
}

// Migration is a rule's value migration as written.
type Migration struct {
	Line      int
	Values    []ValueEntry
	Convert   string
	ConvertTo string
	Split     *Split
	Merge     *Merge
	Move      string
	// lines of the fields, for messages
	ConvertLine, MoveLine int
}

type ValueEntry struct {
	From, To string
	Line     int
}

type Split struct {
	Separator string
	Into      []string
	Cases     []SplitCase
	Line      int
}

type SplitCase struct {
	Value string
	Set   []Assign
	Line  int
}

type Merge struct {
	To, Template string
	Line         int
}
