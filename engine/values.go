package engine

import (
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// This file migrates values, not only keys: enum member renames from the
// model, and the rules files' value maps, conversions, splits, merges and
// moves (registry.Migration). It also keeps enums open: a value outside an
// enum is an undefined enum variant, kept and counted, unless the key is
// listed in Options.ClosedEnums.
//
// Value migrations change telemetry only with deprecated: rename on writable
// data, with one exception: in copy mode, the copy of a renamed key carries
// the mapped or converted value (the old key keeps its own). Otherwise, in
// copy and off modes and for read-only data, a deprecated value is counted
// deprecated_kept and left as it is.

// Value-migration ops, queued like the others and applied with the renames
// (they add or remove keys).
const (
	opRenameValue opKind = iota + 16 // rename, with the value mapped or converted
	opSplit
	opMerge
	opMove
	opCopyValue // copy, with the copy's value mapped or converted
)

// SchemaLevel says whose schema_url a rewrite set.
type SchemaLevel uint8

const (
	SchemaResource SchemaLevel = iota
	SchemaScope
	NumSchemaLevels
)

// String returns "resource" or "scope".
func (l SchemaLevel) String() string {
	switch l {
	case SchemaResource:
		return "resource"
	case SchemaScope:
		return "scope"
	case NumSchemaLevels:
	}
	return "invalid"
}

// migState is the walker's value-migration state.
type migState struct {
	// rewrites counts the changes to registry names made so far in the
	// batch; the walk compares it before and after a resource and a scope
	// to decide whether their schema_url moves to the registry's.
	rewrites int
	// rec is the log record whose attributes are being walked.
	rec plog.LogRecord
	// span is the span whose attributes are being walked.
	span ptrace.Span
}

// rewriteOutcome marks the outcomes that rewrite data to the registry's
// names and values.
var rewriteOutcome = [vocab.NumOutcomes]int{
	vocab.OutcomeRenamed: 1, vocab.OutcomeValueRenamed: 1, vocab.OutcomeConverted: 1,
	vocab.OutcomeSplit: 1, vocab.OutcomeMerged: 1, vocab.OutcomeMoved: 1,
}

// migrates reports whether value migrations of key k may change the
// current batch.
func (w *Walker) migrates(k string) bool {
	return w.mutate && w.e.deprecatedMode(k) == DeprecatedRename
}

// closed reports whether the enum of key is closed (Options.ClosedEnums).
func (e *Engine) closedEnum(key string) bool {
	_, ok := e.closed[key]
	return ok
}

// enumValue checks a current enum attribute's value of the right type:
// deprecated members are renamed (or kept), in-place value maps applied,
// and values outside the members counted as undefined enum variants (open
// enums) or enum violations (closed enums).
func (w *Walker) enumValue(k string, v pcommon.Value, a *registry.Attribute) {
	switch a.Type {
	case registry.TypeString:
		if a.EnumStrings == nil {
			w.count(vocab.OutcomeConformant)
			return
		}
		s := v.Str()
		if a.DeprecatedMembers != nil && w.member(k, s, a) {
			return
		}
		if m := a.Migration; m != nil && m.Values != nil {
			if to, ok := m.Values[s]; ok && to != s {
				if !a.AllowsString(s) {
					// Weaver's verdict on the value as received.
					w.finding(vocab.FindingUndefinedEnumVariant, vocab.SubjectKey, k)
				}
				w.setValue(k, to)
				return
			}
		}
		if a.AllowsString(s) {
			w.count(vocab.OutcomeConformant)
			return
		}
	case registry.TypeInt:
		if a.AllowsInt(v.Int()) {
			w.count(vocab.OutcomeConformant)
			return
		}
	default:
		w.count(vocab.OutcomeConformant)
		return
	}
	w.finding(vocab.FindingUndefinedEnumVariant, vocab.SubjectKey, k)
	switch {
	case !w.e.closedEnum(k):
		w.count(vocab.OutcomeUndefinedEnumVariant)
	case w.mutate && w.e.opts.EnumViolation == EnumViolationDrop:
		w.drop(k, vocab.ReasonEnumViolation)
	default:
		w.count(vocab.OutcomeEnumViolation)
	}
}

// member handles a value that is a deprecated member of a's enum. It
// reports whether s was one (and counted).
func (w *Walker) member(k, s string, a *registry.Attribute) bool {
	for i := range a.DeprecatedMembers {
		dm := &a.DeprecatedMembers[i]
		if dm.Value != s || dm.RenamedTo == s {
			continue
		}
		if dm.RenamedTo != "" && w.migrates(k) {
			w.setValue(k, dm.RenamedTo)
		} else {
			w.count(vocab.OutcomeDeprecatedKept)
		}
		return true
	}
	return false
}

// setValue queues a same-key value change to a registry constant; the
// coercion pass applies it without allocating.
func (w *Walker) setValue(k, to string) {
	if !w.migrates(k) {
		w.count(vocab.OutcomeDeprecatedKept)
		return
	}
	w.queue(op{kind: opCoerce, key: k, val: coerced{typ: pcommon.ValueTypeStr, s: to}})
	w.count(vocab.OutcomeValueRenamed)
}

// renameValue queues a key rename that also changes the value: a rule's
// value map or conversion, or the target enum's member rename. It reports
// false when the value stays as it is; the plain rename then applies.
func (w *Walker) renameValue(k string, v pcommon.Value, a, t *registry.Attribute) bool {
	mode := w.e.deprecatedMode(k)
	if !w.mutate || mode == DeprecatedOff || a.Template {
		return false
	}
	o := op{kind: opRenameValue, key: k, target: t.Key}
	if mode == DeprecatedCopy {
		// The copy under the current key carries the current value; the
		// old key keeps its old one.
		o.kind = opCopyValue
	}
	found := false
	if m := a.Migration; m != nil {
		switch v.Type() {
		case pcommon.ValueTypeStr:
			if to, ok := m.Values[v.Str()]; ok {
				o.val, o.out, found = coerced{typ: pcommon.ValueTypeStr, s: to}, vocab.OutcomeValueRenamed, true
			}
		case pcommon.ValueTypeInt:
			if to, ok := m.IntValues[v.Int()]; ok {
				o.val, o.out, found = coerced{typ: pcommon.ValueTypeStr, s: to}, vocab.OutcomeValueRenamed, true
			}
		default:
		}
		if !found && m.Convert != registry.TypeUnknown && convertible(v, a.Type) {
			o.conv, o.out, found = m.Convert, vocab.OutcomeConverted, true
		}
	}
	if !found && t.DeprecatedMembers != nil && v.Type() == pcommon.ValueTypeStr {
		if to, ok := t.CurrentMember(v.Str()); ok {
			o.val, o.out, found = coerced{typ: pcommon.ValueTypeStr, s: to}, vocab.OutcomeValueRenamed, true
		}
	}
	if !found {
		return false
	}
	w.queue(o)
	return true
}

// convertible reports whether v has the declared source type of a
// conversion; other values are renamed unchanged.
func convertible(v pcommon.Value, from registry.Type) bool {
	want := scalarType[from&typeMask]
	return want != pcommon.ValueTypeEmpty && v.Type() == want
}

// migrate handles a deprecated key without a rename target that has a
// split, merge, move, conversion to another key, or in-place value map. It reports whether the
// attribute was queued (and will be counted when applied) or counted.
func (w *Walker) migrate(k string, v pcommon.Value, a *registry.Attribute) bool {
	m := a.Migration
	if !w.migrates(k) {
		return false
	}
	if m.ConvertTo != "" {
		if !convertible(v, a.Type) {
			return false
		}
		w.queue(op{kind: opRenameValue, key: k, target: m.ConvertTo, conv: m.Convert, out: vocab.OutcomeConverted})
		return true
	}
	if v.Type() != pcommon.ValueTypeStr {
		return false
	}
	switch {
	case m.Split != nil:
		if m.Split.Cases != nil {
			if _, ok := m.Split.Cases[v.Str()]; !ok {
				return false
			}
		}
		w.queue(op{kind: opSplit, key: k, mig: m})
		return true
	case m.Merge != nil:
		w.queue(op{kind: opMerge, key: k, mig: m})
		return true
	case m.Move == registry.FieldEventName:
		if w.ctx.Location != registry.LocationLog {
			return false
		}
		w.queue(op{kind: opMove, key: k, mig: m})
		return true
	case m.Move == registry.FieldStatusMessage:
		if w.ctx.Location != registry.LocationSpan || w.mig.span.Status().Code() != ptrace.StatusCodeError {
			return false
		}
		w.queue(op{kind: opMove, key: k, mig: m})
		return true
	case m.Values != nil:
		if to, ok := m.Values[v.Str()]; ok && to != v.Str() {
			w.setValue(k, to)
			return true
		}
	}
	return false
}

// applyValue performs one value-migration op on m, after drops, coercions
// and the renames (renameAll does opRenameValue's), in queue order.
func (w *Walker) applyValue(m pcommon.Map, o *op) {
	switch o.kind {
	case opCopyValue:
		_, existed := m.Get(o.target)
		w.copy(m, o.key, o.target)
		if existed {
			return // copy's policy: an existing current key is never changed
		}
		if cur, ok := m.Get(o.target); ok {
			o.migrate(cur)
		}
	case opSplit:
		w.split(m, o)
	case opMerge:
		w.merge(m, o)
	case opMove:
		w.move(m, o)
	default:
	}
}

// migrate sets v to the value of an opRenameValue or opCopyValue: the
// mapped value, or v converted.
func (o *op) migrate(v pcommon.Value) {
	if o.conv != registry.TypeUnknown {
		convert(v, o.conv)
	} else {
		o.val.set(v)
	}
}

// uncount takes back one count of o, for an outcome that a later step
// refines (a merge recounts the keys the scan kept as deprecated_kept).
func (w *Walker) uncount(o vocab.Outcome) {
	w.tally.Attrs[w.ctx.Location][o]--
	w.svc.Outcomes[o]--
	w.mig.rewrites -= rewriteOutcome[o]
}

// convert converts v in place to typ; the rules loader admits only lossless
// conversions (scalar to string, scalar to a one-element array).
func convert(v pcommon.Value, typ registry.Type) {
	switch typ {
	case registry.TypeString:
		if v.Type() != pcommon.ValueTypeStr {
			v.SetStr(v.AsString())
		}
	case registry.TypeStringArray, registry.TypeIntArray, registry.TypeDoubleArray, registry.TypeBooleanArray:
		if v.Type() == pcommon.ValueTypeSlice {
			return
		}
		tmp := pcommon.NewValueEmpty()
		if typ == registry.TypeStringArray && v.Type() != pcommon.ValueTypeStr {
			tmp.SetStr(v.AsString())
		} else {
			v.CopyTo(tmp)
		}
		s := v.SetEmptySlice()
		tmp.MoveTo(s.AppendEmpty())
	default:
	}
}

// split replaces a string attribute by the attributes its value splits into.
// When a target is present with another value, nothing changes (conflict).
func (w *Walker) split(m pcommon.Map, o *op) {
	v, ok := m.Get(o.key)
	if !ok {
		return
	}
	s := v.Str()
	sp := o.mig.Split
	if sp.Cases != nil {
		set := sp.Cases[s]
		for _, as := range set {
			if !absentOrEqual(m, as.Key, as.Value) {
				w.count(vocab.OutcomeConflict)
				return
			}
		}
		m.Remove(o.key)
		for _, as := range set {
			m.PutStr(as.Key, as.Value)
		}
		w.count(vocab.OutcomeSplit)
		return
	}
	first, rest, cut := strings.Cut(s, sp.Separator)
	if !absentOrEqual(m, sp.Into[0], first) || (cut && !absentOrEqual(m, sp.Into[1], rest)) {
		w.count(vocab.OutcomeConflict)
		return
	}
	m.Remove(o.key)
	m.PutStr(sp.Into[0], first)
	if cut {
		m.PutStr(sp.Into[1], rest)
	}
	w.count(vocab.OutcomeSplit)
}

func absentOrEqual(m pcommon.Map, k, s string) bool {
	v, ok := m.Get(k)
	return !ok || (v.Type() == pcommon.ValueTypeStr && v.Str() == s)
}

// merge fills the merge target from its template when every key of the
// template is a string in m, and removes those keys. The rule's own key is
// counted here; the other keys were counted deprecated_kept by the scan and
// are recounted as merged.
func (w *Walker) merge(m pcommon.Map, o *op) {
	mg := o.mig.Merge
	n := 0
	for _, k := range mg.Keys {
		v, ok := m.Get(k)
		if !ok || v.Type() != pcommon.ValueTypeStr {
			w.count(vocab.OutcomeDeprecatedKept)
			return
		}
		n += len(v.Str())
	}
	var b strings.Builder
	for _, p := range mg.Parts {
		n += len(p.Literal)
	}
	b.Grow(n)
	for _, p := range mg.Parts {
		if p.Key == "" {
			b.WriteString(p.Literal)
			continue
		}
		v, _ := m.Get(p.Key)
		b.WriteString(v.Str())
	}
	merged := b.String()
	if !absentOrEqual(m, mg.To, merged) {
		w.count(vocab.OutcomeConflict)
		return
	}
	for _, k := range mg.Keys {
		m.Remove(k)
		if k != o.key {
			w.uncount(vocab.OutcomeDeprecatedKept)
			w.count(vocab.OutcomeMerged)
		}
	}
	m.PutStr(mg.To, merged)
	w.count(vocab.OutcomeMerged)
}

// move sets a field (the log record's EventName, or the span's status
// description) from the attribute when the field is empty or already holds
// the value, and removes the attribute; another value in the field wins and
// the attribute is kept (conflict).
func (w *Walker) move(m pcommon.Map, o *op) {
	v, ok := m.Get(o.key)
	if !ok {
		return
	}
	s := v.Str()
	var cur string
	switch o.mig.Move {
	case registry.FieldEventName:
		cur = w.mig.rec.EventName()
	case registry.FieldStatusMessage:
		cur = w.mig.span.Status().Message()
	case registry.FieldNone:
		return
	}
	switch {
	case cur == s:
	case cur != "":
		w.count(vocab.OutcomeConflict)
		return
	case o.mig.Move == registry.FieldEventName:
		w.mig.rec.SetEventName(s)
	default:
		w.mig.span.Status().SetMessage(s)
	}
	m.Remove(o.key)
	w.count(vocab.OutcomeMoved)
}

// schemaURLer is a resource-level or scope-level container of pdata.
type schemaURLer interface {
	SchemaUrl() string
	SetSchemaUrl(string)
}

// schemaURL sets x's schema_url to the registry's when the walk rewrote
// data inside x (rewrites went up since before). Generic, so that passing a
// pdata struct does not allocate.
func schemaURL[T schemaURLer](w *Walker, x T, before int, level SchemaLevel) {
	if w.mig.rewrites == before {
		return
	}
	u := w.ix.SchemaURL()
	if u == "" || x.SchemaUrl() == u {
		return
	}
	x.SetSchemaUrl(u)
	w.tally.SchemaURLs[level]++
}
