package engine

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/engine/enginetest"
	"github.com/otelgov/otelcol-governance/registry"
)

// batchView is what a front-end reads of a Batch, but the unknown-key
// context.
type batchView struct {
	Attrs    [NumLocations][7]int64
	Keys     []KeyTally
	Findings []FindingTally
	Services []ServiceTally
	Drops    any
	Names    any
}

func viewOf(b *Batch) batchView {
	v := batchView{
		Keys: append([]KeyTally(nil), b.Keys...), Findings: append([]FindingTally(nil), b.Findings...),
		Services: append([]ServiceTally(nil), b.Services...), Drops: b.Drops, Names: b.Names,
	}
	for l := range b.Attrs {
		copy(v.Attrs[l][:], b.Attrs[l][:])
	}
	return v
}

// TestUnknownsChangeNothing: tracking unknown keys (the registry
// extension's inference sketch) changes neither the telemetry nor the
// report's tally, with the memo warm and cold, keeping and dropping
// unknown keys; off, the walker files no context at all.
func TestUnknownsChangeNothing(t *testing.T) {
	for _, unknown := range []UnknownMode{UnknownKeep, UnknownDrop} {
		t.Run(string(unknown), func(t *testing.T) {
			opts := defaultOptions()
			opts.Findings, opts.Detail, opts.Unknown = true, true, unknown
			off, ix := newTestEngine(t, opts)
			on, _ := newTestEngine(t, opts)
			wire := enginetest.TracesBytes(enginetest.GenTracesWith(50, enginetest.PutLineMixedAttrs))
			for i := range 4 { // the first batches record the shapes, the later hit them
				tdOff, tdOn := enginetest.UnmarshalTraces(wire), enginetest.UnmarshalTraces(wire)
				wOff := off.Walker(ix, false)
				wOff.Traces(tdOff)
				wOn := on.Walker(ix, false)
				wOn.TrackUnknowns(true, true)
				wOn.Traces(tdOn)
				bOff, bOn := wOff.Batch(), wOn.Batch()
				assert.Equal(t, viewOf(bOff), viewOf(bOn), "batch %d", i)
				assert.Equal(t, enginetest.TracesBytes(tdOff), enginetest.TracesBytes(tdOn), "batch %d", i)
				assert.Empty(t, bOff.Unknowns, "off: nothing filed")
				require.NotEmpty(t, bOn.Unknowns, "on: the 4 unknown keys are filed")
				var filed int64
				for _, u := range bOn.Unknowns {
					assert.Equal(t, KeyUnknown, bOn.Keys[u.Key].Kind)
					assert.Equal(t, registry.LocationSpan, u.Location)
					assert.Equal(t, uint16(1)<<pcommon.ValueTypeStr, u.Types)
					filed += u.Filed
				}
				assert.LessOrEqual(t, filed, int64(4*50))
				off.Release(wOff)
				on.Release(wOn)
			}
			// A pooled walker starts with tracking off.
			w := on.Walker(ix, false)
			w.Traces(enginetest.UnmarshalTraces(wire))
			assert.Empty(t, w.Batch().Unknowns)
			on.Release(w)
		})
	}
}

// TestUnknownsTypePerShape: once a shape is memoized, a map of that shape
// whose unknown key has another type is read, not hit, while the walker
// tracks unknowns, so the sketch sees both types of acme.size from one
// service in one batch; the memo's hits file one value per shape.
func TestUnknownsTypePerShape(t *testing.T) {
	opts := defaultOptions()
	opts.Findings, opts.Detail = true, true
	e, ix := newTestEngine(t, opts)
	batch := func(types ...pcommon.ValueType) ptrace.Traces {
		td := ptrace.NewTraces()
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", "checkout")
		ss := rs.ScopeSpans().AppendEmpty()
		for i, tp := range types {
			a := ss.Spans().AppendEmpty().Attributes()
			a.PutStr("http.request.method", "GET")
			if tp == pcommon.ValueTypeInt {
				a.PutInt("acme.size", int64(i))
			} else {
				a.PutStr("acme.size", "big")
			}
		}
		return td
	}
	ints := make([]pcommon.ValueType, 20)
	for i := range ints {
		ints[i] = pcommon.ValueTypeInt
	}
	walk := func(td ptrace.Traces) (uint16, int, *Batch) {
		w := e.Walker(ix, false)
		w.TrackUnknowns(true, false)
		w.Traces(td)
		b := w.Batch()
		var types uint16
		hashes := 0
		for _, u := range b.Unknowns {
			types |= u.Types
			hashes += int(u.NHashes)
		}
		e.Release(w)
		return types, hashes, b
	}
	for range 3 {
		walk(batch(ints...)) // admitted and recorded
	}
	require.Positive(t, e.MemoStats().Hits, "the shape is memoized")
	types, _, _ := walk(batch(append(append([]pcommon.ValueType(nil), ints[:10]...), pcommon.ValueTypeStr, pcommon.ValueTypeStr)...))
	assert.Equal(t, uint16(1)<<pcommon.ValueTypeInt|uint16(1)<<pcommon.ValueTypeStr, types, "both types filed")
}

// TestUnknownsValuesBounded: with values, the walker copies each value it
// keeps cut by vocab.Bound, and keeps at most MaxUnknownValues per
// context in a batch; without, it keeps hashes only.
func TestUnknownsValuesBounded(t *testing.T) {
	opts := defaultOptions()
	opts.Detail = true
	e, ix := newTestEngine(t, opts)
	e.memo = nil // every map walked in full: every value read
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	for i := range 10 {
		ss.Spans().AppendEmpty().Attributes().PutStr("acme.blob", strings.Repeat("x", 300+i))
	}
	for _, values := range []bool{false, true} {
		w := e.Walker(ix, false)
		w.TrackUnknowns(true, values)
		w.Traces(td)
		b := w.Batch()
		require.Len(t, b.Unknowns, 1)
		u := b.Unknowns[0]
		assert.Equal(t, uint8(MaxUnknownValues), u.NHashes)
		if !values {
			assert.Zero(t, u.NValues)
		} else {
			require.Equal(t, uint8(MaxUnknownValues), u.NValues)
			for _, v := range u.Values {
				assert.Len(t, v, 256)
			}
		}
		e.Release(w)
	}
}
