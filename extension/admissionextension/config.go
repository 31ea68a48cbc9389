package admissionextension // import "github.com/otelgov/otelcol-governance/extension/admissionextension"

import (
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/collector/component"
)

// errNotPositive is returned by Validate for a bound or hint of 0 or less;
// tests match it with errors.Is.
var errNotPositive = errors.New("must be positive")

// Config is the configuration of the admission extension.
type Config struct {
	// MaxRequestsInFlight bounds the OTLP requests admitted and not yet
	// answered, across every connection and both protocols of every
	// receiver that lists this extension under middlewares. A request over
	// the bound is refused before its body is read. Default: 6 (the gateway
	// CR's sizing: README.md). 0 or less is invalid.
	MaxRequestsInFlight int `mapstructure:"max_requests_in_flight"`

	// MaxBytesInFlight bounds the sum of the Content-Length of the HTTP
	// requests in flight. gRPC streams and HTTP bodies without a
	// Content-Length (chunked, or compressed: confighttp removes the header
	// when it decompresses, before middlewares run) are bounded by
	// MaxRequestsInFlight only. An HTTP request whose Content-Length alone
	// exceeds it is refused with 413 (not retryable); keep it at or above
	// the receiver's max_request_body_size. Default: 25165824 (24 MiB).
	// 0 or less is invalid.
	MaxBytesInFlight int64 `mapstructure:"max_bytes_in_flight"`

	// RetryAfter is the delay a refused client is asked to wait: gRPC's
	// RetryInfo.retry_delay on the UNAVAILABLE status, and HTTP's
	// Retry-After header in whole seconds (rounded up). Default: 1s. 0 or
	// less is invalid.
	RetryAfter time.Duration `mapstructure:"retry_after"`
}

var _ component.Config = (*Config)(nil)

// Validate checks that every bound and the hint are positive.
func (c *Config) Validate() error {
	var errs []error
	if c.MaxRequestsInFlight <= 0 {
		errs = append(errs, fmt.Errorf("max_requests_in_flight: %w, got %d", errNotPositive, c.MaxRequestsInFlight))
	}
	if c.MaxBytesInFlight <= 0 {
		errs = append(errs, fmt.Errorf("max_bytes_in_flight: %w, got %d", errNotPositive, c.MaxBytesInFlight))
	}
	if c.RetryAfter <= 0 {
		errs = append(errs, fmt.Errorf("retry_after: %w, got %s", errNotPositive, c.RetryAfter))
	}
	return errors.Join(errs...)
}
