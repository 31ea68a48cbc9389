//go:build e2e

package testbench

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/engine/enginetest"
	"github.com/otelgov/otelcol-governance/internal/e2e"
	"github.com/otelgov/otelcol-governance/registry"
)

// TestLineRate is the line-rate harness (benchmarks/linerate.sh, `make
// bench`). With -short (the e2e suite) it is a smoke run, 1 round of 2 s per
// run, that keeps the harness from rotting; without it, a measurement.
// Knobs (environment; a value that does not parse fails the test):
//
//	LINERATE_ROUNDS        interleaved rounds (default 9; -short 1)
//	LINERATE_DURATION      measured load per run (default 15s; -short 2s)
//	LINERATE_WARMUP        load before the measured window (default 3s; -short 500ms)
//	LINERATE_WORKERS       requests in flight (default 4)
//	LINERATE_RATE          spans/s; 0 = full speed (default 0)
//	LINERATE_WORKLOADS     comma-separated subset of conforming,deprecated,mixed
//	LINERATE_VARIANTS      comma-separated subset of the variants (a paired
//	                       variant brings its bare pipeline along)
//	LINERATE_BEFORE_BIN    an earlier governance binary: adds bare-before and
//	                       governance-before (LINERATE_BEFORE_DESC describes it)
//	LINERATE_POLICIES      comma-separated policy directories (relative to the
//	                       repository): adds governance-policies
//	LINERATE_COLLECTOR_CPU CPU list of the collector (default 0), written as
//	                       /proc writes Cpus_allowed_list (0, 2-3, 0,2)
//	LINERATE_CLIENT_CPU    CPU list of the test process and its client (default 1)
//	LINERATE_SLICE         run a round's variants side by side, the client
//	                       sending to each in turn for this long, until each
//	                       has had LINERATE_DURATION (RunLineInterleaved);
//	                       0 runs them one after the other (default 0)
//	LINERATE_COLLECTOR_ENV space-separated NAME=value added to every
//	                       collector's environment (after GOMAXPROCS=1,
//	                       which it may not set): GOGC=off GOMEMLIMIT=64MiB
//	                       fixes the GC's pacing, so that no variant's live
//	                       heap changes how often its collector collects
//	LINERATE_GATEWAY       set: adds the gateway CR's pipeline with its
//	                       shipped GC settings and with the Operator's
//	                       defaults, over a bare pipeline with the latter
//	                       (GatewayVariants); run it without
//	                       LINERATE_COLLECTOR_ENV
//	LINERATE_GATEWAY_CANDIDATES  further GC settings for that pipeline,
//	                       ";"-separated (ParseGatewayCandidates)
//
// TESTBENCH_RESULTS set: linerate.json and linerate.md are written there.
func TestLineRate(t *testing.T) {
	short := testing.Short()
	o := LineOptions{
		Rounds:       lineEnvInt(t, "LINERATE_ROUNDS", pick(short, 1, 9)),
		Duration:     lineEnvDuration(t, "LINERATE_DURATION", pick(short, 2*time.Second, 15*time.Second)),
		Warmup:       lineEnvDuration(t, "LINERATE_WARMUP", pick(short, 500*time.Millisecond, 3*time.Second)),
		Workers:      lineEnvInt(t, "LINERATE_WORKERS", 4),
		Rate:         lineEnvInt(t, "LINERATE_RATE", 0),
		CollectorCPU: lineEnvString("LINERATE_COLLECTOR_CPU", "0"),
		ClientCPU:    lineEnvString("LINERATE_CLIENT_CPU", "1"),
		Slice:        lineEnvDuration(t, "LINERATE_SLICE", 0),
		CollectorEnv: lineEnvList(t, "LINERATE_COLLECTOR_ENV"),
	}
	if o.Rounds < 1 || o.Duration <= 0 || o.Warmup < 0 || o.Workers < 1 || o.Rate < 0 || o.Slice < 0 {
		t.Fatalf("LINERATE_ROUNDS (%d) and LINERATE_WORKERS (%d) must be at least 1, LINERATE_DURATION (%s) positive, LINERATE_WARMUP (%s), LINERATE_RATE (%d) and LINERATE_SLICE (%s) not negative",
			o.Rounds, o.Workers, o.Duration, o.Warmup, o.Rate, o.Slice)
	}
	if runtime.NumCPU() < 2 || o.CollectorCPU == o.ClientCPU {
		t.Fatalf("the collector (LINERATE_COLLECTOR_CPU=%s) and the client (LINERATE_CLIENT_CPU=%s) need CPUs of their own; this process may use %d",
			o.CollectorCPU, o.ClientCPU, runtime.NumCPU())
	}

	ix, err := registry.Default()
	require.NoError(t, err)
	workloads := selectLine(t, "LINERATE_WORKLOADS", LineWorkloads, func(w LineWorkload) string { return w.Name })
	// The variants' names and order; attributes and transform do each
	// workload's renames (perWorkload).
	all := LineVariants(nil)
	if os.Getenv(BeforeBinaryEnv) != "" {
		all = append(all, BeforeVariants()...)
	}
	policies := policyDirs(t)
	if len(policies) > 0 {
		all = append(all, PoliciesVariant(policies))
	}
	if d := os.Getenv(ShadowEnv); d != "" {
		if !filepath.IsAbs(d) {
			d = filepath.Join(repoRoot(t), d)
		}
		if _, err := os.Stat(filepath.Join(d, "model")); err != nil { //nolint:gosec // the operator names the checkout to measure
			t.Fatalf("%s: %s is not a semantic-conventions checkout (%v)", ShadowEnv, d, err)
		}
		all = append(all, ShadowVariants(d)...)
	}
	if os.Getenv(SketchEnv) != "" {
		if os.Getenv(ShadowEnv) == "" {
			all = append(all, ExtensionVariant(SketchEnv))
		}
		all = append(all, SketchVariant())
	}
	if os.Getenv(GatewayEnv) != "" {
		candidates, err := ParseGatewayCandidates(os.Getenv(GatewayCandidatesEnv))
		require.NoError(t, err)
		all = append(all, GatewayVariants(t, candidates)...)
	}
	if _, err := os.Stat(SchemasDir(t)); err == nil {
		all = append(all, SchemaVariant(StartSchemaServer(t, SchemasDir(t))))
	} else {
		t.Run(VariantSchema, func(t *testing.T) {
			t.Skipf("contrib's schema processor not run: no schema files (%s: set %s)", err, SchemasDirEnv)
		})
	}
	variants := selectLineVariants(t, all)

	dists, variants := lineDistributions(t, variants)
	reqs := map[string]LineRequests{}
	perWorkload := map[string][]LineVariant{}
	for _, w := range workloads {
		reqs[w.Name], err = NewLineRequests(w, variants)
		require.NoError(t, err)
		renames, err := lineRenames(ix, w)
		require.NoError(t, err)
		perWorkload[w.Name] = withRenames(variants, renames)
	}

	pinClient(t, o.ClientCPU)

	out := LineRate{
		Machine: DescribeMachine(), Command: lineCommand(short), Options: o, Spans: LineSpansPerRequest,
		Workloads: workloads, Variants: variants, Before: beforeBinary(), Policies: policies,
	}
	for round := range o.Rounds {
		for _, w := range workloads {
			variants := perWorkload[w.Name]
			if o.Slice > 0 {
				t.Run(fmt.Sprintf("round%d/%s", round, w.Name), func(t *testing.T) {
					order := make([]LineVariant, len(variants))
					for i := range variants {
						order[i] = variants[(i+round)%len(variants)]
					}
					for _, res := range RunLineInterleaved(t, dists, order, w.Name, reqs[w.Name], round, o) {
						t.Log(res)
						for _, v := range res.Violations {
							t.Error(v)
						}
						out.Runs = append(out.Runs, res)
					}
				})
				continue
			}
			for i := range variants {
				v := variants[(i+round)%len(variants)]
				t.Run(fmt.Sprintf("round%d/%s/%s", round, w.Name, v.Name), func(t *testing.T) {
					res := RunLine(t, dists[v.Config.Distribution], v, w.Name, reqs[w.Name], round, o)
					t.Log(res)
					for _, v := range res.Violations {
						t.Error(v)
					}
					out.Runs = append(out.Runs, res)
				})
			}
		}
	}
	out.Machine.Finish()
	out.Summarize()
	md := out.Markdown()
	t.Log("\n" + md)
	SaveResult(t, "linerate", out)
	if dir := os.Getenv(ResultsDirEnv); dir != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "linerate.md"), []byte(md), 0o644)) //nolint:gosec // results are for reading
	}

	// Every run measured something, and every variant has a figure.
	assert.Zero(t, out.Lost, "runs that lost spans or escaped their CPU")
	for _, r := range out.Rows {
		for _, v := range variants {
			f, ok := r.Figures[v.Name]
			if assert.Truef(t, ok, "%s %s: no figure", r.Workload, v.Name) {
				assert.Positivef(t, f.MedianUS, "%s %s: CPU per span", r.Workload, v.Name)
			}
		}
	}
}

