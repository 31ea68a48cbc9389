package testbench

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/internal/e2e"
	"github.com/otelgov/otelcol-governance/internal/manifestlint"
)

// GatewayEnv, when set (to anything), adds the gateway CR's variants to the
// line rate (GatewayVariants): the shipped gateway pipeline with the GC
// settings the CR ships, and with the Operator's defaults. Run it without
// LINERATE_COLLECTOR_ENV: these variants are about the pacing.
const GatewayEnv = "LINERATE_GATEWAY"

// GatewayCandidatesEnv lists further GC settings to try on the gateway's
// pipeline, separated by ";", each space-separated NAME=value settings
// (ParseCollectorEnv): "GOGC=off GOMEMLIMIT=256MiB;GOGC=400 GOMEMLIMIT=256MiB"
// adds gateway-candidate-1 and -2, each over gateway-operator. What the
// shipped values were chosen from.
const GatewayCandidatesEnv = "LINERATE_GATEWAY_CANDIDATES"

// The gateway's variants.
const (
	// VariantBareOperator is the bare pipeline with the environment the
	// Operator gives a collector whose CR sets no GC settings: GOMEMLIMIT
	// = limits.memory, GOGC unset.
	VariantBareOperator = "bare-operator"
	// VariantGatewayOperator is the gateway CR's pipeline with the
	// Operator's defaults.
	VariantGatewayOperator = "gateway-operator"
	// VariantGateway is the gateway CR's pipeline with the CR's spec.env.
	VariantGateway = "gateway"
)

// GatewayCR is the gateway's OpenTelemetryCollector, relative to the
// repository.
const GatewayCR = "distribution/k8s/collector/gateway.yaml"

// CRSettings are what a collector CR sets for the Go runtime and the
// memory limiter's percentages: its spec.env (name=value, literal values
// only) and limits.memory in bytes.
type CRSettings struct {
	Env         []string
	MemoryLimit int64
}

// OperatorEnv is the environment the Operator (operator.golang.flags)
// gives the collector when spec.env sets no GC settings: GOMEMLIMIT =
// limits.memory in bytes (a resourceFieldRef), GOGC unset.
func (s CRSettings) OperatorEnv() []string {
	return []string{"GOMEMLIMIT=" + strconv.FormatInt(s.MemoryLimit, 10)}
}

// ReadCRSettings reads path's spec.env and spec.resources.limits.memory
// as manifestlint's memory-pacing rule does (ReadMemorySettings); Env is
// sorted by name.
func ReadCRSettings(path string) (CRSettings, error) {
	objs, err := manifestlint.LoadPaths(nil, path)
	if err != nil {
		return CRSettings{}, err
	}
	if len(objs) != 1 || objs[0].Kind() != "OpenTelemetryCollector" {
		return CRSettings{}, fmt.Errorf("%s: want one OpenTelemetryCollector, got %d objects", path, len(objs))
	}
	ms, err := manifestlint.ReadMemorySettings(objs[0])
	if err != nil {
		return CRSettings{}, fmt.Errorf("%s: %w", path, err)
	}
	if from := slices.Sorted(maps.Keys(ms.From)); len(from) > 0 {
		return CRSettings{}, fmt.Errorf("%s: spec.env %s uses valueFrom: the testbench runs literal values only", path, strings.Join(from, ", "))
	}
	if ms.Limit == 0 {
		return CRSettings{}, fmt.Errorf("%s: no spec.resources.limits.memory", path)
	}
	s := CRSettings{MemoryLimit: ms.Limit}
	for _, name := range slices.Sorted(maps.Keys(ms.Env)) {
		s.Env = append(s.Env, name+"="+ms.Env[name])
	}
	return s, nil
}

