package upgrade

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/otelgov/otelcol-governance/conformance"
	"github.com/otelgov/otelcol-governance/vocab"
)

// AllServices is the service of a figure a collector reports over all
// services (a registry metric's count in /conformance).
const AllServices = "(all services)"

// FromConformance reads a running collector's conformance report (GET
// /conformance of the governance_registry extension at base, the --from
// URL) and joins it with the change set: per service, the deprecated keys
// and metric names it counted (names the collector's registry deprecates:
// point it at a collector running the new registry, such as the plan's
// transition configuration), and, over all services, the registry metrics
// it checked (names current in its registry). Rates are over the report's
// span (since .. generated_at).
func FromConformance(ctx context.Context, client *http.Client, base string, t *Touches) (*Traffic, error) {
	u := strings.TrimRight(base, "/") + "/conformance"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("--from %q: %w", base, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("--from %q: %w", base, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("--from %q: GET %s: %s", base, u, resp.Status)
	}
	var doc conformance.Document
	dec := json.NewDecoder(io.LimitReader(resp.Body, maxResponse))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("--from %q: GET %s: not a conformance report: %w", base, u, err)
	}
	return conformanceTraffic(&doc, t, "conformance "+u), nil
}

// conformanceTraffic joins a conformance document with the change set.
func conformanceTraffic(doc *conformance.Document, t *Touches, src string) *Traffic {
	out := &Traffic{Sent: []Sent{}, Sources: []string{src}}
	span := doc.GeneratedAt.Sub(doc.Since)
	sent := func(svc string, tc *Touch, n int64) {
		e := Sent{Service: svc, Item: tc.Item.String(), Name: tc.Name, NewName: tc.NewName, Kinds: tc.KindNames(), Count: n, Source: src}
		if span >= time.Second {
			e.Rate = float64(n) / span.Seconds()
		}
		out.Sent = append(out.Sent, e)
	}
	for _, s := range doc.Services {
		out.Services = append(out.Services, s.Service)
		for _, k := range s.DeprecatedKeys {
			if tc := t.Attributes[k.Key]; tc != nil {
				sent(s.Service, tc, k.Count)
			}
		}
		if f, ok := s.Findings[vocab.FindingDeprecated.String()]; ok {
			for _, n := range f.Top {
				if tc := t.Metrics[n.Name]; tc != nil && n.Subject == vocab.SubjectMetric.String() {
					sent(s.Service, tc, n.Count)
				}
			}
		}
	}
	for _, m := range doc.Metrics {
		if tc := t.Metrics[m.Name]; tc != nil {
			sent(AllServices, tc, m.Count)
		}
	}
	out.Add(&Traffic{})
	return out
}