// TestLineRateSideBySide is a smoke run of the side-by-side mode
// (LineOptions.Slice, RunLineInterleaved): one round of the bare pipeline
// and governance on the conforming workload, in slices of 250 ms. Each
// variant is measured for the duration, loses nothing and stays pinned.
func TestLineRateSideBySide(t *testing.T) {
	o := LineOptions{
		Rounds: 1, Duration: time.Second, Warmup: 300 * time.Millisecond, Workers: 4,
		CollectorCPU: "0", ClientCPU: "1", Slice: 250 * time.Millisecond,
	}
	if runtime.NumCPU() < 2 {
		t.Skipf("the collector and the client need CPUs of their own; this process may use %d", runtime.NumCPU())
	}
	variants, _ := lineVariantsWhere(t, func(v LineVariant) bool { return v.Name == VariantBare || v.Name == VariantGovernance })
	require.Len(t, variants, 2)
	dists, variants := lineDistributions(t, variants)
	reqs, err := NewLineRequests(LineWorkloads[0], variants)
	require.NoError(t, err)
	pinClient(t, o.ClientCPU)

	runs := RunLineInterleaved(t, dists, variants, LineWorkloads[0].Name, reqs, 0, o)
	require.Len(t, runs, 2)
	for i, r := range runs {
		t.Log(r)
		assert.Equal(t, variants[i].Name, r.Variant)
		assert.Empty(t, r.Violations)
		assert.Positive(t, r.Spans)
		assert.Positive(t, r.CPU, "time on the CPU over the slices")
		assert.Greater(t, r.CPUShare, 0.3, "the collector was busy in its slices")
		assert.Less(t, r.CPUShare, 1.2, "the collector's CPU over its own slices only")
	}
}

