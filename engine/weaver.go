package engine

import (
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// This file holds Weaver live-check's rules for one attribute, as the engine
// applies them in every profile: the type and enum advisors' rules for a
// value (crates/weaver_live_check/src/advice/{type,enum}_advisor.rs) and the
// name rules of Weaver's default policy for a key
// (defaults/policies/live_check_advice/otel.rego). They report findings
// only; what the walk does with a value (its outcome) is decided apart.

// sampleType is the type Weaver infers for a received value
// (SampleAttribute::infer_type over the OTLP value as JSON).
type sampleType uint8

const (
	sampleNone sampleType = iota // no type: empty, bytes, a map, an empty or mixed array
	sampleString
	sampleInt
	sampleDouble
	sampleBool
	sampleStrings
	sampleInts
	sampleDoubles
	sampleBools
)

// sampleTypeNames are Weaver's names of the inferred types ("" for none).
var sampleTypeNames = [...]string{
	sampleNone:    "",
	sampleString:  "string",
	sampleInt:     "int",
	sampleDouble:  "double",
	sampleBool:    "boolean",
	sampleStrings: "string[]",
	sampleInts:    "int[]",
	sampleDoubles: "double[]",
	sampleBools:   "boolean[]",
}

func (t sampleType) String() string {
	if int(t) < len(sampleTypeNames) {
		return sampleTypeNames[t]
	}
	return ""
}

// InstrumentOf is Weaver's instrument of m (src/registry/otlp/conversion.rs
// otlp_data_to_instrument): a monotonic sum is a counter, another sum an
// updowncounter, a gauge a gauge, either histogram a histogram, a summary
// Weaver's unsupported "Summary" and a metric without data "Unspecified".
// It is the one mapping of pdata metric types to Weaver's instruments: the
// instrument check, the Weaver report and the Rego input all read it.
func InstrumentOf(m pmetric.Metric) vocab.Instrument {
	switch m.Type() {
	case pmetric.MetricTypeSum:
		if m.Sum().IsMonotonic() {
			return vocab.InstrumentCounter
		}
		return vocab.InstrumentUpDownCounter
	case pmetric.MetricTypeGauge:
		return vocab.InstrumentGauge
	case pmetric.MetricTypeHistogram, pmetric.MetricTypeExponentialHistogram:
		return vocab.InstrumentHistogram
	case pmetric.MetricTypeSummary:
		return vocab.InstrumentSummary
	case pmetric.MetricTypeEmpty:
	}
	return vocab.InstrumentUnspecified
}

// spanKinds are Weaver's span kinds by OTLP kind (an unspecified kind is
// internal, as Weaver's OTLP conversion reads it).
var spanKinds = [...]string{
	ptrace.SpanKindUnspecified: "internal",
	ptrace.SpanKindInternal:    "internal",
	ptrace.SpanKindServer:      "server",
	ptrace.SpanKindClient:      "client",
	ptrace.SpanKindProducer:    "producer",
	ptrace.SpanKindConsumer:    "consumer",
}

// SpanKindOf is Weaver's name of a span's kind: the Weaver report's and
// the Rego input's span.kind.
func SpanKindOf(k ptrace.SpanKind) string {
	if int(k) < len(spanKinds) {
		return spanKinds[k]
	}
	return spanKinds[ptrace.SpanKindInternal]
}

var statusCodes = [...]string{ptrace.StatusCodeUnset: "unset", ptrace.StatusCodeOk: "ok", ptrace.StatusCodeError: "error"}

// StatusCodeOf is Weaver's name of a span status code; false for a code
// OTLP does not define (Weaver then has no status).
func StatusCodeOf(c ptrace.StatusCode) (string, bool) {
	if int(c) < len(statusCodes) {
		return statusCodes[c], true
	}
	return "", false
}

// InferredType is Weaver's name of the type it infers for v
// (SampleAttribute::infer_type): "string", "int[]"..., "" when none. Advice
// policies read it as input.sample.attribute.type.
func InferredType(v pcommon.Value) string { return inferType(v).String() }

// inferType is Weaver's type of v. Bytes and maps have no JSON form in
// Weaver's OTLP conversion; array elements without one are left out.
func inferType(v pcommon.Value) sampleType {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return sampleString
	case pcommon.ValueTypeInt:
		return sampleInt
	case pcommon.ValueTypeDouble:
		return sampleDouble
	case pcommon.ValueTypeBool:
		return sampleBool
	case pcommon.ValueTypeSlice:
		return inferSliceType(v.Slice())
	case pcommon.ValueTypeEmpty, pcommon.ValueTypeBytes, pcommon.ValueTypeMap:
	}
	return sampleNone
}

