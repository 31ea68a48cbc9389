package registry

// Locations are the places an attribute can be, in the order reports list
// them.
var Locations = [...]Location{
	LocationResource, LocationScope, LocationSpan, LocationSpanEvent,
	LocationSpanLink, LocationDataPoint, LocationLog,
}

// SpanKinds are the span kinds a rename may depend on, in order.
var SpanKinds = [...]SpanKind{
	SpanKindUnspecified, SpanKindInternal, SpanKindServer,
	SpanKindClient, SpanKindProducer, SpanKindConsumer,
}

// ContextName is a key's current name in one context.
type ContextName struct {
	// Context is where: a location, with the data point's metric name and
	// the span's name that were asked about; for span, span-event and
	// span-link locations also the span kind when ByKind.
	Context Context
	// ByKind: the name depends on the span kind, and this entry is the
	// name under Context.SpanKind.
	ByKind bool
	// Name is the key's name there; Renamed whether a rename applies.
	Name    string
	Renamed bool
}

// CurrentNames is key's current name (a is the entry that matches key) in
// every location: one entry per location, except for span, span-event and
// span-link locations where the name depends on the span kind, which have
// one per kind. metricName and spanName select renames scoped to a metric
// or a span name ("" for none). otelgov explain, the extension's
// /registry/attributes and otelgov check's replacements all read it.
func (a *Attribute) CurrentNames(key, metricName, spanName string) []ContextName {
	out := make([]ContextName, 0, len(Locations)+2*len(SpanKinds))
	for _, l := range Locations {
		ctx := Context{Location: l}
		switch l {
		case LocationDataPoint:
			ctx.MetricName = metricName
		case LocationSpan, LocationSpanEvent, LocationSpanLink:
			ctx.SpanName = spanName
			var byKind [len(SpanKinds)]ContextName
			same := true
			for i, k := range SpanKinds {
				ctx.SpanKind = k
				n, r := a.CurrentName(key, ctx)
				byKind[i] = ContextName{Context: ctx, ByKind: true, Name: n, Renamed: r}
				same = same && n == byKind[0].Name
			}
			if !same {
				out = append(out, byKind[:]...)
				continue
			}
			ctx.SpanKind = SpanKindUnspecified
		case LocationResource, LocationScope, LocationLog:
		}
		n, r := a.CurrentName(key, ctx)
		out = append(out, ContextName{Context: ctx, Name: n, Renamed: r})
	}
	return out
}
