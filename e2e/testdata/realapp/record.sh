#!/usr/bin/env bash
# Records a real OpenTelemetry-instrumented application into
# grpc-gateway-otel-tracing.jsonl through the distribution's own `file`
# exporter: the input of e2e/infer_test.go.
#
# The application is grpc-gateway's example-otel-tracing (module
# github.com/grpc-ecosystem/grpc-gateway/v2, pinned below, from the Go module
# proxy): an HTTP gateway instrumented with otelhttp in front of an in-process
# gRPC Greeter instrumented with otelgrpc (client and server), nobody here
# wrote it. It runs without Docker or any external service. It hardcodes the
# stdout span exporter; the one change made to it (the sed below) swaps that
# exporter for the SDK's OTLP/HTTP one, which honours
# OTEL_EXPORTER_OTLP_ENDPOINT. Nothing else of the application is changed.
#
# (The OpenTelemetry Go example modules, go.opentelemetry.io/otel/example/...
# and go.opentelemetry.io/contrib/.../example, are not on the module proxy:
# they are untagged.)
#
# Usage: make build && e2e/testdata/realapp/record.sh
set -euo pipefail

MODULE=github.com/grpc-ecosystem/grpc-gateway/v2
VERSION=v2.31.0
PKG=./examples/internal/cmd/example-otel-tracing
# The OTLP exporter of the SDK release the example's go.mod pins.
OTLP_EXPORTER=go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp@v1.46.0

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
collector=${OTELCOL_GOVERNANCE_BINARY:-$root/_build/otelcol-governance}
out=$here/grpc-gateway-otel-tracing.jsonl
[ -x "$collector" ] || { echo "no collector at $collector: run make build" >&2; exit 2; }

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

# The application, from the module proxy.
src=$(go mod download -json "$MODULE@$VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
cp -r "$src" "$work/app" && chmod -R u+w "$work/app"
cd "$work/app"
main=examples/internal/cmd/example-otel-tracing/main.go
sed -i \
  -e 's#"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"#"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"#' \
  -e 's#stdouttrace.New(stdouttrace.WithPrettyPrint())#otlptracehttp.New(context.Background())#' \
  "$main"
grep -q 'otlptracehttp.New(context.Background())' "$main" || { echo "the exporter swap did not apply to $main" >&2; exit 2; }
GOFLAGS=-mod=mod go get "$OTLP_EXPORTER" >/dev/null
GOFLAGS=-mod=mod go build -o "$work/example-otel-tracing" "$PKG"
cd "$work"

# The distribution: OTLP in, the file exporter out (as in docs/org-registry.md).
cat > "$work/record.yaml" <<YAML
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:14318
exporters:
  file:
    path: $work/recording.jsonl
    format: json
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file]
YAML
"$collector" --config "$work/record.yaml" > "$work/collector.log" 2>&1 &
collector_pid=$!
for _ in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:14318/ && break; sleep 0.2; done

OTEL_SERVICE_NAME=grpc-gateway-example \
OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:14318 \
  ./example-otel-tracing > "$work/app.log" 2>&1 &
app_pid=$!
for _ in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:8081/ && break; sleep 0.2; done

# Traffic, 30 rounds: greetings, a path the gateway does not route (404),
# a method it does not implement (501).
for round in $(seq 30); do
  for name in OpenTelemetry world gateway "a%20b" "user$((round % 7))"; do
    curl -s -o /dev/null "http://127.0.0.1:8081/say/$name"
  done
  curl -s -o /dev/null http://127.0.0.1:8081/
  curl -s -o /dev/null "http://127.0.0.1:8081/nope/$round"
  curl -s -o /dev/null -X DELETE http://127.0.0.1:8081/say/x
done

kill -TERM "$app_pid"; wait "$app_pid" 2>/dev/null || true   # flushes the spans
sleep 1
kill -TERM "$collector_pid"; wait "$collector_pid" 2>/dev/null || true
[ -s "$work/recording.jsonl" ] || { echo "nothing recorded; collector log:" >&2; cat "$work/collector.log" >&2; exit 1; }
cp "$work/recording.jsonl" "$out"
echo "recorded $(wc -l < "$out") request(s) into $out"
