//go:build tools

// Package tools pins the build-time tools of this repository in their own
// module, so their dependencies never leak into the collector's go.mod.
package tools // import "github.com/otelgov/otelcol-governance/internal/tools"

import (
	_ "go.opentelemetry.io/collector/cmd/mdatagen"
)
