//go:generate ../../bin/mdatagen metadata.yaml

// Package governanceprocessor enforces an OpenTelemetry semantic-convention
// registry on traces, metrics and logs: it renames deprecated attribute keys
// and metric names, reports or removes unknown keys and type or enum
// violations, and counts conformance per service in its own telemetry.
package governanceprocessor // import "github.com/otelgov/otelcol-governance/processor/governanceprocessor"