// pinClient pins the test process, the client, (every thread) to cpus, off
// the collector's CPU, and gives it back its CPUs at the end.
func pinClient(t *testing.T, cpus string) {
	t.Helper()
	self := os.Getpid()
	threads, err := ThreadCPUs(self)
	require.NoError(t, err)
	original := threads[strconv.Itoa(self)]
	require.NoError(t, Pin(self, cpus))
	t.Cleanup(func() { assert.NoError(t, Pin(self, original)) })
}

// lineVariantsWhere returns the line rate's variants that keep selects,
// and the renames of the registry they do, on the deprecated workload.
func lineVariantsWhere(t *testing.T, keep func(LineVariant) bool) ([]LineVariant, []Rename) {
	t.Helper()
	ix, err := registry.Default()
	require.NoError(t, err)
	renames, err := lineRenames(ix, LineWorkloads[1])
	require.NoError(t, err)
	var out []LineVariant
	for _, v := range LineVariants(renames) {
		if keep(v) {
			out = append(out, v)
		}
	}
	return out, renames
}

// lineDistributions returns the binaries the variants need. With -short
// (the e2e suite builds only this distribution) a missing baseline or floor
// collector drops its variants, visibly, as a skipped subtest; otherwise it
// fails with the command that builds it.
func lineDistributions(t *testing.T, variants []LineVariant) (map[string]Distribution, []LineVariant) {
	t.Helper()
	dists := map[string]Distribution{"governance": Governance(t)}
	if p := os.Getenv(BeforeBinaryEnv); p != "" {
		if _, err := os.Stat(p); err != nil { //nolint:gosec // the operator names the binary to measure; the test only runs it
			t.Fatalf("%s: %v", BeforeBinaryEnv, err)
		}
		dists["before"] = Distribution{Name: "before", Path: p}
	}
	for _, name := range slices.Sorted(maps.Keys(builtBinaries)) {
		uses := func(v LineVariant) bool { return v.Config.Distribution == name }
		if !slices.ContainsFunc(variants, uses) {
			continue
		}
		if _, err := os.Stat(builtPath(t, name)); err != nil && testing.Short() {
			t.Run(name, func(t *testing.T) {
				t.Skipf("the %s collector's variants not run: %s missing (make %s)", name, builtPath(t, name), builtBinaries[name].target)
			})
			variants = slices.DeleteFunc(slices.Clone(variants), uses)
			continue
		}
		dists[name] = builtDistribution(t, name)
	}
	return dists, variants
}

