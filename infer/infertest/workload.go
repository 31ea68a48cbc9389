// Package infertest is a recorded-workload generator for the registry
// inference tests: two services sending an organisation's own attributes,
// metrics and events beside semantic-convention ones, with near-misses of
// registry names, a type conflict, enum-like values and a high-cardinality
// metric attribute.
package infertest

import (
	"fmt"
	"io"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/otlpfile"
	"github.com/otelgov/otelcol-governance/vocab"
)

// Rounds is the number of times each service repeats its telemetry.
const Rounds = 40

// Tenants are app.tenant's values: few and stable, an enum.
var Tenants = []string{"acme", "globex", "initech"}

// The workload's names, for assertions.
const (
	Tenant           = "app.tenant"         // string enum, resource and span and metric attribute
	Build            = "app.build"          // int from checkout, string from payments: a conflict
	Region           = "app.region"         // a resource attribute
	CartSize         = "checkout.cart.size" // int
	Sku              = "checkout.item.sku"  // high cardinality, a span event attribute
	RequestID        = "payments.request.id"
	CardBrand        = "payments.card.brand"
	OrderTotal       = "checkout.order.total"
	FailureReason    = "payments.failure.reason"
	LogComponent     = "app.log.component" // on a log record without an event name
	NearUnderscore   = "http_method"       // near-miss of http.method -> http.request.method
	NearCamel        = "httpMethod"
	NearSeparator    = "http.request_method"
	MetricItems      = "checkout.cart.items"      // histogram {item}
	MetricCharges    = "payments.charges"         // counter {charge}
	MetricQueue      = "payments.queue.depth"     // gauge {request}, with RequestID: high cardinality
	MetricSessions   = "checkout.sessions.active" // updowncounter {session}
	MetricSemconv    = "http.server.request.duration"
	EventOrder       = "checkout.order.placed"
	EventFailed      = "payments.charge.failed"
	SpanEventAdded   = "checkout.item.added"
	SpanCheckout     = "POST /checkout"
	SpanCharge       = "charge card"
	SpanTypeCharge   = "charge_card"
	SpanTypeCheckout = "post_checkout"
)

func resource(r pcommon.Resource, service string) {
	r.Attributes().PutStr("service.name", service)
	r.Attributes().PutStr(Region, "eu-west-1")
}

// Traces is the workload's traces.
func Traces() ptrace.Traces {
	td := ptrace.NewTraces()
	for _, svc := range []string{"checkout", "payments"} {
		rs := td.ResourceSpans().AppendEmpty()
		resource(rs.Resource(), svc)
		spans := rs.ScopeSpans().AppendEmpty().Spans()
		for i := range Rounds {
			sp := spans.AppendEmpty()
			a := sp.Attributes()
			a.PutStr(Tenant, Tenants[i%len(Tenants)])
			if svc == "checkout" {
				sp.SetName(SpanCheckout)
				sp.SetKind(ptrace.SpanKindServer)
				a.PutInt(Build, 1042)
				a.PutInt(CartSize, int64(1+i%7))
				a.PutStr("http.request.method", "POST")
				a.PutStr(NearUnderscore, "POST")
				if i%2 == 0 {
					a.PutStr(NearSeparator, "POST")
				}
				ev := sp.Events().AppendEmpty()
				ev.SetName(SpanEventAdded)
				ev.Attributes().PutStr(Sku, fmt.Sprintf("sku-%05d", i))
			} else {
				sp.SetName(SpanCharge)
				sp.SetKind(ptrace.SpanKindClient)
				a.PutStr(Build, "1042-payments")
				a.PutStr(CardBrand, []string{"visa", "mastercard"}[i%2])
				a.PutStr(NearCamel, "POST")
			}
		}
	}
	return td
}

// Metrics is the workload's metrics.
func Metrics() pmetric.Metrics {
	md := pmetric.NewMetrics()
	for _, svc := range []string{"checkout", "payments"} {
		rm := md.ResourceMetrics().AppendEmpty()
		resource(rm.Resource(), svc)
		ms := rm.ScopeMetrics().AppendEmpty().Metrics()
		if svc == "checkout" {
			h := ms.AppendEmpty()
			h.SetName(MetricItems)
			h.SetUnit("{item}")
			hist := h.SetEmptyHistogram()
			hist.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
			for i := range Rounds {
				dp := hist.DataPoints().AppendEmpty()
				dp.SetCount(uint64(i))
				dp.Attributes().PutStr(Tenant, Tenants[i%len(Tenants)])
			}
			u := ms.AppendEmpty()
			u.SetName(MetricSessions)
			u.SetUnit("{session}")
			sum := u.SetEmptySum()
			sum.SetIsMonotonic(false)
			sum.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
			sum.DataPoints().AppendEmpty().SetIntValue(3)
			d := ms.AppendEmpty()
			d.SetName(MetricSemconv)
			d.SetUnit("s")
			dh := d.SetEmptyHistogram()
			dh.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
			dp := dh.DataPoints().AppendEmpty()
			dp.Attributes().PutStr("http.request.method", "POST")
			continue
		}
		c := ms.AppendEmpty()
		c.SetName(MetricCharges)
		c.SetUnit("{charge}")
		sum := c.SetEmptySum()
		sum.SetIsMonotonic(true)
		sum.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
		for i := range Rounds {
			dp := sum.DataPoints().AppendEmpty()
			dp.SetIntValue(int64(i))
			dp.Attributes().PutStr(CardBrand, []string{"visa", "mastercard"}[i%2])
			if i%4 == 0 {
				dp.Attributes().PutStr(Tenant, Tenants[i%len(Tenants)])
			}
		}
		g := ms.AppendEmpty()
		g.SetName(MetricQueue)
		g.SetUnit("{request}")
		gauge := g.SetEmptyGauge()
		for i := range 3 * Rounds {
			dp := gauge.DataPoints().AppendEmpty()
			dp.SetIntValue(int64(i))
			dp.Attributes().PutStr(RequestID, fmt.Sprintf("req-%08x", i*2654435761))
		}
	}
	return md
}

// Logs is the workload's logs.
func Logs() plog.Logs {
	ld := plog.NewLogs()
	for _, svc := range []string{"checkout", "payments"} {
		rl := ld.ResourceLogs().AppendEmpty()
		resource(rl.Resource(), svc)
		lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
		for i := range Rounds {
			lr := lrs.AppendEmpty()
			if svc == "checkout" {
				lr.SetEventName(EventOrder)
				lr.Attributes().PutStr(Tenant, Tenants[i%len(Tenants)])
				lr.Attributes().PutDouble(OrderTotal, 10.5+float64(i))
			} else {
				lr.SetEventName(EventFailed)
				lr.Attributes().PutStr(FailureReason, []string{"declined", "expired", "fraud"}[i%3])
			}
			plain := lrs.AppendEmpty()
			plain.Body().SetStr("working")
			plain.Attributes().PutStr(LogComponent, svc)
		}
	}
	return ld
}

// Write records the workload as the collector's file exporter does (JSON
// lines): traces, metrics, logs.
func Write(w io.Writer) error {
	ow := otlpfile.NewWriter(w, otlpfile.FormatJSON, false)
	for _, rec := range []otlpfile.Record{
		{Kind: vocab.KindTraces, Traces: Traces()},
		{Kind: vocab.KindMetrics, Metrics: Metrics()},
		{Kind: vocab.KindLogs, Logs: Logs()},
	} {
		if err := ow.Write(&rec); err != nil {
			return err
		}
	}
	return ow.Close()
}
