// Command otlpreplay is the line-rate load client on its own: it replays one
// pre-marshalled OTLP/gRPC trace request of one of the line-rate workloads
// against any collector and prints what was accepted, for measuring by hand
// (perf, pprof, another pinning):
//
//	taskset -c 1 go run ./benchmarks/otlpreplay -endpoint 127.0.0.1:4317 -workload mixed -duration 30s
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/otelgov/otelcol-governance/testbench"
	"github.com/otelgov/otelcol-governance/testbench/replay"
)

func main() {
	endpoint := flag.String("endpoint", "127.0.0.1:4317", "the collector's OTLP/gRPC endpoint (plaintext)")
	workload := flag.String("workload", "deprecated", "conforming, deprecated, mixed or old-values (see testbench/README.md#line-rate)")
	rate := flag.Int("rate", 0, "spans per second; 0 sends as fast as the collector answers")
	workers := flag.Int("workers", 4, "requests in flight")
	duration := flag.Duration("duration", 10*time.Second, "how long to send")
	flag.Parse()
	if err := run(*endpoint, *workload, *rate, *workers, *duration); err != nil {
		fmt.Fprintln(os.Stderr, "otlpreplay:", err)
		os.Exit(1)
	}
}

func run(endpoint, workload string, rate, workers int, d time.Duration) error {
	var names []string
	for _, w := range testbench.LineWorkloads {
		names = append(names, w.Name)
		if w.Name != workload {
			continue
		}
		req, err := replay.NewTraceRequest(w.Traces())
		if err != nil {
			return err
		}
		c, err := replay.NewClient(req, replay.Options{Endpoint: endpoint, Rate: rate, Workers: workers})
		if err != nil {
			return err
		}
		defer c.Close()
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		st := c.Run(ctx, d)
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			replay.Stats
			SpansPerSec float64 `json:"spans_per_sec"`
			RequestSize int     `json:"request_bytes"`
		}{st, st.Rate(), req.Bytes()}); err != nil {
			return err
		}
		if st.Failed > 0 || st.Rejected > 0 {
			return fmt.Errorf("%d requests failed, %d spans rejected: %s", st.Failed, st.Rejected, st.LastError)
		}
		return nil
	}
	return fmt.Errorf("-workload %q: want one of %s", workload, strings.Join(names, ", "))
}
