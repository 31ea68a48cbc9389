//go:build e2e

package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/checker"
	"github.com/otelgov/otelcol-governance/conformance"
	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// Recorded by the contrib file exporter v0.165.1: see
// testdata/otelgov/README.md.
const (
	recordedDeprecated = "testdata/otelgov/recorded-deprecated.jsonl"
	recordedClean      = "testdata/otelgov/recorded-clean.jsonl"
	// format: proto of the same file exporter.
	recordedDeprecatedPB = "testdata/otelgov/recorded-deprecated.pb"
)

// otelgovBinary is the built _build/otelgov.
func otelgovBinary(t *testing.T) string {
	t.Helper()
	p := filepath.Join(e2e.RepoRoot(t), "_build", "otelgov")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("otelgov not found at %s (run `make build`): %v", p, err)
	}
	return p
}

// otelgov runs the binary to completion.
func otelgov(t *testing.T, stdin []byte, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, otelgovBinary(t), args...)
	cmd.Dir = filepath.Join(e2e.RepoRoot(t), "e2e")
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("otelgov %v: %v", args, err)
	}
	return code, out.String(), errOut.String()
}

func TestOtelgovCheckFileExporterRecording(t *testing.T) {
	code, out, errOut := otelgov(t, nil, "check", recordedDeprecated)
	assert.Equal(t, 1, code, "deprecated keys are violations (Weaver's deprecated finding):\n%s%s", out, errOut)
	assert.Regexp(t, `(?m)^checkout$`, out, "grouped by service")
	assert.Regexp(t, `violation +deprecated +\d+ +http.method \(18\)`, out, "then by finding ID, with level, count and top names")
	assert.Contains(t, out, `e.g. traces span "op": key http.method at testdata/otelgov/recorded-deprecated.jsonl:1`, "example locations from the engine's sink")
	assert.Contains(t, out, `e.g. metrics metric "db.client.connections.usage": key db.client.connections.pool.name at testdata/otelgov/recorded-deprecated.jsonl:4`)
	assert.Contains(t, out, "checked 5 request(s): 15 span(s), 4 data point(s), 3 log record(s)", "traces, metrics and logs of one file")
	assert.Contains(t, out, "FAIL (--fail-on violation)")

	code, out, errOut = otelgov(t, nil, "check", recordedClean)
	assert.Equal(t, 0, code, "%s%s", out, errOut)
	assert.Contains(t, out, "pass (--fail-on violation): 0 violation(s)")
	assert.NotRegexp(t, `(?m)^  violation`, out)

	// Improvements fail only when asked to; a level override moves a finding.
	code, out, _ = otelgov(t, nil, "check", "--fail-on", "improvement", recordedClean)
	assert.Equal(t, 1, code, out)
	assert.Regexp(t, `improvement +not_stable`, out)
	code, out, _ = otelgov(t, nil, "check", "--fail-on", "improvement", "--level-override", "not_stable=information",
		"--level-override", "recommended_attribute_not_present=information", recordedClean)
	assert.Equal(t, 0, code, out)
	assert.Regexp(t, `information +not_stable`, out)
	code, _, errOut = otelgov(t, nil, "check", "--level-override", "not_in_registry=violation", recordedClean)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `--level-override: unknown finding ID "not_in_registry"`)

	code, out, _ = otelgov(t, nil, "check", "--fail-on", "none", recordedDeprecated)
	assert.Equal(t, 0, code, out)

	// A truncated recording: exit 2 with the file, line and byte offset.
	b, err := os.ReadFile(filepath.Join(e2e.RepoRoot(t), "e2e", recordedDeprecated))
	require.NoError(t, err)
	trunc := filepath.Join(t.TempDir(), "trunc.jsonl")
	require.NoError(t, os.WriteFile(trunc, b[:len(b)-200], 0o600)) //nolint:gosec // a path under t.TempDir()
	code, out, errOut = otelgov(t, nil, "check", trunc)
	assert.Equal(t, 2, code, out)
	assert.Regexp(t, regexp.QuoteMeta(trunc+":5 (byte ")+`\d+\): truncated input`, errOut)
	assert.Empty(t, out, "no report on bad input")

	// Gzip from stdin.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(b)
	require.NoError(t, zw.Close())
	code, out, _ = otelgov(t, gz.Bytes(), "check", "--format", "markdown", "-")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "| :x: violation | `deprecated` | ")
	assert.Contains(t, out, "http.method (18)")
}

