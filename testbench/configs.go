package testbench

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// BaselineBinaryEnv overrides the path of the baseline collector.
const BaselineBinaryEnv = "TESTBENCH_BASELINE_BINARY"

// Distribution is a collector binary under test.
type Distribution struct {
	Name string // "governance" or "baseline"
	Path string
}

// Governance is the OCB-built otelcol-governance binary. It fails the test,
// with the command that fixes it, when the binary has not been built.
func Governance(tb testing.TB) Distribution {
	tb.Helper()
	return Distribution{Name: "governance", Path: e2e.Binary(tb)}
}

// Baseline is the OCB-built baseline distribution (baseline/builder-config.yaml).
func Baseline(tb testing.TB) Distribution {
	tb.Helper()
	return builtDistribution(tb, "baseline")
}

// FloorBinaryEnv overrides the path of the floor collector.
const FloorBinaryEnv = "TESTBENCH_FLOOR_BINARY"

// Floor is the testbench's floor collector (testbench/builder-config.yaml:
// the floor processor on the distribution's core release).
func Floor(tb testing.TB) Distribution {
	tb.Helper()
	return builtDistribution(tb, "floor")
}

// builtBinaries are the collectors other than this distribution: where
// their build puts them, the variable that overrides it, and the make
// target that builds them.
var builtBinaries = map[string]struct{ path, env, target string }{
	"baseline": {filepath.Join("_baseline", "otelcol-baseline"), BaselineBinaryEnv, "baseline"},
	"floor":    {filepath.Join("testbench", "_build", "otelcol-floor"), FloorBinaryEnv, "floor"},
}

// builtPath is where the collector of distribution name is: its variable,
// or its build's output in the repository.
func builtPath(tb testing.TB, name string) string {
	tb.Helper()
	b, ok := builtBinaries[name]
	if !ok {
		tb.Fatalf("no collector build named %q", name)
	}
	if p := os.Getenv(b.env); p != "" {
		return p
	}
	return filepath.Join(e2e.RepoRoot(tb), b.path)
}

// builtDistribution is the collector of distribution name; it fails the
// test, with the command that builds it, when it is missing.
func builtDistribution(tb testing.TB, name string) Distribution {
	tb.Helper()
	path := builtPath(tb, name)
	if _, err := os.Stat(path); err != nil { //nolint:gosec // the operator names the binary on purpose
		b := builtBinaries[name]
		tb.Fatalf("%s binary not found at %s (run `make %s`, or set %s): %v", name, path, b.target, b.env, err)
	}
	return Distribution{Name: name, Path: path}
}

// Start runs the distribution on config through the e2e harness.
func (d Distribution) Start(tb testing.TB, config string, p Ports, opts e2e.Options) *e2e.Collector {
	tb.Helper()
	tb.Setenv(e2e.BinaryEnv, d.Path)
	return e2e.StartCollector(tb, config, p.Health, p.Metrics, opts)
}

// Ports are a collector's listening ports, all on 127.0.0.1.
type Ports struct {
	GRPC, HTTP, Health, Metrics int
}

// FreePorts picks free loopback ports.
func FreePorts(tb testing.TB) Ports {
	tb.Helper()
	return Ports{GRPC: e2e.FreePort(tb), HTTP: e2e.FreePort(tb), Health: e2e.FreePort(tb), Metrics: e2e.FreePort(tb)}
}

// GRPCEndpoint and HTTPEndpoint are where the otlp receiver listens.
func (p Ports) GRPCEndpoint() string { return "127.0.0.1:" + strconv.Itoa(p.GRPC) }
func (p Ports) HTTPEndpoint() string { return "127.0.0.1:" + strconv.Itoa(p.HTTP) }

