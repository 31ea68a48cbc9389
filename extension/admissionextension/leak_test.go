package admissionextension

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/emptypb"
)

// modeSink answers by the request's mode resource attribute: "ok", "error"
// (the pipeline fails), or "hold" (until the request's context ends).
func modeSink(ctx context.Context, td ptrace.Traces) error {
	mode, _ := td.ResourceSpans().At(0).Resource().Attributes().Get("mode")
	switch mode.Str() {
	case "error":
		return errors.New("the pipeline failed")
	case "hold":
		<-ctx.Done()
		return ctx.Err()
	default:
		return nil
	}
}

func modeRequest(mode string) ptraceotlp.ExportRequest {
	td := genTraces(10, 3)
	td.ResourceSpans().At(0).Resource().Attributes().PutStr("mode", mode)
	return ptraceotlp.NewExportRequestFromTraces(td)
}

// TestSlotsNeverLeak sends many concurrent requests on both protocols that
// end every way a request can end (answered, failed in the pipeline,
// cancelled by the client, past its deadline, on a connection closed under
// it, to an unknown method or path, with a body cut short), with a bound
// far below the concurrency: afterwards every slot is back, none twice
// (requests and bytes in flight exactly 0), and every request was counted
// once, admitted or refused.
func TestSlotsNeverLeak(t *testing.T) {
	next, err := consumer.NewTraces(modeSink)
	require.NoError(t, err)
	f := startFixture(t, &Config{MaxRequestsInFlight: 4, MaxBytesInFlight: 64 << 10, RetryAfter: time.Second}, next)

	conn, err := grpc.NewClient(f.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	client := ptraceotlp.NewGRPCClient(conn)
	httpClient := &http.Client{Transport: &http.Transport{}}
	defer httpClient.CloseIdleConnections()

	// cancelWhenHeld cancels once the bound's worth of requests has been
	// held since it was called (seen by it or by another canceller), so the
	// cancelled requests were admitted first; or after 5 s.
	var peaks atomic.Int64
	cancelWhenHeld := func(cancel func()) {
		start := peaks.Load()
		go func() {
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
				if r, _ := f.ext.inFlight(); r >= int64(f.ext.cfg.MaxRequestsInFlight) {
					peaks.Add(1)
					break
				}
				if peaks.Load() > start {
					break
				}
			}
			cancel()
		}()
	}
	grpcCalls := map[string]func() error{
		"ok":    func() error { _, err := client.Export(context.Background(), modeRequest("ok")); return err },
		"error": func() error { _, err := client.Export(context.Background(), modeRequest("error")); return err },
		"cancel": func() error {
			ctx, cancel := context.WithCancel(context.Background())
			cancelWhenHeld(cancel)
			_, err := client.Export(ctx, modeRequest("hold"))
			return err
		},
		"deadline": func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			_, err := client.Export(ctx, modeRequest("hold"))
			return err
		},
		"unknown_method": func() error {
			return conn.Invoke(context.Background(), "/opentelemetry.proto.collector.trace.v1.TraceService/Nope", &emptypb.Empty{}, &emptypb.Empty{})
		},
		"unknown_service": func() error {
			return conn.Invoke(context.Background(), "/nope.Nope/Export", &emptypb.Empty{}, &emptypb.Empty{})
		},
		"connection_closed": func() error {
			own, err := grpc.NewClient(f.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				return err
			}
			cancelWhenHeld(func() { _ = own.Close() })
			_, err = ptraceotlp.NewGRPCClient(own).Export(context.Background(), modeRequest("hold"))
			return err
		},
	}
	post := func(ctx context.Context, path string, body io.Reader, n int64) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+f.httpAddr+path, body)
		if err != nil {
			return err
		}
		req.ContentLength = n
		req.Header.Set("Content-Type", "application/x-protobuf")
		resp, err := httpClient.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.Body.Close()
	}
	proto := func(mode string) []byte {
		b, err := modeRequest(mode).MarshalProto()
		require.NoError(t, err)
		return b
	}
	okBody, errBody, holdBody := proto("ok"), proto("error"), proto("hold")
	httpCalls := map[string]func() error{
		"ok": func() error {
			return post(context.Background(), "/v1/traces", bytes.NewReader(okBody), int64(len(okBody)))
		},
		"error": func() error {
			return post(context.Background(), "/v1/traces", bytes.NewReader(errBody), int64(len(errBody)))
		},
		"cancel": func() error {
			ctx, cancel := context.WithCancel(context.Background())
			cancelWhenHeld(cancel)
			return post(ctx, "/v1/traces", bytes.NewReader(holdBody), int64(len(holdBody)))
		},
		"unknown_path": func() error { return post(context.Background(), "/nope", bytes.NewReader(okBody), int64(len(okBody))) },
		"chunked":      func() error { return post(context.Background(), "/v1/traces", bytes.NewReader(okBody), -1) },
		"body_cut_short": func() error {
			pr, pw := io.Pipe()
			go func() {
				_, _ = pw.Write(okBody[:len(okBody)/2])
				time.Sleep(20 * time.Millisecond)
				pw.CloseWithError(errors.New("sender died"))
			}()
			return post(context.Background(), "/v1/traces", pr, int64(len(okBody)))
		},
	}

	settled := func(t *testing.T) {
		t.Helper()
		waitFor(t, "every slot released", func() bool { r, b := f.ext.inFlight(); return r == 0 && b == 0 })
		time.Sleep(50 * time.Millisecond) // a double release would show now as a negative count
		r, b := f.ext.inFlight()
		assert.Equal(t, int64(0), r, "requests in flight")
		assert.Equal(t, int64(0), b, "bytes in flight")
	}
	// Warm the gRPC connection, so that the calls below reach the server
	// before their client-side cancellations fire.
	require.NoError(t, grpcCalls["ok"]())
	settled(t)

	// Each ending on its own, as many at once as the bound: all admitted,
	// all released.
	protocols := map[string]map[string]func() error{"grpc": grpcCalls, "http": httpCalls}
	for p, calls := range protocols {
		for name, call := range calls {
			t.Run(p+"/"+name, func(t *testing.T) {
				before := f.sum(t, "otelcol_extension_admission_requests_admitted", p)
				var wg sync.WaitGroup
				for range f.ext.cfg.MaxRequestsInFlight {
					wg.Go(func() { _ = call() }) //nolint:errcheck // the ending is the point, not the error
				}
				wg.Wait()
				waitFor(t, "every call admitted", func() bool {
					return f.sum(t, "otelcol_extension_admission_requests_admitted", p)-before == int64(f.ext.cfg.MaxRequestsInFlight)
				})
				settled(t)
			})
		}
	}

	// All of them at once, eight times over, far above the bound.
	t.Run("storm", func(t *testing.T) {
		var wg sync.WaitGroup
		for range 8 {
			for _, calls := range protocols {
				for _, call := range calls {
					wg.Go(func() { _ = call() }) //nolint:errcheck // the ending is the point, not the error
				}
			}
		}
		wg.Wait()
		settled(t)
		assert.Positive(t, f.sum(t, "otelcol_extension_admission_requests_refused", "grpc", "requests_in_flight")+
			f.sum(t, "otelcol_extension_admission_requests_refused", "http", "requests_in_flight"), "the bound was reached")
	})
}
