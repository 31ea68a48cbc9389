package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	_ "google.golang.org/grpc/encoding/gzip" // accept gzip-compressed gRPC requests
	"google.golang.org/grpc/status"

	"github.com/otelgov/otelcol-governance/checker"
	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// listenOptions mirror the otlp receiver's protocols.grpc.endpoint and
// protocols.http.endpoint.
type listenOptions struct {
	enabled      bool
	grpcEndpoint string
	httpEndpoint string
	forward      string
	// inactivity ends the run when no request arrived for this long (0:
	// never), as Weaver's --inactivity-timeout.
	inactivity time.Duration
}

// bind binds the listener's flags; what is "the report" (check) or "the
// registry" (registry infer) that /stop produces, and the default of
// --inactivity-timeout.
func (l *listenOptions) bind(fs *pflag.FlagSet, what string, inactivity time.Duration) {
	fs.BoolVar(&l.enabled, "listen", false, "serve OTLP gRPC and HTTP instead of reading files; POST /stop (on the HTTP endpoint), SIGTERM or --inactivity-timeout writes "+what+" and exits")
	fs.StringVar(&l.grpcEndpoint, "grpc-endpoint", "127.0.0.1:4317", "OTLP gRPC listen address with --listen (\"\" disables gRPC)")
	fs.StringVar(&l.httpEndpoint, "http-endpoint", "127.0.0.1:4318", "OTLP/HTTP listen address with --listen, also serving POST /stop and GET /report (\"\" disables HTTP)")
	fs.DurationVar(&l.inactivity, "inactivity-timeout", inactivity, "with --listen: stop when no OTLP request arrived for this long, as POST /stop does (0: never; Weaver's registry infer stops after 60s, its live-check after 10s)")
}

// bindForward binds --forward (check only).
func (l *listenOptions) bindForward(fs *pflag.FlagSet) {
	fs.StringVar(&l.forward, "forward", "", "with --listen: pass the received data on to this OTLP endpoint (http(s)://host:port for OTLP/HTTP, host:port for gRPC)")
}

// listener is the state of check --listen and registry infer --listen: an
// OTLP gRPC and HTTP receiver that feeds a checkSink.
type listener struct {
	s         *checkSetup // check only
	format    string
	maxRecord int
	fwd       forwarder
	rewrite   *engine.Engine // nil: forward unchanged
	ix        *registry.Index

	allowEmpty bool // --allow-empty: pass a run that received no item

	// report answers GET /report and POST /stop.
	report func(w http.ResponseWriter)
	// last is the time of the last request (UnixNano), for
	// --inactivity-timeout.
	last atomic.Int64

	// mu serializes the requests' feeding of sink (the checker and, with
	// --format weaver, the Weaver report writer ww, which is not safe for
	// concurrent use) and ww's snapshots.
	mu   sync.Mutex
	sink checkSink
	ww   *checker.WeaverWriter // nil unless --format weaver or weaver-jsonl

	stopOnce sync.Once
	stop     chan struct{}

	// outcome, when set (registry infer), makes POST /stop answer with
	// the run's outcome: the handler waits for it. serve then stops the
	// HTTP server without waiting for that handler; httpDone closes when
	// it has stopped.
	outcome  chan listenOutcome
	httpDone chan struct{}
	// closed (under mu) is set once the servers stop: a request still in
	// flight is refused (503, UNAVAILABLE), never fed into a finished run.
	closed bool
}

// listenOutcome is what POST /stop answers once the run has finished: the
// exit code and what was printed (or the error).
type listenOutcome struct {
	code int
	body string
}

// errStopped refuses a request that arrives while the listener stops.
var errStopped = errors.New("otelgov is stopping: the run has ended")

