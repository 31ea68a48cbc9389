package testbench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// LoadOptions configure a Generator.
type LoadOptions struct {
	Signal Signal
	// Protocols are used round-robin, one request each. Default: gRPC only.
	Protocols []e2e.Protocol
	// Rate is items per second over all workers; 0 sends as fast as the
	// collector accepts.
	Rate int
	// BatchSize is items per request. Default 100.
	BatchSize int
	// Workers send concurrently. Default 2.
	Workers int
	// FirstSeq numbers the first item; phases of one run (warm-up, measured
	// load) use disjoint ranges. Default 0.
	FirstSeq uint64
	// Start is the time base of item timestamps. Default: now.
	Start time.Time
	// RetryBackoff is the wait after a refused request before it is sent
	// again. Default 25ms.
	RetryBackoff time.Duration
	// GiveUpAfter bounds how long one request is retried; it then counts as
	// failed, never as sent. Default 2 minutes.
	GiveUpAfter time.Duration
	// RequestTimeout bounds one attempt. Default 30s.
	RequestTimeout time.Duration
}

func (o LoadOptions) withDefaults() LoadOptions {
	if len(o.Protocols) == 0 {
		o.Protocols = []e2e.Protocol{e2e.GRPC}
	}
	if o.BatchSize == 0 {
		o.BatchSize = 100
	}
	if o.Workers == 0 {
		o.Workers = 2
	}
	if o.Start.IsZero() {
		o.Start = time.Now()
	}
	if o.RetryBackoff == 0 {
		o.RetryBackoff = 25 * time.Millisecond
	}
	if o.GiveUpAfter == 0 {
		o.GiveUpAfter = 2 * time.Minute
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = 30 * time.Second
	}
	return o
}

// LoadStats is what a Generator did. Sent counts only items whose request the
// collector accepted; a refused request is retried (counted in Retries) until
// accepted or given up (Failed). Nothing is dropped silently.
type LoadStats struct {
	Sent     uint64
	Requests uint64
	Retries  uint64 // refused attempts that were retried
	Failed   uint64 // items whose request was given up
	Elapsed  time.Duration
	// Behind is how far the last request started after its scheduled time:
	// a fixed-rate run whose generator could not keep up shows it here.
	Behind    time.Duration
	LastError string
}

// Rate is the achieved items per second.
func (s LoadStats) Rate() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Sent) / s.Elapsed.Seconds()
}

// Generator sends a Workload to a collector at a fixed rate with synchronous
// exports, and remembers exactly which items were accepted.
type Generator struct {
	w      *Workload
	opts   LoadOptions
	client *e2e.Client

	next     atomic.Uint64 // next batch index
	sent     atomic.Uint64
	requests atomic.Uint64
	retries  atomic.Uint64
	failed   atomic.Uint64
	behind   atomic.Int64

	mu       sync.Mutex
	accepted bitset // by item seq
	lastErr  error
}

// NewGenerator sends w to the collector's OTLP endpoints.
func NewGenerator(w *Workload, client *e2e.Client, opts LoadOptions) *Generator {
	return &Generator{w: w, client: client, opts: opts.withDefaults()}
}

// Run generates load for d (or until ctx ends) and returns when every worker
// has finished its request in flight.
func (g *Generator) Run(ctx context.Context, d time.Duration) LoadStats {
	start := time.Now()
	end := start.Add(d)
	base := g.next.Load()
	var wg sync.WaitGroup
	for range g.opts.Workers {
		wg.Go(func() { g.worker(ctx, base, start, end) })
	}
	wg.Wait()
	st := g.Stats()
	st.Elapsed = time.Since(start)
	return st
}

// Stats returns the counts so far.
func (g *Generator) Stats() LoadStats {
	st := LoadStats{
		Sent:     g.sent.Load(),
		Requests: g.requests.Load(),
		Retries:  g.retries.Load(),
		Failed:   g.failed.Load(),
		Behind:   time.Duration(g.behind.Load()),
	}
	g.mu.Lock()
	if g.lastErr != nil {
		st.LastError = g.lastErr.Error()
	}
	g.mu.Unlock()
	return st
}

// Accepted reports whether item seq was accepted by the collector.
func (g *Generator) Accepted(seq uint64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.accepted.has(seq)
}

// AcceptedSet returns a copy of the accepted items.
func (g *Generator) AcceptedSet() bitset {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.accepted.clone()
}

