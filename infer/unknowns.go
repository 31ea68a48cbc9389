package infer

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// SketchInput names a collector's sketch as the input an invalid name was
// first seen in.
const SketchInput = "a collector's inference sketch"

// MaxSketchServices is the most services a collector's sketch names per
// key (the extension's infer::max_services at most).
const MaxSketchServices = 100

// MaxSignals bounds the metrics listed per attribute
// (Attribute.Signals); later ones are counted in SignalsOverflow.
const MaxSignals = 16

// SignalMetric prefixes a metric name in Attribute.Signals.
const SignalMetric = "metric "

var whereOfLocation = [engine.NumLocations]uint8{
	registry.LocationResource:  WhereResource,
	registry.LocationScope:     WhereScope,
	registry.LocationSpan:      WhereSpan,
	registry.LocationSpanEvent: WhereSpanEvent,
	registry.LocationSpanLink:  WhereSpanLink,
	registry.LocationDataPoint: WhereDataPoint,
	registry.LocationLog:       WhereLog,
}

// AddUnknowns adds what one engine batch says of the keys the registry
// does not know: the report's per-service tally of unknown keys (every
// occurrence, memo hits included) and, when the walker tracked them
// (engine.Walker.TrackUnknowns), their contexts, types, value hashes and
// values. This is the collector's sketch: it reads no telemetry, only the
// batch's bounded tally.
//
// A type is counted for every occurrence of the key from the service in
// the batch: exactly when the service sent it with one type in the batch;
// with several, each type gets its filings and the rest goes to the type
// filed most (the memo's hits are not told apart).
func (a *Accumulator) AddUnknowns(b *engine.Batch) {
	a.input = SketchInput
	svc := func(i int) string {
		if i >= 0 && i < len(b.Services) {
			if s := b.Services[i].Service; s != vocab.ServiceMissing {
				return s
			}
		}
		return ""
	}
	for i := range b.Keys {
		k := &b.Keys[i]
		if k.Kind != engine.KeyUnknown {
			continue
		}
		a.service = svc(k.Service)
		if at := a.attribute(k.Key); at != nil {
			at.Count += k.Count
			at.Services, at.ServicesOverflow = addService(at.Services, at.ServicesOverflow, a.service, a.lim.MaxServices)
		}
	}
	if len(b.Unknowns) == 0 {
		return
	}
	// filed[key][type]: the filings with a value read, per Keys entry
	// (scratch reused from batch to batch).
	filed := a.filed[:0]
	filed = append(filed, make([][numValueTypes]int64, len(b.Keys))...)
	a.filed = filed
	for i := range b.Unknowns {
		u := &b.Unknowns[i]
		if u.Key < 0 || u.Key >= len(b.Keys) {
			continue
		}
		k := &b.Keys[u.Key]
		at := a.ev.Attributes[k.Key]
		if at == nil {
			continue // over the limits or invalid: counted above
		}
		if int(u.Location) < len(whereOfLocation) {
			at.Where |= whereOfLocation[u.Location]
		}
		if u.Location == registry.LocationDataPoint {
			at.Signals, at.SignalsOverflow = addSignal(at.Signals, at.SignalsOverflow, SignalMetric, u.Signal)
		}
		if u.Types != 0 {
			f := &filed[u.Key]
			for t := range numValueTypes {
				if u.Types&(1<<t) != 0 {
					f[t] += u.Filed
				}
			}
		}
		for _, h := range u.Hashes[:u.NHashes] {
			if sketchAdd(at, h) {
				at.LastNew = at.Count
			}
		}
		for _, x := range u.Values[:u.NValues] {
			switch v := x.(type) {
			case string:
				addValue(at, v, 1)
			case int64:
				addValue(at, v, 1)
			}
			addExample(at, x)
		}
	}
	for ki := range b.Keys { // in order: the types' order is deterministic
		f := &filed[ki]
		if *f == ([numValueTypes]int64{}) {
			continue
		}
		k := &b.Keys[ki]
		at := a.ev.Attributes[k.Key]
		a.service = svc(k.Service)
		var sum int64
		top := 0
		for t, n := range f {
			sum += n
			if n > f[top] {
				top = t
			}
		}
		for t, n := range f {
			if n == 0 {
				continue
			}
			if t == top {
				n += max(k.Count-sum, 0)
			}
			ts := typeSeen(at, typeName(t))
			ts.Count += n
			ts.Services, ts.ServicesOverflow = addService(ts.Services, ts.ServicesOverflow, a.service, maxTypeServices)
		}
	}
}

// numValueTypes is the number of bits of engine.UnknownTally.Types: the
// pcommon.ValueTypes (Empty to Bytes), then the typed arrays from bit 8.
const numValueTypes = 12

// attribute finds or adds the attribute k (nil when k cannot be a
// registry ID, or the attributes are full: counted).
func (a *Accumulator) attribute(k string) *Attribute {
	at := a.ev.Attributes[k]
	if at != nil {
		return at
	}
	if !a.checkName("attribute", k) {
		return nil
	}
	if len(a.ev.Attributes) >= a.lim.MaxAttributes {
		a.ev.Overflow.Attributes++
		return nil
	}
	at = &Attribute{Key: strings.Clone(k)}
	a.ev.Attributes[at.Key] = at
	return at
}

