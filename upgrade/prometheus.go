package upgrade

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/otelgov/otelcol-governance/queries"
	"github.com/otelgov/otelcol-governance/registry"
)

// The collectors' :8888 series this package reads, as the collector's
// Prometheus exporter names them (no _total suffix at v0.165; a suffix is
// accepted).
const (
	seriesDeprecatedNames = `{__name__=~"otelcol_processor_governance_service_deprecated_names(_total)?"}`
	seriesServiceAttrs    = `{__name__=~"otelcol_processor_governance_service_attributes(_total)?"}`
	seriesAttrs           = `{__name__=~"otelcol_processor_governance_attributes(_total)?"}`
)

// Errors of the Prometheus source, for errors.Is: none is "no impact".
var (
	// ErrUnreachable: nothing answered at the URL (connection refused, a
	// time-out, a proxy's 5xx).
	ErrUnreachable = errors.New("prometheus unreachable")
	// ErrNotPrometheus: something answered, but not as the Prometheus HTTP
	// API does (a 404, an HTML page): the URL is not the API's base URL.
	ErrNotPrometheus = errors.New("not a Prometheus HTTP API")
	// ErrQueryRejected: the Prometheus API answered with an error of its
	// own for a query (bad_data, execution, timeout).
	ErrQueryRejected = errors.New("prometheus rejected the query")
	// ErrNoSeries: Prometheus holds no governance processor series over
	// the window: no collector is scraped, or it has no governance
	// processor.
	ErrNoSeries = errors.New("no governance processor series")
)

// Prometheus reads the fleet's :8888 series through the HTTP API of
// Prometheus, Thanos or Mimir (/api/v1/query), which already hold every
// replica's history: nothing new is stored.
type Prometheus struct {
	url string
	api promv1.API
	// Timeout bounds each query. Default: 30 s.
	Timeout time.Duration
}

// maxResponse bounds a query's answer.
const maxResponse = 64 << 20

// limitedTransport bounds the size of each response body.
type limitedTransport struct{ rt http.RoundTripper }

func (l limitedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := l.rt.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	resp.Body = http.MaxBytesReader(nil, resp.Body, maxResponse)
	return resp, nil
}

// NewPrometheus returns a client of the HTTP API at url (the base URL, as
// for Grafana's data source: http://prometheus:9090).
func NewPrometheus(url string) (*Prometheus, error) {
	c, err := api.NewClient(api.Config{Address: url, RoundTripper: limitedTransport{api.DefaultRoundTripper}})
	if err != nil {
		return nil, fmt.Errorf("--prometheus %q: %w", url, err)
	}
	return &Prometheus{url: url, api: promv1.NewAPI(c), Timeout: 30 * time.Second}, nil
}

// query runs one instant query at ts and returns its vector.
func (p *Prometheus) query(ctx context.Context, q string, ts time.Time) (model.Vector, error) {
	ctx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	v, _, _, err := p.api.Query(ctx, q, ts)
	if err != nil {
		return nil, p.classify(q, err)
	}
	vec, ok := v.(model.Vector)
	if !ok {
		return nil, fmt.Errorf("%w: %s answered %s to an instant query, want a vector", ErrNotPrometheus, p.url, v.Type())
	}
	return vec, nil
}

// classify names why a query failed: nothing answered, something that is
// not the Prometheus API answered, or the API rejected the query.
func (p *Prometheus) classify(q string, err error) error {
	var apiErr *promv1.Error
	if !errors.As(err, &apiErr) {
		return fmt.Errorf("%w: %s: %w", ErrUnreachable, p.url, err)
	}
	switch apiErr.Type {
	case promv1.ErrServer:
		// A 5xx without the API's JSON body: a proxy in front of nothing.
		return fmt.Errorf("%w: %s answered %s", ErrUnreachable, p.url, apiErr.Msg)
	case promv1.ErrClient, promv1.ErrBadResponse:
		// A 4xx, or a 2xx whose body is not the API's JSON.
		return fmt.Errorf("%w: %s answered %s to %s: give the base URL of Prometheus, Thanos or Mimir (as for Grafana's data source: http://prometheus:9090)",
			ErrNotPrometheus, p.url, apiErr.Msg, "/api/v1/query")
	default:
		// The API's own error types: bad_data, execution, timeout, ...
		return fmt.Errorf("%w: %s: %s: %s: %s", ErrQueryRejected, p.url, q, apiErr.Type, apiErr.Msg)
	}
}

