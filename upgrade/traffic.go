package upgrade

import (
	"cmp"
	"hash/fnv"
	"maps"
	"slices"
	"sort"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/vocab"
)

// Sent is one old name one service sends, joined with the change set.
type Sent struct {
	Service string `json:"service"`
	// Item is attribute or metric.
	Item    string   `json:"item"`
	Name    string   `json:"name"`
	NewName string   `json:"new_name,omitempty"`
	Kinds   []string `json:"kinds"`
	// Count is how many attributes carried the key, or data points the
	// metric name, over the source's span.
	Count int64 `json:"count"`
	// Rate is Count per second over the source's span; 0 when the span is
	// unknown (one timestamp, or none).
	Rate float64 `json:"rate_per_second"`
	// Values counts the old values the change rewrites (renamed enum
	// members, value maps), by value.
	Values map[string]int64 `json:"values,omitempty"`
	// Series is, for a metric, how many distinct series (data point
	// attribute sets) carried it: the series that end under the old name
	// and start under the new one (at most maxSeries are told apart).
	Series int `json:"series,omitempty"`
	// Source names where the figure comes from: a recording, a
	// collector's /conformance, or Prometheus.
	Source string `json:"source"`
	// Sampled: the figure is a shadow registry's count on a sample of the
	// batches, by change kind (Name is the kind in parentheses).
	Sampled bool `json:"sampled,omitempty"`
}

// Traffic is the impact of a change set on what services send.
type Traffic struct {
	// Sent lists every (service, old name) sent, by service then name.
	Sent []Sent `json:"sent"`
	// Services are every service the sources saw, impact or not, so that
	// "no impact" is an answer and not a silence.
	Services []string `json:"services"`
	// Sources are the sources read.
	Sources []string `json:"sources"`
	// Unknown are services a source saw whose absence from Sent proves
	// nothing: the source could not count the names the change renames
	// (Unproven says why). Never "sends no name the change touches".
	Unknown []string `json:"unknown,omitempty"`
	// Unproven says why a source's absence of old names is not evidence.
	Unproven []string `json:"unproven,omitempty"`
	// Folded counts the resources of services beyond a recording's
	// DefaultServiceLimit, counted under vocab.ServiceOther.
	Folded int64 `json:"folded_resources,omitempty"`
}

// Add merges another source's traffic.
func (t *Traffic) Add(o *Traffic) {
	t.Sent = append(t.Sent, o.Sent...)
	for _, s := range o.Services {
		if !slices.Contains(t.Services, s) {
			t.Services = append(t.Services, s)
		}
	}
	t.Sources = append(t.Sources, o.Sources...)
	for _, s := range o.Unknown {
		if !slices.Contains(t.Unknown, s) {
			t.Unknown = append(t.Unknown, s)
		}
	}
	t.Unproven = append(t.Unproven, o.Unproven...)
	t.Folded += o.Folded
	slices.Sort(t.Unknown)
	slices.Sort(t.Services)
	slices.SortStableFunc(t.Sent, func(a, b Sent) int {
		return cmp.Or(cmp.Compare(a.Service, b.Service), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Source, b.Source))
	})
}

// maxSeries bounds the series told apart per (service, metric).
const maxSeries = 100_000

// maxValues bounds the values counted per (service, key).
const maxValues = 1000

// DefaultServiceLimit bounds the services a Recorder tells apart, as the
// governance processor's service_limit (default 100) bounds its
// per-service series: later services are counted under vocab.ServiceOther.
const DefaultServiceLimit = 100

// Recorder joins recorded telemetry (what otelgov check reads) with a
// change set. It is not safe for concurrent use.
type Recorder struct {
	t        *Touches
	services map[string]*serviceAcc
	// limit is how many services get their own row; later ones share
	// vocab.ServiceOther (folded counts their resources).
	limit  int
	folded int64
}

type serviceAcc struct {
	names      map[string]*nameAcc
	first, end pcommon.Timestamp
}

