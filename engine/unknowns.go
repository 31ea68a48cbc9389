package engine

import (
	"encoding/binary"
	"math"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// The unknown-key context feeds the registry extension's inference sketch
// (package infer): for each unknown key the report's tally files, the
// context it was filed in (location, metric name), the types of the
// values read and a few value hashes. It costs nothing unless a front-end
// turns it on for a walker (Walker.TrackUnknowns): the tally's key() tests
// one bool. It is filed where the report's key tally is, so a shape memo
// hit files it once per shape, service and batch (the memo's replay of
// the report's events), with the value of that one hit: the memo reads no
// other value, so the types and value hashes come from the walks that
// read every value (misses, the shape's recording) and from one hit per
// shape, service and batch. While the walker tracks unknowns, a recorded
// shape guards the type of its unknown keys (takeFiled): a map whose
// unknown key has another type misses and is read, so the sketch sees
// every type a shape is sent with. Span names are not part of a shape nor
// of the walk's context: an unknown key's spans are known by location,
// its metrics by name.

// MaxUnknownValues bounds the value hashes (and, with values, the values)
// an UnknownTally keeps per batch.
const MaxUnknownValues = 4

// maxUnknownContexts bounds the UnknownTally entries of one batch; later
// contexts are counted in Batch.UnknownsOverflow.
const maxUnknownContexts = 4096

// UnknownTally is one unknown key in one context in one batch.
type UnknownTally struct {
	// Key indexes Batch.Keys (the service and the key).
	Key      int
	Location registry.Location
	// Signal is the metric name of data-point attributes, as received;
	// "" for other locations.
	Signal string
	// Types is the set of the value types read, bit 1<<pcommon.ValueType,
	// except that an array whose elements share a type sets that array
	// type's bit instead (TypeBitStrings...).
	Types uint16
	// Filed counts the filings: one per attribute in a walk that reads it,
	// one per shape and service on memo hits (Keys[Key].Count counts every
	// occurrence).
	Filed int64
	// Hashes are the ValueHash of up to MaxUnknownValues distinct values
	// read; NHashes of them are set.
	Hashes  [MaxUnknownValues]uint64
	NHashes uint8
	// Values are the first NValues distinct scalar values read (string,
	// int64, float64 or bool; strings bounded by vocab.Bound and copied),
	// only when the walker tracks values.
	Values  [MaxUnknownValues]any
	NValues uint8
}

// Bits of UnknownTally.Types past the pcommon.ValueTypes: an array whose
// elements all have one type, Weaver's string[], int[], double[] (ints
// and doubles mixed too) and boolean[].
const (
	TypeBitStrings uint16 = 1 << (8 + iota)
	TypeBitInts
	TypeBitDoubles
	TypeBitBools
)

// typeBits is v's bit in UnknownTally.Types.
func typeBits(v pcommon.Value) uint16 {
	if v.Type() == pcommon.ValueTypeSlice {
		switch inferSliceType(v.Slice()) {
		case sampleStrings:
			return TypeBitStrings
		case sampleInts:
			return TypeBitInts
		case sampleDoubles:
			return TypeBitDoubles
		case sampleBools:
			return TypeBitBools
		default:
		}
	}
	return 1 << v.Type()
}

type unknownKey struct {
	key    int
	loc    registry.Location
	signal string
}

// TrackUnknowns turns the unknown-key context on (values: with the
// values themselves) for this walker's batch; Release turns it off. It
// needs Options.Detail.
func (w *Walker) TrackUnknowns(on, values bool) {
	r := &w.report
	r.unknowns = on && r.enabled
	r.values = values && r.unknowns
	if r.unknowns {
		r.ctx = &w.ctx
		if r.unk == nil {
			r.unk = make(map[unknownKey]int, 16)
		}
	}
}

// unknownValue hands the value of the unknown key about to be filed.
func (r *reportTally) unknownValue(v pcommon.Value) {
	r.val, r.hasVal = v, true
}

// takeFiled reports whether the key just checked was an unknown key whose
// value was filed, and forgets it: the shape memo's recording then guards
// that position by the value's type (memoStep), so that a map whose
// unknown key has another type misses and is read, and the sketch sees
// every type a shape is sent with. False while the walker does not track
// unknowns.
func (r *reportTally) takeFiled() bool {
	f := r.filed
	r.filed = false
	return f
}

// unknown files the context of Keys[i], an unknown key.
func (r *reportTally) unknown(i int) {
	b := r.batch
	uk := unknownKey{key: i, loc: r.ctx.Location}
	if uk.loc == registry.LocationDataPoint {
		uk.signal = r.ctx.MetricName
	}
	j, ok := r.unk[uk]
	if !ok {
		if len(b.Unknowns) >= maxUnknownContexts {
			b.UnknownsOverflow++
			r.hasVal = false
			return
		}
		j = len(b.Unknowns)
		r.unk[uk] = j
		b.Unknowns = append(b.Unknowns, UnknownTally{Key: i, Location: uk.loc, Signal: uk.signal})
	}
	u := &b.Unknowns[j]
	u.Filed++
	if !r.hasVal {
		return
	}
	r.hasVal, r.filed = false, r.rec != nil
	v := r.val
	u.Types |= typeBits(v)
	if u.NHashes >= MaxUnknownValues {
		return
	}
	h := ValueHash(v)
	for _, x := range u.Hashes[:u.NHashes] {
		if x == h {
			return
		}
	}
	u.Hashes[u.NHashes] = h
	u.NHashes++
	if r.values {
		if x := Scalar(v); x != nil {
			if str, ok := x.(string); ok {
				x = strings.Clone(str) // the tally outlives the batch
			}
			u.Values[u.NValues] = x
			u.NValues++
		}
	}
}

// Scalar is v as a Go scalar: a string bounded by vocab.Bound (still the
// batch's memory: a caller that keeps it copies it), an int64, a finite
// float64 or a bool; nil for other types and non-finite doubles. The
// sketch's values and infer's examples and exact values are both read
// through it, so both compare values as they keep them.
func Scalar(v pcommon.Value) any {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		s, _ := vocab.Bound(v.Str())
		return s
	case pcommon.ValueTypeInt:
		return v.Int()
	case pcommon.ValueTypeDouble:
		if f := v.Double(); !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f
		}
	case pcommon.ValueTypeBool:
		return v.Bool()
	case pcommon.ValueTypeSlice, pcommon.ValueTypeMap, pcommon.ValueTypeBytes, pcommon.ValueTypeEmpty:
	}
	return nil
}