// promDuration writes d as PromQL does (whole seconds at least).
func promDuration(d time.Duration) string {
	return model.Duration(d.Round(time.Second)).String()
}

// Fleet is what Prometheus says about the collectors over a window.
type Fleet struct {
	Traffic
	// Copied is how many attributes and metric names the collectors
	// copied (deprecated: copy or deprecated_names) over the window.
	Copied float64 `json:"copied"`
	// Covered: Prometheus holds governance series from before the window,
	// so a name whose series appeared within it was sent within it.
	Covered bool `json:"covered"`
	// Instances are the governance processor instances scraped over the
	// window and the transition each runs.
	Instances []Instance `json:"instances"`
	// InForce: every instance counts every name the change renames (or its
	// shadow, on a sample, does): only then does the absence of an old
	// name in Sent mean that nobody sent it.
	InForce bool `json:"in_force"`
	// Why says why the transition is not in force, one line each.
	Why []string `json:"why,omitempty"`
	// Notes qualify the evidence (a shadow's sample).
	Notes []string `json:"notes,omitempty"`
}

// Fleet reads, for the window ending at, the services the collectors saw
// and the deprecated_names they counted per service (processor telemetry
// processor_governance_service_deprecated_names): a name was sent within
// the window when its counter increased, or when its series appeared
// within it (a series appears with its first count). It returns
// ErrUnreachable and ErrNoSeries rather than an empty answer. It reads
// which transition every instance runs (transition_info,
// deprecated_names_in_force) and checks it against the names t renames,
// with newDigest the new registry's digest: where it is not in force, the
// absence of an old name proves nothing (InForce false, Why, and every
// service not seen sending is Unknown).
func (p *Prometheus) Fleet(ctx context.Context, t *Touches, newDigest string, window time.Duration, at time.Time) (*Fleet, error) {
	w := promDuration(window)
	src := "prometheus " + p.url
	svcs, err := p.query(ctx, fmt.Sprintf(`count by (service_name) (count_over_time(%s[%s]))`, seriesServiceAttrs, w), at)
	if err != nil {
		return nil, err
	}
	if len(svcs) == 0 {
		return nil, fmt.Errorf("%w: %s holds no otelcol_processor_governance_service_attributes over the last %s: is the collectors' :8888 scraped?", ErrNoSeries, p.url, w)
	}
	f := &Fleet{Traffic: Traffic{Sent: []Sent{}, Sources: []string{src}}}
	for _, s := range svcs {
		f.Services = append(f.Services, string(s.Metric["service_name"]))
	}
	slices.Sort(f.Services)
	before, err := p.query(ctx, fmt.Sprintf(`count(last_over_time(%s[%s] offset %s))`, seriesServiceAttrs, w, w), at)
	if err != nil {
		return nil, err
	}
	f.Covered = len(before) > 0 && before[0].Value > 0
	copied, err := p.query(ctx, fmt.Sprintf(`sum(increase(%s[%s]))`, strings.Replace(seriesAttrs, "}", `,outcome="copied"}`, 1), w), at)
	if err != nil {
		return nil, err
	}
	if len(copied) > 0 {
		f.Copied = float64(copied[0].Value)
	}
	inc, err := p.query(ctx, fmt.Sprintf(`sum by (service_name, deprecated_name) (increase(%s[%s]))`, seriesDeprecatedNames, w), at)
	if err != nil {
		return nil, err
	}
	sent := map[[2]string]*Sent{}
	add := func(m model.Metric, count float64) {
		k := [2]string{string(m["service_name"]), string(m["deprecated_name"])}
		if sent[k] != nil {
			return
		}
		e := &Sent{Service: k[0], Name: k[1], Count: int64(math.Round(count)), Source: src, Rate: count / window.Seconds()}
		if tc := t.Lookup(k[1]); tc != nil {
			e.Item, e.NewName, e.Kinds = tc.Item.String(), tc.NewName, tc.KindNames()
		}
		sent[k] = e
	}
	for _, s := range inc {
		if s.Value > 0 {
			add(s.Metric, float64(s.Value))
		}
	}
	if f.Covered {
		appeared, err := p.query(ctx, fmt.Sprintf(`sum by (service_name, deprecated_name) (last_over_time(%s[%s]) unless last_over_time(%s[%s] offset %s))`,
			seriesDeprecatedNames, w, seriesDeprecatedNames, w, w), at)
		if err != nil {
			return nil, err
		}
		for _, s := range appeared {
			add(s.Metric, float64(s.Value))
		}
	}
	for _, e := range sent {
		f.Sent = append(f.Sent, *e)
	}
	if err := p.transition(ctx, f, t, newDigest, w, at, src); err != nil {
		return nil, err
	}
	if !f.InForce {
		for _, svc := range f.Services {
			if !slices.ContainsFunc(f.Sent, func(s Sent) bool { return s.Service == svc }) {
				f.Unknown = append(f.Unknown, svc)
			}
		}
		f.Unproven = append(f.Unproven, f.Why...)
	}
	f.Add(&Traffic{})
	return f, nil
}

