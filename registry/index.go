package registry

import (
	"fmt"
	"slices"
)

// Index is the resolved, immutable registry. All methods are safe for
// concurrent use; nothing it returns may be modified.
type Index struct {
	attrs         []*Attribute // every entry, sorted by key
	table         table
	prefixes      prefixTable
	metrics       map[string]*Metric
	metricList    []*Metric // sorted by name
	sources       map[string][]string
	schemaURL     string
	digest        string
	stats         Stats
	disagreements []Disagreement
	warnings      []string
	// groups holds the metric, event, span and entity definitions and the
	// span matchers (groups.go).
	groups groupIndex
}

// Stats counts what an Index holds.
type Stats struct {
	Known        int // attributes some registry defines (templates included)
	Placeholders int // keys only known for their scoped renames
	Templates    int
	Enums        int
	// Deprecated attributes by declared reason.
	DeprecatedRenamed       int
	DeprecatedObsoleted     int
	DeprecatedUncategorized int
	DeprecatedUnspecified   int
	Renames                 int // entries (placeholders included) with a rename target in some context
	ContextualRenames       int // of which the target depends on the context
	ManyToOneTargets        int // targets that two or more keys rename to
	Metrics                 int // metrics some registry defines
	MetricRenames           int // metric names (placeholders included) with a RenamedTo
	SchemaAttributeRenames  int // attribute_map entries loaded from the schema file
	SchemaMetricRenames     int // rename_metrics entries loaded from the schema file
	Rules                   int // rules-file entries
	Disagreements           int
	// Value vocabulary (resolve_values.go).
	DeprecatedMembers int // deprecated enum members
	ValueMigrations   int // keys with a rules-file value migration
}

// Disagreement is one place where a schema file (or a rules file) and the
// registry say different things, and what the Index does about it.
type Disagreement struct {
	// Kind: "target" (both rename, to different keys), "not_renamed" (the
	// schema file renames a key the registry does not rename), "unknown_target"
	// (a schema-file rename ends at a key no registry defines), "metric"
	// (rename_metrics vs registry), "rule" (a rules file replaces a registry
	// rename).
	Kind       string
	Key        string
	Registry   string // what the registry says
	Schema     string // what the schema file (or rule) says
	Resolution string // what the Index does
	Where      string // file:line of the schema entry or rule
}

func (d Disagreement) String() string {
	return fmt.Sprintf("%s %s: registry: %s; schema: %s; resolution: %s (%s)", d.Kind, d.Key, d.Registry, d.Schema, d.Resolution, d.Where)
}

// Lookup returns the exact entry for key, else the longest template whose key
// is a prefix of key ending on a '.' boundary, else nil. It does not
// allocate.
func (ix *Index) Lookup(key string) *Attribute {
	return ix.Attr(ix.LookupRef(key))
}

// LookupRef is Lookup for the hot path: it returns the entry's Ref, which
// carries what a walk over conforming data needs, without reading the
// *Attribute. A miss usually reads one cache line of the table, a hit two
// (the group and the key bytes). It does not allocate.
func (ix *Index) LookupRef(key string) Ref {
	if r := ix.table.get(key); r != 0 {
		return r
	}
	if a := ix.prefixes.match(key); a != nil {
		return a.ref
	}
	return 0
}

// Attr returns the entry of a Ref from this Index, or nil for the zero Ref.
func (ix *Index) Attr(r Ref) *Attribute {
	if r == 0 {
		return nil
	}
	return ix.table.attrs[r.Slot()]
}

// Slots bounds the Refs of this Index: every Ref's Slot is below it. A
// front-end keeps a dense set of entries in a bitset of this size.
func (ix *Index) Slots() int { return len(ix.table.attrs) }

// Metric returns the metric definition for name, or nil if unknown. It
// probes the metric group table, which holds every metric, and does not
// allocate.
func (ix *Index) Metric(name string) *Metric {
	if s := ix.groups.metrics.get(name); s != nil {
		return s.Metric
	}
	return nil
}

// Sources returns the keys that rename to target in some context (sorted);
// more than one means a many-to-one rename the processor must arbitrate.
func (ix *Index) Sources(target string) []string {
	return slices.Clone(ix.sources[target])
}

// SchemaURL is the schema URL telemetry conforms to after renaming.
func (ix *Index) SchemaURL() string { return ix.schemaURL }

// Digest is the hex SHA-256 of the canonical resolved content. File names
// are not part of it: the embedded default and a fresh load of the same data
// have the same digest.
func (ix *Index) Digest() string { return ix.digest }

// Stats returns the counts of the index.
func (ix *Index) Stats() Stats { return ix.stats }

// Disagreements lists where schema files or rules disagree with the registry
// and how each was resolved, sorted by key.
func (ix *Index) Disagreements() []Disagreement { return slices.Clone(ix.disagreements) }

// Warnings lists what Load accepted with leniency, each naming file and
// line: a renamed_to next to a reason other than renamed (ignored, as
// Weaver does), and shipped rules left out because the loaded release
// lacks what they name. A caller shows them; they are not logged.
func (ix *Index) Warnings() []string { return slices.Clone(ix.warnings) }

// Attributes returns every entry (placeholders included), sorted by key.
func (ix *Index) Attributes() []*Attribute { return slices.Clone(ix.attrs) }

// Metrics returns every metric (placeholders included), sorted by name.
func (ix *Index) Metrics() []*Metric { return slices.Clone(ix.metricList) }