type nameAcc struct {
	tc     *Touch
	count  int64
	values map[string]int64
	series map[uint64]struct{}
}

// NewRecorder returns a Recorder of the names t touches.
func NewRecorder(t *Touches) *Recorder {
	return &Recorder{t: t, services: map[string]*serviceAcc{}, limit: DefaultServiceLimit}
}

func (r *Recorder) service(res pcommon.Resource) *serviceAcc {
	name := vocab.ServiceMissing
	if v, ok := res.Attributes().Get("service.name"); ok && v.Type() == pcommon.ValueTypeStr {
		name, _ = vocab.Bound(v.Str())
	}
	s := r.services[name]
	if s == nil && name != vocab.ServiceOther && len(r.services) >= r.limit {
		r.folded++
		name = vocab.ServiceOther
		s = r.services[name]
	}
	if s == nil {
		s = &serviceAcc{names: map[string]*nameAcc{}}
		r.services[name] = s
	}
	return s
}

func (s *serviceAcc) time(ts pcommon.Timestamp) {
	if ts == 0 {
		return
	}
	if s.first == 0 || ts < s.first {
		s.first = ts
	}
	if ts > s.end {
		s.end = ts
	}
}

func (s *serviceAcc) name(tc *Touch) *nameAcc {
	n := s.names[tc.Name]
	if n == nil {
		n = &nameAcc{tc: tc}
		s.names[tc.Name] = n
	}
	return n
}

// attrs counts the touched keys of one attribute map.
func (r *Recorder) attrs(s *serviceAcc, m pcommon.Map) {
	if len(r.t.Attributes) == 0 {
		return
	}
	m.Range(func(k string, v pcommon.Value) bool {
		tc := r.t.Attributes[k]
		if tc == nil {
			return true
		}
		n := s.name(tc)
		n.count++
		if tc.Values != nil {
			val := v.AsString()
			if _, ok := tc.Values[val]; ok {
				if n.values == nil {
					n.values = map[string]int64{}
				}
				if _, seen := n.values[val]; seen || len(n.values) < maxValues {
					n.values[val]++
				}
			}
		}
		return true
	})
}

// Traces adds a batch of spans.
func (r *Recorder) Traces(td ptrace.Traces) {
	for i := range td.ResourceSpans().Len() {
		rs := td.ResourceSpans().At(i)
		s := r.service(rs.Resource())
		r.attrs(s, rs.Resource().Attributes())
		for j := range rs.ScopeSpans().Len() {
			ss := rs.ScopeSpans().At(j)
			r.attrs(s, ss.Scope().Attributes())
			for k := range ss.Spans().Len() {
				sp := ss.Spans().At(k)
				s.time(sp.StartTimestamp())
				r.attrs(s, sp.Attributes())
				for e := range sp.Events().Len() {
					r.attrs(s, sp.Events().At(e).Attributes())
				}
				for l := range sp.Links().Len() {
					r.attrs(s, sp.Links().At(l).Attributes())
				}
			}
		}
	}
}

// Logs adds a batch of log records.
func (r *Recorder) Logs(ld plog.Logs) {
	for i := range ld.ResourceLogs().Len() {
		rl := ld.ResourceLogs().At(i)
		s := r.service(rl.Resource())
		r.attrs(s, rl.Resource().Attributes())
		for j := range rl.ScopeLogs().Len() {
			sl := rl.ScopeLogs().At(j)
			r.attrs(s, sl.Scope().Attributes())
			for k := range sl.LogRecords().Len() {
				lr := sl.LogRecords().At(k)
				ts := lr.Timestamp()
				if ts == 0 {
					ts = lr.ObservedTimestamp()
				}
				s.time(ts)
				r.attrs(s, lr.Attributes())
			}
		}
	}
}