// Config is one configuration under test: the processors between the otlp
// receiver and the exporter, and what they do to the workload.
type Config struct {
	Name         string
	Distribution string // "governance", "baseline" or "floor"
	Expect       Expectation
	// Processors is the YAML body of `processors:` (entries indented two
	// spaces); Pipeline the processor IDs in order.
	Processors string
	Pipeline   []string
	// Extensions is the YAML body of further `extensions:` entries (indented
	// two spaces) besides health_check; ExtensionIDs their IDs, added to
	// service::extensions.
	Extensions   string
	ExtensionIDs []string
	// GRPC and HTTP are the YAML lines (indented eight spaces) of the otlp
	// receiver's grpc and http sections besides the endpoint, which is the
	// testbench's: the gateway CR's message bounds and middlewares
	// (admission). Empty: max_recv_msg_size_mib 64 for gRPC, the defaults
	// for HTTP.
	GRPC, HTTP string
}

// withBatch appends the batch processor that every configuration ends with.
func withBatch(c Config) Config {
	c.Processors += "  batch:\n"
	c.Pipeline = append(slices.Clone(c.Pipeline), "batch")
	return c
}

// Bare is the receiver, batch and exporter only, of either distribution: what
// each processor's overhead is measured against.
func Bare(distribution string) Config {
	return withBatch(Config{Name: "bare-" + distribution, Distribution: distribution})
}

// GovernanceConfig is the governance processor renaming deprecated keys and
// keeping (drop false) or dropping unknown keys, with AllowPrefix allowed.
func GovernanceConfig(drop bool) Config {
	mode := "keep"
	if drop {
		mode = "drop"
	}
	return withBatch(Config{
		Name:         "governance-" + mode,
		Distribution: "governance",
		Expect:       Expectation{Rename: true, DropUnknown: drop},
		Processors: "  governance:\n    deprecated: rename\n    unknown: " + mode +
			"\n    allow:\n      prefixes: [" + strconv.Quote(AllowPrefix) + "]\n",
		Pipeline: []string{"governance"},
	})
}

// ottlKinds are OTTL's span kind enum names, by ptrace.SpanKind.
var ottlKinds = [6]string{
	"SPAN_KIND_UNSPECIFIED", "SPAN_KIND_INTERNAL", "SPAN_KIND_SERVER",
	"SPAN_KIND_CLIENT", "SPAN_KIND_PRODUCER", "SPAN_KIND_CONSUMER",
}

// kindGroup is the span kinds in which a key renames to one target.
type kindGroup struct {
	to    string
	kinds []int
}

// spanGroups groups r's span kinds by target; all is true when every kind
// renames to the same target.
func spanGroups(r Rename) (groups []kindGroup, all bool) {
	for k, to := range r.SpanTo {
		if to == "" {
			continue
		}
		i := slices.IndexFunc(groups, func(g kindGroup) bool { return g.to == to })
		if i < 0 {
			groups = append(groups, kindGroup{to: to})
			i = len(groups) - 1
		}
		groups[i].kinds = append(groups[i].kinds, k)
	}
	return groups, len(groups) == 1 && len(groups[0].kinds) == len(r.SpanTo)
}

func q(s string) string { return strconv.Quote(s) }

// TransformConfig renames the workload's deprecated keys with OTTL set +
// delete_key, the stock answer: the same renames, with the same context
// conditions on span kind and the same collision policy (an existing current
// key wins).
func TransformConfig(w *Workload) Config { return withBatch(transformRenames(w.Renames)) }