func runListen(cmd *cobra.Command, o *checkOptions) error {
	s, err := o.setup(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	l := &listener{s: s, format: o.rep.format, maxRecord: o.maxRecord, ix: s.ix, stop: make(chan struct{})}
	l.allowEmpty = o.allowEmpty
	l.report = l.checkReport
	// With --format weaver, streaming samples are written to stdout as
	// they arrive, as Weaver does; the statistics (or, with --no-stream,
	// the whole report) at the end.
	l.sink, l.ww = o.sink(cmd.OutOrStdout(), s)
	if o.listen.forward != "" {
		l.fwd, err = newForwarder(o.listen.forward)
		if err != nil {
			return badInput(fmt.Errorf("--forward: %w", err))
		}
		defer func() { _ = l.fwd.close() }()
		if s.engine.Mutates() {
			l.rewrite = engine.New(s.engine)
		}
	} else if s.engine.Mutates() {
		return badInput(errors.New("--deprecated, --unknown, --type-mismatch and --enum-violation other than keep/off only apply with --forward"))
	}
	by, err := l.serve(cmd, &o.listen)
	if err != nil {
		return err
	}
	if res := s.checker.Result(); l.nothingReceived(&res) {
		return badInput(fmt.Errorf("nothing received by %s: %s", by, nothingReceivedText(&res)))
	}
	reportPolicyErrors(cmd.ErrOrStderr(), s.advisor)
	l.mu.Lock() // the servers are stopped; a late handler cannot write now
	defer l.mu.Unlock()
	return o.finish(cmd.OutOrStdout(), s, l.ww)
}

// serve runs the OTLP servers until POST /stop, SIGTERM or SIGINT, or
// --inactivity-timeout, stops them, and says which ended the run.
func (l *listener) serve(cmd *cobra.Command, lo *listenOptions) (string, error) {
	if lo.grpcEndpoint == "" && lo.httpEndpoint == "" {
		return "", badInput(errors.New("--listen needs --grpc-endpoint or --http-endpoint"))
	}
	if lo.inactivity < 0 {
		return "", badInput(errors.New("--inactivity-timeout must not be negative"))
	}
	ctx, cancel := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	stderr := cmd.ErrOrStderr()
	l.last.Store(time.Now().UnixNano())

	var gs *grpc.Server
	if lo.grpcEndpoint != "" {
		ln, err := net.Listen("tcp", lo.grpcEndpoint)
		if err != nil {
			return "", badInput(fmt.Errorf("--grpc-endpoint: %w", err))
		}
		gs = grpc.NewServer(grpc.MaxRecvMsgSize(l.maxRecord))
		ptraceotlp.RegisterGRPCServer(gs, &traceServer{l: l})
		pmetricotlp.RegisterGRPCServer(gs, &metricServer{l: l})
		plogotlp.RegisterGRPCServer(gs, &logServer{l: l})
		go func() { _ = gs.Serve(ln) }()
		fmt.Fprintf(stderr, "otelgov: OTLP gRPC on %s\n", ln.Addr())
	}
	var hs *http.Server
	if lo.httpEndpoint != "" {
		ln, err := net.Listen("tcp", lo.httpEndpoint)
		if err != nil {
			if gs != nil {
				gs.Stop()
			}
			return "", badInput(fmt.Errorf("--http-endpoint: %w", err))
		}
		hs = &http.Server{Handler: l.mux(), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = hs.Serve(ln) }()
		fmt.Fprintf(stderr, "otelgov: OTLP/HTTP on %s (POST /stop to finish)\n", ln.Addr())
	}

	var idle <-chan time.Time
	if lo.inactivity > 0 {
		t := time.NewTicker(min(lo.inactivity/4+time.Millisecond, time.Second))
		defer t.Stop()
		idle = t.C
	}
	by := "POST /stop"
wait:
	for {
		select {
		case <-ctx.Done():
			by = "SIGTERM or SIGINT"
			break wait
		case <-l.stop:
			break wait
		case now := <-idle:
			if now.Sub(time.Unix(0, l.last.Load())) >= lo.inactivity {
				by = fmt.Sprintf("--inactivity-timeout (no request for %s)", lo.inactivity)
				fmt.Fprintf(stderr, "otelgov: stopping: no request for %s\n", lo.inactivity)
				break wait
			}
		}
	}
	if gs != nil {
		gs.GracefulStop()
	}
	switch {
	case hs != nil && l.outcome != nil:
		// POST /stop is waiting for the outcome: shut down without
		// waiting for it.
		l.httpDone = make(chan struct{})
		go func() {
			defer close(l.httpDone)
			sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer scancel()
			_ = hs.Shutdown(sctx)
		}()
	case hs != nil:
		sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = hs.Shutdown(sctx)
		scancel()
	}
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	return by, nil
}

// deliver hands the run's outcome to a waiting POST /stop and waits (a
// bounded time) for the HTTP server to stop.
func (l *listener) deliver(code int, body string) {
	if l.outcome == nil {
		return
	}
	l.outcome <- listenOutcome{code: code, body: body}
	if l.httpDone != nil {
		select {
		case <-l.httpDone:
		case <-time.After(15 * time.Second):
		}
	}
}

// feed hands one request to the sink; errStopped once the run has ended.
func (l *listener) feed(fn func(checkSink)) error {
	l.last.Store(time.Now().UnixNano())
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return errStopped
	}
	fn(l.sink)
	return nil
}