func inferSliceType(s pcommon.Slice) sampleType {
	var str, ints, dbl, bools, other int
	for i := 0; i < s.Len(); i++ {
		switch s.At(i).Type() {
		case pcommon.ValueTypeStr:
			str++
		case pcommon.ValueTypeInt:
			ints++
		case pcommon.ValueTypeDouble:
			dbl++
		case pcommon.ValueTypeBool:
			bools++
		case pcommon.ValueTypeSlice:
			other++
		case pcommon.ValueTypeEmpty, pcommon.ValueTypeBytes, pcommon.ValueTypeMap:
		}
	}
	n := str + ints + dbl + bools + other
	switch {
	case n == 0:
		return sampleNone
	case bools == n:
		return sampleBools
	case ints == n:
		return sampleInts
	case ints+dbl == n:
		return sampleDoubles
	case str == n:
		return sampleStrings
	}
	return sampleNone
}

// declaredTypes is the sample type each registry type expects.
var declaredTypes = [...]sampleType{
	registry.TypeString:       sampleString,
	registry.TypeInt:          sampleInt,
	registry.TypeDouble:       sampleDouble,
	registry.TypeBoolean:      sampleBool,
	registry.TypeStringArray:  sampleStrings,
	registry.TypeIntArray:     sampleInts,
	registry.TypeDoubleArray:  sampleDoubles,
	registry.TypeBooleanArray: sampleBools,
}

// compatibleType is Weaver's PrimitiveOrArrayTypeSpec::is_compatible: equal
// types, anything for any, an int for a double and ints for doubles.
func compatibleType(got sampleType, want registry.Type) bool {
	if int(want) >= len(declaredTypes) || declaredTypes[want] == sampleNone {
		return true // any, or not declared
	}
	w := declaredTypes[want]
	return got == w || (got == sampleInt && w == sampleDouble) || (got == sampleInts && w == sampleDoubles)
}

// isEnum reports whether a is an enum.
func isEnum(a *registry.Attribute) bool { return a.EnumStrings != nil || a.EnumInts != nil }

// valueFinding is Weaver's type and enum advice on value v of key k, whose
// registry entry is a: a value without a type gets none; an enum accepts a
// string or an int, and a value that is no member of it is an
// undefined_enum_variant (an int for a string enum included); any other
// type is checked for compatibility.
func (w *Walker) valueFinding(k string, v pcommon.Value, a *registry.Attribute) {
	t := inferType(v)
	switch {
	case t == sampleNone:
	case isEnum(a):
		switch t {
		case sampleString:
			if a.EnumStrings == nil || !a.AllowsString(v.Str()) {
				w.finding(vocab.FindingUndefinedEnumVariant, vocab.SubjectKey, k)
			}
		case sampleInt:
			if a.EnumInts == nil || !a.AllowsInt(v.Int()) {
				w.finding(vocab.FindingUndefinedEnumVariant, vocab.SubjectKey, k)
			}
		default:
			w.finding(vocab.FindingTypeMismatch, vocab.SubjectKey, k)
		}
	case !compatibleType(t, a.Type):
		w.finding(vocab.FindingTypeMismatch, vocab.SubjectKey, k)
	}
}

// keyNameFindings are otel.rego's findings on attribute key k, whose
// registry entry is a (nil when the registry does not define it):
// missing_namespace without a '.', invalid_format unless a template
// matches, illegal_namespace for each namespace of k that is a registry
// attribute not deprecated, and extends_namespace for a key outside the
// registry under one of its namespaces. Registry keys reach it only when
// they break a rule themselves (nameRules.odd); a template instance is
// checked from the end of the template's key on.
func (w *Walker) keyNameFindings(k string, a *registry.Attribute) {
	template := a != nil && a.Template
	dot := strings.IndexByte(k, '.')
	if dot < 0 {
		w.finding(vocab.FindingMissingNamespace, vocab.SubjectKey, k)
	}
	if !template && !vocab.ValidName(k) {
		w.finding(vocab.FindingInvalidFormat, vocab.SubjectKey, k)
	}
	if dot < 0 {
		return
	}
	from := 0
	if template && (!w.grp.rules.oddTemplates || !w.grp.rules.odd[a.Key]) {
		// The template's own namespaces are checked once, in nameRules,
		// and the template's key is no attribute: start after its '.'.
		from = len(a.Key) + 1
	}
	w.illegalNamespaces(k, from)
	if a == nil && w.ix.ExtendsNamespace(k) {
		w.finding(vocab.FindingExtendsNamespace, vocab.SubjectKey, k)
	}
}