// JUnit XML as CI systems read it.
type junitTestsuites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestOtelgovCheckJUnit(t *testing.T) {
	code, out, errOut := otelgov(t, nil, "check", "--format", "junit", recordedDeprecated)
	require.Equal(t, 1, code, errOut)
	var ju junitTestsuites
	require.NoError(t, xml.Unmarshal([]byte(out), &ju), out)
	require.Len(t, ju.Suites, 1)
	s := ju.Suites[0]
	assert.Equal(t, "checkout", s.Name, "one suite per service")
	// One case per finding ID, as the JSON document lists them.
	_, js, _ := otelgov(t, nil, "check", "--format", "json", recordedDeprecated)
	var doc conformance.Document
	require.NoError(t, json.Unmarshal([]byte(js), &doc))
	require.Len(t, doc.Services, 1)
	ids := map[string]bool{}
	for id := range doc.Services[0].Findings {
		ids[id] = true
	}
	failed := map[string]string{}
	for _, c := range s.Cases {
		assert.True(t, ids[c.Name], "case %q is a finding ID of the document", c.Name)
		assert.Equal(t, "otelgov.checkout", c.Classname)
		if c.Failure != nil {
			failed[c.Name] = c.Failure.Text
			assert.Equal(t, "violation", c.Failure.Type)
		}
	}
	assert.Equal(t, len(ids), s.Tests)
	assert.Len(t, failed, 2, "deprecated and required_attribute_not_present are violations; the rest pass under --fail-on violation")
	assert.Equal(t, 2, ju.Failures)
	assert.Contains(t, failed["deprecated"], `e.g. traces span "op": key http.method at testdata/otelgov/recorded-deprecated.jsonl:1`)
	assert.Contains(t, failed["deprecated"], "metric db.client.connections.usage: 1", "the deprecated metric name is the same finding ID")
	assert.Contains(t, failed, "required_attribute_not_present")

	code, out, _ = otelgov(t, nil, "check", "--format", "junit", recordedClean)
	require.Equal(t, 0, code)
	ju = junitTestsuites{}
	require.NoError(t, xml.Unmarshal([]byte(out), &ju), out)
	require.Len(t, ju.Suites, 1)
	assert.Equal(t, "cart", ju.Suites[0].Name)
	assert.Equal(t, 0, ju.Failures, "no violation")
	assert.Positive(t, ju.Tests, "improvements and information are passing cases")

	code, out, _ = otelgov(t, nil, "check", "--format", "junit", "--fail-on", "improvement", recordedClean)
	require.Equal(t, 1, code)
	ju = junitTestsuites{}
	require.NoError(t, xml.Unmarshal([]byte(out), &ju), out)
	assert.Positive(t, ju.Failures, "not_stable and recommended_attribute_not_present fail on improvement")
}

func TestOtelgovCheckJSONIsTheConformanceDocument(t *testing.T) {
	code, out, _ := otelgov(t, nil, "check", "--format", "json", recordedDeprecated)
	require.Equal(t, 1, code)
	// Strictly, it is checker.JSONResult: the /conformance document plus
	// items and examples; a /conformance reader reads it unchanged.
	var res checker.JSONResult
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&res), out)
	assert.Positive(t, res.Items.Spans, "items says what was checked")
	assert.NotEmpty(t, res.Examples["checkout"], "example locations per service and finding ID")
	var doc conformance.Document
	require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
	assert.Equal(t, res.Services, doc.Services)
	require.Len(t, doc.Services, 1)
	assert.Equal(t, "checkout", doc.Services[0].Service)
	var keys []string
	for _, k := range doc.Services[0].DeprecatedKeys {
		keys = append(keys, k.Key)
	}
	assert.ElementsMatch(t, []string{"http.method", "http.status_code", "net.host.name", "http.scheme"}, keys)
	assert.Positive(t, doc.Totals.Attributes["deprecated_kept"])
	dep, ok := doc.Services[0].Findings["deprecated"]
	require.True(t, ok, "per-service findings with Weaver's IDs")
	assert.Equal(t, "violation", dep.Level)
	assert.Contains(t, dep.Top, conformance.FindingName{Subject: "metric", Name: "db.client.connections.usage", Count: 1})
	assert.Contains(t, dep.Top, conformance.FindingName{Subject: "key", Name: "http.method", Count: 18}, "15 spans and 3 log records")
	assert.Equal(t, dep.Count, doc.Totals.AdviceTypeCounts["deprecated"])
}

