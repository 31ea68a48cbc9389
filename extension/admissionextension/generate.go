//go:generate ../../bin/mdatagen metadata.yaml

// Package admissionextension provides the admission extension: a bound on
// the OTLP requests (and, for HTTP, bytes) in flight across every
// connection of the receivers that list it under middlewares, checked
// before a request's body is read or decoded, with refusals that OTLP
// exporters retry.
package admissionextension // import "github.com/otelgov/otelcol-governance/extension/admissionextension"
