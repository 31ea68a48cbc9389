package engine

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/vocab"
)

// countingSlots gives each of the first limit names a slot, folds later
// ones into _other, cuts names as vocab.Bound does, and counts its calls.
type countingSlots struct {
	limit int
	index map[string]int
	calls map[string]int
}

func (c *countingSlots) Slot(name string) ServiceID {
	c.calls[name]++
	label, _ := vocab.Bound(name)
	if i, ok := c.index[label]; ok {
		return ServiceID{Slot: i, Name: label}
	}
	if len(c.index) >= c.limit {
		return ServiceID{Slot: 0, Name: vocab.ServiceOther, Overflow: true}
	}
	label = strings.Clone(label)
	c.index[label] = len(c.index) + 2
	return ServiceID{Slot: c.index[label], Name: label}
}

func (*countingSlots) Missing() ServiceID { return ServiceID{Slot: 1, Name: vocab.ServiceMissing} }

// TestServiceSlotReuse: a walker asks ServiceSlots once for a run of
// batches of one service, and again for every resource whose identity is
// not a slot of its own (folded into _other, or a name cut by vocab.Bound),
// so that each overflow is still counted; the tally is filed as Slot says.
func TestServiceSlotReuse(t *testing.T) {
	long := strings.Repeat("s", vocab.MaxKeyLength+10)
	slots := &countingSlots{limit: 3, index: map[string]int{}, calls: map[string]int{}}
	opts := defaultOptions()
	opts.Services = slots
	e, ix := newTestEngine(t, opts)
	walk := func(service string) Batch {
		td := ptrace.NewTraces()
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", service)
		rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty().Attributes().PutStr("http.request.method", "GET")
		w := e.Walker(ix, false)
		w.Traces(td)
		b := *w.Batch()
		b.Services = append([]ServiceTally(nil), b.Services...)
		e.Release(w)
		return b
	}
	for range 3 {
		b := walk("checkout")
		require.Len(t, b.Services, 1)
		assert.Equal(t, 2, b.Services[0].Slot)
	}
	assert.Equal(t, 1, slots.calls["checkout"], "one service, three batches")
	walk(long)
	walk(long)
	assert.Equal(t, 2, slots.calls[long], "a cut name is asked for each time")
	walk("checkout")
	assert.Equal(t, 1, slots.calls["checkout"], "a cut name does not take the remembered one's place")
	walk("payment")
	for _, name := range []string{"cart", vocab.ServiceOther} {
		for range 2 {
			b := walk(name)
			assert.Equal(t, vocab.ServiceOther, b.Services[0].Service)
			assert.Equal(t, int64(1), b.Overflow)
		}
		assert.Equal(t, 2, slots.calls[name], "an overflow is asked for each time")
	}
	b := walk("checkout")
	assert.Equal(t, 2, b.Services[0].Slot)
	assert.Equal(t, 2, slots.calls["checkout"], "payment took its place")
}