func TestOtelgovFixThenCheck(t *testing.T) {
	dir := t.TempDir()
	fixed := filepath.Join(dir, "fixed.jsonl")
	code, _, errOut := otelgov(t, nil, "fix", recordedDeprecated, fixed)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "1 metric name(s) migrated")
	code, out, _ := otelgov(t, nil, "check", fixed)
	assert.Equal(t, 0, code, out)
	b, err := os.ReadFile(fixed)
	require.NoError(t, err)
	assert.Equal(t, 5, bytes.Count(b, []byte("\n")), "the input's format: one JSON request per line")
	assert.Contains(t, string(b), `"http.request.method"`)

	// Gzip in, gzip out.
	src, err := os.ReadFile(filepath.Join(e2e.RepoRoot(t), "e2e", recordedDeprecated))
	require.NoError(t, err)
	in := filepath.Join(dir, "in.jsonl.gz")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(src)
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(in, gz.Bytes(), 0o600))
	out2 := filepath.Join(dir, "out.jsonl.gz")
	code, _, errOut = otelgov(t, nil, "fix", in, out2)
	require.Equal(t, 0, code, errOut)
	b, err = os.ReadFile(out2)
	require.NoError(t, err)
	assert.Equal(t, []byte{0x1f, 0x8b}, b[:2], "gzip in, gzip out")
	code, out, _ = otelgov(t, nil, "check", out2)
	assert.Equal(t, 0, code, out)

	// The file exporter's format: proto (4-byte length prefix), in and out.
	code, out, _ = otelgov(t, nil, "check", recordedDeprecatedPB)
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "checked 5 request(s): 15 span(s), 4 data point(s), 3 log record(s)")
	out3 := filepath.Join(dir, "out.pb")
	code, _, errOut = otelgov(t, nil, "fix", recordedDeprecatedPB, out3)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "proto (4-byte length prefix)")
	code, out, _ = otelgov(t, nil, "check", out3)
	assert.Equal(t, 0, code, out)
}

// listening is a running otelgov check --listen.
type listening struct {
	cmd      *exec.Cmd
	stdout   *bytes.Buffer
	stderr   *bytes.Buffer
	grpc     string
	http     string
	done     chan struct{}
	exitCode int
}

func startListen(t *testing.T, extra ...string) *listening {
	t.Helper()
	l := &listening{
		grpc:   "127.0.0.1:" + strconv.Itoa(e2e.FreePort(t)),
		http:   "127.0.0.1:" + strconv.Itoa(e2e.FreePort(t)),
		stdout: &bytes.Buffer{},
		stderr: &bytes.Buffer{},
		done:   make(chan struct{}),
	}
	args := append([]string{"check", "--listen", "--grpc-endpoint", l.grpc, "--http-endpoint", l.http}, extra...)
	l.cmd = exec.Command(otelgovBinary(t), args...)
	l.cmd.Stdout, l.cmd.Stderr = l.stdout, l.stderr
	require.NoError(t, l.cmd.Start())
	go func() {
		err := l.cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			l.exitCode = ee.ExitCode()
		}
		close(l.done)
	}()
	t.Cleanup(func() {
		_ = l.cmd.Process.Kill()
		<-l.done
	})
	for _, addr := range []string{l.grpc, l.http} {
		require.Eventually(t, func() bool {
			c, err := net.Dial("tcp", addr)
			if err == nil {
				_ = c.Close()
			}
			return err == nil
		}, 20*time.Second, 50*time.Millisecond, "otelgov listening on %s: %s", addr, l.stderr)
	}
	return l
}

func (l *listening) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-l.done:
		return l.exitCode
	case <-time.After(30 * time.Second):
		t.Fatalf("otelgov did not exit; stderr:\n%s", l.stderr)
	}
	return -1
}

