package testbench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/internal/e2e"
	"github.com/otelgov/otelcol-governance/internal/manifestlint"
)

// SidecarCR is the sidecar's OpenTelemetryCollector, relative to the
// repository.
const SidecarCR = "distribution/k8s/collector/sidecar.yaml"

// FaultOptions place the gateway CR's spec.config on this machine.
type FaultOptions struct {
	Ports Ports
	// Backend is the verifying backend's OTLP/gRPC endpoint; the traces
	// pipeline's exporter sends there.
	Backend string
	// QueueDir replaces every file_storage directory (the CR's emptyDir
	// mount): what a container restart finds again.
	QueueDir string
	// OrgDir, when set, is a ConfigMap-like directory (ConfigMapDir) the
	// registry extension loads its org registry from and polls every
	// second: the registry reload of the fault scenarios.
	OrgDir string
	// QueueBytes, when positive, replaces the exporters' queue_size: a
	// short run fills a small queue in seconds.
	QueueBytes int64
}

// FaultGatewayConfig is the gateway CR's whole spec.config (receiver with
// its middlewares, processors, extensions, the exporters' persistent
// queues, batching and retries) with only what a machine without
// Kubernetes needs changed: loopback listeners on o.Ports, the
// registry's HTTP server off, file_storage on o.QueueDir, the traces
// pipeline alone (the verifying backend speaks OTLP/gRPC), its exporter
// pointed at o.Backend.
func FaultGatewayConfig(path string, o FaultOptions) (string, error) {
	cfg, err := crSpecConfig(path)
	if err != nil {
		return "", err
	}
	fail := func(format string, args ...any) (string, error) {
		return "", fmt.Errorf("%s: spec.config: "+format, append([]any{path}, args...)...)
	}
	pipelines, _ := at(cfg, "service", "pipelines").(map[string]any)
	traces, _ := pipelines["traces"].(map[string]any)
	exps, _ := traces["exporters"].([]any)
	if len(exps) != 1 {
		return fail("want one exporter in the traces pipeline, got %v", exps)
	}
	expID := fmt.Sprint(exps[0])
	exporters, _ := cfg["exporters"].(map[string]any)
	exp, _ := exporters[expID].(map[string]any)
	if exp == nil {
		return fail("exporters.%s is missing", expID)
	}
	exp["endpoint"] = o.Backend
	exp["tls"] = map[string]any{"insecure": true}
	if o.QueueBytes > 0 {
		if q, ok := exp["sending_queue"].(map[string]any); ok {
			q["queue_size"] = o.QueueBytes
		}
	}
	cfg["exporters"] = map[string]any{expID: exp}
	cfg["service"].(map[string]any)["pipelines"] = map[string]any{"traces": traces}

	exts, _ := cfg["extensions"].(map[string]any)
	for id, v := range exts {
		e, _ := v.(map[string]any)
		if e == nil {
			e = map[string]any{}
			exts[id] = e
		}
		switch componentTypeOf(id) {
		case "health_check":
			e["endpoint"] = "127.0.0.1:" + strconv.Itoa(o.Ports.Health)
		case "governance_registry":
			e["http"] = map[string]any{"enabled": false}
			if o.OrgDir != "" {
				e["org_registries"] = []any{o.OrgDir}
				e["poll_interval"] = "1s"
			}
		case "file_storage":
			e["directory"] = o.QueueDir
			if c, ok := e["compaction"].(map[string]any); ok {
				c["directory"] = o.QueueDir
			}
		}
	}
	grpc, _ := at(cfg, "receivers", "otlp", "protocols", "grpc").(map[string]any)
	httpr, _ := at(cfg, "receivers", "otlp", "protocols", "http").(map[string]any)
	if grpc == nil || httpr == nil {
		return fail("receivers.otlp needs grpc and http protocols")
	}
	grpc["endpoint"] = o.Ports.GRPCEndpoint()
	httpr["endpoint"] = o.Ports.HTTPEndpoint()
	readers, _ := at(cfg, "service", "telemetry", "metrics", "readers").([]any)
	found := false
	for _, r := range readers {
		if prom, ok := at(r, "pull", "exporter", "prometheus").(map[string]any); ok {
			prom["host"], prom["port"] = "127.0.0.1", o.Ports.Metrics
			found = true
		}
	}
	if !found {
		return fail("service.telemetry.metrics has no pull prometheus reader")
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		return "", err
	}
	return "# the gateway CR's spec.config, placed on loopback (testbench.FaultGatewayConfig)\n" + string(out), nil
}