// transformRenames is TransformConfig's processor for renames, without the
// batch processor.
func transformRenames(renames []Rename) Config {
	var b strings.Builder
	b.WriteString("  transform:\n    error_mode: ignore\n    trace_statements:\n      - context: span\n        statements:\n")
	for _, r := range renames {
		groups, all := spanGroups(r)
		var deleteWhen []string
		for _, g := range groups {
			cond := fmt.Sprintf("attributes[%s] != nil and attributes[%s] == nil", q(r.From), q(g.to))
			if !all {
				kc := kindCondition(g.kinds)
				cond += " and (" + kc + ")"
				deleteWhen = append(deleteWhen, kc)
			}
			fmt.Fprintf(&b, "          - %s\n", yamlQuote(fmt.Sprintf("set(attributes[%s], attributes[%s]) where %s", q(g.to), q(r.From), cond)))
		}
		if len(groups) == 0 {
			continue
		}
		del := fmt.Sprintf("delete_key(attributes, %s)", q(r.From))
		if !all {
			del += " where " + strings.Join(deleteWhen, " or ")
		}
		fmt.Fprintf(&b, "          - %s\n", yamlQuote(del))
	}
	for _, sec := range []struct {
		name, context string
		to            func(Rename) string
	}{
		{"log_statements", "log", func(r Rename) string { return r.LogTo }},
		{"metric_statements", "datapoint", func(r Rename) string { return r.MetricTo }},
	} {
		fmt.Fprintf(&b, "    %s:\n      - context: %s\n        statements:\n", sec.name, sec.context)
		for _, r := range renames {
			to := sec.to(r)
			if to == "" {
				continue
			}
			fmt.Fprintf(&b, "          - %s\n", yamlQuote(fmt.Sprintf("set(attributes[%s], attributes[%s]) where attributes[%s] != nil and attributes[%s] == nil", q(to), q(r.From), q(r.From), q(to))))
			fmt.Fprintf(&b, "          - %s\n", yamlQuote(fmt.Sprintf("delete_key(attributes, %s)", q(r.From))))
		}
	}
	return Config{
		Name:         "transform",
		Distribution: "baseline",
		Expect:       Expectation{Rename: true, KeysOnly: true},
		Processors:   b.String(),
		Pipeline:     []string{"transform"},
	}
}

func kindCondition(kinds []int) string {
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = "kind == " + ottlKinds[k]
	}
	return strings.Join(parts, " or ")
}

// yamlQuote quotes s as a YAML double-quoted scalar (JSON strings are valid).
func yamlQuote(s string) string { return strconv.Quote(s) }

// AttributesConfig renames the workload's deprecated span keys with the
// attributes processor: insert from_attribute, then delete. Renames that
// depend on the span kind need one processor per group of kinds, selected
// with include.span_kinds.
func AttributesConfig(w *Workload) Config { return withBatch(attributesRenames(w.Renames)) }

// attributesRenames is AttributesConfig's processors for renames, without
// the batch processor.
func attributesRenames(renames []Rename) Config {
	var b strings.Builder
	var names []string
	type grouped struct {
		kinds   []int
		actions []string
	}
	var contextual []*grouped
	var plain []string
	action := func(from, to string) []string {
		return []string{
			fmt.Sprintf("      - key: %s\n        from_attribute: %s\n        action: insert\n", q(to), q(from)),
			fmt.Sprintf("      - key: %s\n        action: delete\n", q(from)),
		}
	}
	for _, r := range renames {
		groups, all := spanGroups(r)
		if all {
			plain = append(plain, action(r.From, groups[0].to)...)
			continue
		}
		for _, g := range groups {
			i := slices.IndexFunc(contextual, func(c *grouped) bool { return slices.Equal(c.kinds, g.kinds) })
			if i < 0 {
				contextual = append(contextual, &grouped{kinds: g.kinds})
				i = len(contextual) - 1
			}
			// Insert only: the delete comes after every group, so that a
			// key renamed in two groups is still there for the second.
			contextual[i].actions = append(contextual[i].actions, action(r.From, g.to)[0])
		}
	}
	if len(plain) > 0 {
		b.WriteString("  attributes/rename:\n    actions:\n" + strings.Join(plain, ""))
		names = append(names, "attributes/rename")
	}
	for _, g := range contextual {
		var kinds []string
		for _, k := range g.kinds {
			kinds = append(kinds, ottlKinds[k])
		}
		name := "attributes/kinds_" + strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(strings.Join(kinds, " "), "SPAN_KIND_", "")), "_"))
		fmt.Fprintf(&b, "  %s:\n    include:\n      match_type: strict\n      span_kinds: [%s]\n    actions:\n%s",
			name, strings.Join(kinds, ", "), strings.Join(g.actions, ""))
		names = append(names, name)
		// Delete the old key only in the kinds where it was renamed.
		del := fmt.Sprintf("  %s_delete:\n    include:\n      match_type: strict\n      span_kinds: [%s]\n    actions:\n", name, strings.Join(kinds, ", "))
		for _, r := range renames {
			groups, all := spanGroups(r)
			if all {
				continue
			}
			for _, gg := range groups {
				if slices.Equal(gg.kinds, g.kinds) {
					del += action(r.From, gg.to)[1]
				}
			}
		}
		b.WriteString(del)
		names = append(names, name+"_delete")
	}
	return Config{
		Name:         "attributes",
		Distribution: "baseline",
		Expect:       Expectation{Rename: true, KeysOnly: true},
		Processors:   b.String(),
		Pipeline:     names,
	}
}

