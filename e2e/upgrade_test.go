//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/internal/e2e"
	"github.com/otelgov/otelcol-governance/upgrade/upgradetest"
)

// upgradeRule is a PrometheusRule reading rpc_response_status_code, the
// name v1.44.0 -> next-384d661 renames to rpc.status_code.
const upgradeRule = `apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: rpc
spec:
  groups:
    - name: rpc
      rules:
        - alert: RPCErrors
          expr: sum by (rpc_response_status_code) (rate(rpc_server_call_duration_seconds_count{rpc_response_status_code!="OK"}[5m])) > 0
`

// upgradeDashboard is a Grafana dashboard reading the same label.
const upgradeDashboard = `{"title": "RPC", "panels": [{"title": "calls", "datasource": {"type": "prometheus"},
 "targets": [{"expr": "sum by (rpc_response_status_code) (rate(rpc_server_call_duration_seconds_count[5m]))"}]}]}
`

// upgradeTraces are service svc's spans carrying key, one second apart
// from start.
func upgradeTraces(svc, key string, n int, start time.Time) ptrace.Traces {
	td := e2e.Traces(svc, 0, n, map[string]any{key: "OK", "rpc.method": "Get"})
	spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	for i := range spans.Len() {
		spans.At(i).SetStartTimestamp(pcommon.NewTimestampFromTime(start.Add(time.Duration(i) * time.Second)))
		spans.At(i).SetEndTimestamp(pcommon.NewTimestampFromTime(start.Add(time.Duration(i)*time.Second + time.Millisecond)))
	}
	return td
}

// TestUpgradeWindow runs issue 36's workflow on real parts: two services'
// recordings (one on the old name rpc.response.status_code, one on the
// current rpc.status_code), a PrometheusRule and a Grafana dashboard
// reading the old name; otelgov upgrade plan names the service, the rate
// and the breaking reads and writes the transition configuration; the built
// collector, on it, sends old and new names together and is scraped by a
// real Prometheus; otelgov upgrade status says "not yet" while the old
// sender runs and the rule reads the old name, and exits 0 once both are
// fixed.
func TestUpgradeWindow(t *testing.T) {
	root := e2e.RepoRoot(t)
	shared, err := filepath.Abs(filepath.Join(root, "..", "shared", "semconv"))
	require.NoError(t, err)
	oldDir, newDir := filepath.Join(shared, "v1.44.0"), filepath.Join(shared, "next-384d661")
	dir := t.TempDir()
	consumers := filepath.Join(dir, "monitoring")
	require.NoError(t, os.MkdirAll(consumers, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(consumers, "rule.yaml"), []byte(upgradeRule), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(consumers, "dashboard.json"), []byte(upgradeDashboard), 0o600))

	start := time.Now().Add(-time.Minute)
	recs := map[string]ptrace.Traces{
		"old": upgradeTraces("checkout", "rpc.response.status_code", 11, start),
		"new": upgradeTraces("cart", "rpc.status_code", 11, start),
	}
	var recArgs []string
	for name, td := range recs {
		b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
		require.NoError(t, err)
		f := filepath.Join(dir, name+".jsonl")
		require.NoError(t, os.WriteFile(f, append(b, '\n'), 0o600))
		recArgs = append(recArgs, "--recording", f)
	}

	// 1. The plan.
	transitionDir := filepath.Join(dir, "transition")
	args := append([]string{"upgrade", "plan", "--old", oldDir, "--new", newDir, "--output", transitionDir}, recArgs...)
	code, out, errOut := otelgov(t, nil, append(args, consumers)...)
	// 1: error.type becomes conditionally required on five otel.sdk.*
	// metrics, which producers must carry over (listed under manual).
	require.Equal(t, 1, code, "%s%s", out, errOut)
	transition := filepath.Join(transitionDir, "collector.yaml")
	assert.Contains(t, out, "rule.yaml:10: promql reads rpc_response_status_code (attribute_renamed; now rpc.status_code) [--write rewrites it]")
	assert.Contains(t, out, "dashboard.json:2: promql reads rpc_response_status_code")
	assert.Contains(t, out, "checkout: attribute rpc.response.status_code -> rpc.status_code (attribute_renamed): 11, 1.1/s")
	assert.Contains(t, out, "cart: sends no name the change touches")

	// 2. The collector on the transition configuration, scraped by a real
	// Prometheus.
	b, err := os.ReadFile(transition) //nolint:gosec // the test's own file
	require.NoError(t, err)
	cfg := string(b)
	_, section, ok := strings.Cut(cfg, "processors:\n")
	require.True(t, ok, cfg)
	sink := e2e.StartSink(t)
	p := e2e.NewPipeline(t, sink)
	p.Processors = section
	p.ProcessorNames = []string{"governance"}
	prom := upgradetest.StartPrometheus(t, "127.0.0.1:"+strconv.Itoa(p.MetricsPort))
	e2e.StartCollector(t, p.YAML(), p.HealthPort, p.MetricsPort, e2e.Options{})
	client, err := e2e.NewClient(p.GRPCEndpoint(), p.HTTPEndpoint())
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Close() })

	// Replay both recordings, the old sender every half second until told
	// to stop.
	ctx, stopOld := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			_ = client.SendTraces(context.Background(), e2e.GRPC, upgradeTraces("checkout", "rpc.response.status_code", 5, time.Now()))
			_ = client.SendTraces(context.Background(), e2e.GRPC, upgradeTraces("cart", "rpc.status_code", 5, time.Now()))
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(func() { stopOld(); wg.Wait() })

	// Old and new names arrive together for the old sender.
	require.Eventually(t, func() bool { return len(sink.Traces()) > 0 }, 20*time.Second, 200*time.Millisecond)
	var both bool
	for _, td := range sink.Traces() {
		rs := td.ResourceSpans().At(0)
		if svc, _ := rs.Resource().Attributes().Get("service.name"); svc.Str() != "checkout" {
			continue
		}
		attrs := rs.ScopeSpans().At(0).Spans().At(0).Attributes().AsRaw()
		assert.Equal(t, "OK", attrs["rpc.response.status_code"])
		assert.Equal(t, "OK", attrs["rpc.status_code"])
		both = true
	}
	assert.True(t, both, "the old sender's spans arrived")

	// 3. Status: not yet while the old sender runs and the rule reads the old name.
	status := func() (int, string, string) {
		return otelgov(t, nil, "upgrade", "status", "--old", oldDir, "--new", newDir, "--prometheus", prom, "--window", "5s", consumers)
	}
	require.Eventually(t, func() bool {
		code, out, errOut = status()
		return code == 1 && strings.Contains(out, `service "checkout" sent the old name rpc.response.status_code`)
	}, 60*time.Second, time.Second, "last: %d %s %s", code, out, errOut)
	assert.Contains(t, out, "rule.yaml:10: promql reads the old name rpc_response_status_code")
	assert.NotContains(t, out, `service "cart"`)

	// 4. Fix both: the old sender stops (moved to the new name), the
	// consumers are rewritten to the new names.
	stopOld()
	wg.Wait()
	code, out, errOut = otelgov(t, nil, "queries", "--semconv-dir", newDir, "--write", consumers)
	require.Equal(t, 0, code, "%s%s", out, errOut)
	require.Eventually(t, func() bool {
		code, out, errOut = status()
		return code == 0
	}, 60*time.Second, time.Second, "last: %d %s %s", code, out, errOut)
	assert.Contains(t, out, "done: over the last 5s")
}

