package registry

import (
	"github.com/otelgov/otelcol-governance/internal/registry/def"
	"github.com/otelgov/otelcol-governance/internal/registry/load"
)

// The enums of the model and the definitions they share with the loaders.
// They are defined in internal/registry/def, which the loaders build on
// without importing this package; these names are the public ones, and
// each enum has String() (the name files use).
type (
	// Location says where an attribute map sits in the telemetry. Context
	// rules and schema-file sections are scoped by it.
	Location = def.Location
	// SpanKind mirrors ptrace.SpanKind numbering, so a caller converts with a cast.
	SpanKind = def.SpanKind
	// Type is an attribute's declared value type.
	Type = def.Type
	// Stability of a definition.
	Stability = def.Stability
	// DeprecationReason mirrors the Weaver model's deprecated.reason.
	DeprecationReason = def.DeprecationReason
	// Deprecation as written in the model.
	Deprecation = def.Deprecation
	// EntityAssociation is one item of a group's entity_associations.
	EntityAssociation = def.EntityAssociation
	// DeprecatedMember is one enum member the model marks deprecated, with
	// the value it is renamed to (see Attribute.CurrentMember).
	DeprecatedMember = def.DeprecatedMember
	// RequirementLevel of an attribute in a group.
	RequirementLevel = def.RequirementLevel
	// Field is a field of a telemetry item that a move can fill.
	Field = def.Field
	// Assign is one attribute a split case sets.
	Assign = def.Assign
)

// Location values.
const (
	LocationResource  = def.LocationResource
	LocationScope     = def.LocationScope
	LocationSpan      = def.LocationSpan
	LocationSpanEvent = def.LocationSpanEvent
	LocationSpanLink  = def.LocationSpanLink
	LocationDataPoint = def.LocationDataPoint
	LocationLog       = def.LocationLog
)

// SpanKind values.
const (
	SpanKindUnspecified = def.SpanKindUnspecified
	SpanKindInternal    = def.SpanKindInternal
	SpanKindServer      = def.SpanKindServer
	SpanKindClient      = def.SpanKindClient
	SpanKindProducer    = def.SpanKindProducer
	SpanKindConsumer    = def.SpanKindConsumer
)

// Type values.
const (
	TypeUnknown      = def.TypeUnknown
	TypeString       = def.TypeString
	TypeInt          = def.TypeInt
	TypeDouble       = def.TypeDouble
	TypeBoolean      = def.TypeBoolean
	TypeStringArray  = def.TypeStringArray
	TypeIntArray     = def.TypeIntArray
	TypeDoubleArray  = def.TypeDoubleArray
	TypeBooleanArray = def.TypeBooleanArray
	TypeAny          = def.TypeAny
)

// Stability values.
const (
	StabilityUnspecified      = def.StabilityUnspecified
	StabilityDevelopment      = def.StabilityDevelopment
	StabilityAlpha            = def.StabilityAlpha
	StabilityBeta             = def.StabilityBeta
	StabilityReleaseCandidate = def.StabilityReleaseCandidate
	StabilityStable           = def.StabilityStable
)

// DeprecationReason values.
const (
	NotDeprecated           = def.NotDeprecated
	DeprecatedRenamed       = def.DeprecatedRenamed
	DeprecatedObsoleted     = def.DeprecatedObsoleted
	DeprecatedUncategorized = def.DeprecatedUncategorized
	DeprecatedUnspecified   = def.DeprecatedUnspecified
)

// RequirementLevel values.
const (
	RequirementRecommended           = def.RequirementRecommended
	RequirementRequired              = def.RequirementRequired
	RequirementConditionallyRequired = def.RequirementConditionallyRequired
	RequirementOptIn                 = def.RequirementOptIn
)

// Field values.
const (
	FieldNone          = def.FieldNone
	FieldEventName     = def.FieldEventName
	FieldStatusMessage = def.FieldStatusMessage
)

// numLocations bounds Location.
const numLocations = Location(def.NumLocations)

// Errors of Load; match them with errors.Is.
var (
	// ErrInvalid wraps every error about the content of a registry, schema
	// or rules file (the message names the file and line).
	ErrInvalid = load.ErrInvalid
	// ErrSources is returned when Sources is contradictory or empty.
	ErrSources = load.ErrSources
	// ErrNoRegistryFile is returned for an organisation registry path that
	// holds no registry file: no *.yaml or *.yml model file outside hidden
	// entries (such as a ConfigMap volume's "..data").
	ErrNoRegistryFile = load.ErrNoRegistryFile
	// ErrNotRegistry is the one rule for what counts as a registry, for
	// every caller (upgrade's and diff's sides, registry infer --output):
	// a semantic-conventions directory that does not exist, has no model/,
	// or whose model defines no attribute or no group (attribute group,
	// span, metric, event, entity); a model file, in any registry, that is
	// YAML of another shape (no groups:, no file_format). The message
	// names the directory or the file.
	ErrNotRegistry = load.ErrNotRegistry
)

// ModelFiles lists the registry files an organisation registry directory
// holds, as Load reads them: every *.yaml and *.yml file except the
// manifest and hidden entries (a ConfigMap volume's ..data), sorted.
func ModelFiles(dir string) ([]string, error) { return load.ModelFiles(dir) }

// SemconvFiles lists the files Load reads from a semantic-conventions
// checkout (Sources.SemconvDir), relative to it with forward slashes,
// sorted: the model files, model/manifest.yaml, the newest schema file.
// A copy of exactly these loads the same registry.
func SemconvFiles(dir string) ([]string, error) { return load.SemconvFiles(dir) }

// ValidKey reports why k could never be an attribute key or a registry
// name (whitespace, an empty '.'-separated segment), as the loader rejects
// it; nil when it could. Writers check a name with it before writing it.
func ValidKey(k string) error { return load.ValidKey(k) }
