// Command otelgovgen writes a large recording in the collector file
// exporter's format (JSON lines, traces, metrics and logs mixed; 30% of the
// attributes deprecated) for measuring otelgov check:
//
//	go run ./benchmarks/otelgovgen -size 100 -out /tmp/big.jsonl
//	/usr/bin/time -v _build/otelgov check /tmp/big.jsonl
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/otelgov/otelcol-governance/engine/enginetest"
	"github.com/otelgov/otelcol-governance/otlpfile"
	"github.com/otelgov/otelcol-governance/vocab"
)

func main() {
	sizeMB := flag.Int("size", 100, "size to write, in MB (10^6 bytes)")
	out := flag.String("out", "", "output file")
	items := flag.Int("items", 100, "spans, data points or log records per request")
	proto := flag.Bool("proto", false, "write the file exporter's format: proto (4-byte length prefix) instead of JSON lines")
	flag.Parse()
	format := otlpfile.FormatJSON
	if *proto {
		format = otlpfile.FormatProtoFixed
	}
	if err := run(*out, int64(*sizeMB)*1_000_000, *items, format); err != nil {
		fmt.Fprintln(os.Stderr, "otelgovgen:", err)
		os.Exit(1)
	}
}

func run(path string, size int64, items int, format otlpfile.Format) error {
	if path == "" {
		return fmt.Errorf("-out is required")
	}
	f, err := os.Create(path) //nolint:gosec // the operator names the file
	if err != nil {
		return err
	}
	defer f.Close()
	cw := &countingWriter{w: f}
	w := otlpfile.NewWriter(cw, format, false)
	recs := []otlpfile.Record{
		{Kind: vocab.KindTraces, Traces: enginetest.GenTraces(items, enginetest.MixDeprecated)},
		{Kind: vocab.KindMetrics, Metrics: enginetest.GenMetrics(items, enginetest.MixDeprecated)},
		{Kind: vocab.KindLogs, Logs: enginetest.GenLogs(items, enginetest.MixUnknown)},
	}
	var n, total int64
	for i := 0; cw.n < size; i++ {
		rec := &recs[i%len(recs)]
		if err := w.Write(rec); err != nil {
			return err
		}
		n++
		total += int64(rec.Items())
		if i%64 == 0 {
			if err := w.Close(); err != nil { // flush, so that cw.n is current
				return err
			}
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	fmt.Printf("%s: %d bytes, %d requests, %d items\n", path, cw.n, n, total)
	return nil
}

type countingWriter struct {
	w interface{ Write([]byte) (int, error) }
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
