package infer

import (
	"maps"
	"math"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelgov/otelcol-governance/engine"
)

// The distinct-value sketch is a k-minimum-values (KMV) sketch: the sketchK
// smallest 64-bit hashes of the values seen. Below sketchK distinct values
// it is exact; above, (k-1)/(kth smallest / 2^64) estimates the distinct
// count with a relative standard error of about 1/sqrt(k-2) (13% for
// k = 64). It is 512 bytes per attribute, and the union of two sketches is
// the sketch of the union, so replicas merge. The hash is engine.ValueHash (a
// stable hash: sketches of two processes compare).

// hashValue hashes v with its type, so that "1" and 1 differ: the
// engine's ValueHash, which the collector's sketch uses too.
func hashValue(v pcommon.Value) uint64 { return engine.ValueHash(v) }

// sketchAdd adds hash h to at's sketch (kept sorted) and reports whether
// it is a new distinct value as far as the sketch can tell.
func sketchAdd(at *Attribute, h uint64) bool {
	s := at.Sketch
	i, found := slices.BinarySearch(s, h)
	if found {
		return false
	}
	if len(s) < sketchK {
		at.Sketch = slices.Insert(s, i, h)
		return true
	}
	if i >= sketchK {
		// Larger than every kept hash: new only as far as the estimate
		// goes; count it as new when it is, probabilistically, unseen.
		return false
	}
	copy(s[i+1:], s[i:sketchK-1])
	s[i] = h
	return true
}

// Cardinality estimates the distinct values of at.
func (at *Attribute) Cardinality() float64 {
	n := len(at.Sketch)
	if n < sketchK {
		return float64(n)
	}
	kth := float64(at.Sketch[sketchK-1]) / math.Exp2(64)
	if kth <= 0 {
		return float64(n)
	}
	return float64(sketchK-1) / kth
}

// mergeSketch is the sketch of the union of a and b.
func mergeSketch(a, b []uint64) []uint64 {
	out := make([]uint64, 0, min(len(a)+len(b), sketchK))
	i, j := 0, 0
	for len(out) < sketchK && (i < len(a) || j < len(b)) {
		switch {
		case j >= len(b) || (i < len(a) && a[i] < b[j]):
			out = append(out, a[i])
			i++
		case i >= len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// Merge adds the evidence o (another source: a second recording, another
// replica's sketch) to a's, within a's limits.
func (a *Accumulator) Merge(o *Evidence) {
	ev := &a.ev
	ev.Items.Spans += o.Items.Spans
	ev.Items.DataPoints += o.Items.DataPoints
	ev.Items.LogRecords += o.Items.LogRecords
	ov := &ev.Overflow
	ov.Attributes += o.Overflow.Attributes
	ov.Metrics += o.Overflow.Metrics
	ov.Spans += o.Overflow.Spans
	ov.Events += o.Overflow.Events
	ov.Summaries += o.Overflow.Summaries
	ev.InvalidCount += o.InvalidCount
	// Distinct across sources: the listed names are told apart; the
	// others are added as counted (a name two sources both saw beyond
	// their lists is counted twice).
	// (A sketch of a release without invalid_distinct lists its names
	// only: they are counted below.)
	ev.InvalidDistinct += max(o.InvalidDistinct-int64(len(o.Invalid)), 0)
	for _, in := range o.Invalid {
		id := in.What + "\x00" + in.Name
		if a.invalid[id] {
			continue
		}
		a.invalid[id] = true
		ev.InvalidDistinct++
		if len(ev.Invalid) < MaxInvalid {
			ev.Invalid = append(ev.Invalid, in)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(o.Attributes)) {
		a.mergeAttr(o.Attributes[k])
	}
	a.mergeGroups(ev.Metrics, o.Metrics, &ov.Metrics)
	a.mergeGroups(ev.Spans, o.Spans, &ov.Spans)
	a.mergeGroups(ev.Events, o.Events, &ov.Events)
}

func (a *Accumulator) mergeAttr(o *Attribute) {
	at := a.ev.Attributes[o.Key]
	if at == nil {
		if len(a.ev.Attributes) >= a.lim.MaxAttributes {
			a.ev.Overflow.Attributes += o.Count
			return
		}
		at = &Attribute{Key: o.Key}
		a.ev.Attributes[o.Key] = at
	}
	before := len(at.Sketch)
	at.Sketch = mergeSketch(at.Sketch, o.Sketch)
	if len(at.Sketch) != before || at.Count == 0 {
		at.LastNew = at.Count + o.LastNew
	}
	at.Count += o.Count
	at.Where |= o.Where
	for _, s := range o.Services {
		at.Services, at.ServicesOverflow = addService(at.Services, at.ServicesOverflow, s, a.lim.MaxServices)
	}
	at.ServicesOverflow += o.ServicesOverflow
	for _, sg := range o.Signals {
		prefix, name, _ := strings.Cut(sg, " ")
		at.Signals, at.SignalsOverflow = addSignal(at.Signals, at.SignalsOverflow, prefix+" ", name)
	}
	at.SignalsOverflow += o.SignalsOverflow
	for _, t := range o.Types {
		ts := typeSeen(at, t.Type)
		ts.Count += t.Count
		for _, s := range t.Services {
			ts.Services, ts.ServicesOverflow = addService(ts.Services, ts.ServicesOverflow, s, maxTypeServices)
		}
		ts.ServicesOverflow += t.ServicesOverflow
	}
	if o.ValuesOverflow {
		at.Values, at.ValuesOverflow = nil, true
	}
	for _, v := range o.Values {
		switch x := v.Value.(type) {
		case string:
			addValue(at, x, v.Count)
		case int64:
			addValue(at, x, v.Count)
		case float64: // an int64 after a JSON round trip
			addValue(at, int64(x), v.Count)
		}
	}
	for _, x := range o.Examples {
		addExample(at, x)
	}
}

func (a *Accumulator) mergeGroups(dst, src map[string]*Group, over *int64) {
	for _, k := range slices.Sorted(maps.Keys(src)) {
		o := src[k]
		g := dst[k]
		if g == nil {
			if len(dst) >= a.lim.MaxGroups {
				*over += o.Count
				continue
			}
			g = &Group{Kind: o.Kind, Name: o.Name, Unit: o.Unit}
			dst[k] = g
		}
		g.Count += o.Count
		g.SpanEvent = g.SpanEvent || o.SpanEvent
		for _, v := range o.Variants {
			variant(g, v.Name, v.Count)
		}
		for _, p := range o.Attributes {
			found := false
			for i := range g.Attributes {
				if g.Attributes[i].Key == p.Key {
					g.Attributes[i].Count += p.Count
					found = true
					break
				}
			}
			switch {
			case found:
			case len(g.Attributes) >= a.lim.MaxGroupAttributes:
				g.AttributesOverflow += p.Count
			default:
				g.Attributes = append(g.Attributes, p)
			}
		}
		g.AttributesOverflow += o.AttributesOverflow
		for _, s := range o.Services {
			g.Services, g.ServicesOverflow = addService(g.Services, g.ServicesOverflow, s, a.lim.MaxServices)
		}
		g.ServicesOverflow += o.ServicesOverflow
	}
}