// SenderConfig is a sender in front of the gateway: the OTLP receiver on
// p and, as its only component, the sidecar CR's exporter to the gateway
// (its retry_on_failure, timeout and compression as shipped;
// FAULT_SENDER_TIMEOUT overrides the timeout) pointed at
// gateway, with its sending queue off: the exporter retries inside the
// receiver's call, so a request the test's client sees accepted is one
// the gateway accepted, and every retry is the real exporter's. retry,
// when not nil, replaces the CR's retry_on_failure (an application's SDK
// in front of a sidecar gives up sooner).
func SenderConfig(root string, p Ports, gateway string, retry map[string]any) (string, error) {
	path := filepath.Join(root, SidecarCR)
	cfg, err := crSpecConfig(path)
	if err != nil {
		return "", err
	}
	exporters, _ := cfg["exporters"].(map[string]any)
	var id string
	var exp map[string]any
	for k, v := range exporters {
		if strings.HasPrefix(k, "otlp") {
			id, exp = k, v.(map[string]any)
		}
	}
	if exp == nil {
		return "", fmt.Errorf("%s: spec.config has no otlp exporter", path)
	}
	exp["endpoint"] = gateway
	exp["sending_queue"] = map[string]any{"enabled": false}
	if retry != nil {
		exp["retry_on_failure"] = retry
	}
	if t := os.Getenv("FAULT_SENDER_TIMEOUT"); t != "" {
		exp["timeout"] = t
	}
	sender := map[string]any{
		"extensions": map[string]any{"health_check": map[string]any{"endpoint": "127.0.0.1:" + strconv.Itoa(p.Health)}},
		"receivers": map[string]any{"otlp": map[string]any{"protocols": map[string]any{
			"grpc": map[string]any{"endpoint": p.GRPCEndpoint(), "max_recv_msg_size_mib": 64},
		}}},
		"exporters": map[string]any{id: exp},
		"service": map[string]any{
			"extensions": []any{"health_check"},
			"telemetry": map[string]any{"metrics": map[string]any{"readers": []any{map[string]any{"pull": map[string]any{"exporter": map[string]any{
				"prometheus": map[string]any{"host": "127.0.0.1", "port": p.Metrics},
			}}}}}},
			"pipelines": map[string]any{"traces": map[string]any{"receivers": []any{"otlp"}, "exporters": []any{id}}},
		},
	}
	out, err := yaml.Marshal(sender)
	if err != nil {
		return "", err
	}
	return "# the sidecar CR's exporter as a sender (testbench.SenderConfig)\n" + string(out), nil
}

