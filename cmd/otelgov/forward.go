package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
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

// forwarder passes data on to the next OTLP endpoint.
type forwarder interface {
	traces(context.Context, ptrace.Traces) error
	metrics(context.Context, pmetric.Metrics) error
	logs(context.Context, plog.Logs) error
	close() error
}

// newForwarder is OTLP/HTTP protobuf for http(s):// endpoints, plaintext
// OTLP gRPC for host:port.
func newForwarder(endpoint string) (forwarder, error) {
	if strings.HasPrefix(endpoint, "http://") || strings.HasPrefix(endpoint, "https://") {
		return &httpForwarder{base: strings.TrimSuffix(endpoint, "/"), client: &http.Client{Timeout: 30 * time.Second}}, nil
	}
	conn, err := grpc.NewClient(endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	return &grpcForwarder{
		conn: conn,
		t:    ptraceotlp.NewGRPCClient(conn),
		m:    pmetricotlp.NewGRPCClient(conn),
		l:    plogotlp.NewGRPCClient(conn),
	}, nil
}

type grpcForwarder struct {
	conn *grpc.ClientConn
	t    ptraceotlp.GRPCClient
	m    pmetricotlp.GRPCClient
	l    plogotlp.GRPCClient
}

func (f *grpcForwarder) traces(ctx context.Context, td ptrace.Traces) error {
	_, err := f.t.Export(ctx, ptraceotlp.NewExportRequestFromTraces(td))
	return err
}

func (f *grpcForwarder) metrics(ctx context.Context, md pmetric.Metrics) error {
	_, err := f.m.Export(ctx, pmetricotlp.NewExportRequestFromMetrics(md))
	return err
}

func (f *grpcForwarder) logs(ctx context.Context, ld plog.Logs) error {
	_, err := f.l.Export(ctx, plogotlp.NewExportRequestFromLogs(ld))
	return err
}

func (f *grpcForwarder) close() error { return f.conn.Close() }

type httpForwarder struct {
	base   string
	client *http.Client
}

func (f *httpForwarder) post(ctx context.Context, path string, body []byte, err error) error {
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.base+path, bytes.NewReader(body)) //nolint:gosec // the endpoint is the operator's --forward
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	resp, err := f.client.Do(req) //nolint:gosec // the endpoint is the operator's --forward
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s%s: %s: %s", f.base, path, resp.Status, bytes.TrimSpace(msg))
	}
	return nil
}

func (f *httpForwarder) traces(ctx context.Context, td ptrace.Traces) error {
	b, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	return f.post(ctx, "/v1/traces", b, err)
}

func (f *httpForwarder) metrics(ctx context.Context, md pmetric.Metrics) error {
	b, err := pmetricotlp.NewExportRequestFromMetrics(md).MarshalProto()
	return f.post(ctx, "/v1/metrics", b, err)
}

func (f *httpForwarder) logs(ctx context.Context, ld plog.Logs) error {
	b, err := plogotlp.NewExportRequestFromLogs(ld).MarshalProto()
	return f.post(ctx, "/v1/logs", b, err)
}

func (f *httpForwarder) close() error { return nil }
