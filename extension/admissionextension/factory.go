package admissionextension // import "github.com/otelgov/otelcol-governance/extension/admissionextension"

import (
	"context"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/extension"

	"github.com/otelgov/otelcol-governance/extension/admissionextension/internal/metadata"
)

// Defaults of every option; createDefaultConfig is the only place that uses
// them. They are sized for the gateway CR (distribution/k8s/collector/
// gateway.yaml, README.md "Sizing"): its memory_limiter keeps a spike
// allowance of 20 % of 512 MiB = 102.4 MiB above its soft limit, and a
// request of at most 4 MiB (max_recv_msg_size_mib, max_request_body_size)
// holds its wire bytes plus 2.9 times as much decoded (measured:
// TestDecodeExpansion), 15.5 MiB: 6 requests are 93 MiB.
const (
	defaultMaxRequestsInFlight = 6
	defaultMaxBytesInFlight    = defaultMaxRequestsInFlight * gatewayMaxRequestBytes
	defaultRetryAfter          = time.Second

	// gatewayMaxRequestBytes is the gateway CR's bound on one request:
	// max_recv_msg_size_mib 4 (gRPC) and max_request_body_size 4194304 (HTTP).
	gatewayMaxRequestBytes = 4 << 20
)

// NewFactory returns the factory of the admission extension.
func NewFactory() extension.Factory {
	return extension.NewFactory(metadata.Type, createDefaultConfig, create, metadata.ExtensionStability)
}

func createDefaultConfig() component.Config {
	return &Config{
		MaxRequestsInFlight: defaultMaxRequestsInFlight,
		MaxBytesInFlight:    defaultMaxBytesInFlight,
		RetryAfter:          defaultRetryAfter,
	}
}

// create builds the extension; no goroutine starts. One instance per
// configured ID is shared by every receiver server that lists it, so the
// bound holds across all of them.
func create(_ context.Context, set extension.Settings, cfg component.Config) (extension.Extension, error) {
	return newAdmission(set, cfg.(*Config))
}
