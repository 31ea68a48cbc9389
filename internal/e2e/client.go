package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// Client sends OTLP to a collector over gRPC or HTTP/protobuf. Every send is
// synchronous: it returns only once the receiver accepted or refused the data,
// so a caller knows exactly what was delivered.
type Client struct {
	conn     *grpc.ClientConn
	httpBase string
	http     *http.Client
}

// NewClient connects to grpcEndpoint (host:port) and httpEndpoint (host:port).
// Either may be empty when that protocol is not used.
func NewClient(grpcEndpoint, httpEndpoint string) (*Client, error) {
	c := &Client{http: &http.Client{Timeout: 30 * time.Second}}
	if httpEndpoint != "" {
		c.httpBase = "http://" + httpEndpoint
	}
	if grpcEndpoint != "" {
		conn, err := grpc.NewClient(grpcEndpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return nil, fmt.Errorf("grpc client for %s: %w", grpcEndpoint, err)
		}
		c.conn = conn
	}
	return c, nil
}

// Close releases the gRPC connection.
func (c *Client) Close() error {
	if c.conn == nil {
		return nil
	}
	return c.conn.Close()
}

// Protocol selects the OTLP transport.
type Protocol string

const (
	GRPC Protocol = "grpc"
	HTTP Protocol = "http"
)

// SendTraces exports td over proto.
func (c *Client) SendTraces(ctx context.Context, proto Protocol, td ptrace.Traces) error {
	req := ptraceotlp.NewExportRequestFromTraces(td)
	if proto == GRPC {
		_, err := ptraceotlp.NewGRPCClient(c.conn).Export(ctx, req)
		return err
	}
	body, err := req.MarshalProto()
	if err != nil {
		return err
	}
	return c.post(ctx, "/v1/traces", body)
}

// SendMetrics exports md over proto.
func (c *Client) SendMetrics(ctx context.Context, proto Protocol, md pmetric.Metrics) error {
	req := pmetricotlp.NewExportRequestFromMetrics(md)
	if proto == GRPC {
		_, err := pmetricotlp.NewGRPCClient(c.conn).Export(ctx, req)
		return err
	}
	body, err := req.MarshalProto()
	if err != nil {
		return err
	}
	return c.post(ctx, "/v1/metrics", body)
}

// SendLogs exports ld over proto.
func (c *Client) SendLogs(ctx context.Context, proto Protocol, ld plog.Logs) error {
	req := plogotlp.NewExportRequestFromLogs(ld)
	if proto == GRPC {
		_, err := plogotlp.NewGRPCClient(c.conn).Export(ctx, req)
		return err
	}
	body, err := req.MarshalProto()
	if err != nil {
		return err
	}
	return c.post(ctx, "/v1/logs", body)
}

func (c *Client) post(ctx context.Context, path string, body []byte) error {
	if c.httpBase == "" {
		return fmt.Errorf("no OTLP/HTTP endpoint configured for %s", path)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.httpBase+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %s: %s", path, resp.Status, msg)
	}
	return nil
}