// sdkSpans sends spans with the OTel Go SDK, as a service under test would.
func sdkSpans(t *testing.T, exp sdktrace.SpanExporter, service string, attrs ...attribute.KeyValue) {
	t.Helper()
	res := resource.NewSchemaless(attribute.String("service.name", service))
	tp := sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithSyncer(exp))
	tr := tp.Tracer("e2e")
	for range 3 {
		_, span := tr.Start(context.Background(), "GET /cart", trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
		span.End()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, tp.Shutdown(ctx), "the SDK exporter delivered to otelgov")
}

func TestOtelgovListenSDKOverGRPCAndHTTPWithGzip(t *testing.T) {
	l := startListen(t, "--format", "json")
	ctx := context.Background()

	grpcExp, err := otlptracegrpc.New(ctx, otlptracegrpc.WithEndpoint(l.grpc), otlptracegrpc.WithInsecure(), otlptracegrpc.WithCompressor("gzip"))
	require.NoError(t, err)
	sdkSpans(t, grpcExp, "svc-grpc", attribute.String("http.method", "GET"), attribute.String("http.route", "/cart"))

	httpExp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpoint(l.http), otlptracehttp.WithInsecure(), otlptracehttp.WithCompression(otlptracehttp.GzipCompression))
	require.NoError(t, err)
	sdkSpans(t, httpExp, "svc-http", attribute.Int("http.status_code", 200), attribute.String("http.route", "/cart"))

	// And a clean service, over OTLP/HTTP JSON.
	body := `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc-json"}}]},"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"x","attributes":[{"key":"http.request.method","value":{"stringValue":"GET"}}]}]}]}]}`
	resp, err := http.Post("http://"+l.http+"/v1/traces", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode)

	resp, err = http.Post("http://"+l.http+"/stop", "", nil)
	require.NoError(t, err)
	stopBody, err := io.ReadAll(resp.Body)
	require.NoError(t, resp.Body.Close())
	require.NoError(t, err)
	assert.Equal(t, "1", resp.Header.Get("X-Otelgov-Exit"))
	var doc conformance.Document
	require.NoError(t, json.Unmarshal(stopBody, &doc), string(stopBody))
	deprecated := map[string][]string{}
	for _, s := range doc.Services {
		deprecated[s.Service] = []string{}
		for _, k := range s.DeprecatedKeys {
			deprecated[s.Service] = append(deprecated[s.Service], fmt.Sprintf("%s=%d", k.Key, k.Count))
		}
	}
	assert.Equal(t, map[string][]string{
		"svc-grpc": {"http.method=3"},
		"svc-http": {"http.status_code=3"},
		"svc-json": {},
	}, deprecated, "/stop returns the report of what the SDKs sent")
	for _, s := range doc.Services {
		if s.Service == "svc-grpc" {
			assert.Equal(t, "violation", s.Findings["deprecated"].Level)
			assert.Equal(t, int64(3), s.Findings["deprecated"].Count)
		}
	}

	assert.Equal(t, 1, l.wait(t), "exit code per --fail-on; stderr:\n%s", l.stderr)
	var printed conformance.Document
	require.NoError(t, json.Unmarshal(l.stdout.Bytes(), &printed), l.stdout.String())
	assert.Len(t, printed.Services, 3, "the same report on stdout")
}

func TestOtelgovListenSIGTERMAndForward(t *testing.T) {
	sink := e2e.StartSink(t)
	l := startListen(t, "--forward", sink.Endpoint, "--deprecated", "rename")
	c, err := e2e.NewClient(l.grpc, l.http)
	require.NoError(t, err)
	defer c.Close()
	ctx := context.Background()
	require.NoError(t, c.SendTraces(ctx, e2e.GRPC, e2e.Traces("fwd", 0, 2, map[string]any{"http.method": "GET"})))
	require.NoError(t, c.SendLogs(ctx, e2e.HTTP, e2e.Logs("fwd", 0, 1, map[string]any{"http.request.method": "GET"})))

	// The backend behind otelgov got the data, rewritten.
	sink.WaitFor(t, e2e.Counts{Spans: 2, LogRecords: 1}, 10*time.Second)
	td := sink.Traces()
	require.Len(t, td, 1)
	attrs := td[0].ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes()
	_, old := attrs.Get("http.method")
	v, renamed := attrs.Get("http.request.method")
	assert.False(t, old)
	require.True(t, renamed)
	assert.Equal(t, "GET", v.Str())

	require.NoError(t, l.cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, 1, l.wait(t), "the report counts what the service sent, before the rewrite")
	assert.Regexp(t, `violation +deprecated +2 +http.method \(2\)`, l.stdout.String())
}

