package registryextension // import "github.com/otelgov/otelcol-governance/extension/registryextension"

import (
	"context"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/extension"

	"github.com/otelgov/otelcol-governance/extension/registryextension/internal/metadata"
	"github.com/otelgov/otelcol-governance/infer"
)

// Defaults of every option; createDefaultConfig is the only place that uses them.
const (
	// defaultEndpoint is loopback: the report names services and keys, which
	// is for the platform team, not the network. Port 13180 sits next to
	// health_check's 13133 and clashes with none of the collector's usual
	// ports (4317, 4318, 8888, 8889, 13133, 55679, 1777).
	defaultEndpoint     = "localhost:13180"
	defaultPollInterval = 10 * time.Second
	defaultMaxServices  = 100
	defaultTopKeys      = 10
	// The inference sketch's bounds are the CLI's (infer's defaults).
	defaultInferAttributes = infer.DefaultMaxAttributes
	defaultInferServices   = infer.DefaultMaxServices
)

// NewFactory returns the factory of the governance_registry extension.
func NewFactory() extension.Factory {
	return extension.NewFactory(metadata.Type, createDefaultConfig, create, metadata.ExtensionStability)
}

func createDefaultConfig() component.Config {
	srv := confighttp.NewDefaultServerConfig()
	srv.NetAddr.Endpoint = defaultEndpoint
	return &Config{
		PollInterval: defaultPollInterval,
		HTTP:         configoptional.Some(srv),
		Report: ReportConfig{
			MaxServices: defaultMaxServices,
			TopKeys:     defaultTopKeys,
		},
		Infer: InferConfig{
			MaxAttributes: defaultInferAttributes,
			MaxServices:   defaultInferServices,
		},
	}
}

// create builds the extension; nothing is loaded and no goroutine starts
// before Start. One instance per configured ID is shared by every processor
// that references it, because the host hands the same instance to all.
func create(_ context.Context, set extension.Settings, cfg component.Config) (extension.Extension, error) {
	return newRegistryExtension(set, cfg.(*Config))
}