func (g *Generator) worker(ctx context.Context, base uint64, start, end time.Time) {
	o := g.opts
	bs := uint64(o.BatchSize)           //nolint:gosec // positive
	nProtos := uint64(len(o.Protocols)) //nolint:gosec // positive
	for ctx.Err() == nil {
		k := g.next.Add(1) - 1
		var due time.Time
		if o.Rate > 0 {
			due = start.Add(time.Duration(float64(k-base) * float64(o.BatchSize) / float64(o.Rate) * float64(time.Second)))
			if !due.Before(end) {
				return
			}
			if wait := time.Until(due); wait > 0 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(wait):
				}
			} else {
				g.behind.Store(int64(-wait))
			}
		}
		// The run ends at end, also for a worker behind its schedule: a
		// request not yet sent is not owed (a refused one is, and send
		// retries it). A worker that kept catching up after end would send
		// until its schedule reached end: with exports that take a minute
		// each (an application retrying into a full sidecar), for hours.
		if !time.Now().Before(end) {
			return
		}
		first := o.FirstSeq + k*bs
		proto := o.Protocols[k%nProtos]
		if err := g.send(proto, first); err != nil {
			g.failed.Add(bs)
			g.setErr(err)
			continue
		}
		g.sent.Add(bs)
		g.mu.Lock()
		g.accepted.setRange(first, bs)
		g.mu.Unlock()
	}
}

func (g *Generator) setErr(err error) {
	g.mu.Lock()
	g.lastErr = err
	g.mu.Unlock()
}

// send exports one request, retrying refusals until accepted or given up.
func (g *Generator) send(proto e2e.Protocol, first uint64) error {
	o := g.opts
	n := o.BatchSize
	var export func(context.Context) error
	switch o.Signal {
	case Traces:
		td := g.w.Traces(first, n, o.Start)
		export = func(ctx context.Context) error { return g.client.SendTraces(ctx, proto, td) }
	case Metrics:
		md := g.w.Metrics(first, n, o.Start)
		export = func(ctx context.Context) error { return g.client.SendMetrics(ctx, proto, md) }
	case Logs:
		ld := g.w.Logs(first, n, o.Start)
		export = func(ctx context.Context) error { return g.client.SendLogs(ctx, proto, ld) }
	default:
		return fmt.Errorf("testbench: unknown signal %q", o.Signal)
	}
	giveUp := time.Now().Add(o.GiveUpAfter)
	for {
		g.requests.Add(1)
		rctx, cancel := context.WithTimeout(context.Background(), o.RequestTimeout)
		err := export(rctx)
		cancel()
		if err == nil {
			return nil
		}
		g.setErr(err)
		if time.Now().After(giveUp) {
			return fmt.Errorf("request of %d items from %d given up after %s: %w", n, first, o.GiveUpAfter, err)
		}
		g.retries.Add(1)
		// A refused request is owed even when the load stops: it is retried
		// until accepted or given up, never dropped.
		time.Sleep(o.RetryBackoff)
	}
}

// bitset is a growable set of item sequence numbers.
type bitset struct{ w []uint64 }

func (b *bitset) grow(i uint64) {
	if need := int(i/64) + 1; need > len(b.w) { //nolint:gosec // bounded by memory long before overflow
		nw := make([]uint64, max(need, 2*len(b.w)))
		copy(nw, b.w)
		b.w = nw
	}
}

// set adds i and reports whether it was already present.
func (b *bitset) set(i uint64) (dup bool) {
	b.grow(i)
	m := uint64(1) << (i % 64)
	dup = b.w[i/64]&m != 0
	b.w[i/64] |= m
	return dup
}

func (b *bitset) setRange(first, n uint64) {
	for i := first; i < first+n; i++ {
		b.set(i)
	}
}

func (b *bitset) has(i uint64) bool {
	if i/64 >= uint64(len(b.w)) {
		return false
	}
	return b.w[i/64]&(uint64(1)<<(i%64)) != 0
}

func (b *bitset) clone() bitset {
	return bitset{w: append([]uint64(nil), b.w...)}
}

// count returns the number of members.
func (b *bitset) count() uint64 {
	var n uint64
	for _, x := range b.w {
		for ; x != 0; x &= x - 1 {
			n++
		}
	}
	return n
}

// missing returns up to limit members of want that are not in b, and how
// many there are in all.
func (b *bitset) missing(want *bitset, limit int) ([]uint64, uint64) {
	var out []uint64
	var n uint64
	for wi, x := range want.w {
		var have uint64
		if wi < len(b.w) {
			have = b.w[wi]
		}
		for miss := x &^ have; miss != 0; miss &= miss - 1 {
			n++
			if len(out) < limit {
				bit := uint64(0)
				for y := miss; y&1 == 0; y >>= 1 {
					bit++
				}
				out = append(out, uint64(wi)*64+bit)
			}
		}
	}
	return out, n
}
