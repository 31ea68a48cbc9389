// Package replay is the line-rate harness's load client: it sends one OTLP
// ExportTraceServiceRequest, marshalled once, over gRPC again and again, at
// full speed or at a fixed rate, and counts the spans the collector accepted.
//
// It builds no spans and marshals nothing per request, so that its own cost
// is a gRPC call and the collector's CPU per span can be measured without the
// client competing for it (telemetrygen's SDK, by contrast, builds every span
// and drops spans when its queue is full).
package replay // import "github.com/otelgov/otelcol-governance/testbench/replay"

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
)

// exportMethod is the OTLP trace service's Export RPC.
const exportMethod = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"

// Request is one ExportTraceServiceRequest in its wire form.
type Request struct {
	body  []byte
	spans int
}

// NewTraceRequest marshals td once.
func NewTraceRequest(td ptrace.Traces) (Request, error) {
	b, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	if err != nil {
		return Request{}, fmt.Errorf("replay: marshal request: %w", err)
	}
	if td.SpanCount() == 0 {
		return Request{}, errors.New("replay: request has no spans")
	}
	return Request{body: b, spans: td.SpanCount()}, nil
}

// Spans is the number of spans in the request.
func (r Request) Spans() int { return r.spans }

// Body is the marshalled request, shared by every export: read only.
func (r Request) Body() []byte { return r.body }

// Bytes is the size of the marshalled request.
func (r Request) Bytes() int { return len(r.body) }

// Options configure a Client.
type Options struct {
	// Endpoint is the collector's OTLP/gRPC host:port (plaintext).
	Endpoint string
	// Workers is the number of requests in flight. Default 4.
	Workers int
	// Rate is spans per second over all workers; 0 sends as fast as the
	// collector answers.
	Rate int
	// Timeout bounds one request. Default 30s.
	Timeout time.Duration
}

// Stats is what a Client did. A span counts as accepted only when its
// request succeeded and the response's partial_success did not reject it.
type Stats struct {
	Requests uint64 `json:"requests"`
	Accepted uint64 `json:"accepted_spans"`
	// Rejected spans are those a successful response's partial_success
	// rejected; Failed requests are those that returned an error (their
	// spans are in FailedSpans). Neither is retried: at a measured rate
	// a refusal is a failed run, not something to paper over.
	Rejected    uint64        `json:"rejected_spans"`
	Failed      uint64        `json:"failed_requests"`
	FailedSpans uint64        `json:"failed_spans"`
	Elapsed     time.Duration `json:"elapsed_ns"`
	// Behind is how late the latest request of a fixed-rate run started
	// after its scheduled time: the client (or the collector) did not keep up.
	Behind    time.Duration `json:"behind_ns"`
	LastError string        `json:"last_error,omitempty"`
}

// Rate is accepted spans per second.
func (s Stats) Rate() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Accepted) / s.Elapsed.Seconds()
}

// Client replays one Request.
type Client struct {
	conn *grpc.ClientConn
	req  Request
	opts Options

	// Counters, totals since NewClient; atomics, no lock.
	requests, accepted, rejected, failed, failedSpans atomic.Uint64
	behind                                            atomic.Int64

	mu      sync.Mutex
	lastErr error // guarded by mu
}