// TestLineRateSameRenames checks that the line rate compares like with
// like: on every workload, governance (checks on and off), attributes and
// transform turn the replayed spans into the same attributes, and the
// deprecated keys are gone. On old-values, attributes and transform keep
// the values as received where governance migrates them
// (enginetest.OldValues).
func TestLineRateSameRenames(t *testing.T) {
	variants, _ := lineVariantsWhere(t, func(v LineVariant) bool {
		return v.Bare != "" && v.Name != VariantBare2 && v.Name != VariantFloor // the floor renames nothing
	})
	dists, variants := lineDistributions(t, variants)
	ix, err := registry.Default()
	require.NoError(t, err)
	for _, w := range LineWorkloads {
		t.Run(w.Name, func(t *testing.T) {
			renames, err := lineRenames(ix, w)
			require.NoError(t, err)
			variants := withRenames(variants, renames)
			outputs := map[string]map[string]any{}
			for _, v := range variants {
				sink := e2e.StartSink(t)
				ports := FreePorts(t)
				col := dists[v.Config.Distribution].Start(t, v.Config.YAML(ports, OTLPExporter(sink.Endpoint), Traces), ports, e2e.Options{})
				client, err := e2e.NewClient(ports.GRPCEndpoint(), "")
				require.NoError(t, err)
				require.NoError(t, client.SendTraces(t.Context(), e2e.GRPC, w.Traces()))
				sink.WaitFor(t, e2e.Counts{Spans: LineSpansPerRequest}, 10*time.Second)
				require.NoError(t, client.Close())
				col.Stop()
				spans := sink.Traces()[0].ResourceSpans().At(0).ScopeSpans().At(0).Spans()
				outputs[v.Name] = spans.At(spans.Len() - 1).Attributes().AsRaw()
			}
			want := outputs[VariantGovernance]
			for name, got := range outputs {
				if w.Name == "old-values" && name != VariantGovernance && name != VariantChecksOff {
					got = maps.Clone(got)
					for _, o := range enginetest.OldValues {
						assert.EqualValues(t, o.Value, got[o.To], "%s: %s keeps its value", name, o.To)
						got[o.To] = o.ToValue
					}
				}
				assert.Equalf(t, want, got, "%s: attributes differ from governance's", name)
			}
			for _, r := range renames {
				assert.NotContains(t, want, r.From)
				if w.Name != "conforming" {
					assert.Contains(t, want, r.SpanTo[ptrace.SpanKindServer])
				}
			}
		})
	}
}

