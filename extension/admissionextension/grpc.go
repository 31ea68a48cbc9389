package admissionextension // import "github.com/otelgov/otelcol-governance/extension/admissionextension"

import (
	"context"
	"fmt"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"
	"google.golang.org/protobuf/types/known/durationpb"
)

// GetGRPCServerOptions returns the tap that admits a new stream before any
// of its messages is read.
//
// grpc-go takes one tap per server: a second grpc.InTapHandle makes
// grpc.NewServer panic ("The tap handle was already set"), from the
// receiver's Start: the collector does not start. No other middleware of
// this distribution sets one; README.md says so.
func (a *admission) GetGRPCServerOptions(context.Context) ([]grpc.ServerOption, error) {
	return []grpc.ServerOption{grpc.InTapHandle(a.tap)}, nil
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

// tap runs on the transport's reader goroutine when a stream's headers
// arrive, before its message is read: it is quick and never blocks.
//
// The tap has no end hook. The admitted stream's slot is released when
// the stream's context ends, which grpc-go does on every path once the tap
// has returned: the RPC's status written (success or error), the client's
// cancellation or deadline, the connection closing, and the streams it
// ends without calling a handler, an interceptor or a stats handler's End
// (an unknown service or method, a malformed method name, a deadline
// already past when the tap returns). context.AfterFunc runs its function
// once, so each slot is released exactly once.
func (a *admission) tap(ctx context.Context, _ *tap.Info) (context.Context, error) {
	if r, ok := a.acquire(0); !ok {
		a.refused(ctx, protoGRPC, r)
		return ctx, a.grpcRefusals[r]
	}
	a.admitted(ctx, protoGRPC)
	context.AfterFunc(ctx, a.releaseStream)
	return ctx, nil
}

func (a *admission) releaseStream() { a.release(0) }