// Metrics adds a batch of metrics: data point attributes, and the data
// points of a touched metric name with their series.
func (r *Recorder) Metrics(md pmetric.Metrics) {
	for i := range md.ResourceMetrics().Len() {
		rm := md.ResourceMetrics().At(i)
		s := r.service(rm.Resource())
		r.attrs(s, rm.Resource().Attributes())
		for j := range rm.ScopeMetrics().Len() {
			sm := rm.ScopeMetrics().At(j)
			r.attrs(s, sm.Scope().Attributes())
			for k := range sm.Metrics().Len() {
				m := sm.Metrics().At(k)
				var n *nameAcc
				if tc := r.t.Metrics[m.Name()]; tc != nil {
					n = s.name(tc)
				}
				eachPoint(m, func(attrs pcommon.Map, ts pcommon.Timestamp) {
					s.time(ts)
					r.attrs(s, attrs)
					if n == nil {
						return
					}
					n.count++
					if n.series == nil {
						n.series = map[uint64]struct{}{}
					}
					if len(n.series) < maxSeries {
						n.series[seriesID(attrs)] = struct{}{}
					}
				})
			}
		}
	}
}

// eachPoint calls f with each data point's attributes and timestamp.
func eachPoint(m pmetric.Metric, f func(pcommon.Map, pcommon.Timestamp)) {
	switch m.Type() {
	case pmetric.MetricTypeGauge:
		for i := range m.Gauge().DataPoints().Len() {
			p := m.Gauge().DataPoints().At(i)
			f(p.Attributes(), p.Timestamp())
		}
	case pmetric.MetricTypeSum:
		for i := range m.Sum().DataPoints().Len() {
			p := m.Sum().DataPoints().At(i)
			f(p.Attributes(), p.Timestamp())
		}
	case pmetric.MetricTypeHistogram:
		for i := range m.Histogram().DataPoints().Len() {
			p := m.Histogram().DataPoints().At(i)
			f(p.Attributes(), p.Timestamp())
		}
	case pmetric.MetricTypeExponentialHistogram:
		for i := range m.ExponentialHistogram().DataPoints().Len() {
			p := m.ExponentialHistogram().DataPoints().At(i)
			f(p.Attributes(), p.Timestamp())
		}
	case pmetric.MetricTypeSummary:
		for i := range m.Summary().DataPoints().Len() {
			p := m.Summary().DataPoints().At(i)
			f(p.Attributes(), p.Timestamp())
		}
	case pmetric.MetricTypeEmpty:
	}
}

// seriesID hashes an attribute set independent of its order.
func seriesID(m pcommon.Map) uint64 {
	keys := make([]string, 0, m.Len())
	m.Range(func(k string, _ pcommon.Value) bool {
		keys = append(keys, k)
		return true
	})
	sort.Strings(keys)
	h := fnv.New64a()
	for _, k := range keys {
		v, _ := m.Get(k)
		_, _ = h.Write([]byte(k))
		_, _ = h.Write([]byte{0})
		_, _ = h.Write([]byte(v.AsString()))
		_, _ = h.Write([]byte{0})
	}
	return h.Sum64()
}

// Traffic returns what the recordings sent, under source.
func (r *Recorder) Traffic(source string) *Traffic {
	t := &Traffic{Sent: []Sent{}, Services: slices.Sorted(maps.Keys(r.services)), Sources: []string{source}, Folded: r.folded}
	for _, svc := range t.Services {
		s := r.services[svc]
		span := s.end.AsTime().Sub(s.first.AsTime())
		for _, name := range slices.Sorted(maps.Keys(s.names)) {
			n := s.names[name]
			e := Sent{
				Service: svc, Item: n.tc.Item.String(), Name: name, NewName: n.tc.NewName,
				Kinds: n.tc.KindNames(), Count: n.count, Values: n.values, Series: len(n.series), Source: source,
			}
			if span >= time.Second {
				e.Rate = float64(n.count) / span.Seconds()
			}
			t.Sent = append(t.Sent, e)
		}
	}
	return t
}
