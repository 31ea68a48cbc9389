package registryapi // import "github.com/otelgov/otelcol-governance/extension/registryextension/registryapi"

import "time"

// The JSON documents served by the governance_registry extension's HTTP
// endpoint. The extension's README documents them field by field; these
// structs are the machine-readable form, for clients and tests.

// RegistryInfo is the body of GET /registry.
type RegistryInfo struct {
	SchemaURL  string    `json:"schema_url"`
	Digest     string    `json:"digest"`     // hex SHA-256 of the resolved content
	Generation int64     `json:"generation"` // successful loads: 1 at start, +1 per successful reload
	LoadedAt   time.Time `json:"loaded_at"`  // when the registry in force was loaded
	Sources    Sources   `json:"sources"`
	// PollInterval is the reload poll interval ("0s": reloading is off).
	PollInterval string         `json:"poll_interval"`
	Counts       RegistryCounts `json:"counts"`
	// LastCheck is when the files were last checked for a change.
	LastCheck time.Time `json:"last_check"`
	// LastReloadError is set while the files on disk do not load and the
	// registry of Generation stays in force; cleared by the next good load.
	LastReloadError *ReloadError `json:"last_reload_error,omitempty"`
	// Status is the extension's component status as the collector last
	// delivered it to status watchers.
	Status *ComponentStatus `json:"status,omitempty"`
	// Candidate is the shadow registry (the candidate section); absent
	// without one.
	Candidate *CandidateInfo `json:"candidate,omitempty"`
}

// CandidateInfo is the candidate registry and how it compares with the
// registry in force (see Shadow).
type CandidateInfo struct {
	Sources Sources `json:"sources"`
	// Generation counts the candidate's successful loads (0: none yet).
	Generation int64 `json:"generation"`
	// ActiveGeneration is the generation of the registry in force it was
	// compared with.
	ActiveGeneration int64  `json:"active_generation"`
	SchemaURL        string `json:"schema_url,omitempty"`
	Digest           string `json:"digest,omitempty"`
	// Error is why the latest candidate did not load; the shadow evaluates
	// nothing while it is set.
	Error string `json:"error,omitempty"`
}

// Sources are the configured registry inputs.
type Sources struct {
	Embedded bool `json:"embedded"`
	// SemconvDir replaces the embedded semantic conventions when set.
	SemconvDir    string   `json:"semconv_dir,omitempty"`
	OrgRegistries []string `json:"org_registries"`
	RulesFiles    []string `json:"rules_files"`
	// Policies are the advice policy directories, compiled with the
	// registry in force.
	Policies []string `json:"policies"`
}

// RegistryCounts are the counts of the registry in force.
type RegistryCounts struct {
	Attributes        int `json:"attributes"` // defined attributes, templates included
	Templates         int `json:"templates"`
	Enums             int `json:"enums"`
	Placeholders      int `json:"placeholders"` // keys only known for their scoped renames
	Deprecated        int `json:"deprecated"`   // deprecated attributes, any reason
	Renames           int `json:"renames"`      // keys with a rename target in some context
	ContextualRenames int `json:"contextual_renames"`
	ManyToOneTargets  int `json:"many_to_one_targets"`
	Metrics           int `json:"metrics"`
	MetricRenames     int `json:"metric_renames"`
	Rules             int `json:"rules"`
	Disagreements     int `json:"disagreements"`
	DeprecatedMembers int `json:"deprecated_members"` // deprecated enum members
	ValueMigrations   int `json:"value_migrations"`   // keys with a rules-file value migration
}

// ReloadError describes the last failed reload.
type ReloadError struct {
	At time.Time `json:"at"`
	// Error names the file, line and key where the registry reports them.
	Error string `json:"error"`
	// Files are the watched files whose content changed since the last
	// good load (the likely culprits).
	Files []string `json:"files"`
}

// ComponentStatus is one component status event.
type ComponentStatus struct {
	Status string    `json:"status"` // e.g. StatusOK, StatusRecoverableError
	Error  string    `json:"error,omitempty"`
	At     time.Time `json:"at"`
}

// AttributeInfo is the body of GET /registry/attributes/{key}.
type AttributeInfo struct {
	Key        string `json:"key"`        // the key asked about
	Generation int64  `json:"generation"` // of the registry that answered
	// Known: some registry defines the key or a template covering it.
	Known bool `json:"known"`
	// Entry is the registry entry that matched: the key itself, or the
	// template it falls under; "" when nothing matched.
	Entry       string       `json:"entry,omitempty"`
	Template    bool         `json:"template"`
	Placeholder bool         `json:"placeholder"` // only known for scoped renames
	Type        string       `json:"type,omitempty"`
	Stability   string       `json:"stability,omitempty"`
	EnumStrings []string     `json:"enum_strings,omitempty"`
	EnumInts    []int64      `json:"enum_ints,omitempty"`
	Deprecated  *Deprecation `json:"deprecated,omitempty"`
	// DeprecatedMembers are the enum members the model marks deprecated,
	// each with the value it is renamed to (cloud.platform azure_vm ->
	// azure.vm).
	DeprecatedMembers []DeprecatedMember `json:"deprecated_members,omitempty"`
	// ValueMigration names the rules file's value migration of the key.
	ValueMigration *ValueMigration `json:"value_migration,omitempty"`
	Source         string          `json:"source,omitempty"` // defining file; "" for the embedded semconv
	// CurrentNames is the key's name after renaming, per context.
	CurrentNames []ContextName `json:"current_names"`
}

// Deprecation as declared in the registry.
type Deprecation struct {
	Reason    string `json:"reason"` // renamed, obsoleted, uncategorized, unspecified
	RenamedTo string `json:"renamed_to,omitempty"`
	Note      string `json:"note,omitempty"`
}

// DeprecatedMember is one deprecated enum member.
type DeprecatedMember struct {
	Value     string `json:"value"`
	Reason    string `json:"reason"`               // renamed, obsoleted, uncategorized, unspecified
	RenamedTo string `json:"renamed_to,omitempty"` // the current member's value
	Note      string `json:"note,omitempty"`
}

// ValueMigration is the value migration a rules file declares for a key.
type ValueMigration struct {
	// Operation: values, convert, split, merge or move.
	Operation string `json:"operation"`
	// Values is the value map (int keys in decimal) of a values operation.
	Values map[string]string `json:"values,omitempty"`
	// Convert is the target type of a conversion.
	Convert string `json:"convert,omitempty"`
	// Targets are the keys a split or merge writes, or the field a move
	// fills (event_name).
	Targets []string `json:"targets,omitempty"`
	// Where is the rule's file:line.
	Where string `json:"where"`
}

// ContextName is a key's current name in one context.
type ContextName struct {
	Location string `json:"location"`
	// SpanKind is set when the name depends on the span kind.
	SpanKind string `json:"span_kind,omitempty"`
	// MetricName / SpanName echo the ?metric= / ?span_name= query, which
	// selects renames scoped to a metric or span name.
	MetricName string `json:"metric_name,omitempty"`
	SpanName   string `json:"span_name,omitempty"`
	Name       string `json:"name"`
	Renamed    bool   `json:"renamed"`
}
