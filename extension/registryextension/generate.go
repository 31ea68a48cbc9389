//go:generate ../../bin/mdatagen metadata.yaml

// Package registryextension provides the governance_registry extension: one
// semantic-convention registry shared by every governance processor that
// references it, reloaded from its files without a restart, and a loopback
// HTTP endpoint that reports the registry in force and a live, bounded
// per-service conformance report.
package registryextension // import "github.com/otelgov/otelcol-governance/extension/registryextension"