func TestOtelgovQueries(t *testing.T) {
	// This repo's own manifests read only current names.
	code, out, errOut := otelgov(t, nil, "queries", filepath.Join(e2e.RepoRoot(t), "distribution/k8s"))
	assert.Equal(t, 0, code, "%s%s", out, errOut)
	assert.Contains(t, out, "0 deprecated name(s) left")
	assert.Empty(t, errOut, "every expression parsed")

	dir := t.TempDir()
	for _, f := range []string{"checkout-rules.yaml", "checkout-dashboard.json", "collector.yaml"} {
		b, err := os.ReadFile(filepath.Join(e2e.RepoRoot(t), "e2e/testdata/otelgov/queries", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o600)) //nolint:gosec // a path under t.TempDir()
	}
	rules := filepath.Join(dir, "checkout-rules.yaml")
	dash := filepath.Join(dir, "checkout-dashboard.json")

	code, out, _ = otelgov(t, nil, "queries", rules, dash)
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, rules+`:15: promql: deprecated attribute "http_method" (OTel http.method); current: http_request_method [--write rewrites it]`)
	assert.Contains(t, out, rules+`:24: promql: deprecated attribute "http_method"`)
	assert.Contains(t, out, dash+`:13: promql: deprecated metric "http_server_duration_milliseconds_bucket" (OTel http.server.duration); current: http_server_request_duration_seconds_bucket [not rewritable`)
	assert.Contains(t, out, dash+`:13: promql: deprecated attribute "http_status_code" (OTel http.status_code); current: http_response_status_code`)

	code, out, _ = otelgov(t, nil, "queries", "--format", "json", filepath.Join(dir, "collector.yaml"))
	assert.Equal(t, 1, code)
	var res struct {
		Findings []struct {
			Line  int    `json:"line"`
			Where string `json:"where"`
			Name  string `json:"name"`
		} `json:"findings"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	require.Len(t, res.Findings, 3, out)
	assert.Equal(t, "ottl", res.Findings[0].Where)
	assert.Equal(t, 19, res.Findings[0].Line)

	// --write fixes the rule; promtool still accepts it.
	promtool, err := exec.LookPath("promtool")
	require.NoError(t, err, "promtool (Debian: apt-get install prometheus)")
	checkRules := func() string {
		b, err := os.ReadFile(rules)
		require.NoError(t, err)
		var pr struct {
			Spec yaml.Node `yaml:"spec"`
		}
		require.NoError(t, yaml.Unmarshal(b, &pr))
		spec, err := yaml.Marshal(&pr.Spec)
		require.NoError(t, err)
		p := filepath.Join(t.TempDir(), "rules.yaml")
		require.NoError(t, os.WriteFile(p, spec, 0o600))
		out, err := exec.Command(promtool, "check", "rules", p).CombinedOutput()
		require.NoError(t, err, "promtool check rules: %s", out)
		return string(b)
	}
	before := checkRules()
	code, out, _ = otelgov(t, nil, "queries", "--write", rules)
	assert.Equal(t, 0, code, "everything in the rule was rewritable: %s", out)
	after := checkRules()
	assert.NotContains(t, after, "(http_method")
	assert.Contains(t, after, "sum by (http_request_method) (rate(")
	assert.Contains(t, after, "{{ $labels.http_request_method }}")
	assert.Equal(t, strings.Count(before, "\n"), strings.Count(after, "\n"))
	assert.Contains(t, after, "# Error ratio per method: http_method is the old key, normalised.", "comments survive")
	code, out, _ = otelgov(t, nil, "queries", rules)
	assert.Equal(t, 0, code, out)
}
