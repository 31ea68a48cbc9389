package upgrade

import (
	"fmt"
	"slices"
	"time"

	"github.com/otelgov/otelcol-governance/conformance"
	"github.com/otelgov/otelcol-governance/vocab"
)

// AllServices is the service of a figure a collector reports over all
// services (a registry metric's count in /conformance).
const AllServices = "(all services)"

// ConformanceTraffic joins a running collector's conformance report (GET
// /conformance of the governance_registry extension, read by otelgov's
// --from) with the change set: per service, the deprecated keys and metric
// names it counted (names the collector's registry deprecates: point it at
// a collector running the new registry, such as the plan's transition
// configuration), and, over all services, the registry metrics it checked
// (names current in its registry). Rates are over the report's span
// (since .. generated_at). src names the report in the traffic's sources.
// Only a collector on the new registry (its digest newDigest) counts every
// name the change renames: from another, a service without a count is
// Unknown, never "sends no name".
func ConformanceTraffic(doc *conformance.Document, t *Touches, newDigest, src string) *Traffic {
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
	if doc.Digest != newDigest {
		for _, svc := range out.Services {
			if !slices.ContainsFunc(out.Sent, func(s Sent) bool { return s.Service == svc }) {
				out.Unknown = append(out.Unknown, svc)
			}
		}
		out.Unproven = append(out.Unproven, fmt.Sprintf("%s: the collector runs the registry with digest %q, not the new registry (%s): it counts only the names its registry deprecates, not every name the change renames", src, doc.Digest, newDigest))
	}
	out.Add(&Traffic{})
	return out
}