func crSpecConfig(path string) (map[string]any, error) {
	objs, err := manifestlint.LoadPaths(nil, path)
	if err != nil {
		return nil, err
	}
	if len(objs) != 1 || objs[0].Kind() != "OpenTelemetryCollector" {
		return nil, fmt.Errorf("%s: want one OpenTelemetryCollector, got %d objects", path, len(objs))
	}
	cfg, err := manifestlint.CollectorConfig(objs[0])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

func at(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func componentTypeOf(id string) string {
	t, _, _ := strings.Cut(id, "/")
	return t
}

// Org registries the fault scenarios swap in turn: both load, and neither
// changes what the workload's keys become (acme.* keys are not in it).
const (
	faultRegistryA = `groups:
  - id: registry.acme.fault
    type: attribute_group
    brief: Fault scenario attributes.
    attributes:
      - id: acme.fault.state
        type: string
        stability: development
        brief: State.
`
	faultRegistryB = faultRegistryA + `      - id: acme.fault.size
        type: int
        stability: development
        brief: Size.
`
)

// ConfigMapDir is a directory laid out as the kubelet lays out a
// ConfigMap volume (org.yaml -> ..data/org.yaml, ..data -> ..<n>), whose
// content Swap replaces as the kubelet does on a ConfigMap update: a new
// ..<n> directory, then an atomic rename of the ..data symlink.
type ConfigMapDir struct {
	Dir string
	n   int
}

// NewConfigMapDir lays out dir with org.yaml holding content.
func NewConfigMapDir(dir, content string) (*ConfigMapDir, error) {
	c := &ConfigMapDir{Dir: dir}
	if err := c.Swap(content); err != nil {
		return nil, err
	}
	if err := os.Symlink(filepath.Join("..data", "org.yaml"), filepath.Join(dir, "org.yaml")); err != nil {
		return nil, fmt.Errorf("configmap dir: %w", err)
	}
	return c, nil
}

// Swap replaces org.yaml's content through the ..data symlink.
func (c *ConfigMapDir) Swap(content string) error {
	c.n++
	gen := fmt.Sprintf("..%d", c.n)
	if err := os.Mkdir(filepath.Join(c.Dir, gen), 0o755); err != nil { //nolint:gosec // a test directory
		return fmt.Errorf("configmap dir: %w", err)
	}
	if err := os.WriteFile(filepath.Join(c.Dir, gen, "org.yaml"), []byte(content), 0o600); err != nil {
		return fmt.Errorf("configmap dir: %w", err)
	}
	tmp := filepath.Join(c.Dir, "..data_tmp")
	if err := os.Symlink(gen, tmp); err != nil {
		return fmt.Errorf("configmap dir: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(c.Dir, "..data")); err != nil {
		return fmt.Errorf("configmap dir: %w", err)
	}
	if c.n > 1 {
		_ = os.RemoveAll(filepath.Join(c.Dir, fmt.Sprintf("..%d", c.n-1)))
	}
	return nil
}

// Reloader swaps a ConfigMapDir between two good registries every
// interval until Stop.
type Reloader struct {
	swaps atomic.Int64
	stop  chan struct{}
	done  sync.WaitGroup
	err   atomic.Value
}

// StartReloader swaps c every interval; interval 0 swaps nothing.
func StartReloader(c *ConfigMapDir, interval time.Duration) *Reloader {
	r := &Reloader{stop: make(chan struct{})}
	if interval <= 0 {
		return r
	}
	r.done.Go(func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for i := 0; ; i++ {
			select {
			case <-r.stop:
				return
			case <-t.C:
			}
			content := faultRegistryA
			if i%2 == 0 {
				content = faultRegistryB
			}
			if err := c.Swap(content); err != nil {
				r.err.Store(err)
				return
			}
			r.swaps.Add(1)
		}
	})
	return r
}

// Stop ends the swaps and returns how many were made, and the first error.
func (r *Reloader) Stop() (int64, error) {
	select {
	case <-r.stop:
	default:
		close(r.stop)
	}
	r.done.Wait()
	err, _ := r.err.Load().(error)
	return r.swaps.Load(), err
}

// Kill sends SIGKILL to the collector and waits for it to end: what the
// kernel's OOM killer, or a node's kubelet past the grace period, does.
func Kill(tb testing.TB, c *e2e.Collector) {
	tb.Helper()
	if err := syscall.Kill(c.PID(), syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		tb.Fatalf("kill %d: %v", c.PID(), err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !c.Exited() {
		if time.Now().After(deadline) {
			tb.Fatalf("collector %d still running 10s after SIGKILL", c.PID())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// FaultDuration is a scenario's duration: the environment variable name
// when set, else long, or short under go test -short.
func FaultDuration(tb testing.TB, name string, long, short time.Duration) time.Duration {
	tb.Helper()
	if s := os.Getenv(name); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			tb.Fatalf("%s=%q: want a duration", name, s)
		}
		return d
	}
	if testing.Short() {
		return short
	}
	return long
}

// FaultInt is FaultDuration for a count.
func FaultInt(tb testing.TB, name string, long, short int) int {
	tb.Helper()
	if s := os.Getenv(name); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			tb.Fatalf("%s=%q: want a non-negative integer", name, s)
		}
		return n
	}
	if testing.Short() {
		return short
	}
	return long
}
