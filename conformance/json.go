package conformance

import (
	"time"

	"github.com/otelgov/otelcol-governance/vocab"
)

// Document is the conformance report as JSON: the body of the
// governance_registry extension's GET /conformance and of otelgov check
// --format json.
type Document struct {
	Generation  int64          `json:"generation"` // of the registry in force
	Digest      string         `json:"digest"`
	SchemaURL   string         `json:"schema_url"`
	Since       time.Time      `json:"since"` // when the report started counting
	GeneratedAt time.Time      `json:"generated_at"`
	Limits      DocumentLimits `json:"limits"`
	Totals      Totals         `json:"totals"`
	// Services, sorted by name. Fixed entries: "_other" (services beyond
	// max_services) and "_missing" (no string service.name). With
	// ?service=NAME only that entry is listed (totals stay global).
	Services []ServiceReport `json:"services"`
	// Metrics, Events and Spans are the registry definitions checked so
	// far, sorted by name, with their attribute coverage.
	Metrics []SignalReport `json:"metrics"`
	Events  []SignalReport `json:"events"`
	Spans   []SignalReport `json:"spans"`
}

// SignalReport is one registry definition's coverage: how many items were
// checked against it and which of its attributes they carried.
type SignalReport struct {
	// Name is the metric name, event name or span definition id.
	Name  string `json:"name"`
	Count int64  `json:"count"`
	// Attributes is the size of the definition's attribute set.
	Attributes     int      `json:"attributes"`
	SeenAttributes []string `json:"seen_attributes"`
	// Coverage is len(SeenAttributes)/Attributes, 0 to 1.
	Coverage float64 `json:"coverage"`
}

// FindingReport is one finding ID's count in one service, with the names
// it was reported for most often.
//
// Each finding is counted at the level the engine that reported it applied
// (Weaver's, or a processor's findings::level_overrides). Where processors
// with different overrides feed one report, Levels splits Count by level
// and Level is the most severe level counted.
type FindingReport struct {
	Level string `json:"level"`
	Count int64  `json:"count"`
	// Levels counts the finding by the level it was reported at.
	Levels map[string]int64 `json:"levels"`
	Top    []FindingName    `json:"top"`

	finding vocab.Finding // the entry's key, typed
	level   vocab.Level   // Level, typed
}

// Finding is the finding ID the entry counts, typed (the map key names it).
func (f *FindingReport) Finding() vocab.Finding { return f.finding }

// Severity is Level, typed: the most severe level the finding was counted at.
func (f *FindingReport) Severity() vocab.Level { return f.level }

// FindingName is one name of a finding's top-N list. Subject says what the
// name is: key (an attribute key), metric, event or span (a span
// definition id). Count may overestimate by at most MaxError.
type FindingName struct {
	Subject  string `json:"subject"`
	Name     string `json:"name"`
	Count    int64  `json:"count"`
	MaxError int64  `json:"max_error"`
}

// DocumentLimits are the report's bounds.
type DocumentLimits struct {
	MaxServices  int `json:"max_services"`
	TopKeys      int `json:"top_keys"`
	MaxKeyLength int `json:"max_key_length"` // longer keys are cut to this many bytes (see vocab.Bound)
}

// Totals are over all services, in the spirit of Weaver live-check
// statistics.
type Totals struct {
	// Attributes counts every attribute by outcome.
	Attributes map[string]int64 `json:"attributes"`
	// SeenRegistryAttributes is how many distinct registry attributes have
	// been seen.
	SeenRegistryAttributes int `json:"seen_registry_attributes"`
	// SeenNonRegistryAttributes is how many attributes no registry defines
	// were seen (occurrences, kept or dropped; allowed keys not included).
	SeenNonRegistryAttributes int64 `json:"seen_non_registry_attributes"`
	// RegistryCoverage is the share of the registry in force's attributes
	// that have been seen, 0 to 1.
	RegistryCoverage float64 `json:"registry_coverage"`
	// Services is how many services have their own entry.
	Services int `json:"services"`
	// ServicesOverflow counts services counted under "_other", per batch:
	// each service beyond max_services, and each resource a processor
	// folded into its own "_other" slot (beyond its service_limit).
	ServicesOverflow int64 `json:"services_overflow"`
	// TotalAdvisories counts every finding, as Weaver's statistics do.
	TotalAdvisories int64 `json:"total_advisories"`
	// AdviceLevelCounts counts findings by level.
	AdviceLevelCounts map[string]int64 `json:"advice_level_counts"`
	// AdviceTypeCounts counts findings by finding ID.
	AdviceTypeCounts map[string]int64 `json:"advice_type_counts"`
	// SeenRegistryMetrics and SeenRegistryEvents are how many distinct
	// registry metrics and events have been seen.
	SeenRegistryMetrics int `json:"seen_registry_metrics"`
	SeenRegistryEvents  int `json:"seen_registry_events"`
	// SeenNonRegistryMetrics and SeenNonRegistryEvents count occurrences of
	// metric and event names no registry defines (missing_metric,
	// missing_event).
	SeenNonRegistryMetrics int64 `json:"seen_non_registry_metrics"`
	SeenNonRegistryEvents  int64 `json:"seen_non_registry_events"`
}

// ServiceReport is one service's conformance.
type ServiceReport struct {
	Service    string           `json:"service"`
	FirstSeen  time.Time        `json:"first_seen"`
	LastSeen   time.Time        `json:"last_seen"`
	Attributes map[string]int64 `json:"attributes"` // by outcome
	// UnknownKeys and DeprecatedKeys are the top_keys most frequent, most
	// frequent first.
	UnknownKeys    []KeyCount `json:"unknown_keys"`
	DeprecatedKeys []KeyCount `json:"deprecated_keys"`
	// Findings counts findings by Weaver finding ID, each with its level
	// and the top_keys names it was reported for most often.
	Findings map[string]FindingReport `json:"findings"`
}

// KeyCount is one key of a top-N list. Count may overestimate by at most
// MaxError (space-saving sketch); MaxError is 0 while the list has never
// been full.
type KeyCount struct {
	Key      string `json:"key"`
	Count    int64  `json:"count"`
	MaxError int64  `json:"max_error"`
}
