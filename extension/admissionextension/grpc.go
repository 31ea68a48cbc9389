package admissionextension // import "github.com/otelgov/otelcol-governance/extension/admissionextension"

import (
	"context"
	"fmt"
	"sync/atomic"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"
	"google.golang.org/protobuf/types/known/durationpb"
)

// GetGRPCServerOptions returns the tap that admits a new stream before any
// of its messages is read, and the stats handler that frees its slot when
// the RPC ends.
//
// grpc-go takes one tap per server: a second grpc.InTapHandle makes
// grpc.NewServer panic ("The tap handle was already set"). No other
// middleware of this distribution sets one; README.md says so.
func (a *admission) GetGRPCServerOptions(context.Context) ([]grpc.ServerOption, error) {
	return []grpc.ServerOption{
		grpc.InTapHandle(a.tap),
		grpc.StatsHandler(slotReleaser{}),
	}, nil
}

// newGRPCRefusals builds, once, the status a refused stream gets for each
// reason: UNAVAILABLE, which every OTLP exporter retries (a plain error
// from a tap would reach the client as PERMISSION_DENIED, which none
// does), with RetryInfo carrying retry_after, which the collector's
// exporters and the SDKs honour as the delay before the next attempt.
func newGRPCRefusals(cfg *Config) [numReasons]error {
	var out [numReasons]error
	for r := range numReasons {
		msg := fmt.Sprintf("admission: %d requests in flight, the bound (max_requests_in_flight); retry later", cfg.MaxRequestsInFlight)
		if r != reasonRequests {
			msg = "admission: refused (" + reasonNames[r] + "); retry later"
		}
		st := status.New(codes.Unavailable, msg)
		if withInfo, err := st.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(cfg.RetryAfter)}); err == nil {
			st = withInfo
		}
		out[r] = st.Err()
	}
	return out
}

// slotKey keys the admitted stream's slot in its context.
type slotKey struct{}

// slot is one admitted gRPC stream. It is released exactly once, by
// whichever comes first: the stats handler's End, or the stream's context
// ending. grpc-go calls no stats handler for some streams it admitted
// through the tap (an unknown service or method, a malformed method name,
// a deadline already past when the tap returns), but it always cancels the
// stream's context when the stream is done.
type slot struct {
	a        *admission
	released atomic.Bool
	stop     func() bool // stops the context.AfterFunc
}

func (s *slot) release() {
	if s.released.CompareAndSwap(false, true) {
		s.a.release(0)
	}
}

// tap runs on the transport's reader goroutine when a stream's headers
// arrive, before its message is read: it must be quick and must not block.
func (a *admission) tap(ctx context.Context, _ *tap.Info) (context.Context, error) {
	if r, ok := a.acquire(0); !ok {
		a.refused(ctx, protoGRPC, r)
		return ctx, a.grpcRefusals[r]
	}
	a.admitted(ctx, protoGRPC)
	s := &slot{a: a}
	ctx = context.WithValue(ctx, slotKey{}, s)
	s.stop = context.AfterFunc(ctx, s.release)
	return ctx, nil
}

// slotReleaser is the stats handler that releases a stream's slot when
// its RPC ends, on the RPC's own goroutine.
type slotReleaser struct{}

var _ stats.Handler = slotReleaser{}

func (slotReleaser) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }

func (slotReleaser) HandleRPC(ctx context.Context, rs stats.RPCStats) {
	if _, ok := rs.(*stats.End); !ok {
		return
	}
	if s, ok := ctx.Value(slotKey{}).(*slot); ok {
		s.stop()
		s.release()
	}
}

func (slotReleaser) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }

func (slotReleaser) HandleConn(context.Context, stats.ConnStats) {}
