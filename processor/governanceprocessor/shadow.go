package governanceprocessor // import "github.com/otelgov/otelcol-governance/processor/governanceprocessor"

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/otelgov/otelcol-governance/extension/registryextension/registryapi"
	"github.com/otelgov/otelcol-governance/registry/change"
)

// shadow evaluates the registry extension's candidate registry read-only on
// a sample of the batches: one in shadow::sample_every, at most
// shadow::max_batches_per_second. A sampled batch is walked before the
// engine sees it, by this file's own read-only walk (never the engine's,
// which rewrites): each attribute key (with its value, for enum members)
// and metric name is looked up in the candidate's change table, which the
// extension computed once per (registry in force, candidate) pair. The
// counts go per service.name (the engine's service table, so bounded by
// service_limit) and change kind. Nothing here writes to the data.
//
// A governor without a candidate has no shadow (nil): the batch path pays
// one nil check.
type shadow struct {
	src      registryapi.Shadower
	services *serviceTable
	every    uint64
	n        atomic.Uint64

	mu     sync.Mutex // serialises the bucket
	bucket tokenBucket
	now    func() time.Time

	batches, items counter
	candidate      [2]counter // by candidateLoaded, candidateFailed (a gauge)
}

const (
	candidateLoaded = iota
	candidateFailed
)

func newShadow(src registryapi.Shadower, cfg *shadowConfig, services *serviceTable, base []attribute.KeyValue, now func() time.Time) *shadow {
	s := &shadow{
		src:      src,
		services: services,
		every:    uint64(max(cfg.SampleEvery, 1)),
		bucket:   newTokenBucket(cfg.MaxBatchesPerSecond, now()),
		now:      now,
	}
	s.batches.opts = observeOpts(base)
	s.items.opts = observeOpts(base)
	s.candidate[candidateLoaded].opts = observeOpts(base, attribute.String("candidate_status", "loaded"))
	s.candidate[candidateFailed].opts = observeOpts(base, attribute.String("candidate_status", "failed"))
	services.enableShadow()
	return s
}

// register adds the shadow's series to the processor's telemetry.
func (s *shadow) register(t *telemetry) error {
	tb := t.tb
	return errors.Join(
		tb.RegisterProcessorGovernanceShadowChangesCallback(func(_ context.Context, o metric.Int64Observer) error {
			s.services.observeShadow(o)
			return nil
		}),
		tb.RegisterProcessorGovernanceShadowBatchesCallback(func(_ context.Context, o metric.Int64Observer) error {
			s.batches.observe(o)
			return nil
		}),
		tb.RegisterProcessorGovernanceShadowItemsCallback(func(_ context.Context, o metric.Int64Observer) error {
			s.items.observe(o)
			return nil
		}),
		tb.RegisterProcessorGovernanceShadowCandidateCallback(func(_ context.Context, o metric.Int64Observer) error {
			if sh := s.src.Shadow(); sh != nil {
				st := candidateLoaded
				if sh.Failed() {
					st = candidateFailed
				}
				o.Observe(sh.Generation, s.candidate[st].opts...)
			}
			return nil
		}),
	)
}

// sample returns the change table to evaluate this batch against, or nil
// when the batch is not sampled or the candidate failed to load.
func (s *shadow) sample() *change.Lookup {
	if s.n.Add(1)%s.every != 0 {
		return nil
	}
	sh := s.src.Shadow()
	if sh == nil || sh.Changes == nil {
		return nil
	}
	s.mu.Lock()
	ok := s.bucket.take(s.now())
	s.mu.Unlock()
	if !ok {
		return nil
	}
	return sh.Changes
}

// shadowWalk tallies one sampled batch: per resource, the change kinds of
// its attributes and metric names, added to the resource's service once.
type shadowWalk struct {
	l      *change.Lookup
	counts [change.NumKinds]int64
	any    bool
}

func (w *shadowWalk) add(ks change.KindSet) {
	if ks == 0 {
		return
	}
	w.any = true
	for k := range change.NumKinds {
		if ks.Has(change.Kind(k)) {
			w.counts[k]++
		}
	}
}

func (w *shadowWalk) attrs(m pcommon.Map) {
	for k, v := range m.All() {
		switch v.Type() {
		case pcommon.ValueTypeStr:
			w.add(w.l.Attribute(k, v.Str(), true, 0, false))
		case pcommon.ValueTypeInt:
			w.add(w.l.Attribute(k, "", false, v.Int(), true))
		default: // the key's own changes; enum members are strings or ints
			w.add(w.l.Attribute(k, "", false, 0, false))
		}
	}
}