// GatewayConfig is the gateway CR's traces pipeline as a testbench Config:
// its processors (memory_limiter, governance) as the CR configures
// them, its extensions besides health_check and file_storage (the registry
// extension's HTTP server off: variants run side by side, a fixed port
// would collide; the CR's queues belong to its exporters, and the
// testbench's exporter is its own: FaultGatewayConfig runs the whole CR),
// and its otlp receiver's gRPC and HTTP settings (message bounds,
// admission middlewares). The listeners and the exporter are the testbench's.
func GatewayConfig(name, path string) (Config, error) {
	raw, err := crConfig(path)
	if err != nil {
		return Config{}, err
	}
	var cfg struct {
		Extensions map[string]yaml.Node `yaml:"extensions"`
		Processors yaml.Node            `yaml:"processors"`
		Receivers  struct {
			OTLP struct {
				Protocols map[string]map[string]any `yaml:"protocols"`
			} `yaml:"otlp"`
		} `yaml:"receivers"`
		Service struct {
			Extensions []string `yaml:"extensions"`
			Pipelines  map[string]struct {
				Processors []string `yaml:"processors"`
			} `yaml:"pipelines"`
		} `yaml:"service"`
	}
	if err := yaml.Unmarshal([]byte(raw), &cfg); err != nil {
		return Config{}, fmt.Errorf("%s: spec.config: %w", path, err)
	}
	traces, ok := cfg.Service.Pipelines["traces"]
	if !ok || len(traces.Processors) == 0 {
		return Config{}, fmt.Errorf("%s: spec.config has no traces pipeline with processors", path)
	}
	procs, err := indented(&cfg.Processors)
	if err != nil {
		return Config{}, fmt.Errorf("%s: processors: %w", path, err)
	}
	c := Config{Name: name, Distribution: "governance", Processors: procs, Pipeline: traces.Processors}
	for proto, dst := range map[string]*string{"grpc": &c.GRPC, "http": &c.HTTP} {
		settings := cfg.Receivers.OTLP.Protocols[proto]
		delete(settings, "endpoint")
		if len(settings) == 0 {
			continue
		}
		if *dst, err = indentedBy(settings, "        "); err != nil {
			return Config{}, fmt.Errorf("%s: receivers.otlp.protocols.%s: %w", path, proto, err)
		}
	}
	for _, id := range cfg.Service.Extensions {
		// file_storage holds the CR's exporters' queues, and the
		// testbench's exporter is its own: FaultGatewayConfig runs the
		// whole CR, queues included.
		if id == "health_check" || componentTypeOf(id) == "file_storage" {
			continue
		}
		node := cfg.Extensions[id]
		body := map[string]any{}
		if err := node.Decode(&body); err != nil {
			return Config{}, fmt.Errorf("%s: extensions.%s: %w", path, id, err)
		}
		if id == "governance_registry" {
			body["http"] = map[string]any{"enabled": false}
		}
		ext, err := indented(map[string]any{id: body})
		if err != nil {
			return Config{}, err
		}
		c.Extensions += ext
		c.ExtensionIDs = append(c.ExtensionIDs, id)
	}
	return c, nil
}

// indented marshals v as YAML indented two spaces, the body of a
// top-level section.
func indented(v any) (string, error) { return indentedBy(v, "  ") }

// indentedBy marshals v as YAML, each line prefixed with indent.
func indentedBy(v any, indent string) (string, error) {
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	var out strings.Builder
	for line := range strings.Lines(b.String()) {
		out.WriteString(indent + line)
	}
	return out.String(), nil
}

// GatewayVariants are the gateway CR's pipeline with its shipped GC
// settings and with the Operator's defaults, the bare pipeline with the
// Operator's defaults they are paired with, and one variant per candidate
// (GatewayCandidatesEnv), each over gateway-operator.
func GatewayVariants(tb testing.TB, candidates [][]string) []LineVariant {
	tb.Helper()
	path := filepath.Join(e2e.RepoRoot(tb), GatewayCR)
	s, err := ReadCRSettings(path)
	if err != nil {
		tb.Fatal(err)
	}
	cfg := func(name string) Config {
		c, err := GatewayConfig(name, path)
		if err != nil {
			tb.Fatal(err)
		}
		return c
	}
	out := []LineVariant{
		{Name: VariantBareOperator, Knob: GatewayEnv, Env: s.OperatorEnv(), Config: Config{Name: VariantBareOperator, Distribution: "governance"}},
		{Name: VariantGatewayOperator, Bare: VariantBareOperator, Knob: GatewayEnv, Env: s.OperatorEnv(), Config: cfg(VariantGatewayOperator)},
		{Name: VariantGateway, Bare: VariantBareOperator, Over: VariantGatewayOperator, Knob: GatewayEnv, Env: slices.Clone(s.Env), Config: cfg(VariantGateway)},
	}
	for i, env := range candidates {
		name := fmt.Sprintf("gateway-candidate-%d", i+1)
		out = append(out, LineVariant{Name: name, Bare: VariantBareOperator, Over: VariantGatewayOperator, Knob: GatewayEnv, Env: env, Config: cfg(name)})
	}
	return out
}

// ParseGatewayCandidates reads GatewayCandidatesEnv's value.
func ParseGatewayCandidates(s string) ([][]string, error) {
	var out [][]string
	for part := range strings.SplitSeq(s, ";") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		env, err := ParseCollectorEnv(part)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", GatewayCandidatesEnv, err)
		}
		out = append(out, env)
	}
	return out, nil
}