// ValueHash is a stable 64-bit hash of v with its type ("1" and 1
// differ): FNV-1a finished with splitmix64's mix, the same in every
// process, so that distinct-value sketches of two processes merge.
func ValueHash(v pcommon.Value) uint64 {
	h := fnvAdd(fnvOffset, byte(v.Type())) //nolint:gosec // a ValueType is 0..6
	var b [8]byte
	switch v.Type() {
	case pcommon.ValueTypeStr:
		h = fnvString(h, v.Str())
	case pcommon.ValueTypeInt:
		binary.LittleEndian.PutUint64(b[:], uint64(v.Int())) //nolint:gosec // bits, not a value
		h = fnvBytes(h, b[:])
	case pcommon.ValueTypeDouble:
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v.Double()))
		h = fnvBytes(h, b[:])
	case pcommon.ValueTypeBool:
		if v.Bool() {
			b[0] = 1
		}
		h = fnvBytes(h, b[:1])
	case pcommon.ValueTypeBytes:
		h = fnvBytes(h, v.Bytes().AsRaw())
	case pcommon.ValueTypeSlice, pcommon.ValueTypeMap, pcommon.ValueTypeEmpty:
		h = fnvString(h, v.AsString())
	}
	return mix64(h)
}

// FNV-1a, 64 bits, without hash.Hash's allocation.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvAdd(h uint64, c byte) uint64 { return (h ^ uint64(c)) * fnvPrime }

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = fnvAdd(h, s[i])
	}
	return h
}

func fnvBytes(h uint64, b []byte) uint64 {
	for _, c := range b {
		h = fnvAdd(h, c)
	}
	return h
}

func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