// nothingReceived reports whether the run fails closed: no span, data
// point, log record or metric (one without data points included) arrived,
// and --allow-empty is not set.
func (l *listener) nothingReceived(res *checker.Result) bool {
	return !l.allowEmpty && res.Items.Checked() == 0
}

func nothingReceivedText(res *checker.Result) string {
	return fmt.Sprintf("no span, metric or log record arrived (%d request(s)): a service that sent nothing, or to another endpoint, fails the gate (--allow-empty passes it)", res.Items.Requests)
}

func (l *listener) mux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", l.handle(vocab.KindTraces))
	mux.HandleFunc("POST /v1/metrics", l.handle(vocab.KindMetrics))
	mux.HandleFunc("POST /v1/logs", l.handle(vocab.KindLogs))
	mux.HandleFunc("GET /report", l.serveReport(false))
	mux.HandleFunc("POST /stop", l.serveReport(true))
	return mux
}

// serveReport answers with l.report; with stop, the listener then
// finishes.
func (l *listener) serveReport(stop bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if stop && l.outcome != nil {
			l.stopOnce.Do(func() { close(l.stop) })
			select {
			case out := <-l.outcome:
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				w.Header().Set("X-Otelgov-Exit", fmt.Sprint(out.code))
				if out.code != exitClean {
					w.WriteHeader(http.StatusUnprocessableEntity)
				}
				_, _ = io.WriteString(w, out.body)
			case <-r.Context().Done():
			}
			return
		}
		l.report(w)
		if stop {
			l.stopOnce.Do(func() { close(l.stop) })
		}
	}
}

// checkReport is check's report in --format (with --format weaver, the
// statistics so far, or with --no-stream the report so far: the samples
// themselves stream to stdout). The X-Otelgov-Exit header is the exit code
// otelgov will return; when nothing has been received (2, unless
// --allow-empty), the body says so instead of a report.
func (l *listener) checkReport(w http.ResponseWriter) {
	res := l.s.checker.Result()
	if l.nothingReceived(&res) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Otelgov-Exit", fmt.Sprint(exitBad))
		_, _ = fmt.Fprintf(w, "otelgov: nothing received: %s\n", nothingReceivedText(&res))
		return
	}
	var buf bytes.Buffer
	var err error
	fails := false
	if l.ww != nil {
		l.mu.Lock()
		err, fails = l.ww.Snapshot(&buf), l.ww.Fails(l.s.failOn)
		l.mu.Unlock()
	} else {
		err, fails = checker.Render(&buf, l.format, &res, l.s.failOn), res.Fails(l.s.failOn)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	code := exitClean
	if fails {
		code = exitFindings
	}
	w.Header().Set("Content-Type", contentType(l.format))
	w.Header().Set("X-Otelgov-Exit", fmt.Sprint(code))
	_, _ = w.Write(buf.Bytes())
}

func contentType(format string) string {
	switch format {
	case checker.FormatJSON, checker.FormatWeaver:
		return "application/json"
	case checker.FormatWeaverLines:
		return "application/x-ndjson"
	case checker.FormatJUnit:
		return "application/xml"
	case checker.FormatMarkdown:
		return "text/markdown; charset=utf-8"
	}
	return "text/plain; charset=utf-8"
}

// handle is one OTLP/HTTP endpoint: protobuf or JSON, optionally gzip.
func (l *listener) handle(sig vocab.Kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		switch strings.ToLower(r.Header.Get("Content-Encoding")) {
		case "", "identity":
		case "gzip":
			gz, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, "invalid gzip body: "+err.Error(), http.StatusBadRequest)
				return
			}
			defer gz.Close()
			body = gz
		default:
			http.Error(w, "unsupported Content-Encoding", http.StatusUnsupportedMediaType)
			return
		}
		b, err := io.ReadAll(io.LimitReader(body, int64(l.maxRecord)+1))
		if err != nil {
			http.Error(w, "reading the body: "+err.Error(), http.StatusBadRequest)
			return
		}
		if len(b) > l.maxRecord {
			http.Error(w, "request larger than --max-record-size", http.StatusRequestEntityTooLarge)
			return
		}
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		asJSON := mt == "application/json"
		if !asJSON && mt != "application/x-protobuf" {
			http.Error(w, "Content-Type must be application/x-protobuf or application/json", http.StatusUnsupportedMediaType)
			return
		}
		var resp interface {
			MarshalProto() ([]byte, error)
			MarshalJSON() ([]byte, error)
		}
		switch sig {
		case vocab.KindTraces:
			req := ptraceotlp.NewExportRequest()
			if err = unmarshal(req.UnmarshalJSON, req.UnmarshalProto, asJSON, b); err == nil {
				err = l.traces(r.Context(), req.Traces(), "otlp/http")
			}
			resp = ptraceotlp.NewExportResponse()
		case vocab.KindMetrics:
			req := pmetricotlp.NewExportRequest()
			if err = unmarshal(req.UnmarshalJSON, req.UnmarshalProto, asJSON, b); err == nil {
				err = l.metrics(r.Context(), req.Metrics(), "otlp/http")
			}
			resp = pmetricotlp.NewExportResponse()
		case vocab.KindLogs:
			req := plogotlp.NewExportRequest()
			if err = unmarshal(req.UnmarshalJSON, req.UnmarshalProto, asJSON, b); err == nil {
				err = l.logs(r.Context(), req.Logs(), "otlp/http")
			}
			resp = plogotlp.NewExportResponse()
		case vocab.KindUnknown, vocab.NumKinds:
			http.Error(w, "unknown signal", http.StatusNotFound)
			return
		}
		if err != nil {
			code := http.StatusBadRequest
			switch {
			case errors.Is(err, errForward):
				code = http.StatusBadGateway
			case errors.Is(err, errStopped):
				code = http.StatusServiceUnavailable
			}
			http.Error(w, err.Error(), code)
			return
		}
		var out []byte
		if asJSON {
			out, err = resp.MarshalJSON()
			w.Header().Set("Content-Type", "application/json")
		} else {
			out, err = resp.MarshalProto()
			w.Header().Set("Content-Type", "application/x-protobuf")
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = w.Write(out)
	}
}