// TestLineRateSchema checks what the schema variant does on the deprecated
// workload, sent with schema_url 1.20.0: contrib's schema processor,
// fetching the 1.44.0 schema file from the testbench's loopback server,
// renames 9 of the 10 deprecated keys as the registry does and leaves
// http.user_agent (its rename to user_agent.original is in no schema
// file), and marks the resource as translated to 1.44.0.
func TestLineRateSchema(t *testing.T) {
	dir := SchemasDir(t)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("shared semconv schema files absent (%s; set %s): %v", dir, SchemasDirEnv, err)
	}
	srv := StartSchemaServer(t, dir)
	v := SchemaVariant(srv)
	dists, variants := lineDistributions(t, []LineVariant{v})
	if len(variants) == 0 {
		return // skipped: no baseline
	}
	w := LineWorkloads[1]
	reqs, err := NewLineRequests(w, variants)
	require.NoError(t, err)
	require.Contains(t, reqs, v.SchemaURL)
	sink := e2e.StartSink(t)
	ports := FreePorts(t)
	dists[v.Config.Distribution].Start(t, v.Config.YAML(ports, OTLPExporter(sink.Endpoint), Traces), ports, e2e.Options{})
	client, err := e2e.NewClient(ports.GRPCEndpoint(), "")
	require.NoError(t, err)
	td := w.Traces()
	td.ResourceSpans().At(0).SetSchemaUrl(v.SchemaURL)
	require.NoError(t, client.SendTraces(t.Context(), e2e.GRPC, td))
	sink.WaitFor(t, e2e.Counts{Spans: LineSpansPerRequest}, 10*time.Second)
	require.NoError(t, client.Close())
	rs := sink.Traces()[0].ResourceSpans().At(0)
	assert.Equal(t, srv.URL(SchemaTarget), rs.SchemaUrl())
	got := rs.ScopeSpans().At(0).Spans().At(0).Attributes().AsRaw()

	ix, err := registry.Default()
	require.NoError(t, err)
	renames, err := lineRenames(ix, w)
	require.NoError(t, err)
	kept := 0
	for _, r := range renames {
		to := r.SpanTo[ptrace.SpanKindServer]
		if r.From == "http.user_agent" {
			assert.Contains(t, got, r.From, "in no schema file")
			assert.NotContains(t, got, to)
			kept++
			continue
		}
		assert.NotContains(t, got, r.From)
		assert.Contains(t, got, to, r.From)
	}
	assert.Equal(t, 1, kept, "http.user_agent among the workload's renames")
}

// TestLineRateFloor checks the floor variant's collector: it forwards each
// workload's spans unchanged, and at shutdown its floor processor reports
// that every key was the one it expected (it learnt them from the first
// request), so that the floor did a memo hit's walk and no more.
func TestLineRateFloor(t *testing.T) {
	variants, _ := lineVariantsWhere(t, func(v LineVariant) bool { return v.Name == VariantFloor })
	dists, variants := lineDistributions(t, variants)
	if len(variants) == 0 {
		return // skipped: no floor collector
	}
	v := variants[0]
	for _, w := range LineWorkloads {
		t.Run(w.Name, func(t *testing.T) {
			sink := e2e.StartSink(t)
			ports := FreePorts(t)
			col := dists[v.Config.Distribution].Start(t, v.Config.YAML(ports, OTLPExporter(sink.Endpoint), Traces), ports, e2e.Options{})
			client, err := e2e.NewClient(ports.GRPCEndpoint(), "")
			require.NoError(t, err)
			for range 3 {
				require.NoError(t, client.SendTraces(t.Context(), e2e.GRPC, w.Traces()))
			}
			sink.WaitFor(t, e2e.Counts{Spans: 3 * LineSpansPerRequest}, 10*time.Second)
			require.NoError(t, client.Close())
			col.Stop()
			for _, td := range sink.Traces() {
				assert.Equal(t, w.Traces().ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes().AsRaw(),
					td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes().AsRaw())
			}
			assert.Regexp(t, `Floor processor stopped.*"batches": 3, "keys_not_expected": 0, "value_type_sum": [1-9]`, col.Log())
		})
	}
}

func pick[T any](short bool, s, full T) T {
	if short {
		return s
	}
	return full
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	return filepath.Dir(dir) // the tests run in testbench/
}

