package admissionextension // import "github.com/otelgov/otelcol-governance/extension/admissionextension"

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/extension"
	"go.opentelemetry.io/collector/extension/extensionmiddleware"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/otelgov/otelcol-governance/extension/admissionextension/internal/metadata"
)

// refusalLogInterval is the least time between two log lines about
// refusals; each line counts the refusals since the last one.
const refusalLogInterval = 10 * time.Second

// The values of the protocol and reason attributes.
type (
	protocol int
	reason   int
)

const (
	protoGRPC protocol = iota
	protoHTTP
	numProtocols
)

const (
	reasonRequests reason = iota
	reasonBytes
	reasonTooLarge
	numReasons
)

var (
	protocolNames = [numProtocols]string{protoGRPC: "grpc", protoHTTP: "http"}
	reasonNames   = [numReasons]string{
		reasonRequests: "requests_in_flight",
		reasonBytes:    "bytes_in_flight",
		reasonTooLarge: "too_large",
	}
)

// admission is the extension: one bound shared by every receiver server
// that lists it under middlewares.
type admission struct {
	cfg    *Config
	logger *zap.Logger
	tb     *metadata.TelemetryBuilder

	mu       sync.Mutex
	requests int64 // admitted and not yet released
	bytes    int64 // Content-Length of the HTTP requests among them

	// Attribute sets, built once.
	admittedAttrs [numProtocols]metric.MeasurementOption
	refusedAttrs  [numProtocols][numReasons]metric.MeasurementOption

	// Refusals since the last log line, and when it was written.
	unlogged [numProtocols][numReasons]atomic.Int64
	lastLog  atomic.Int64 // unix nanoseconds

	grpcRefusals [numReasons]error
}

var (
	_ extension.Extension            = (*admission)(nil)
	_ extensionmiddleware.GRPCServer = (*admission)(nil)
	_ extensionmiddleware.HTTPServer = (*admission)(nil)
)

func newAdmission(set extension.Settings, cfg *Config) (*admission, error) {
	a := &admission{cfg: cfg, logger: set.Logger}
	for p := range numProtocols {
		pa := attribute.String("protocol", protocolNames[p])
		a.admittedAttrs[p] = metric.WithAttributeSet(attribute.NewSet(pa))
		for r := range numReasons {
			a.refusedAttrs[p][r] = metric.WithAttributeSet(attribute.NewSet(pa, attribute.String("reason", reasonNames[r])))
		}
	}
	a.grpcRefusals = newGRPCRefusals(cfg)
	tb, err := metadata.NewTelemetryBuilder(set.TelemetrySettings)
	if err != nil {
		return nil, fmt.Errorf("admission telemetry: %w", err)
	}
	a.tb = tb
	if err := tb.RegisterExtensionAdmissionRequestsInFlightCallback(func(_ context.Context, o metric.Int64Observer) error {
		r, _ := a.inFlight()
		o.Observe(r)
		return nil
	}); err != nil {
		tb.Shutdown()
		return nil, fmt.Errorf("admission telemetry: %w", err)
	}
	if err := tb.RegisterExtensionAdmissionBytesInFlightCallback(func(_ context.Context, o metric.Int64Observer) error {
		_, b := a.inFlight()
		o.Observe(b)
		return nil
	}); err != nil {
		tb.Shutdown()
		return nil, fmt.Errorf("admission telemetry: %w", err)
	}
	return a, nil
}

// Start logs the bounds in force.
func (a *admission) Start(context.Context, component.Host) error {
	a.logger.Info("admission bounds in force",
		zap.Int("max_requests_in_flight", a.cfg.MaxRequestsInFlight),
		zap.Int64("max_bytes_in_flight", a.cfg.MaxBytesInFlight),
		zap.Duration("retry_after", a.cfg.RetryAfter))
	return nil
}

// Shutdown unregisters the gauges' callbacks; it is safe without Start.
func (a *admission) Shutdown(context.Context) error {
	a.flushRefusalLog()
	a.tb.Shutdown()
	return nil
}

// acquire admits a request of n bytes (0 when its size is unknown) if the
// bounds allow it. Every successful acquire must be matched by exactly one
// release(n).
func (a *admission) acquire(n int64) (reason, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.requests >= int64(a.cfg.MaxRequestsInFlight) {
		return reasonRequests, false
	}
	if n > 0 && a.bytes+n > a.cfg.MaxBytesInFlight {
		return reasonBytes, false
	}
	a.requests++
	a.bytes += n
	return 0, true
}

func (a *admission) release(n int64) {
	a.mu.Lock()
	a.requests--
	a.bytes -= n
	a.mu.Unlock()
}

func (a *admission) inFlight() (requests, bytes int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.requests, a.bytes
}

func (a *admission) admitted(ctx context.Context, p protocol) {
	a.tb.ExtensionAdmissionRequestsAdmitted.Add(ctx, 1, a.admittedAttrs[p])
}

// refused counts a refusal and logs the refusals at most once per
// refusalLogInterval.
func (a *admission) refused(ctx context.Context, p protocol, r reason) {
	a.tb.ExtensionAdmissionRequestsRefused.Add(ctx, 1, a.refusedAttrs[p][r])
	a.unlogged[p][r].Add(1)
	now := time.Now().UnixNano()
	last := a.lastLog.Load()
	if now-last < int64(refusalLogInterval) || !a.lastLog.CompareAndSwap(last, now) {
		return
	}
	a.logRefusals("admission refused requests before reading them; the senders retry (see otelcol_extension_admission_requests_refused)")
}

// flushRefusalLog logs the refusals not yet logged, if any.
func (a *admission) flushRefusalLog() {
	a.logRefusals("admission refused requests before reading them since the last report")
}

func (a *admission) logRefusals(msg string) {
	fields := make([]zap.Field, 0, int(numProtocols)*int(numReasons)+3)
	var total int64
	for p := range numProtocols {
		for r := range numReasons {
			if n := a.unlogged[p][r].Swap(0); n > 0 {
				total += n
				fields = append(fields, zap.Int64(protocolNames[p]+"."+reasonNames[r], n))
			}
		}
	}
	if total == 0 {
		return
	}
	req, b := a.inFlight()
	fields = append(fields,
		zap.Int64("requests_in_flight", req), zap.Int("max_requests_in_flight", a.cfg.MaxRequestsInFlight),
		zap.Int64("bytes_in_flight", b))
	a.logger.Warn(msg, fields...)
}