// NewClient connects to opts.Endpoint (lazily, as gRPC does).
func NewClient(req Request, opts Options) (*Client, error) {
	if opts.Endpoint == "" {
		return nil, errors.New("replay: endpoint is required")
	}
	if opts.Workers < 0 || opts.Rate < 0 || opts.Timeout < 0 {
		return nil, fmt.Errorf("replay: workers (%d), rate (%d) and timeout (%s) must not be negative", opts.Workers, opts.Rate, opts.Timeout)
	}
	if req.spans == 0 {
		return nil, errors.New("replay: empty request (use NewTraceRequest)")
	}
	if opts.Workers == 0 {
		opts.Workers = 4
	}
	if opts.Timeout == 0 {
		opts.Timeout = 30 * time.Second
	}
	conn, err := grpc.NewClient(opts.Endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("replay: dial %s: %w", opts.Endpoint, err)
	}
	return &Client{conn: conn, req: req, opts: opts}, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// Stats returns the totals since NewClient.
func (c *Client) Stats() Stats {
	s := Stats{
		Requests:    c.requests.Load(),
		Accepted:    c.accepted.Load(),
		Rejected:    c.rejected.Load(),
		Failed:      c.failed.Load(),
		FailedSpans: c.failedSpans.Load(),
		Behind:      time.Duration(c.behind.Load()),
	}
	c.mu.Lock()
	if c.lastErr != nil {
		s.LastError = c.lastErr.Error()
	}
	c.mu.Unlock()
	return s
}

// Run sends for d (or until ctx ends) and returns, once every request in
// flight has been answered, what this run added to the totals. Every
// request Run started is answered before it returns, so the collector has
// finished with them when the pipeline is synchronous (no batch, no queue).
func (c *Client) Run(ctx context.Context, d time.Duration) Stats {
	before := c.Stats()
	start := time.Now()
	end := start.Add(d)
	var next atomic.Uint64
	var wg sync.WaitGroup
	for range c.opts.Workers {
		wg.Go(func() { c.worker(ctx, &next, start, end) })
	}
	wg.Wait()
	after := c.Stats()
	return Stats{
		Requests:    after.Requests - before.Requests,
		Accepted:    after.Accepted - before.Accepted,
		Rejected:    after.Rejected - before.Rejected,
		Failed:      after.Failed - before.Failed,
		FailedSpans: after.FailedSpans - before.FailedSpans,
		Elapsed:     time.Since(start),
		Behind:      after.Behind,
		LastError:   after.LastError,
	}
}

func (c *Client) worker(ctx context.Context, next *atomic.Uint64, start, end time.Time) {
	var interval time.Duration
	if c.opts.Rate > 0 {
		interval = time.Duration(float64(c.req.spans) / float64(c.opts.Rate) * float64(time.Second))
	}
	for ctx.Err() == nil {
		if interval > 0 {
			due := start.Add(time.Duration(next.Add(1)-1) * interval) //nolint:gosec // request count
			if !due.Before(end) {
				return
			}
			if wait := time.Until(due); wait > 0 {
				t := time.NewTimer(wait)
				select {
				case <-ctx.Done():
					t.Stop()
					return
				case <-t.C:
				}
			} else {
				c.behind.Store(int64(-wait))
			}
		} else if !time.Now().Before(end) {
			return
		}
		c.send(ctx)
	}
}

func (c *Client) send(ctx context.Context) {
	resp := ptraceotlp.NewExportResponse()
	rctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	c.requests.Add(1)
	n := uint64(c.req.spans) //nolint:gosec // positive
	err := c.conn.Invoke(rctx, exportMethod, c.req.body, &resp, grpc.ForceCodecV2(codec{}))
	if err != nil {
		c.failed.Add(1)
		c.failedSpans.Add(n)
		c.mu.Lock()
		c.lastErr = err
		c.mu.Unlock()
		return
	}
	rejected := uint64(max(0, resp.PartialSuccess().RejectedSpans()))
	c.rejected.Add(rejected)
	c.accepted.Add(n - min(n, rejected))
	if rejected > 0 {
		c.mu.Lock()
		c.lastErr = fmt.Errorf("partial success: %d spans rejected: %s", rejected, resp.PartialSuccess().ErrorMessage())
		c.mu.Unlock()
	}
}

// codec sends the pre-marshalled request as it is and decodes the
// response with pdata. Its name keeps the content type application/grpc+proto.
type codec struct{}

var _ encoding.CodecV2 = codec{}

func (codec) Name() string { return "proto" }

func (codec) Marshal(v any) (mem.BufferSlice, error) {
	b, ok := v.([]byte)
	if !ok {
		return nil, fmt.Errorf("replay: cannot send %T", v)
	}
	return mem.BufferSlice{mem.SliceBuffer(b)}, nil
}

func (codec) Unmarshal(data mem.BufferSlice, v any) error {
	resp, ok := v.(*ptraceotlp.ExportResponse)
	if !ok {
		return fmt.Errorf("replay: cannot decode into %T", v)
	}
	return resp.UnmarshalProto(data.Materialize())
}
