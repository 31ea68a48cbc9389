package engine

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// This file checks a metric's or an event's entity_associations against
// the attributes of its resource, as Weaver's type advisor does
// (check_entity_associations): the top-level list is an implicit one_of,
// except that a single entry is evaluated as it stands; a one_of is
// satisfied by any satisfied child, and then only the satisfied children's
// findings are reported, else one entity_association_not_satisfied; an
// all_of reports every child's findings; an entity is satisfied when none of
// its required attributes is missing; an entity the registry does not define
// is satisfied and reports nothing. Evaluation runs twice over the tree, to
// decide and then to report, so that nothing is buffered.

// entityFindings maps requirement levels to the finding of an absent
// entity attribute.
var entityFindings = [...]vocab.Finding{
	registry.RequirementRequired:              vocab.FindingEntityRequiredAttributeNotPresent,
	registry.RequirementRecommended:           vocab.FindingEntityRecommendedAttributeNotPresent,
	registry.RequirementOptIn:                 vocab.FindingEntityOptInAttributeNotPresent,
	registry.RequirementConditionallyRequired: vocab.FindingEntityConditionallyRequiredAttributeNotPresent,
}

// entities reports the entity findings of definition d for the current
// item, named name (subj: vocab.SubjectMetric or vocab.SubjectEvent).
func (w *Walker) entities(d *registry.Group, subj vocab.Subject, name string) {
	as := d.Entities
	switch len(as) {
	case 0:
	case 1:
		w.reportAssoc(&as[0], subj, name)
	default:
		w.reportOneOf(as, subj, name)
	}
}

// satisfied reports whether the resource satisfies a.
func (w *Walker) satisfied(a *registry.EntityAssociation) bool {
	switch {
	case a.Entity != "":
		e := w.ix.EntityGroup(a.Entity)
		if e == nil {
			return true
		}
		for p := e.Levels[registry.RequirementRequired].Next(0); p >= 0; p = e.Levels[registry.RequirementRequired].Next(p + 1) {
			if !w.onResource(e.Attrs[p].Key) {
				return false
			}
		}
		return true
	case a.OneOf != nil:
		return w.anySatisfied(a.OneOf)
	default:
		for i := range a.AllOf {
			if !w.satisfied(&a.AllOf[i]) {
				return false
			}
		}
		return true
	}
}

func (w *Walker) anySatisfied(as []registry.EntityAssociation) bool {
	for i := range as {
		if w.satisfied(&as[i]) {
			return true
		}
	}
	return false
}

// reportAssoc reports the findings of a.
func (w *Walker) reportAssoc(a *registry.EntityAssociation, subj vocab.Subject, name string) {
	switch {
	case a.Entity != "":
		e := w.ix.EntityGroup(a.Entity)
		if e == nil {
			return
		}
		w.grp.sink.entity = a.Entity
		for i := range e.Attrs {
			if sa := &e.Attrs[i]; !w.onResource(sa.Key) {
				w.finding(entityFindings[sa.Level], vocab.SubjectKey, sa.Key)
			}
		}
		w.grp.sink.entity = ""
	case a.OneOf != nil:
		w.reportOneOf(a.OneOf, subj, name)
	default:
		for i := range a.AllOf {
			w.reportAssoc(&a.AllOf[i], subj, name)
		}
	}
}

// reportOneOf reports a one_of: the findings of its satisfied children, or
// one entity_association_not_satisfied about the item.
func (w *Walker) reportOneOf(as []registry.EntityAssociation, subj vocab.Subject, name string) {
	if !w.anySatisfied(as) {
		w.grp.sink.assoc = as
		n := w.svc.Findings[vocab.FindingEntityAssociationNotSatisfied]
		w.finding(vocab.FindingEntityAssociationNotSatisfied, subj, name)
		if w.svc.Findings[vocab.FindingEntityAssociationNotSatisfied] > n {
			w.notSatisfied(as)
		}
		w.grp.sink.assoc = nil
		return
	}
	for i := range as {
		if w.satisfied(&as[i]) {
			w.reportAssoc(&as[i], subj, name)
		}
	}
}

// notSatisfied counts one entity_association_not_satisfied of as in
// Batch.Associations (a one_of of the registry: its first element's
// address names it).
func (w *Walker) notSatisfied(as []registry.EntityAssociation) {
	b := &w.tally
	for i := range b.Associations {
		if same(b.Associations[i].Association, as) {
			b.Associations[i].Count++
			return
		}
	}
	b.Associations = append(b.Associations, AssociationTally{Association: as, Count: 1})
}

// same reports whether a and b are the same association of the registry.
func same(a, b []registry.EntityAssociation) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// onResource reports whether the current resource has attribute k.
func (w *Walker) onResource(k string) bool {
	if !w.grp.hasRes {
		return false
	}
	_, ok := w.grp.res.Get(k)
	return ok
}

// noteResource remembers the resource the next items belong to.
func (s *groupCheck) noteResource(m pcommon.Map) {
	s.res, s.hasRes = m, true
}
