package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// Pipeline describes a generated collector config: an otlp receiver on free
// loopback ports, the given processors, and an otlp exporter to a Sink, with
// health_check and the internal telemetry reader on free ports.
type Pipeline struct {
	GRPCPort, HTTPPort, HealthPort, MetricsPort int
	SinkEndpoint                                string

	// Processors is the YAML body of the `processors:` section (indented by
	// two spaces), and ProcessorNames their order in every pipeline.
	Processors     string
	ProcessorNames []string
	// Extensions is extra YAML under `extensions:`, ExtensionNames their IDs.
	Extensions     string
	ExtensionNames []string
}

// NewPipeline picks free ports and sends to sink.
func NewPipeline(tb testing.TB, sink *Sink) Pipeline {
	tb.Helper()
	return Pipeline{
		GRPCPort:     FreePort(tb),
		HTTPPort:     FreePort(tb),
		HealthPort:   FreePort(tb),
		MetricsPort:  FreePort(tb),
		SinkEndpoint: sink.Endpoint,
	}
}

// GRPCEndpoint and HTTPEndpoint are where the receiver listens.
func (p Pipeline) GRPCEndpoint() string { return fmt.Sprintf("127.0.0.1:%d", p.GRPCPort) }
func (p Pipeline) HTTPEndpoint() string { return fmt.Sprintf("127.0.0.1:%d", p.HTTPPort) }

// YAML renders the config.
func (p Pipeline) YAML() string {
	procs := "[" + strings.Join(p.ProcessorNames, ", ") + "]"
	exts := "[" + strings.Join(append([]string{"health_check"}, p.ExtensionNames...), ", ") + "]"
	processors := p.Processors
	if processors == "" {
		processors = "  {}\n"
	}
	return fmt.Sprintf(`extensions:
  health_check:
    endpoint: 127.0.0.1:%d
%s
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:%d
      http:
        endpoint: 127.0.0.1:%d
processors:
%s
exporters:
  otlp:
    endpoint: %s
    tls:
      insecure: true
    retry_on_failure:
      enabled: true
service:
  extensions: %s
  telemetry:
    logs:
      level: info
    metrics:
      level: detailed
      readers:
        - pull:
            exporter:
              prometheus:
                host: 127.0.0.1
                port: %d
  pipelines:
    traces:
      receivers: [otlp]
      processors: %s
      exporters: [otlp]
    metrics:
      receivers: [otlp]
      processors: %s
      exporters: [otlp]
    logs:
      receivers: [otlp]
      processors: %s
      exporters: [otlp]
`, p.HealthPort, p.Extensions, p.GRPCPort, p.HTTPPort, processors, p.SinkEndpoint, exts, p.MetricsPort, procs, procs, procs)
}
