package governanceprocessor // import "github.com/otelgov/otelcol-governance/processor/governanceprocessor"

import (
	"strings"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// maxAssociations bounds the entity_types label values of
// processor_governance_entity_associations_not_satisfied per processor:
// they are registry names (one value per one_of of the registries it
// loaded), and a registry that grows past it shares _other.
const maxAssociations = 64

// associationCounters counts entity_association_not_satisfied by the
// association no entity satisfied, labelled by its entity types
// ("host,container"), the registry's names as Weaver's context lists
// them.
type associationCounters struct {
	mu     sync.Mutex
	base   []attribute.KeyValue
	byAddr map[*registry.EntityAssociation]*counter // the association's first element; nil for an empty one
	byName map[string]*counter                      // label value -> series
	order  []*counter
}

func newAssociationCounters(base []attribute.KeyValue) *associationCounters {
	return &associationCounters{
		base: base, byAddr: map[*registry.EntityAssociation]*counter{}, byName: map[string]*counter{},
	}
}

// add adds one batch's counts (engine.Batch.Associations).
func (a *associationCounters) add(ts []engine.AssociationTally) {
	if len(ts) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := range ts {
		a.series(ts[i].Association).add(ts[i].Count)
	}
}

// series returns the series of as: its entity types' label, or _other past
// maxAssociations labels. Called with mu held.
func (a *associationCounters) series(as []registry.EntityAssociation) *counter {
	var addr *registry.EntityAssociation
	if len(as) > 0 {
		addr = &as[0]
	}
	if c := a.byAddr[addr]; c != nil {
		return c
	}
	label, _ := vocab.Bound(strings.Join(engine.EntityTypes(as), ","))
	if _, ok := a.byName[label]; !ok && len(a.byName) >= maxAssociations {
		label = vocab.ServiceOther
	}
	c := a.byName[label]
	if c == nil {
		c = &counter{opts: observeOpts(a.base, attribute.String("entity_types", label))}
		a.byName[label] = c
		a.order = append(a.order, c)
	}
	if len(a.byAddr) < 4*maxAssociations { // reloads: old registries' addresses are not kept forever
		a.byAddr[addr] = c
	}
	return c
}

func (a *associationCounters) observe(o metric.Int64Observer) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, c := range a.order {
		c.observe(o)
	}
}