func unmarshal(fromJSON, fromProto func([]byte) error, asJSON bool, b []byte) error {
	if asJSON {
		return fromJSON(b)
	}
	return fromProto(b)
}

var errForward = errors.New("forwarding failed")

// traces checks, optionally rewrites, and forwards one request.
func (l *listener) traces(ctx context.Context, td ptrace.Traces, input string) error {
	if err := l.feed(func(c checkSink) { c.Traces(td, input) }); err != nil {
		return err
	}
	if l.fwd == nil {
		return nil
	}
	if l.rewrite != nil {
		w := l.rewrite.Walker(l.ix, false)
		w.Traces(td)
		l.rewrite.Release(w)
	}
	if err := l.fwd.traces(ctx, td); err != nil {
		return fmt.Errorf("%w: %w", errForward, err)
	}
	return nil
}

func (l *listener) metrics(ctx context.Context, md pmetric.Metrics, input string) error {
	if err := l.feed(func(c checkSink) { c.Metrics(md, input) }); err != nil {
		return err
	}
	if l.fwd == nil {
		return nil
	}
	if l.rewrite != nil {
		w := l.rewrite.Walker(l.ix, false)
		w.Metrics(md)
		l.rewrite.Release(w)
	}
	if err := l.fwd.metrics(ctx, md); err != nil {
		return fmt.Errorf("%w: %w", errForward, err)
	}
	return nil
}

func (l *listener) logs(ctx context.Context, ld plog.Logs, input string) error {
	if err := l.feed(func(c checkSink) { c.Logs(ld, input) }); err != nil {
		return err
	}
	if l.fwd == nil {
		return nil
	}
	if l.rewrite != nil {
		w := l.rewrite.Walker(l.ix, false)
		w.Logs(ld)
		l.rewrite.Release(w)
	}
	if err := l.fwd.logs(ctx, ld); err != nil {
		return fmt.Errorf("%w: %w", errForward, err)
	}
	return nil
}

func grpcErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, errForward) || errors.Is(err, errStopped) {
		return status.Error(codes.Unavailable, err.Error())
	}
	return status.Error(codes.InvalidArgument, err.Error())
}

type traceServer struct {
	ptraceotlp.UnimplementedGRPCServer
	l *listener
}

func (s *traceServer) Export(ctx context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	return ptraceotlp.NewExportResponse(), grpcErr(s.l.traces(ctx, req.Traces(), "otlp/grpc"))
}

type metricServer struct {
	pmetricotlp.UnimplementedGRPCServer
	l *listener
}

func (s *metricServer) Export(ctx context.Context, req pmetricotlp.ExportRequest) (pmetricotlp.ExportResponse, error) {
	return pmetricotlp.NewExportResponse(), grpcErr(s.l.metrics(ctx, req.Metrics(), "otlp/grpc"))
}

type logServer struct {
	plogotlp.UnimplementedGRPCServer
	l *listener
}

func (s *logServer) Export(ctx context.Context, req plogotlp.ExportRequest) (plogotlp.ExportResponse, error) {
	return plogotlp.NewExportResponse(), grpcErr(s.l.logs(ctx, req.Logs(), "otlp/grpc"))
}
