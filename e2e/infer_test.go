//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/infer/infertest"
	"github.com/otelgov/otelcol-governance/internal/e2e"
	"github.com/otelgov/otelcol-governance/otlpfile"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// realApp is the real application's recording, made through the built
// collector's file exporter by testdata/realapp/record.sh.
const realApp = "testdata/realapp/grpc-gateway-otel-tracing.jsonl"

// replay sends the recording at path to an OTLP/HTTP endpoint, request by
// request, and returns the spans, data points and log records sent.
func replay(t *testing.T, path, httpEndpoint string) (items int) {
	t.Helper()
	client, err := e2e.NewClient("", httpEndpoint)
	require.NoError(t, err)
	defer client.Close()
	ctx := context.Background()
	require.NoError(t, infertest.EachRecord(path, func(rec *otlpfile.Record) error {
		items += rec.Items()
		switch rec.Kind {
		case vocab.KindTraces:
			return client.SendTraces(ctx, e2e.HTTP, rec.Traces)
		case vocab.KindMetrics:
			return client.SendMetrics(ctx, e2e.HTTP, rec.Metrics)
		case vocab.KindLogs:
			return client.SendLogs(ctx, e2e.HTTP, rec.Logs)
		case vocab.KindUnknown, vocab.NumKinds:
		}
		return nil
	}))
	return items
}

// TestInferRealApplication is issue 44's acceptance, on the real
// application recorded through the distribution (and on the issue's
// application in small): registry infer from the file and from --listen
// write the same registry (exit 0, nothing refused); the gate, otelgov
// check --fail-on violation with the registry, passes; the collector with
// unknown: drop and the registry drops none of the application's keys; and
// adopting the registry adds no finding to a name that was conformant.
func TestInferRealApplication(t *testing.T) {
	app := filepath.Join(t.TempDir(), "app.jsonl")
	var b bytes.Buffer
	require.NoError(t, infertest.AppRecording(&b))
	require.NoError(t, os.WriteFile(app, b.Bytes(), 0o600))
	real, err := filepath.Abs(realApp)
	require.NoError(t, err)

	for name, rec := range map[string]string{"real": real, "app": app} {
		t.Run(name, func(t *testing.T) {
			tmp := t.TempDir()
			fromFile := filepath.Join(tmp, "from-file")
			code, out, errOut := otelgov(t, nil, "registry", "infer", "--output", fromFile, rec)
			require.Equal(t, 0, code, errOut)
			assert.Contains(t, out, "registry infer: "+filepath.Join(fromFile, "registry.yaml"))

			// --listen, fed the same recording over OTLP/HTTP.
			fromListen := filepath.Join(tmp, "from-listen")
			h := fmt.Sprintf("127.0.0.1:%d", e2e.FreePort(t))
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, otelgovBinary(t), "registry", "infer", "--listen", "--grpc-endpoint", "", "--http-endpoint", h, "--output", fromListen)
			var lout, lerr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &lout, &lerr
			require.NoError(t, cmd.Start())
			require.Eventually(t, func() bool {
				resp, err := http.Get("http://" + h + "/report")
				if err != nil {
					return false
				}
				_ = resp.Body.Close()
				return true
			}, 20*time.Second, 50*time.Millisecond)
			replay(t, rec, h)
			resp, err := http.Post("http://"+h+"/stop", "", nil)
			require.NoError(t, err)
			answer, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			_ = resp.Body.Close()
			require.NoError(t, cmd.Wait(), lerr.String())
			assert.Equal(t, "0", resp.Header.Get("X-Otelgov-Exit"))
			assert.Equal(t, lout.String(), string(answer), "POST /stop answers with the run's summary")
			fileReg, err := os.ReadFile(filepath.Join(fromFile, "registry.yaml"))
			require.NoError(t, err)
			listenReg, err := os.ReadFile(filepath.Join(fromListen, "registry.yaml"))
			require.NoError(t, err)
			assert.Equal(t, string(fileReg), string(listenReg), "the file and the live capture give one registry")
			_, err = os.Stat(fromListen + ".evidence.json")
			require.NoError(t, err, "the capture is saved")

			// The gate.
			code, out, errOut = otelgov(t, nil, "check", "--org-registry", fromFile, "--fail-on", "violation", rec)
			if name == "app" {
				// The application sends url and error, namespaces of
				// url.* and error.*: infer proposes them deprecated, and the
				// gate names them as the application's to rename; and
				// camelCase keys, which infer's name findings flagged. Nothing
				// else fails it: no illegal_namespace on url.*, error.*.
				require.Equal(t, 1, code, errOut)
				var violations []string
				for _, line := range strings.Split(out, "\n") {
					if f := strings.Fields(line); len(f) >= 2 && f[0] == "violation" {
						violations = append(violations, f[1])
					}
				}
				assert.ElementsMatch(t, []string{"deprecated", "invalid_format"}, violations, out)
				assert.Contains(t, out, "error (90), url (90)")
				assert.Contains(t, out, "paramID (120), request.paramID (90)")
			} else {
				require.Equal(t, 0, code, out+errOut)
			}

			// The property, on the adopted registry as the collector loads it.
			base, err := registry.Default()
			require.NoError(t, err)
			adopted, err := registry.Load(registry.Sources{Embedded: true, OrgRegistries: []string{fromFile}})
			require.NoError(t, err)
			before, err := infertest.Findings(base, rec, vocab.ProfileWeaver)
			require.NoError(t, err)
			after, err := infertest.Findings(adopted, rec, vocab.ProfileWeaver)
			require.NoError(t, err)
			for k, ids := range after {
				if _, had := before[k]; !had {
					assert.Fail(t, "a conformant name got findings once the registry was adopted", "%s: %v", k, ids)
				}
			}

			// The collector: unknown: drop with the registry drops none of
			// the application's keys.
			sink := e2e.StartSink(t)
			p := e2e.NewPipeline(t, sink)
			p.Processors = fmt.Sprintf("  governance:\n    unknown: drop\n    registry:\n      org_registries: [%s]\n", fromFile)
			p.ProcessorNames = []string{"governance"}
			col := e2e.StartCollector(t, p.YAML(), p.HealthPort, p.MetricsPort, e2e.Options{})
			n := replay(t, rec, p.HTTPEndpoint())
			sink.WaitFor(t, e2e.Counts{Spans: countKind(t, rec, vocab.KindTraces), LogRecords: countKind(t, rec, vocab.KindLogs)}, 30*time.Second)
			require.Positive(t, n)
			var fams e2e.Families
			require.Eventually(t, func() bool {
				fams = e2e.MustScrape(t, col.MetricsPort)
				total, _ := fams.Sum("otelcol_processor_governance_attributes", nil)
				return total > 0
			}, 20*time.Second, 200*time.Millisecond)
			dropped, _ := fams.Sum("otelcol_processor_governance_attributes_dropped", map[string]string{"reason": "unknown"})
			assert.Zero(t, dropped, "no key of the application dropped as unknown")
			unknown, _ := fams.Sum("otelcol_processor_governance_attributes", map[string]string{"outcome": "dropped"})
			assert.Zero(t, unknown)
			assert.NotContains(t, col.Log(), "panic")
		})
	}
}

// countKind is the spans (traces) or log records (logs) in the recording.
func countKind(t *testing.T, path string, kind vocab.Kind) int {
	t.Helper()
	n := 0
	require.NoError(t, infertest.EachRecord(path, func(rec *otlpfile.Record) error {
		if rec.Kind == kind {
			n += rec.Items()
		}
		return nil
	}))
	return n
}