// RedactionConfig drops unknown keys with the redaction processor's
// allowlist: allow_all_keys false, allowed_keys = the registry keys the
// workload uses. It does not rename.
func RedactionConfig(w *Workload) Config {
	keys := make([]string, len(w.RegistryKeys))
	for i, k := range w.RegistryKeys {
		keys[i] = q(k)
	}
	return withBatch(Config{
		Name:         "redaction",
		Distribution: "baseline",
		Expect:       Expectation{DropUnknown: true},
		Processors: "  redaction:\n    allow_all_keys: false\n    summary: silent\n    allowed_keys: [" +
			strings.Join(keys, ", ") + "]\n",
		Pipeline: []string{"redaction"},
	})
}

// Exporter is the YAML of the `exporters:` section and the exporter ID.
type Exporter struct {
	YAML string
	ID   string
}

// OTLPExporter sends to a Backend over gRPC, uncompressed (loopback), with the
// sending queue and retries on, so that the pipeline loses nothing.
func OTLPExporter(endpoint string) Exporter {
	return Exporter{ID: "otlp", YAML: fmt.Sprintf(`  otlp:
    endpoint: %s
    compression: none
    tls:
      insecure: true
    retry_on_failure:
      enabled: true
      max_elapsed_time: 0
    sending_queue:
      enabled: true
      queue_size: 100000
`, endpoint)}
}

// YAML renders c for the given signals with exp as the only exporter.
func (c Config) YAML(p Ports, exp Exporter, signals ...Signal) string {
	var pipes strings.Builder
	procs := "[" + strings.Join(c.Pipeline, ", ") + "]"
	for _, s := range signals {
		fmt.Fprintf(&pipes, "    %s:\n      receivers: [otlp]\n      processors: %s\n      exporters: [%s]\n", s, procs, exp.ID)
	}
	processors := c.Processors
	if processors == "" {
		processors = "  {}\n"
	}
	exts := strings.Join(append([]string{"health_check"}, c.ExtensionIDs...), ", ")
	grpcSettings := c.GRPC
	if grpcSettings == "" {
		grpcSettings = "        max_recv_msg_size_mib: 64\n"
	}
	return fmt.Sprintf(`# testbench config %q (%s distribution)
extensions:
  health_check:
    endpoint: 127.0.0.1:%d
%sreceivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:%d
%s      http:
        endpoint: 127.0.0.1:%d
%sprocessors:
%sexporters:
%sservice:
  extensions: [%s]
  telemetry:
    logs:
      level: info
    metrics:
      level: normal
      readers:
        - pull:
            exporter:
              prometheus:
                host: 127.0.0.1
                port: %d
  pipelines:
%s`, c.Name, c.Distribution, p.Health, c.Extensions, p.GRPC, grpcSettings, p.HTTP, c.HTTP, processors, exp.YAML, exts, p.Metrics, pipes.String())
}

// NopExporter discards what arrives: the line-rate harness measures the
// receiver and the processors, not an exporter.
func NopExporter() Exporter { return Exporter{ID: "nop", YAML: "  nop:\n"} }