// histogramSeries is the series of a histogram counted once per series.
const histogramSeries = "_count"

// MetricSeries counts, per service, the series the fleet's Prometheus
// holds at at for each metric the change set touches, under its old name
// as the OTLP translation writes it (otlptranslator,
// UnderscoreEscapingWithSuffixes, the default of Prometheus' OTLP receiver
// and of the collector's Prometheus exporters; a histogram by its _count
// series): the series that end under the old name and start under the new
// one. The service is the job label, which both set from service.name
// (service.namespace/service.name). oldIx defines the old metrics' unit
// and instrument. One query for every metric.
func (p *Prometheus) MetricSeries(ctx context.Context, t *Touches, oldIx *registry.Index, at time.Time) ([]Sent, error) {
	byName := map[string]*Touch{}
	for _, name := range slices.Sorted(maps.Keys(t.Metrics)) {
		m := oldIx.Metric(name)
		if m == nil || m.Placeholder {
			continue
		}
		s := queries.SeriesName(m)
		if s == "" {
			continue
		}
		if m.Instrument == "histogram" {
			s += histogramSeries
		}
		byName[s] = t.Metrics[name]
	}
	if len(byName) == 0 {
		return nil, nil
	}
	alt := make([]string, 0, len(byName))
	for _, s := range slices.Sorted(maps.Keys(byName)) {
		alt = append(alt, regexp.QuoteMeta(s))
	}
	vec, err := p.query(ctx, fmt.Sprintf(`count by (__name__, job) ({__name__=~%q})`, strings.Join(alt, "|")), at)
	if err != nil {
		return nil, err
	}
	src := "prometheus " + p.url + " series"
	out := make([]Sent, 0, len(vec))
	for _, s := range vec {
		tc := byName[string(s.Metric[model.MetricNameLabel])]
		if tc == nil {
			continue
		}
		out = append(out, Sent{
			Service: string(s.Metric["job"]), Item: tc.Item.String(), Name: tc.Name, NewName: tc.NewName,
			Kinds: tc.KindNames(), Series: int(s.Value), Source: src,
		})
	}
	return out, nil
}
