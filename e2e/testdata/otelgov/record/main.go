// Command record re-records the otelgov e2e fixtures with the collector's own
// file exporter. It is not part of the build (testdata); run it by path with
// a throw-away OCB build of the otlp receiver and the contrib file exporter
// v0.165.1 (see ../README.md):
//
//	go run ./e2e/testdata/otelgov/record -collector /tmp/fexp/_build/otelcol-fileexp -out e2e/testdata/otelgov
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

const config = `receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:%d
exporters:
  file:
    path: %s
    format: %s
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:   {receivers: [otlp], exporters: [file]}
    metrics:  {receivers: [otlp], exporters: [file]}
    logs:     {receivers: [otlp], exporters: [file]}
`

func main() {
	collector := flag.String("collector", "", "throw-away collector with the otlp receiver and the file exporter")
	out := flag.String("out", "e2e/testdata/otelgov", "output directory")
	flag.Parse()
	if err := run(*collector, *out); err != nil {
		fmt.Fprintln(os.Stderr, "record:", err)
		os.Exit(1)
	}
}

// deprecated is what an old SDK emits: http.method and friends, and the
// pre-1.26 connection-pool metric db.client.connections.usage.
var deprecated = map[string]any{"http.method": "GET", "http.scheme": "https", "url.path": "/api/cart", "http.status_code": int64(200), "net.host.name": "shop.example.com", "http.route": "/api/cart"}

// current is the same in current semantic conventions.
var current = map[string]any{"http.request.method": "GET", "url.scheme": "https", "url.path": "/api/cart", "http.response.status_code": int64(200), "server.address": "shop.example.com", "http.route": "/api/cart"}

func run(collector, out string) error {
	for _, fx := range []struct {
		file    string
		format  string
		service string
		attrs   map[string]any
		metric  string
	}{
		{"recorded-deprecated.jsonl", "json", "checkout", deprecated, "db.client.connections.usage"},
		{"recorded-clean.jsonl", "json", "cart", current, "db.client.connection.count"},
		// format: proto, each request behind a 4-byte big-endian length.
		{"recorded-deprecated.pb", "proto", "checkout", deprecated, "db.client.connections.usage"},
	} {
		if err := record(collector, filepath.Join(out, fx.file), fx.format, func(c *e2e.Client) error {
			ctx := context.Background()
			for i := range 3 {
				if err := c.SendTraces(ctx, e2e.GRPC, e2e.Traces(fx.service, i*5, 5, fx.attrs)); err != nil {
					return err
				}
			}
			// An updowncounter of pool connections, as the registry declares
			// both names: a non-monotonic sum in {connection}.
			md := e2e.Metrics(fx.service, 0, 4, map[string]any{"db.client.connection.state": "used", "db.client.connection.pool.name": "main"})
			m := md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(0)
			m.SetName(fx.metric)
			m.SetUnit("{connection}")
			g := m.Gauge()
			sum := pmetric.NewSum()
			g.DataPoints().MoveAndAppendTo(sum.DataPoints())
			sum.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
			sum.MoveTo(m.SetEmptySum())
			if err := c.SendMetrics(ctx, e2e.GRPC, md); err != nil {
				return err
			}
			if err := c.SendMetrics(ctx, e2e.GRPC, pmetric.NewMetrics()); err != nil {
				return err
			}
			return c.SendLogs(ctx, e2e.GRPC, e2e.Logs(fx.service, 0, 3, fx.attrs))
		}); err != nil {
			return fmt.Errorf("%s: %w", fx.file, err)
		}
	}
	return nil
}

func record(collector, path, format string, send func(*e2e.Client) error) error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	_ = os.Remove(abs)
	cfg := filepath.Join(os.TempDir(), "record-"+strconv.Itoa(port)+".yaml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, config, port, abs, format), 0o600); err != nil {
		return err
	}
	cmd := exec.Command(collector, "--config", cfg)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { _ = cmd.Process.Kill() }()
	for deadline := time.Now().Add(30 * time.Second); ; {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			_ = c.Close()
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("collector did not listen: %w", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	c, err := e2e.NewClient("127.0.0.1:"+strconv.Itoa(port), "")
	if err != nil {
		return err
	}
	defer c.Close()
	if err := send(c); err != nil {
		return err
	}
	// SIGTERM: the file exporter flushes and closes the file on shutdown.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	return cmd.Wait()
}