func lineEnvString(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// lineEnvList reads name as CollectorEnv settings (ParseCollectorEnv);
// one it refuses fails the test.
func lineEnvList(t *testing.T, name string) []string {
	t.Helper()
	out, err := ParseCollectorEnv(os.Getenv(name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

func lineEnvInt(t *testing.T, name string, def int) int {
	t.Helper()
	return lineEnv(t, name, def, strconv.Atoi, "an integer")
}

func lineEnvDuration(t *testing.T, name string, def time.Duration) time.Duration {
	t.Helper()
	return lineEnv(t, name, def, time.ParseDuration, "a duration (e.g. 15s)")
}

// lineEnv parses the environment variable name, def when it is unset; a
// value that does not parse fails the test naming the variable.
func lineEnv[T any](t *testing.T, name string, def T, parse func(string) (T, error), want string) T {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	x, err := parse(v)
	if err != nil {
		t.Fatalf("%s=%q: not %s", name, v, want)
	}
	return x
}

// selectLine keeps the items named in the environment variable, in their
// own order; an unknown name fails the test.
func selectLine[T any](t *testing.T, env string, all []T, name func(T) string) []T {
	t.Helper()
	v := os.Getenv(env)
	if v == "" {
		return all
	}
	var out []T
	for _, n := range strings.Split(v, ",") {
		n = strings.TrimSpace(n)
		i := slices.IndexFunc(all, func(x T) bool { return name(x) == n })
		if i < 0 {
			var names []string
			for _, x := range all {
				names = append(names, name(x))
			}
			t.Fatalf("%s: unknown %q (have %s)", env, n, strings.Join(names, ", "))
		}
		out = append(out, all[i])
	}
	return out
}

// selectLineVariants is selectLine for LINERATE_VARIANTS, adding the bare
// pipeline each chosen variant is paired with, and the variants a knob
// added (LINERATE_BEFORE_BIN, LINERATE_POLICIES): setting the knob asks
// for them, and a subset that left them out ran without them, silently.
func selectLineVariants(t *testing.T, all []LineVariant) []LineVariant {
	t.Helper()
	chosen := selectLine(t, "LINERATE_VARIANTS", all, func(v LineVariant) string { return v.Name })
	for _, v := range all {
		if v.Knob != "" {
			chosen = append(chosen, v)
		}
	}
	var out []LineVariant
	for _, v := range all {
		if slices.ContainsFunc(chosen, func(c LineVariant) bool { return c.Name == v.Name || c.Bare == v.Name }) {
			out = append(out, v)
		}
	}
	return out
}

// lineCommand is the command that reproduces this session.
func lineCommand(short bool) string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "LINERATE_") && !strings.HasPrefix(kv, "LINERATE_COMMAND=") &&
			!strings.Contains(os.Getenv("LINERATE_COMMAND"), kv) { // the command may carry its own
			env = append(env, kv)
		}
	}
	slices.Sort(env)
	cmd := os.Getenv("LINERATE_COMMAND")
	if cmd == "" {
		cmd = "go test -count=1 -tags e2e -run '^TestLineRate$' ./testbench/"
		if short {
			cmd += " -short"
		}
	}
	return strings.TrimSpace(strings.Join(env, " ") + " " + cmd)
}

// policyDirs are PoliciesEnv's directories, relative ones to the
// repository's root, each checked to exist.
func policyDirs(t *testing.T) []string {
	t.Helper()
	var out []string
	for d := range strings.SplitSeq(os.Getenv(PoliciesEnv), ",") {
		if d = strings.TrimSpace(d); d == "" {
			continue
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(repoRoot(t), d)
		}
		if st, err := os.Stat(d); err != nil || !st.IsDir() { //nolint:gosec // the operator names the policies to measure
			t.Fatalf("%s: %s is not a directory (%v)", PoliciesEnv, d, err)
		}
		out = append(out, d)
	}
	return out
}

// beforeBinary describes the before variants' binary: LINERATE_BEFORE_DESC,
// else its path ("" without LINERATE_BEFORE_BIN).
func beforeBinary() string {
	p := os.Getenv(BeforeBinaryEnv)
	if p == "" {
		return ""
	}
	if d := os.Getenv("LINERATE_BEFORE_DESC"); d != "" {
		return d
	}
	return p
}

// The variants a knob adds run whatever LINERATE_VARIANTS says, each with
// its bare pipeline; the others are the subset asked for.
func TestSelectLineVariantsKnobs(t *testing.T) {
	t.Setenv("LINERATE_VARIANTS", "governance")
	all := append(append(append(LineVariants(nil), BeforeVariants()...), PoliciesVariant([]string{"p"})), ShadowVariants("s")...)
	var names []string
	for _, v := range selectLineVariants(t, all) {
		names = append(names, v.Name)
	}
	assert.ElementsMatch(t, []string{VariantBare, VariantGovernance, VariantBareBefore, VariantGovernanceBefore, VariantPolicies, VariantGovernanceExtension, VariantShadow}, names)
}