// illegalNamespaces reports illegal_namespace for each namespace of k (a
// prefix ending at a '.' found at or after byte from) that is a registry
// attribute, not a template and not deprecated.
func (w *Walker) illegalNamespaces(k string, from int) {
	if from >= len(k) {
		return
	}
	i := strings.IndexByte(k[from:], '.')
	if i < 0 {
		return
	}
	for i += from; i > 0; {
		if isNamespaceAttr(w.ix, k[:i]) {
			w.finding(vocab.FindingIllegalNamespace, vocab.SubjectKey, k)
		}
		j := strings.IndexByte(k[i+1:], '.')
		if j < 0 {
			return
		}
		i += 1 + j
	}
}

// isNamespaceAttr reports whether ns is a registry attribute that a
// namespace must not collide with (otel.rego: in attributes_set, not in
// deprecated_attributes_set).
func isNamespaceAttr(ix *registry.Index, ns string) bool {
	a := ix.Lookup(ns)
	return a != nil && a.Key == ns && !a.Template && !a.Placeholder && a.Deprecation.Reason == registry.NotDeprecated
}

// nameRules is what otel.rego says about the registry's own keys: the few
// that get a name finding of their own, so that the walk checks only those.
type nameRules struct {
	ix *registry.Index
	// odd holds the registry keys without a namespace, with an invalid
	// format, or with a namespace that is a registry attribute, and the
	// template keys with such a namespace; oddSlots holds their Ref slots,
	// which the walk tests instead of hashing every key.
	odd      map[string]bool
	oddSlots []uint64
	// oddTemplates: odd holds a template key.
	oddTemplates bool
}

// isOdd reports whether the registry entry r is in odd.
func (n *nameRules) isOdd(r registry.Ref) bool {
	i := r.Slot()
	return i>>6 < len(n.oddSlots) && n.oddSlots[i>>6]&(1<<(uint(i)&63)) != 0
}

func newNameRules(ix *registry.Index) *nameRules {
	r := &nameRules{ix: ix, odd: map[string]bool{}}
	for _, a := range ix.Attributes() {
		if a.Placeholder {
			continue
		}
		k := a.Key
		odd := !strings.Contains(k, ".") || (!a.Template && !vocab.ValidName(k))
		for i := strings.IndexByte(k, '.'); i > 0 && !odd; {
			odd = isNamespaceAttr(ix, k[:i])
			j := strings.IndexByte(k[i+1:], '.')
			if j < 0 {
				break
			}
			i += 1 + j
		}
		if odd {
			r.odd[k] = true
			r.oddTemplates = r.oddTemplates || a.Template
			i := ix.LookupRef(k).Slot()
			for len(r.oddSlots) <= i>>6 {
				r.oddSlots = append(r.oddSlots, 0)
			}
			r.oddSlots[i>>6] |= 1 << (uint(i) & 63)
		}
	}
	return r
}

// nameRules returns the name rules of ix; the engine keeps those of the
// last registry it was asked about (two walkers racing on a new registry
// may both compute them).
func (e *Engine) nameRules(ix *registry.Index) *nameRules {
	if r := e.rules.Load(); r != nil && r.ix == ix {
		return r
	}
	r := newNameRules(ix)
	e.rules.Store(r)
	return r
}

// unstable reports whether Weaver's stability advisor reports a definition
// of stability s: one that states a stability other than stable; with
// Options.V2 also one that states none, which Weaver's v2 schema reads as
// development (Stability::default, crates/weaver_semconv/src/stability.rs,
// applied by the v1-to-v2 conversion in weaver_resolved_schema's v2/mod.rs).
func (e *Engine) unstable(s registry.Stability) bool {
	return s != registry.StabilityStable && (s != registry.StabilityUnspecified || e.opts.V2)
}
