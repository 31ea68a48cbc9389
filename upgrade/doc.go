// Package upgrade answers what a registry change does to a fleet, and when
// the transition to the new registry can end. It reads one change model,
// package registry/change (who carries each change over: Change.Carry),
// and scans queries with package queries: it builds no diff and no
// scanner of its own, and decides nothing the change model decides.
//
// Its files, in the order the data flows through an upgrade:
//
//   - touch.go: the change set indexed by the old names data carries
//     (Touches), the changes a person must carry (Touches.Manual) and the
//     names the window copies (Touch.Copyable);
//   - consumers.go: the dashboards, rules and collector configs that read a
//     name the change takes away (ScanConsumers), with their window form;
//   - traffic.go: which services send such names, how often, from
//     recordings (Recorder);
//   - conformance.go: the same from a running collector's /conformance
//     (ConformanceTraffic);
//   - prometheus.go: the same over a fleet, from the collectors' :8888
//     series in Prometheus (Fleet);
//   - plan.go: the transition configuration and the steps (NewPlan);
//   - status.go: whether the window can end (Evaluate).
//
// upgradetest runs a real Prometheus over collector series for the tests.
package upgrade // import "github.com/otelgov/otelcol-governance/upgrade"