// flush adds the resource's counts to its service and resets them.
func (w *shadowWalk) flush(s *shadow, resource pcommon.Map) {
	if !w.any {
		return
	}
	id := s.services.Missing()
	if v, ok := resource.Get(serviceNameKey); ok && v.Type() == pcommon.ValueTypeStr {
		id = s.services.slot(v.Str(), false)
	}
	slots := s.services.snapshot()
	if id.Slot >= 0 && id.Slot < len(slots) {
		if sc := slots[id.Slot].shadow; sc != nil {
			for k, n := range w.counts {
				sc[k].add(n)
			}
		}
	}
	w.counts, w.any = [change.NumKinds]int64{}, false
}

// serviceNameKey is the resource attribute that names the service.
const serviceNameKey = "service.name"

func (s *shadow) traces(td ptrace.Traces) {
	l := s.sample()
	if l == nil {
		return
	}
	w := shadowWalk{l: l}
	rss := td.ResourceSpans()
	for i := range rss.Len() {
		rs := rss.At(i)
		w.attrs(rs.Resource().Attributes())
		sss := rs.ScopeSpans()
		for j := range sss.Len() {
			ss := sss.At(j)
			w.attrs(ss.Scope().Attributes())
			spans := ss.Spans()
			for k := range spans.Len() {
				sp := spans.At(k)
				w.attrs(sp.Attributes())
				evs := sp.Events()
				for e := range evs.Len() {
					w.attrs(evs.At(e).Attributes())
				}
				links := sp.Links()
				for e := range links.Len() {
					w.attrs(links.At(e).Attributes())
				}
			}
		}
		w.flush(s, rs.Resource().Attributes())
	}
	s.batches.add(1)
	s.items.add(int64(td.SpanCount()))
}

func (s *shadow) metrics(md pmetric.Metrics) {
	l := s.sample()
	if l == nil {
		return
	}
	w := shadowWalk{l: l}
	rms := md.ResourceMetrics()
	for i := range rms.Len() {
		rm := rms.At(i)
		w.attrs(rm.Resource().Attributes())
		sms := rm.ScopeMetrics()
		for j := range sms.Len() {
			sm := sms.At(j)
			w.attrs(sm.Scope().Attributes())
			ms := sm.Metrics()
			for k := range ms.Len() {
				m := ms.At(k)
				w.add(l.Metric(m.Name()))
				w.dataPoints(m)
			}
		}
		w.flush(s, rm.Resource().Attributes())
	}
	s.batches.add(1)
	s.items.add(int64(md.DataPointCount()))
}

func (w *shadowWalk) dataPoints(m pmetric.Metric) {
	switch m.Type() {
	case pmetric.MetricTypeGauge:
		dps := m.Gauge().DataPoints()
		for i := range dps.Len() {
			w.attrs(dps.At(i).Attributes())
		}
	case pmetric.MetricTypeSum:
		dps := m.Sum().DataPoints()
		for i := range dps.Len() {
			w.attrs(dps.At(i).Attributes())
		}
	case pmetric.MetricTypeHistogram:
		dps := m.Histogram().DataPoints()
		for i := range dps.Len() {
			w.attrs(dps.At(i).Attributes())
		}
	case pmetric.MetricTypeExponentialHistogram:
		dps := m.ExponentialHistogram().DataPoints()
		for i := range dps.Len() {
			w.attrs(dps.At(i).Attributes())
		}
	case pmetric.MetricTypeSummary:
		dps := m.Summary().DataPoints()
		for i := range dps.Len() {
			w.attrs(dps.At(i).Attributes())
		}
	case pmetric.MetricTypeEmpty:
	}
}

func (s *shadow) logs(ld plog.Logs) {
	l := s.sample()
	if l == nil {
		return
	}
	w := shadowWalk{l: l}
	rls := ld.ResourceLogs()
	for i := range rls.Len() {
		rl := rls.At(i)
		w.attrs(rl.Resource().Attributes())
		sls := rl.ScopeLogs()
		for j := range sls.Len() {
			sl := sls.At(j)
			w.attrs(sl.Scope().Attributes())
			lrs := sl.LogRecords()
			for k := range lrs.Len() {
				w.attrs(lrs.At(k).Attributes())
			}
		}
		w.flush(s, rl.Resource().Attributes())
	}
	s.batches.add(1)
	s.items.add(int64(ld.LogRecordCount()))
}

// startShadow turns the shadow on when the registry extension has a
// candidate.
func (g *governor) startShadow() error {
	sh, ok := g.ext.(registryapi.Shadower)
	if !ok || sh.Shadow() == nil {
		return nil
	}
	s := newShadow(sh, &g.cfg.Shadow, g.tel.services, g.tel.base, time.Now)
	if err := s.register(g.tel); err != nil {
		return fmt.Errorf("register shadow telemetry: %w", err)
	}
	g.shadow = s
	g.candidate.Store(s)
	return nil
}
