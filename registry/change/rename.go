package change

import (
	"slices"

	"github.com/otelgov/otelcol-governance/registry"
)

// sampleContexts are the contexts in which both sides' attribute renames
// are compared: every location, every span kind at span locations, and at
// data points and spans each metric or span name some rename is scoped to
// (plus one that none is). Between them they reach every rename rule of
// both registries.
func sampleContexts(sides ...map[string]*registry.Attribute) []registry.Context {
	var metrics, spans []string
	for _, side := range sides {
		for _, a := range side {
			for _, r := range a.Renames() {
				metrics = append(metrics, r.Scope.Metrics...)
				spans = append(spans, r.Scope.Spans...)
			}
		}
	}
	slices.Sort(metrics)
	slices.Sort(spans)
	metrics = append([]string{""}, slices.Compact(metrics)...)
	spans = append([]string{""}, slices.Compact(spans)...)
	var out []registry.Context
	for _, loc := range []registry.Location{
		registry.LocationResource, registry.LocationScope, registry.LocationSpan, registry.LocationSpanEvent,
		registry.LocationSpanLink, registry.LocationDataPoint, registry.LocationLog,
	} {
		switch loc {
		case registry.LocationSpan, registry.LocationSpanEvent, registry.LocationSpanLink:
			for k := registry.SpanKindUnspecified; k <= registry.SpanKindConsumer; k++ {
				for _, s := range spans {
					out = append(out, registry.Context{Location: loc, SpanKind: k, SpanName: s})
				}
			}
		case registry.LocationDataPoint:
			for _, m := range metrics {
				out = append(out, registry.Context{Location: loc, MetricName: m})
			}
		default:
			out = append(out, registry.Context{Location: loc})
		}
	}
	return out
}

// current returns k's name in ctx on one side ("" when it keeps its name
// or the side does not know it).
func current(a *registry.Attribute, k string, ctx registry.Context) string {
	if a == nil {
		return ""
	}
	if t := a.Target(ctx); t != nil {
		return a.RenamedKey(k, t)
	}
	return ""
}

// scopeOf returns the scope of the first of a's renames that matches ctx.
func scopeOf(a *registry.Attribute, ctx registry.Context) *registry.Scope {
	for _, r := range a.Renames() {
		if inScope(r.Scope, ctx) {
			s := r.Scope
			return &s
		}
	}
	return nil
}

func inScope(s registry.Scope, ctx registry.Context) bool {
	return (s.Locations == nil || slices.Contains(s.Locations, ctx.Location)) &&
		(s.SpanKinds == nil || slices.Contains(s.SpanKinds, ctx.SpanKind)) &&
		(s.Metrics == nil || slices.Contains(s.Metrics, ctx.MetricName)) &&
		(s.Spans == nil || slices.Contains(s.Spans, ctx.SpanName))
}

// renames adds k's attribute_renamed changes: one per distinct (old
// current name, new current name) pair that differs in some context, and
// records every pair in pairs. It returns the index in the set of the
// first change it added, or -1.
func (d *differ) renames(k string, oa, na *registry.Attribute, ctxs []registry.Context, pairs map[[2]string]bool) int {
	type pair struct{ o, n string }
	var seen []pair
	var first []registry.Context // the first context of each pair
	every := true                // one pair in every context
	for _, ctx := range ctxs {
		p := pair{current(oa, k, ctx), current(na, k, ctx)}
		i := slices.Index(seen, p)
		if i < 0 {
			seen = append(seen, p)
			first = append(first, ctx)
			if len(seen) > 1 {
				every = false
			}
		}
	}
	at := -1
	for i, p := range seen {
		on, nn := p.o, p.n
		if on == "" {
			on = k
		}
		if nn == "" {
			nn = k
		}
		pairs[[2]string{on, nn}] = true
		if p.o == p.n {
			continue
		}
		// p.n == "": the new side keeps the key where the old side renamed
		// it, so its current name moves back to k.
		c := Change{
			Kind: AttributeRenamed, Item: ItemAttribute, Name: k, NewName: nn, OldValue: p.o,
			Migratable: true,
		}
		if na != nil {
			c.Source = na.Source
		}
		if !every {
			if p.n != "" {
				c.Scope = scopeOf(na, first[i])
			} else {
				c.Scope = scopeOf(oa, first[i])
			}
		}
		if at < 0 {
			at = len(d.set.Changes)
		}
		d.add(c)
	}
	return at
}