// transitionSection is the governance processor on the new registry with
// the transition (rpc.response.status_code copied and counted), written
// out rather than taken from the plan so that this test pins what the
// collector runs.
func transitionSection(newDir string) string {
	return fmt.Sprintf("  governance:\n    registry:\n      embedded: false\n      semconv_dir: %s\n    deprecated: rename\n    deprecated_names:\n      rpc.response.status_code: copy\n", newDir)
}

// TestUpgradeStatusFailsClosed is issue 43's false "done" on real parts: a
// sidecar collector exporting to a gateway collector, both scraped by a
// real Prometheus, checkout sending rpc.response.status_code (current in
// v1.44.0, renamed in next-384d661) the whole time.
//
//  1. Neither collector runs the transition: status is never 0 and names
//     every instance; plan --prometheus never says checkout "sends no name".
//  2. The gateway runs the transition, the sidecar the new registry with
//     deprecated: rename and no deprecated_names: the gateway never sees
//     the old name, and status names the sidecar as renaming it before it
//     is counted.
//  3. Both hops run the transition (the sidecar as upgrade plan's
//     sidecar.yaml has it: the new registry as its own, with the copies):
//     status says checkout still sends the old name, and exits 0 only
//     once checkout stopped for a window.
func TestUpgradeStatusFailsClosed(t *testing.T) {
	root := e2e.RepoRoot(t)
	shared, err := filepath.Abs(filepath.Join(root, "..", "shared", "semconv"))
	require.NoError(t, err)
	oldDir, newDir := filepath.Join(shared, "v1.44.0"), filepath.Join(shared, "next-384d661")
	const window = "5s"

	sink := e2e.StartSink(t)
	gw := e2e.NewPipeline(t, sink)
	gw.ProcessorNames = []string{"governance"}
	gw.Processors = "  governance: {}\n"
	sc := e2e.NewPipeline(t, sink)
	sc.SinkEndpoint = gw.GRPCEndpoint()
	sc.ProcessorNames = []string{"governance"}
	sc.Processors = "  governance: {}\n"
	gwc := e2e.StartCollector(t, gw.YAML(), gw.HealthPort, gw.MetricsPort, e2e.Options{})
	scc := e2e.StartCollector(t, sc.YAML(), sc.HealthPort, sc.MetricsPort, e2e.Options{})
	targets := []string{"127.0.0.1:" + strconv.Itoa(gw.MetricsPort), "127.0.0.1:" + strconv.Itoa(sc.MetricsPort)}
	sidecarID := fmt.Sprintf("127.0.0.1:%d", sc.MetricsPort)

	client, err := e2e.NewClient(sc.GRPCEndpoint(), sc.HTTPEndpoint())
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Close() })
	var sending atomic.Bool
	sending.Store(true)
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(300 * time.Millisecond)
		defer tick.Stop()
		for {
			if sending.Load() {
				_ = client.SendTraces(context.Background(), e2e.GRPC, upgradeTraces("checkout", "rpc.response.status_code", 3, time.Now()))
			}
			_ = client.SendTraces(context.Background(), e2e.GRPC, upgradeTraces("cart", "rpc.status_code", 3, time.Now()))
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(func() { stop(); wg.Wait() })

	status := func(prom string) (int, string, string) {
		return otelgov(t, nil, "upgrade", "status", "--old", oldDir, "--new", newDir, "--prometheus", prom, "--window", window)
	}
	// covered waits until the window is observed in full (and reason
	// holds), so that the answer is not "not yet" for want of history.
	covered := func(prom, reason string) (int, string) {
		var (
			code        int
			out, errOut string
		)
		require.Eventually(t, func() bool {
			code, out, errOut = status(prom)
			return !strings.Contains(out, "not observed in full") && strings.Contains(out, reason)
		}, 60*time.Second, time.Second, "last: %d %s %s", code, out, errOut)
		return code, out
	}

	// 1. Not on the transition.
	prom := upgradetest.StartPrometheus(t, targets...)
	code, out := covered(prom, "the transition configuration is not in force on 6 of 6 instance(s)")
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "does not count rpc.response.status_code")
	assert.NotContains(t, out, "done")
	for range 3 {
		time.Sleep(time.Second)
		code, out, _ = status(prom)
		assert.Equal(t, 1, code, "never 0 from absence: %s", out)
	}
	code, out, errOut := otelgov(t, nil, "upgrade", "plan", "--old", oldDir, "--new", newDir, "--prometheus", prom, "--window", window)
	// 1: error.type becomes conditionally required on five otel.sdk.*
	// metrics, which a person must carry over (listed under manual).
	assert.Equal(t, 1, code, errOut)
	assert.Contains(t, errOut, "5 change(s) the collector cannot migrate")
	assert.NotContains(t, out, "checkout: sends no name the change touches")
	assert.Contains(t, out, "checkout: not known whether it sends a name the change touches")

	// 2. The gateway on the transition, the sidecar renaming before it.
	gwc.Stop()
	scc.Stop()
	gw.Processors = transitionSection(newDir)
	sc.Processors = fmt.Sprintf("  governance:\n    registry:\n      embedded: false\n      semconv_dir: %s\n    deprecated: rename\n", newDir)
	gwc = e2e.StartCollector(t, gw.YAML(), gw.HealthPort, gw.MetricsPort, e2e.Options{})
	scc = e2e.StartCollector(t, sc.YAML(), sc.HealthPort, sc.MetricsPort, e2e.Options{})
	prom = upgradetest.StartPrometheus(t, targets...)
	code, out = covered(prom, "renames rpc.response.status_code without counting them")
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "the transition configuration is not in force on 3 of 6 instance(s)")
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "renames rpc.response.status_code") {
			assert.Contains(t, l, sidecarID, "the sidecar is named")
		}
	}
	assert.NotContains(t, out, `service "checkout" sent the old name`, "the gateway never sees it")

	// 3. Both hops on the transition.
	gwc.Stop()
	scc.Stop()
	sc.Processors = transitionSection(newDir)
	e2e.StartCollector(t, gw.YAML(), gw.HealthPort, gw.MetricsPort, e2e.Options{})
	e2e.StartCollector(t, sc.YAML(), sc.HealthPort, sc.MetricsPort, e2e.Options{})
	prom = upgradetest.StartPrometheus(t, targets...)
	code, out = covered(prom, `service "checkout" sent the old name rpc.response.status_code`)
	assert.Equal(t, 1, code, out)
	assert.NotContains(t, out, "not in force")
	sending.Store(false)
	require.Eventually(t, func() bool {
		code, out, errOut = status(prom)
		return code == 0
	}, 60*time.Second, time.Second, "last: %d %s %s", code, out, errOut)
	assert.Contains(t, out, "with the transition in force on 6 instance(s)")
}
