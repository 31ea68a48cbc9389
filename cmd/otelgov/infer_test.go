package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/otelgov/otelcol-governance/checker"
	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/infer"
	"github.com/otelgov/otelcol-governance/infer/infertest"
	"github.com/otelgov/otelcol-governance/otlpfile"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// workload records infertest's workload as JSON lines.
func workload(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "workload.jsonl")
	var b bytes.Buffer
	require.NoError(t, infertest.Write(&b))
	require.NoError(t, os.WriteFile(p, b.Bytes(), 0o600))
	return p
}

// adviceCounts runs otelgov check --format json and returns the totals'
// advice_type_counts.
func adviceCounts(t *testing.T, args ...string) map[string]int64 {
	t.Helper()
	code, out, errOut := otelgov(t, "", append([]string{"check", "--fail-on", "none", "--format", "json"}, args...)...)
	require.Equal(t, exitClean, code, errOut)
	var doc struct {
		Totals struct {
			AdviceTypeCounts map[string]int64 `json:"advice_type_counts"`
		} `json:"totals"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	return doc.Totals.AdviceTypeCounts
}

var missingIDs = []string{"missing_attribute", "missing_metric", "missing_event"}

// TestInferRoundTrip is issue 37's round trip: a recorded workload with
// org attributes, metrics and events -> registry infer -> the org registry
// loaded by otelgov check and by registry.Load (as the collector loads
// org_registries) -> the same workload gives no missing_attribute,
// missing_metric or missing_event, and the near-misses are deprecated,
// renamed to the registry name.
func TestInferRoundTrip(t *testing.T) {
	for _, v1 := range []bool{false, true} {
		name := "v2"
		if v1 {
			name = "v1"
		}
		t.Run(name, func(t *testing.T) {
			rec := workload(t)
			before := adviceCounts(t, rec)
			for _, id := range missingIDs {
				require.Positive(t, before[id], "the workload must start with %s", id)
			}

			dir := filepath.Join(t.TempDir(), "acme")
			args := []string{"registry", "infer", "--output", dir, "--format", "json", rec}
			if v1 {
				args = append(args, "--v1")
			}
			code, out, errOut := otelgov(t, "", args...)
			require.Equal(t, exitClean, code, errOut)
			var sum infer.Summary
			require.NoError(t, json.Unmarshal([]byte(out), &sum))
			assert.Equal(t, filepath.Join(dir, "registry.yaml"), sum.File)
			assert.Equal(t, name, sum.Format)

			after := adviceCounts(t, "--org-registry", dir, rec)
			for _, id := range missingIDs {
				assert.Zero(t, after[id], id)
			}
			// The near-misses are now deprecated attributes, renamed.
			assert.Equal(t, int64(2*infertest.Rounds+infertest.Rounds/2), after["deprecated"], "http_method (40), httpMethod (40), http.request_method (20)")
			renamed := map[string]string{}
			for _, r := range sum.Proposal.Renames {
				renamed[r.Key] = r.RenamedTo
			}
			assert.Equal(t, map[string]string{
				infertest.NearUnderscore: "http.request.method",
				infertest.NearCamel:      "http.request.method",
				infertest.NearSeparator:  "http.request.method",
			}, renamed)

			// As the collector: registry.Load with org_registries, the
			// checker's engine walk over the same pdata.
			ix, err := registry.Load(registry.Sources{Embedded: true, OrgRegistries: []string{dir}})
			require.NoError(t, err)
			a := ix.Lookup(infertest.NearCamel)
			require.NotNil(t, a)
			assert.Equal(t, "http.request.method", a.Target(registry.Context{Location: registry.LocationSpan}).Key)
			c := checker.New(ix, checker.Options{Engine: engine.Options{
				Deprecated: engine.DeprecatedOff, Unknown: engine.UnknownKeep,
				TypeMismatch: engine.TypeMismatchKeep, EnumViolation: engine.EnumViolationKeep,
			}})
			c.Traces(infertest.Traces(), "t")
			c.Metrics(infertest.Metrics(), "m")
			c.Logs(infertest.Logs(), "l")
			res := c.Result()
			for _, id := range missingIDs {
				assert.Zero(t, res.Document.Totals.AdviceTypeCounts[id], id)
			}
			assert.Positive(t, res.Document.Totals.AdviceTypeCounts["deprecated"])
		})
	}
}

// TestInferTextSummary: the text summary says what was proposed and why.
func TestInferTextSummary(t *testing.T) {
	rec := workload(t)
	dir := filepath.Join(t.TempDir(), "acme")
	code, out, errOut := otelgov(t, "", "registry", "infer", "--output", dir, rec)
	require.Equal(t, exitClean, code, errOut)
	for _, want := range []string{
		"registry infer: " + filepath.Join(dir, "registry.yaml") + " (v2): 22 addition(s)",
		"read: 80 span(s), 202 data point(s), 160 log record(s)",
		"app.tenant               enum [acme globex initech]",
		"httpMethod           -> http.request.method  near-miss of registry attribute http.request.method",
		"payments.charges counter \"{charge}\"                 app.tenant recommended, payments.card.brand required",
		"post_checkout server (\"POST /checkout\")",
		"http.request.method required (defined elsewhere: not written)",
		"type_conflict                      app.build            sent as int 40 time(s) from checkout; string 40 time(s) from payments: proposed int",
		"high_cardinality_metric_attribute  payments.request.id",
		"violation    invalid_format     attribute httpMethod",
	} {
		assert.Contains(t, out, want)
	}
}

// TestInferNoExamples: --no-examples writes no example value.
func TestInferNoExamples(t *testing.T) {
	rec := workload(t)
	dir := filepath.Join(t.TempDir(), "acme")
	code, _, errOut := otelgov(t, "", "registry", "infer", "--no-examples", "--output", dir, rec)
	require.Equal(t, exitClean, code, errOut)
	b, err := os.ReadFile(filepath.Join(dir, "registry.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "key: checkout.item.sku")
	assert.NotContains(t, string(b), "examples:")
	assert.NotContains(t, string(b), "sku-00000")
}

// TestInferHandEditsSurvive: a person edits a brief, a requirement level
// and the order (and adds a comment); a second run over a workload with
// one more attribute adds only that, and every edit is still there.
func TestInferHandEditsSurvive(t *testing.T) {
	rec := workload(t)
	dir := filepath.Join(t.TempDir(), "acme")
	code, _, errOut := otelgov(t, "", "registry", "infer", "--output", dir, rec)
	require.Equal(t, exitClean, code, errOut)
	file := filepath.Join(dir, "registry.yaml")
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	first := string(b)

	// The edits: app.build gets a brief and moves after app.region, the
	// required app.tenant of checkout.cart.items becomes opt_in, and a
	// comment is added.
	edited := strings.Replace(first, "  - key: app.build\n    type: int\n    examples: 1042\n    brief: ''\n    stability: development\n", "", 1)
	require.NotEqual(t, first, edited, "the first run wrote app.build as expected")
	edited = strings.Replace(edited, "  - key: app.region\n", "  - key: app.build\n    type: int\n    examples: 1042\n    brief: The build number of the deployed service.\n    stability: development\n  # Where the service runs; set by the platform.\n  - key: app.region\n", 1)
	cartItems := "  - name: checkout.cart.items\n    instrument: histogram\n    unit: '{item}'\n    attributes:\n      - ref: app.tenant\n        requirement_level: required\n"
	require.Contains(t, edited, cartItems)
	edited = strings.Replace(edited, cartItems, strings.Replace(cartItems, "requirement_level: required", "requirement_level: opt_in", 1), 1)
	require.NoError(t, os.WriteFile(file, []byte(edited), 0o600)) //nolint:gosec // a path under t.TempDir()

	// The second workload adds one attribute.
	td := infertest.Traces()
	td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes().PutStr("app.feature.flag", "new-cart")
	more := filepath.Join(t.TempDir(), "more.jsonl")
	writeTraces(t, more, td)

	code, out, errOut := otelgov(t, "", "registry", "infer", "--output", dir, rec, more)
	require.Equal(t, exitClean, code, errOut)
	assert.Contains(t, out, "app.feature.flag")
	b, err = os.ReadFile(file)
	require.NoError(t, err)
	second := string(b)
	assert.Contains(t, second, "brief: The build number of the deployed service.")
	assert.Contains(t, second, "# Where the service runs; set by the platform.")
	assert.Contains(t, second, strings.Replace(cartItems, "requirement_level: required", "requirement_level: opt_in", 1))
	assert.Less(t, strings.Index(second, "key: app.log.component"), strings.Index(second, "key: app.build"), "the order a person chose")
	assert.Less(t, strings.Index(second, "key: app.build"), strings.Index(second, "key: app.region"), "the order a person chose")
	// Everything the first file held is still there, in the same order,
	// and the new attribute is appended.
	assert.Equal(t, 1, strings.Count(second, "key: app.build\n"))
	assert.Contains(t, second, "  - key: app.feature.flag\n")
	assert.Greater(t, strings.Index(second, "key: app.feature.flag"), strings.Index(second, "key: payments.request.id"))
	assert.True(t, strings.HasPrefix(second, strings.SplitN(edited, "metrics:", 2)[0]),
		"the attributes section as edited, byte for byte, followed by the additions:\n%s", second)

	// A third run with nothing new writes nothing.
	st, err := os.Stat(file)
	require.NoError(t, err)
	code, out, errOut = otelgov(t, "", "registry", "infer", "--output", dir, rec, more)
	require.Equal(t, exitClean, code, errOut)
	assert.Contains(t, out, "nothing new")
	st2, err := os.Stat(file)
	require.NoError(t, err)
	assert.Equal(t, st.ModTime(), st2.ModTime())
}

func writeTraces(t *testing.T, path string, td ptrace.Traces) {
	t.Helper()
	b, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalJSON()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, append(b, '\n'), 0o600))
}

// TestInferBadInput: each a clear message, exit 2, and nothing written or
// overwritten.
func TestInferBadInput(t *testing.T) {
	rec := workload(t)
	tmp := t.TempDir()
	empty := filepath.Join(tmp, "empty.jsonl")
	require.NoError(t, os.WriteFile(empty, nil, 0o600))
	notOTLP := filepath.Join(tmp, "not-otlp.json")
	require.NoError(t, os.WriteFile(notOTLP, []byte(`{"hello": "world"}`+"\n"), 0o600))
	notRegistry := filepath.Join(tmp, "src")
	require.NoError(t, os.MkdirAll(notRegistry, 0o750))
	require.NoError(t, os.WriteFile(filepath.Join(notRegistry, "main.go"), []byte("package main\n"), 0o600))
	unrelated := filepath.Join(tmp, "k8s")
	require.NoError(t, os.MkdirAll(unrelated, 0o750))
	require.NoError(t, os.WriteFile(filepath.Join(unrelated, "deploy.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"), 0o600))
	brokenRegistry := filepath.Join(tmp, "broken")
	require.NoError(t, os.MkdirAll(brokenRegistry, 0o750))
	require.NoError(t, os.WriteFile(filepath.Join(brokenRegistry, "registry.yaml"), []byte("file_format: definition/2\nattributes:\n  - key: acme.x\n"), 0o600))

	tests := []struct {
		name   string
		output string
		inputs []string
		want   string
	}{
		{"empty recording", "", []string{empty}, "nothing to infer from: no span, data point or log record in " + empty + " (no request)"},
		{"non-OTLP recording", "", []string{notOTLP}, notOTLP},
		{"output not a registry", notRegistry, []string{rec}, "not a registry: it holds files but no registry file"},
		{"output registry that does not load", brokenRegistry, []string{rec}, "attribute without type"},
		{"output of unrelated YAML", unrelated, []string{rec}, "not a registry: no groups: key (a v1 model file) and no file_format: definition/2 (a v2 one); its top-level keys: apiVersion, kind, metadata"},
		{"unreadable --from file", "", []string{"--from", filepath.Join(tmp, "missing.json")}, "neither a collector's URL (http://HOST:PORT) nor a readable evidence file"},
		{"--from file not evidence", "", []string{"--from", notOTLP}, "not evidence saved by registry infer (--evidence-file)"},
		{"no output", "-", []string{rec}, "--output: required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := tt.output
			if out == "" {
				out = filepath.Join(t.TempDir(), "acme")
			}
			args := []string{"registry", "infer", "--output", out}
			if out == "-" {
				args = []string{"registry", "infer"}
			}
			var before map[string]string
			if out != "-" {
				before = snapshot(t, out)
			}
			code, stdout, errOut := otelgov(t, "", append(args, tt.inputs...)...)
			assert.Equal(t, exitBad, code, stdout)
			assert.Contains(t, errOut, tt.want)
			assert.Empty(t, stdout)
			if out != "-" {
				assert.Equal(t, before, snapshot(t, out), "nothing written")
				entries, err := os.ReadDir(filepath.Dir(out))
				require.NoError(t, err)
				for _, e := range entries {
					assert.False(t, strings.HasPrefix(e.Name(), ".regwrite-"), "staging left behind: %s", e.Name())
				}
			}
		})
	}
}

// snapshot is every file under dir with its content (nil when dir is
// missing).
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		return nil
	}
	out := map[string]string{}
	require.NoError(t, filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p) //nolint:gosec // a path under t.TempDir()
		out[p] = string(b)
		return err
	}))
	return out
}

// TestInferListen: --listen receives OTLP/HTTP and ends on POST /stop or
// after --inactivity-timeout; check --listen takes the same timeout.
func TestInferListen(t *testing.T) {
	body, err := ptraceotlp.NewExportRequestFromTraces(infertest.Traces()).MarshalProto()
	require.NoError(t, err)
	send := func(h string) {
		resp, err := http.Post("http://"+h+"/v1/traces", "application/x-protobuf", bytes.NewReader(body))
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		_ = resp.Body.Close()
	}

	t.Run("stop", func(t *testing.T) {
		h := freeAddr(t)
		dir := filepath.Join(t.TempDir(), "acme")
		var out, errOut syncBuf
		done := make(chan int)
		go func() {
			done <- run([]string{"registry", "infer", "--listen", "--grpc-endpoint", "", "--http-endpoint", h, "--output", dir}, nil, &out, &errOut)
		}()
		waitListening(t, h)
		send(h)
		resp, err := http.Post("http://"+h+"/stop", "", nil)
		require.NoError(t, err)
		answer, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		_ = resp.Body.Close()
		assert.Equal(t, exitClean, <-done, errOut.String())
		assert.Contains(t, out.String(), "app.tenant")
		b, err := os.ReadFile(filepath.Join(dir, "registry.yaml"))
		require.NoError(t, err)
		assert.Contains(t, string(b), "- key: app.tenant")
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, "0", resp.Header.Get("X-Otelgov-Exit"))
		assert.Equal(t, out.String(), string(answer), "POST /stop answers with the run's outcome: the summary")
		_, err = os.Stat(dir + ".evidence.json")
		assert.NoError(t, err, "the evidence is saved beside DIR")
	})

	// The registry cannot be written (DIR became something else while
	// listening): the capture is not lost. The evidence was saved first,
	// /stop answers with the error and exit 2, and --from the saved file
	// writes the registry the capture gives.
	t.Run("capture kept when the write fails", func(t *testing.T) {
		h := freeAddr(t)
		tmp := t.TempDir()
		dir := filepath.Join(tmp, "acme")
		evidence := filepath.Join(tmp, "capture.json")
		var out, errOut syncBuf
		done := make(chan int)
		go func() {
			done <- run([]string{"registry", "infer", "--listen", "--grpc-endpoint", "", "--http-endpoint", h, "--output", dir, "--evidence-file", evidence}, nil, &out, &errOut)
		}()
		waitListening(t, h)
		send(h)
		require.NoError(t, os.MkdirAll(dir, 0o750))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a registry\n"), 0o600))
		resp, err := http.Post("http://"+h+"/stop", "", nil)
		require.NoError(t, err)
		answer, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		_ = resp.Body.Close()
		assert.Equal(t, exitBad, <-done)
		assert.Equal(t, "2", resp.Header.Get("X-Otelgov-Exit"))
		assert.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
		assert.Contains(t, string(answer), "not a registry")
		assert.Contains(t, string(answer), "the evidence received is saved in "+evidence)
		assert.Contains(t, errOut.String(), "--from "+evidence)

		again := filepath.Join(tmp, "acme2")
		code, sumOut, errOut2 := otelgov(t, "", "registry", "infer", "--output", again, "--from", evidence)
		require.Equal(t, exitClean, code, errOut2)
		assert.Contains(t, sumOut, "app.tenant")
		b, err := os.ReadFile(filepath.Join(again, "registry.yaml"))
		require.NoError(t, err)
		assert.Contains(t, string(b), "- key: app.tenant")
	})

	for _, cmd := range []string{"infer", "check"} {
		t.Run("inactivity "+cmd, func(t *testing.T) {
			h := freeAddr(t)
			args := []string{"check", "--listen", "--fail-on", "none"}
			if cmd == "infer" {
				args = []string{"registry", "infer", "--listen", "--output", filepath.Join(t.TempDir(), "acme")}
			}
			args = append(args, "--grpc-endpoint", "", "--http-endpoint", h, "--inactivity-timeout", "300ms")
			var out, errOut syncBuf
			done := make(chan int)
			start := time.Now()
			go func() { done <- run(args, nil, &out, &errOut) }()
			waitListening(t, h)
			send(h)
			select {
			case code := <-done:
				assert.Equal(t, exitClean, code, errOut.String())
				assert.GreaterOrEqual(t, time.Since(start), 300*time.Millisecond)
				assert.Contains(t, errOut.String(), "no request for 300ms")
			case <-time.After(10 * time.Second):
				t.Fatal("--inactivity-timeout did not stop the listener")
			}
		})
	}
}

// TestInferSkipsInvalidNames: the application: span events named
// in plain words, a span named "/", a key with a space. infer exits 0,
// writes the registry for everything else, and says what it skipped,
// counted by occurrence and by distinct name, in text and in JSON.
func TestInferSkipsInvalidNames(t *testing.T) {
	td := infertest.Traces()
	spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	spans.At(0).SetName("/")
	for i := range spans.Len() {
		e := spans.At(i).Events().AppendEmpty()
		e.SetName(fmt.Sprintf("handled item %d of the cart", i%3))
		spans.At(i).Attributes().PutStr("app tenant", "x")
	}
	rec := filepath.Join(t.TempDir(), "app.jsonl")
	writeTraces(t, rec, td)
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "acme")
			code, out, errOut := otelgov(t, "", "registry", "infer", "--output", dir, "--format", format, rec)
			require.Equal(t, exitClean, code, errOut)
			b, err := os.ReadFile(filepath.Join(dir, "registry.yaml"))
			require.NoError(t, err)
			assert.Contains(t, string(b), "- key: app.tenant")
			assert.Contains(t, string(b), "type: root", "the span named / gets a derived type")
			assert.Contains(t, string(b), "note: /")
			if format == "text" {
				assert.Contains(t, out, "skipped: 4 distinct name(s) that cannot be registry IDs as written")
				assert.Contains(t, out, `event "handled item 0 of the cart"`)
				assert.Contains(t, out, `attribute "app tenant"`)
				return
			}
			var sum infer.Summary
			require.NoError(t, json.Unmarshal([]byte(out), &sum))
			assert.Equal(t, int64(4), sum.Proposal.Skipped.Distinct)
			assert.Equal(t, int64(2*spans.Len()), sum.Proposal.Skipped.Occurrences)
			assert.Len(t, sum.Proposal.Skipped.Names, 4)
		})
	}
}

// incrementalRecording writes a span (checkout), a metric (acme.queue.depth)
// and a log-record event (acme.order.placed) of service shop, each with
// the keys given.
func incrementalRecording(t *testing.T, path string, keys ...string) {
	t.Helper()
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "shop")
	sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetName("checkout")
	sp.SetKind(ptrace.SpanKindServer)
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "shop")
	m := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("acme.queue.depth")
	dp := m.SetEmptyGauge().DataPoints().AppendEmpty()
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "shop")
	lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	lr.SetEventName("acme.order.placed")
	for _, k := range keys {
		sp.Attributes().PutStr(k, "x")
		dp.Attributes().PutStr(k, "x")
		lr.Attributes().PutStr(k, "x")
	}
	var b bytes.Buffer
	ow := otlpfile.NewWriter(&b, otlpfile.FormatJSON, false)
	require.NoError(t, ow.Write(&otlpfile.Record{Kind: vocab.KindTraces, Traces: td}))
	require.NoError(t, ow.Write(&otlpfile.Record{Kind: vocab.KindMetrics, Metrics: md}))
	require.NoError(t, ow.Write(&otlpfile.Record{Kind: vocab.KindLogs, Logs: ld}))
	require.NoError(t, ow.Close())
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o600))
}

// TestInferIncrementalRefs: a second run over telemetry with a new key on
// the span, the metric and the event the first run wrote adds the key and
// its ref to each of them (a fresh run writes both; the second once wrote
// only the attribute), in both formats.
func TestInferIncrementalRefs(t *testing.T) {
	for _, v1 := range []bool{false, true} {
		t.Run(fmt.Sprint("v1=", v1), func(t *testing.T) {
			tmp := t.TempDir()
			first, second := filepath.Join(tmp, "first.jsonl"), filepath.Join(tmp, "second.jsonl")
			// http_method, a near-miss proposed renamed_to a semantic
			// convention: the registry does not load on its own.
			incrementalRecording(t, first, "acme.tenant", "http_method")
			incrementalRecording(t, second, "acme.tenant", "http_method", "acme.region")
			dir := filepath.Join(tmp, "acme")
			args := []string{"registry", "infer", "--output", dir}
			if v1 {
				args = append(args, "--v1")
			}
			code, _, errOut := otelgov(t, "", append(args, first)...)
			require.Equal(t, exitClean, code, errOut)
			code, out, errOut := otelgov(t, "", append(args, second)...)
			require.Equal(t, exitClean, code, errOut)
			assert.Contains(t, out, "4 addition(s)", "the attribute and its ref on each of the three")
			ix, err := registry.Load(registry.Sources{Embedded: true, OrgRegistries: []string{dir}})
			require.NoError(t, err)
			has := func(g *registry.Group) bool {
				require.NotNil(t, g)
				for _, a := range g.Attrs {
					if a.Key == "acme.region" {
						return true
					}
				}
				return false
			}
			assert.True(t, has(ix.SpanGroup("span.checkout")), "span")
			assert.True(t, has(ix.MetricGroup("acme.queue.depth")), "metric")
			assert.True(t, has(ix.EventGroup("acme.order.placed")), "event")
		})
	}
}

// TestOwnDefinitionsAbsError: when the working directory is gone, the
// absolute path of a relative --output cannot be made: an error, not a
// prefix of "/" that would take every registry's attributes for DIR's.
func TestOwnDefinitionsAbsError(t *testing.T) {
	gone := t.TempDir()
	t.Chdir(gone)
	require.NoError(t, os.Remove(gone))
	ix, err := registry.Default()
	require.NoError(t, err)
	_, err = ownDefinitions("acme", true, ix)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "its absolute path")
}