// typeName is Weaver's name of the type of bit t of the engine's tally:
// a scalar type, or an array whose elements share one ("" for mixed
// arrays, maps, bytes).
func typeName(t int) string {
	if t >= 8 {
		switch uint16(1) << t { //nolint:gosec // t < numValueTypes
		case engine.TypeBitStrings:
			return "string[]"
		case engine.TypeBitInts:
			return "int[]"
		case engine.TypeBitDoubles:
			return "double[]"
		case engine.TypeBitBools:
			return "boolean[]"
		}
		return ""
	}
	switch pcommon.ValueType(t) { //nolint:gosec // t < 8
	case pcommon.ValueTypeEmpty:
	case pcommon.ValueTypeStr:
		return "string"
	case pcommon.ValueTypeInt:
		return "int"
	case pcommon.ValueTypeDouble:
		return "double"
	case pcommon.ValueTypeBool:
		return "boolean"
	case pcommon.ValueTypeSlice, pcommon.ValueTypeMap, pcommon.ValueTypeBytes:
	}
	return ""
}

func addSignal(list []string, over int64, prefix, name string) ([]string, int64) {
	if name == "" {
		return list, over
	}
	for _, s := range list {
		if len(s) == len(prefix)+len(name) && strings.HasPrefix(s, prefix) && s[len(prefix):] == name {
			return list, over
		}
	}
	if len(list) >= MaxSignals {
		return list, over + 1
	}
	return append(list, prefix+bounded(name)), over
}

// ErrOverLimits is returned by Check for evidence beyond the limits.
var ErrOverLimits = errors.New("evidence over the limits")

// Check verifies that ev, read from elsewhere (another process's JSON),
// is within lim, so that merging it cannot grow memory past
// lim.Bytes(): an error names the first field over its limit.
func (ev *Evidence) Check(lim Limits) error {
	lim = lim.withDefaults()
	over := func(what string, n, limit int) error {
		return fmt.Errorf("%w: %s: %d, at most %d", ErrOverLimits, what, n, limit)
	}
	str := func(what, s string) error {
		if len(s) > vocab.MaxKeyLength || !utf8.ValidString(s) {
			return fmt.Errorf("%w: %s: not a bounded string (at most %d bytes of UTF-8)", ErrOverLimits, what, vocab.MaxKeyLength)
		}
		return nil
	}
	strs := func(what string, l []string, limit int) error {
		if len(l) > limit {
			return over(what, len(l), limit)
		}
		for _, s := range l {
			if err := str(what, s); err != nil {
				return err
			}
		}
		return nil
	}
	if len(ev.Attributes) > lim.MaxAttributes {
		return over("attributes", len(ev.Attributes), lim.MaxAttributes)
	}
	if len(ev.Invalid) > MaxInvalid {
		return over("invalid", len(ev.Invalid), MaxInvalid)
	}
	for k, at := range ev.Attributes {
		if at == nil || at.Key != k {
			return fmt.Errorf("%w: attribute %q: its key does not match its entry", ErrOverLimits, shown(k))
		}
		what := "attribute " + shown(k)
		if err := str(what, k); err != nil {
			return err
		}
		switch {
		case len(at.Sketch) > sketchK:
			return over(what+": sketch", len(at.Sketch), sketchK)
		case !slices.IsSorted(at.Sketch):
			return fmt.Errorf("%w: %s: sketch not sorted", ErrOverLimits, what)
		case len(at.Values) > MaxValues:
			return over(what+": values", len(at.Values), MaxValues)
		case len(at.Examples) > MaxExamples:
			return over(what+": examples", len(at.Examples), MaxExamples)
		case len(at.Types) > numTypes:
			return over(what+": types", len(at.Types), numTypes)
		}
		if err := strs(what+": services", at.Services, lim.MaxServices); err != nil {
			return err
		}
		if len(at.Signals) > MaxSignals {
			return over(what+": signals", len(at.Signals), MaxSignals)
		}
		for _, sg := range at.Signals {
			_, name, _ := strings.Cut(sg, " ")
			if err := str(what+": signal", name); err != nil {
				return err
			}
		}
		for _, t := range at.Types {
			if err := strs(what+": type services", t.Services, maxTypeServices); err != nil {
				return err
			}
		}
		for _, v := range at.Values {
			if s, ok := v.Value.(string); ok {
				if err := str(what+": value", s); err != nil {
					return err
				}
			}
		}
		for _, x := range at.Examples {
			if s, ok := x.(string); ok {
				if err := str(what+": example", s); err != nil {
					return err
				}
			}
		}
	}
	for kind, m := range map[string]map[string]*Group{KindMetric: ev.Metrics, KindSpan: ev.Spans, KindEvent: ev.Events} {
		if len(m) > lim.MaxGroups {
			return over(kind+"s", len(m), lim.MaxGroups)
		}
		for n, g := range m {
			what := kind + " " + shown(n)
			if g == nil || g.Name != n {
				return fmt.Errorf("%w: %s: its name does not match its entry", ErrOverLimits, what)
			}
			if len(g.Attributes) > lim.MaxGroupAttributes {
				return over(what+": attributes", len(g.Attributes), lim.MaxGroupAttributes)
			}
			if len(g.Variants) > numTypes {
				return over(what+": variants", len(g.Variants), numTypes)
			}
			if err := strs(what+": services", g.Services, lim.MaxServices); err != nil {
				return err
			}
		}
	}
	return nil
}

// shown is s bounded for a message.
func shown(s string) string {
	b, _ := vocab.Bound(s)
	return b
}
