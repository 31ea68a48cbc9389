package admissionextension // import "github.com/otelgov/otelcol-governance/extension/admissionextension"

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"go.opentelemetry.io/collector/extension/extensionmiddleware"
)

// GetHTTPHandler returns the wrapper that admits a request before the
// handler it wraps reads the body.
func (a *admission) GetHTTPHandler(context.Context) (extensionmiddleware.WrapHTTPHandlerFunc, error) {
	refusals := newHTTPRefusals(a.cfg)
	return func(_ context.Context, next http.Handler) (http.Handler, error) {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n := max(r.ContentLength, 0) // -1: unknown (chunked, or decompressed by confighttp)
			if n > a.cfg.MaxBytesInFlight {
				a.refused(r.Context(), protoHTTP, reasonTooLarge)
				refusals[reasonTooLarge].write(w, r)
				return
			}
			if reason, ok := a.acquire(n); !ok {
				a.refused(r.Context(), protoHTTP, reason)
				refusals[reason].write(w, r)
				return
			}
			defer a.release(n)
			a.admitted(r.Context(), protoHTTP)
			next.ServeHTTP(w, r)
		}), nil
	}, nil
}

// httpRefusal is the answer to a refused request, built once: a status
// code, a Retry-After for the retryable ones, and the body the OTLP/HTTP
// specification asks for (a google.rpc.Status in the request's encoding).
type httpRefusal struct {
	code       int
	retryAfter string
	protoBody  []byte
	jsonBody   []byte
}

func newHTTPRefusals(cfg *Config) [numReasons]httpRefusal {
	// Retry-After takes whole seconds: round the hint up, at least 1.
	secs := strconv.FormatInt(int64((cfg.RetryAfter+time.Second-1)/time.Second), 10)
	var out [numReasons]httpRefusal
	for r := range numReasons {
		ref := httpRefusal{code: http.StatusServiceUnavailable, retryAfter: secs}
		msg := fmt.Sprintf("admission: %d requests in flight, the bound (max_requests_in_flight); retry later", cfg.MaxRequestsInFlight)
		grpcCode := codes.Unavailable
		switch r {
		case reasonRequests:
		case reasonBytes:
			msg = fmt.Sprintf("admission: the HTTP bodies in flight would exceed max_bytes_in_flight (%d bytes); retry later", cfg.MaxBytesInFlight)
		case reasonTooLarge:
			// Not retryable: the request alone is over the bound.
			ref = httpRefusal{code: http.StatusRequestEntityTooLarge}
			msg = fmt.Sprintf("admission: the body is larger than max_bytes_in_flight (%d bytes)", cfg.MaxBytesInFlight)
			grpcCode = codes.InvalidArgument
		case numReasons:
		}
		st := &spb.Status{Code: int32(grpcCode), Message: msg} //nolint:gosec // codes fit in int32
		ref.protoBody, _ = proto.Marshal(st)
		ref.jsonBody, _ = protojson.Marshal(st)
		out[r] = ref
	}
	return out
}

func (ref *httpRefusal) write(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	body := ref.protoBody
	if r.Header.Get("Content-Type") == "application/json" {
		h.Set("Content-Type", "application/json")
		body = ref.jsonBody
	} else {
		h.Set("Content-Type", "application/x-protobuf")
	}
	if ref.retryAfter != "" {
		h.Set("Retry-After", ref.retryAfter)
	}
	// The body is never read: after the handler, net/http discards a small
	// unread remainder into a fixed buffer or closes the connection, so the
	// refused bytes are never held.
	w.WriteHeader(ref.code)
	_, _ = w.Write(body)
}
