package testbench

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/engine/enginetest"
	"github.com/otelgov/otelcol-governance/internal/e2e"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/testbench/replay"
)

// The line-rate harness (TestLineRate, benchmarks/linerate.sh): whole-process
// collector CPU per span, for the governance processor and the hand-written
// alternatives, measured so that a difference of 1% of the bare pipeline can
// be told from noise.
//
// Each run starts a fresh collector with GOMAXPROCS=1 pinned to one CPU
// (taskset), a pipeline OTLP/gRPC receiver → processors → nop exporter, no
// batch processor, no queue; the load client (package replay) runs in the
// test process, pinned to another CPU, and replays one pre-marshalled
// request of 100 spans. CPU is the collector's utime+stime from
// /proc/<pid>/stat over the measured window, divided by the spans accepted
// in it. Every round runs every variant once per workload in a rotating
// order; each figure is the median over rounds of the difference to the
// bare pipeline of the same binary in the same round. A second bare
// pipeline (bare2) is the noise floor.

// LineWorkload is one attribute set every span of the replayed request carries.
type LineWorkload struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	put         func(pcommon.Map)
	// renamed puts the attributes whose deprecated keys attributes and
	// transform rename on this workload (lineRenames): the deprecated
	// workload's, but for old-values, which has keys of its own.
	renamed func(pcommon.Map)
}

// LineWorkloads are the four workloads, built with the engine's
// benchmark attributes (engine/enginetest), so that the whole-process and
// the microbenchmark figures walk the same keys.
var LineWorkloads = []LineWorkload{
	{
		Name: "conforming", Description: "13 current keys",
		put:     func(m pcommon.Map) { enginetest.PutConformantSpanAttrs(m, 0) },
		renamed: enginetest.PutLineDeprecatedAttrs,
	},
	{
		Name: "deprecated", Description: "10 of 13 keys deprecated",
		put: enginetest.PutLineDeprecatedAttrs, renamed: enginetest.PutLineDeprecatedAttrs,
	},
	{
		Name: "mixed", Description: "the deprecated 13 + 4 unknown + 1 template instance",
		put: enginetest.PutLineMixedAttrs, renamed: enginetest.PutLineDeprecatedAttrs,
	},
	{
		Name: "old-values", Description: "10 of 13 keys deprecated, 3 of them with values that migrate (attributes and transform rename the keys only)",
		put: enginetest.PutLineOldValuesAttrs, renamed: enginetest.PutLineOldValuesAttrs,
	},
}

// maxQuietWait is the collector's runqueue wait per second above which a
// session is marked disturbed.
const maxQuietWait = 0.05

// LineSpansPerRequest is the size of the replayed request.
const LineSpansPerRequest = 100

// Traces is the replayed request's content: one resource, one scope,
// LineSpansPerRequest server spans carrying the workload's attributes.
func (w LineWorkload) Traces() ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	enginetest.PutResourceAttrs(rs.Resource().Attributes(), "checkout")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("linerate")
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range LineSpansPerRequest {
		sp := ss.Spans().AppendEmpty()
		sp.SetName("GET /api/cart")
		sp.SetKind(ptrace.SpanKindServer)
		sp.SetTraceID(traceID(uint64(i)))
		sp.SetSpanID(spanID(uint64(i)))
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(start.Add(time.Duration(i) * time.Millisecond)))
		sp.SetEndTimestamp(pcommon.NewTimestampFromTime(start.Add(time.Duration(i)*time.Millisecond + 3*time.Millisecond)))
		w.put(sp.Attributes())
	}
	return td
}

// lineRenames are the renames the registry gives the deprecated keys of
// workload w (LineWorkload.renamed), in the order the keys occur: what
// attributes and transform are configured to do on it. They rename keys
// only: on old-values they leave the values as received, where governance
// migrates them.
func lineRenames(ix *registry.Index, w LineWorkload) ([]Rename, error) {
	m := pcommon.NewMap()
	w.renamed(m)
	var out []Rename
	for k := range m.All() {
		a := ix.Lookup(k)
		if a == nil || !a.Renamed() {
			continue
		}
		out = append(out, *renameOf(a))
	}
	if len(out) != 10 {
		return nil, fmt.Errorf("testbench: the registry renames %d of the %s workload's deprecated keys, want 10", len(out), w.Name)
	}
	return out, nil
}

// LineVariant is one pipeline under test.
type LineVariant struct {
	Name string `json:"name"`
	// Bare is the variant this one is paired with (the bare pipeline of
	// the same binary); "" for a bare pipeline itself.
	Bare string `json:"bare,omitempty"`
	// Over, when set, is a variant whose cost this one adds to: the row
	// also holds this one's difference to it, paired per round
	// (LineRow.Over): what policies add to governance.
	Over string `json:"over,omitempty"`
	// Knob is the environment variable that added this variant
	// (BeforeVariants, PoliciesVariant): setting it asks for the variant,
	// which then runs whatever LINERATE_VARIANTS says.
	Knob string `json:"-"`
	// SchemaURL, when set, is the schema_url of the resource of the
	// requests this variant is sent (LineRequests): SchemaVariant's.
	SchemaURL string `json:"schema_url,omitempty"`
	// Env is added to this variant's collector environment after
	// LineOptions.CollectorEnv (a name set in both takes this value):
	// GatewayVariants' GC settings.
	Env    []string `json:"env,omitempty"`
	Config Config   `json:"-"`
}

// LineRequests are one workload's replayed requests by the schema_url of
// their resource: "" for the request every variant is sent, and one for
// each variant's SchemaURL.
type LineRequests map[string]replay.Request

// NewLineRequests marshals w's request for variants: without a
// schema_url, and with each of their SchemaURLs.
func NewLineRequests(w LineWorkload, variants []LineVariant) (LineRequests, error) {
	out := LineRequests{}
	for _, url := range append([]string{""}, variantSchemaURLs(variants)...) {
		if _, ok := out[url]; ok {
			continue
		}
		td := w.Traces()
		td.ResourceSpans().At(0).SetSchemaUrl(url)
		req, err := replay.NewTraceRequest(td)
		if err != nil {
			return nil, err
		}
		out[url] = req
	}
	return out, nil
}

func variantSchemaURLs(variants []LineVariant) []string {
	var out []string
	for _, v := range variants {
		if v.SchemaURL != "" {
			out = append(out, v.SchemaURL)
		}
	}
	return out
}

// Line variant names.
const (
	VariantBare         = "bare"
	VariantBare2        = "bare2"
	VariantGovernance   = "governance"
	VariantChecksOff    = "governance-checks-off"
	VariantBareBaseline = "bare-baseline"
	VariantAttributes   = "attributes"
	VariantTransform    = "transform"
	// VariantBareFloor and VariantFloor are the floor collector's bare
	// pipeline and its floor processor (testbench/floorprocessor: the
	// least a memo hit must do through pdata's API, deciding nothing).
	VariantBareFloor = "bare-floor"
	VariantFloor     = "floor"
	// VariantBareBefore and VariantGovernanceBefore are the bare pipeline and
	// governance's default configuration on an earlier build of this
	// distribution (BeforeBinaryEnv): a change's before and after in one
	// interleaved run.
	VariantBareBefore       = "bare-before"
	VariantGovernanceBefore = "governance-before"
)

// BeforeBinaryEnv names an earlier governance binary; when set, the line
// rate adds BeforeVariants.
const BeforeBinaryEnv = "LINERATE_BEFORE_BIN"

// PoliciesEnv lists directories of advice policies (comma-separated); when
// set, the line rate adds PoliciesVariant.
const PoliciesEnv = "LINERATE_POLICIES"

// VariantPolicies is governance's default configuration with advice
// policies loaded (findings::policies).
const VariantPolicies = "governance-policies"

// PoliciesVariant is governance's default configuration with the policy
// directories dirs (absolute paths) loaded, paired with the bare pipeline
// and, for what policies cost on top of it, with VariantGovernance.
func PoliciesVariant(dirs []string) LineVariant {
	return LineVariant{Name: VariantPolicies, Bare: VariantBare, Over: VariantGovernance, Knob: PoliciesEnv, Config: Config{
		Name: VariantPolicies, Distribution: "governance",
		Processors: fmt.Sprintf("  governance:\n    findings:\n      policies: [%s]\n", strings.Join(dirs, ", ")),
		Pipeline:   []string{"governance"},
	}}
}

// ShadowEnv names a semantic-conventions checkout (absolute, or relative
// to the repository's root); when set, the line rate adds
// ExtensionVariant and ShadowVariant.
const ShadowEnv = "LINERATE_SHADOW"

// SketchEnv, when set (to anything), adds ExtensionVariant and
// SketchVariant: what the extension's inference sketch costs.
const SketchEnv = "LINERATE_SKETCH"

// The variants of the extension's features, each over
// VariantGovernanceExtension.
const (
	// VariantGovernanceExtension is governance's default configuration
	// with its registry from a governance_registry extension.
	VariantGovernanceExtension = "governance-extension"
	// VariantShadow is VariantGovernanceExtension with a candidate registry
	// in the extension: the shadow at its default sample.
	VariantShadow = "governance-shadow"
	// VariantSketch is VariantGovernanceExtension with the extension's
	// inference sketch on (infer: enabled, its HTTP server on loopback).
	VariantSketch = "governance-sketch"
)

// extensionConfig is governance on a governance_registry extension
// (reloading off) with extra, the extension's further settings; its HTTP
// server is off unless extra sets it.
func extensionConfig(name, extra string) Config {
	http := "    http:\n      enabled: false\n"
	if strings.Contains(extra, "    http:\n") {
		http = ""
	}
	return Config{
		Name: name, Distribution: "governance",
		Extensions:   "  governance_registry:\n    poll_interval: 0s\n" + http + extra,
		ExtensionIDs: []string{"governance_registry"},
		Processors:   "  governance:\n    registry:\n      extension: governance_registry\n", Pipeline: []string{"governance"},
	}
}

// ExtensionVariant is governance on a governance_registry extension without
// a candidate or a sketch, paired with the bare pipeline: what the shadow's
// and the sketch's rows are over.
func ExtensionVariant(knob string) LineVariant {
	return LineVariant{Name: VariantGovernanceExtension, Bare: VariantBare, Knob: knob, Config: extensionConfig(VariantGovernanceExtension, "")}
}

// ShadowVariant is ExtensionVariant with semconvDir as the extension's
// candidate; its row over governance-extension is what the shadow costs.
func ShadowVariant(semconvDir string) LineVariant {
	return LineVariant{
		Name: VariantShadow, Bare: VariantBare, Over: VariantGovernanceExtension, Knob: ShadowEnv,
		Config: extensionConfig(VariantShadow, "    candidate:\n      semconv_dir: "+strconv.Quote(semconvDir)+"\n"),
	}
}

// SketchVariant is ExtensionVariant with the inference sketch on (example
// values off, its default), the extension's HTTP server on a loopback port
// the kernel picks (nothing reads it during the run); its row over
// governance-extension is what the sketch costs.
func SketchVariant() LineVariant {
	return LineVariant{
		Name: VariantSketch, Bare: VariantBare, Over: VariantGovernanceExtension, Knob: SketchEnv,
		Config: extensionConfig(VariantSketch, "    http:\n      endpoint: 127.0.0.1:0\n    infer:\n      enabled: true\n"),
	}
}

// ShadowVariants are ExtensionVariant and ShadowVariant.
func ShadowVariants(semconvDir string) []LineVariant {
	return []LineVariant{ExtensionVariant(ShadowEnv), ShadowVariant(semconvDir)}
}

// BeforeVariants run on the binary BeforeBinaryEnv names (distribution
// "before"): its bare pipeline and governance's default configuration,
// paired with each other.
func BeforeVariants() []LineVariant {
	return []LineVariant{
		{Name: VariantBareBefore, Knob: BeforeBinaryEnv, Config: Config{Name: VariantBareBefore, Distribution: "before"}},
		{Name: VariantGovernanceBefore, Bare: VariantBareBefore, Knob: BeforeBinaryEnv, Config: Config{
			Name: VariantGovernanceBefore, Distribution: "before",
			Processors: "  governance: {}\n", Pipeline: []string{"governance"},
		}},
	}
}

// LineVariants are every variant, in the order of the table: bare and
// bare2 of this distribution, governance with its default configuration
// (signal checks on) and with the checks off; the floor collector's bare
// pipeline and its floor processor; the baseline distribution's bare
// pipeline, and attributes and transform doing the same renames.
func LineVariants(renames []Rename) []LineVariant {
	bare := Config{Name: VariantBare, Distribution: "governance"}
	bare2 := bare
	bare2.Name = VariantBare2
	return []LineVariant{
		{Name: VariantBare, Config: bare},
		{Name: VariantBare2, Bare: VariantBare, Config: bare2},
		{Name: VariantGovernance, Bare: VariantBare, Config: Config{
			Name: VariantGovernance, Distribution: "governance",
			Processors: "  governance: {}\n", Pipeline: []string{"governance"},
		}},
		{Name: VariantChecksOff, Bare: VariantBare, Config: Config{
			Name: VariantChecksOff, Distribution: "governance",
			Processors: "  governance:\n    findings:\n      enabled: false\n", Pipeline: []string{"governance"},
		}},
		{Name: VariantBareFloor, Config: Config{Name: VariantBareFloor, Distribution: "floor"}},
		{Name: VariantFloor, Bare: VariantBareFloor, Config: Config{
			Name: VariantFloor, Distribution: "floor", Processors: "  floor: {}\n", Pipeline: []string{"floor"},
		}},
		{Name: VariantBareBaseline, Config: Config{Name: VariantBareBaseline, Distribution: "baseline"}},
		{Name: VariantAttributes, Bare: VariantBareBaseline, Config: attributesRenames(renames)},
		{Name: VariantTransform, Bare: VariantBareBaseline, Config: transformRenames(renames)},
	}
}

// withRenames returns variants with attributes and transform configured to
// do renames (those of one workload: lineRenames); the others as they are.
func withRenames(variants []LineVariant, renames []Rename) []LineVariant {
	out := slices.Clone(variants)
	for i := range out {
		switch out[i].Name {
		case VariantAttributes:
			out[i].Config = attributesRenames(renames)
		case VariantTransform:
			out[i].Config = transformRenames(renames)
		}
	}
	return out
}

// LineOptions size a line-rate session.
type LineOptions struct {
	Rounds   int           `json:"rounds"`
	Duration time.Duration `json:"duration_ns"` // measured load per run
	Warmup   time.Duration `json:"warmup_ns"`   // load before the measured window
	Workers  int           `json:"workers"`     // requests in flight
	Rate     int           `json:"rate"`        // spans/s; 0: full speed
	// Slice, when set, runs a round's variants side by side, the client
	// sending to each in turn for a slice (RunLineInterleaved); 0 runs
	// them one after the other (RunLine).
	Slice time.Duration `json:"slice_ns,omitempty"`
	// CollectorCPU and ClientCPU are the CPU lists the collector and the
	// test process (the client) are pinned to.
	CollectorCPU string `json:"collector_cpu"`
	ClientCPU    string `json:"client_cpu"`
	// CollectorEnv is added to every collector's environment after
	// GOMAXPROCS=1: the Go runtime's settings, such as a GC pacing that
	// does not follow the live heap (GOGC=off GOMEMLIMIT=…), under which
	// a processor's live heap cannot change how often the collector
	// collects.
	CollectorEnv []string `json:"collector_env,omitempty"`
}

// ParseCollectorEnv reads LineOptions.CollectorEnv from space-separated
// NAME=value settings; a word without a name and "=", or a setting of
// GOMAXPROCS (the harness's own: every collector runs at 1), is an error.
func ParseCollectorEnv(s string) ([]string, error) {
	out := strings.Fields(s)
	for _, kv := range out {
		k, _, ok := strings.Cut(kv, "=")
		switch {
		case !ok || k == "":
			return nil, fmt.Errorf("%q is not NAME=value", kv)
		case k == "GOMAXPROCS":
			return nil, fmt.Errorf("%q: the harness sets GOMAXPROCS=1 for every collector", kv)
		}
	}
	return out, nil
}

// LineRun is one measured run.
type LineRun struct {
	Workload string `json:"workload"`
	Variant  string `json:"variant"`
	Round    int    `json:"round"`
	// Spans accepted in the measured window, and the collector's CPU over it.
	Spans        uint64        `json:"spans"`
	CPU          time.Duration `json:"cpu_ns"`
	CPUPerSpanUS float64       `json:"cpu_per_span_us"`
	SpansPerSec  float64       `json:"spans_per_sec"`
	// CPUShare is the collector's cores used in the window (1 when the
	// client kept it busy); WaitShare its runqueue wait per second (what
	// the rest of the machine took from it); ClientCPUShare the test
	// process's cores used (client and harness, on their own CPU).
	CPUShare       float64 `json:"cpu_share"`
	WaitShare      float64 `json:"wait_share"`
	ClientCPUShare float64 `json:"client_cpu_share"`
	// Loss check over the whole run (warm-up included): spans the client
	// saw accepted, the receiver's accepted and refused counts, and each
	// processor's outgoing items.
	ClientAccepted   uint64             `json:"client_accepted"`
	ReceiverAccepted float64            `json:"receiver_accepted"`
	ReceiverRefused  float64            `json:"receiver_refused"`
	ProcessorOut     map[string]float64 `json:"processor_outgoing,omitempty"`
	Behind           time.Duration      `json:"behind_ns,omitempty"`
	Violations       []string           `json:"violations,omitempty"`
}

// OK reports whether the run lost nothing and was measured as designed.
func (r LineRun) OK() bool { return len(r.Violations) == 0 && r.Spans > 0 }

func (r LineRun) String() string {
	return fmt.Sprintf("round %d %-10s %-22s %9d spans %8.0f/s  %6.3f µs CPU/span  collector %.2f cores (%.2f waiting)  client %.2f cores",
		r.Round, r.Workload, r.Variant, r.Spans, r.SpansPerSec, r.CPUPerSpanUS, r.CPUShare, r.WaitShare, r.ClientCPUShare)
}

// RunLine performs one run of variant v on workload request req: a fresh
// collector, its warm-up, then o.Duration measured.
func RunLine(tb testing.TB, dist Distribution, v LineVariant, workload string, reqs LineRequests, round int, o LineOptions) LineRun {
	tb.Helper()
	r := startLine(tb, dist, v, workload, reqs, round, o)
	defer r.close()
	r.warm(tb, o)
	r.measure(tb, o.Duration, false)
	return r.finish(o)
}

// RunLineInterleaved performs one round of the variants vs on workload
// request req side by side (LineOptions.Slice): each variant's collector
// is started and warmed up, all pinned to the collector's CPU, and the
// client then sends to one at a time, in turn, for a slice each, until
// each has been measured for o.Duration. A disturbance of the machine that
// lasts longer than a few slices (another tenant on the host) falls on all
// the variants of the round alike, where sequential runs of o.Duration put
// it on one. CPU is the collector threads' time on the CPU
// (/proc/<pid>/task/*/schedstat, in ns) over its slices.
func RunLineInterleaved(tb testing.TB, dists map[string]Distribution, vs []LineVariant, workload string, reqs LineRequests, round int, o LineOptions) []LineRun {
	tb.Helper()
	runs := make([]*lineRun, len(vs))
	for i, v := range vs {
		runs[i] = startLine(tb, dists[v.Config.Distribution], v, workload, reqs, round, o)
		defer runs[i].close()
	}
	for _, r := range runs {
		r.warm(tb, o)
	}
	cycles := max(1, int((o.Duration+o.Slice-1)/o.Slice))
	for n := range cycles {
		for i := range runs {
			runs[(i+n)%len(runs)].measure(tb, o.Slice, true)
		}
	}
	out := make([]LineRun, len(runs))
	for i, r := range runs {
		out[i] = r.finish(o)
	}
	return out
}

// lineRun is one variant's collector and client while it is measured, and
// what the measured windows added up to.
type lineRun struct {
	res    LineRun
	v      LineVariant
	col    *e2e.Collector
	ports  Ports
	pid    int
	client *replay.Client
	// The measured windows' sums: wall time, runqueue wait and the test
	// process's CPU (the client's).
	wall, wait, clientCPU time.Duration
}

func startLine(tb testing.TB, dist Distribution, v LineVariant, workload string, reqs LineRequests, round int, o LineOptions) *lineRun {
	tb.Helper()
	req, ok := reqs[v.SchemaURL]
	if !ok {
		tb.Fatalf("%s: no request with schema_url %q", v.Name, v.SchemaURL)
	}
	r := &lineRun{res: LineRun{Workload: workload, Variant: v.Name, Round: round}, v: v, ports: FreePorts(tb)}
	r.col = dist.Start(tb, v.Config.YAML(r.ports, NopExporter(), Traces), r.ports, e2e.Options{Env: slices.Concat([]string{"GOMAXPROCS=1"}, o.CollectorEnv, v.Env)})
	r.pid = r.col.PID()
	if err := Pin(r.pid, o.CollectorCPU); err != nil {
		r.col.Stop()
		tb.Fatal(err)
	}
	client, err := replay.NewClient(req, replay.Options{Endpoint: r.ports.GRPCEndpoint(), Workers: o.Workers, Rate: o.Rate})
	if err != nil {
		r.col.Stop()
		tb.Fatal(err)
	}
	r.client = client
	return r
}

func (r *lineRun) close() {
	_ = r.client.Close()
	r.col.Stop()
}

func (r *lineRun) fail(format string, args ...any) {
	r.res.Violations = append(r.res.Violations, fmt.Sprintf(format, args...))
}

// warm sends the warm-up load, then pins the collector again: a thread
// started while the first taskset walked the threads would have escaped
// it.
func (r *lineRun) warm(tb testing.TB, o LineOptions) {
	tb.Helper()
	if o.Warmup > 0 {
		r.client.Run(context.Background(), o.Warmup)
	}
	if err := Pin(r.pid, o.CollectorCPU); err != nil {
		tb.Fatal(err)
	}
}

// measure sends load for d and adds the window to the run: the spans
// accepted and the collector's CPU, in clock ticks (utime+stime) or, with
// onCPU, its threads' time on the CPU in ns.
func (r *lineRun) measure(tb testing.TB, d time.Duration, onCPU bool) {
	tb.Helper()
	u0, err0 := ReadUsage(r.pid)
	c0, errc0 := ReadUsage(os.Getpid())
	st := r.client.Run(context.Background(), d)
	u1, err1 := ReadUsage(r.pid)
	c1, errc1 := ReadUsage(os.Getpid())
	for _, err := range []error{err0, errc0, err1, errc1} {
		if err != nil {
			tb.Fatalf("read /proc: %v", err)
		}
	}
	cpu := u1.CPU - u0.CPU
	if onCPU {
		if u1.OnCPU == 0 {
			tb.Fatal("no schedstats (/proc/<pid>/task/*/schedstat): LINERATE_SLICE needs them")
		}
		cpu = u1.OnCPU - u0.OnCPU
	}
	r.res.Spans += st.Accepted
	r.res.CPU += cpu
	r.res.Behind += st.Behind
	r.wall += u1.At.Sub(u0.At)
	r.wait += u1.RunqueueWait - u0.RunqueueWait
	r.clientCPU += c1.CPU - c0.CPU
}

// finish computes the run's figures and checks that nothing was lost.
func (r *lineRun) finish(o LineOptions) LineRun {
	res := &r.res
	if err := checkPinned(r.pid, o.CollectorCPU); err != nil {
		r.fail("%v", err)
	}
	wall := r.wall.Seconds()
	res.SpansPerSec = float64(res.Spans) / wall
	res.CPUShare = res.CPU.Seconds() / wall
	res.WaitShare = r.wait.Seconds() / wall
	res.ClientCPUShare = r.clientCPU.Seconds() / wall
	if res.Spans > 0 {
		res.CPUPerSpanUS = float64(res.CPU.Nanoseconds()) / 1e3 / float64(res.Spans)
	}

	// Nothing lost: what the client saw accepted is what the receiver
	// accepted and what every processor passed on. The nop exporter has no
	// counters; with no batch and no queue, the receiver's accepted count
	// is what the pipeline took to the end.
	total := r.client.Stats()
	res.ClientAccepted = total.Accepted
	if total.Failed > 0 || total.Rejected > 0 {
		r.fail("client: %d requests failed, %d spans rejected: %s", total.Failed, total.Rejected, total.LastError)
	}
	fams, err := e2e.Scrape(r.ports.Metrics)
	if err != nil {
		r.fail("scrape :%d: %v", r.ports.Metrics, err)
	} else {
		sig := map[string]string{"transport": "grpc"}
		var found bool
		if res.ReceiverAccepted, found = fams.Sum("otelcol_receiver_accepted_spans", sig); !found {
			r.fail("otelcol_receiver_accepted_spans missing")
		}
		res.ReceiverRefused, _ = fams.Sum("otelcol_receiver_refused_spans", sig)
		if res.ReceiverAccepted != float64(total.Accepted) || res.ReceiverRefused != 0 {
			r.fail("lost spans: client accepted %d, receiver accepted %.0f, refused %.0f", total.Accepted, res.ReceiverAccepted, res.ReceiverRefused)
		}
		for _, p := range r.v.Config.Pipeline {
			if t, _, _ := strings.Cut(p, "/"); t == "batch" {
				// Not built on processorhelper: no item counts, and it
				// holds spans until its timeout; the receiver's count
				// above and the processors before it cover the loss.
				continue
			}
			out, found := fams.Sum("otelcol_processor_outgoing_items", map[string]string{"processor": p, "otel_signal": "traces"})
			if !found {
				r.fail("otelcol_processor_outgoing_items{processor=%q} missing", p)
				continue
			}
			if res.ProcessorOut == nil {
				res.ProcessorOut = map[string]float64{}
			}
			res.ProcessorOut[p] = out
			if out != float64(total.Accepted) {
				r.fail("lost spans: client accepted %d, processor %s passed on %.0f", total.Accepted, p, out)
			}
		}
	}
	if res.Spans == 0 {
		r.fail("no span accepted in the measured window")
	}
	if r.col.Exited() {
		r.fail("collector exited during the run")
	}
	return *res
}

// LineFigure is one variant's paired difference to its bare pipeline (or,
// for a bare pipeline, its own CPU per span), over the rounds.
type LineFigure struct {
	// MedianUS is the median CPU µs per span of the variant itself.
	MedianUS float64 `json:"median_us"`
	// DeltaUS is the median over rounds of (variant − bare of the same
	// round), µs per span; PctOfBare is DeltaUS over the bare median.
	DeltaUS   float64 `json:"delta_us"`
	PctOfBare float64 `json:"pct_of_bare"`
	// CI95 is a distribution-free confidence interval of DeltaUS's median
	// (order statistics, at least 95%), absent below 6 rounds; MinUS and
	// MaxUS are the extreme per-round differences.
	CI95  *[2]float64 `json:"ci95_us,omitempty"`
	MinUS float64     `json:"min_us"`
	MaxUS float64     `json:"max_us"`
	N     int         `json:"rounds"`
}

// LineRow is one workload's figures.
type LineRow struct {
	Workload    string                `json:"workload"`
	Description string                `json:"description"`
	Figures     map[string]LineFigure `json:"figures"`
	// Over are, by variant, its difference to the variant it adds to
	// (LineVariant.Over), paired per round, in % of the bare median.
	Over map[string]LineFigure `json:"over,omitempty"`
	// ResolutionPct is the largest |bare2 − bare| the floor's CI95 allows,
	// in % of bare: differences smaller than this cannot be told from
	// noise. Absent below 6 rounds.
	ResolutionPct *float64 `json:"resolution_pct,omitempty"`
	// OverFloor is governance's overhead over the floor's, each over its
	// own binary's bare pipeline, paired per round (pairedRatio).
	OverFloor *LineRatio `json:"governance_over_floor,omitempty"`
}

// LineRatio is a ratio of two variants' overheads, each over its own bare
// pipeline, taken per round: the median over rounds of
// (a − bare of a) ÷ (b − bare of b), with the CI95 of that median as
// LineFigure's, absent below 6 rounds.
type LineRatio struct {
	Median float64     `json:"median"`
	CI95   *[2]float64 `json:"ci95,omitempty"`
	N      int         `json:"rounds"`
}

// LineRate is the results set of TestLineRate (linerate.json).
type LineRate struct {
	Machine   Machine        `json:"machine"`
	Command   string         `json:"command"`
	Options   LineOptions    `json:"options"`
	Spans     int            `json:"spans_per_request"`
	Workloads []LineWorkload `json:"workloads"`
	Variants  []LineVariant  `json:"variants"`
	// Before describes the binary of the before variants (BeforeBinaryEnv).
	Before string `json:"before_binary,omitempty"`
	// Policies are the policy directories of VariantPolicies (PoliciesEnv).
	Policies   []string  `json:"policies,omitempty"`
	Runs       []LineRun `json:"runs"`
	Rows       []LineRow `json:"rows"`
	Lost       uint64    `json:"lost_runs"` // runs that failed the loss or pinning checks
	ClientCPUs float64   `json:"client_cpu_share_max"`
}

// Summarize computes the rows from the runs that passed.
func (l *LineRate) Summarize() {
	l.Rows = nil
	l.Lost = 0
	for _, r := range l.Runs {
		if !r.OK() {
			l.Lost++
		}
		l.ClientCPUs = max(l.ClientCPUs, r.ClientCPUShare)
	}
	for _, w := range l.Workloads {
		row := LineRow{Workload: w.Name, Description: w.Description, Figures: map[string]LineFigure{}}
		cpu := map[string]map[int]float64{} // variant → round → µs/span
		for _, r := range l.Runs {
			if r.Workload != w.Name || !r.OK() {
				continue
			}
			if cpu[r.Variant] == nil {
				cpu[r.Variant] = map[int]float64{}
			}
			cpu[r.Variant][r.Round] = r.CPUPerSpanUS
		}
		bareMedian := median(mapValues(cpu[VariantBare]))
		for _, v := range l.Variants {
			own := cpu[v.Name]
			if len(own) == 0 {
				continue
			}
			f := LineFigure{MedianUS: median(mapValues(own)), N: len(own)}
			if v.Bare != "" {
				var ok bool
				if f, ok = paired(own, cpu[v.Bare], median(mapValues(cpu[v.Bare]))); !ok {
					continue
				}
			}
			row.Figures[v.Name] = f
			if v.Over != "" && len(cpu[VariantBare]) > 0 {
				if o, ok := paired(own, cpu[v.Over], bareMedian); ok {
					if row.Over == nil {
						row.Over = map[string]LineFigure{}
					}
					row.Over[v.Name] = o
				}
			}
		}
		if r, ok := pairedRatio(cpu[VariantGovernance], cpu[VariantBare], cpu[VariantFloor], cpu[VariantBareFloor]); ok {
			row.OverFloor = &r
		}
		if floor, ok := row.Figures[VariantBare2]; ok && floor.CI95 != nil {
			bare := row.Figures[VariantBare].MedianUS
			res := 100 * max(math.Abs(floor.CI95[0]), math.Abs(floor.CI95[1])) / bare
			row.ResolutionPct = &res
		}
		l.Rows = append(l.Rows, row)
	}
}

// paired is the figure of own against base, round by round: the median
// and CI of the differences, in % of pct (a bare median).
func paired(own, base map[int]float64, pct float64) (LineFigure, bool) {
	var diffs []float64
	for round, x := range own {
		if b, ok := base[round]; ok {
			diffs = append(diffs, x-b)
		}
	}
	if len(diffs) == 0 {
		return LineFigure{}, false
	}
	slices.Sort(diffs)
	f := LineFigure{MedianUS: median(mapValues(own)), N: len(diffs), DeltaUS: median(diffs), MinUS: diffs[0], MaxUS: diffs[len(diffs)-1]}
	f.PctOfBare = 100 * f.DeltaUS / pct
	if lo, hi, ok := medianCI95(diffs); ok {
		f.CI95 = &[2]float64{lo, hi}
	}
	return f, true
}

// pairedRatio is (a − aBare) ÷ (b − bBare) per round in which all four
// ran, over the rounds. A round whose denominator is not positive (b did
// not measure above its bare pipeline in it) has an unbounded ratio:
// +Inf, or −Inf when its numerator is negative, so that such rounds widen
// the interval instead of dropping out of it.
func pairedRatio(a, aBare, b, bBare map[int]float64) (LineRatio, bool) {
	var ratios []float64
	for round, x := range a {
		xb, ok1 := aBare[round]
		y, ok2 := b[round]
		yb, ok3 := bBare[round]
		if !ok1 || !ok2 || !ok3 {
			continue
		}
		num, den := x-xb, y-yb
		switch {
		case den > 0:
			ratios = append(ratios, num/den)
		case num < 0:
			ratios = append(ratios, math.Inf(-1))
		default:
			ratios = append(ratios, math.Inf(1))
		}
	}
	if len(ratios) == 0 {
		return LineRatio{}, false
	}
	slices.Sort(ratios)
	r := LineRatio{Median: median(ratios), N: len(ratios)}
	if lo, hi, ok := medianCI95(ratios); ok {
		r.CI95 = &[2]float64{lo, hi}
	}
	return r, true
}

func mapValues(m map[int]float64) []float64 {
	out := make([]float64, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// medianCI95 is the distribution-free confidence interval of the median of
// sorted: [x(k), x(n-k+1)] for the largest k with P(Binomial(n, ½) < k) ≤
// 2.5%, which covers the median with at least 95% probability. It needs 6
// values or more.
func medianCI95(sorted []float64) (lo, hi float64, ok bool) {
	n := len(sorted)
	k := 0
	// cdf is P(X ≤ i) for X ~ Binomial(n, ½), built term by term.
	term := math.Pow(0.5, float64(n))
	cdf := 0.0
	for i := 0; i < n/2; i++ {
		cdf += term
		if cdf > 0.025 {
			break
		}
		k = i + 1
		term *= float64(n-i) / float64(i+1)
	}
	if k == 0 {
		return 0, 0, false
	}
	return sorted[k-1], sorted[n-k], true
}

// Markdown renders the session as the table the issue asks for, then the
// details.
func (l *LineRate) Markdown() string {
	var b strings.Builder
	o := l.Options
	load := "full speed"
	if o.Rate > 0 {
		load = fmt.Sprintf("%d spans/s", o.Rate)
	}
	fmt.Fprintf(&b, "# Line rate: collector CPU per span\n\n")
	fmt.Fprintf(&b, "`%s`, %s–%s UTC, commit %s, %s, %d cores, load average %s before, %s after.\n\n",
		l.Command, l.Machine.Start.Format("2006-01-02 15:04"), l.Machine.End.Format("15:04"), l.Machine.Commit,
		l.Machine.CPU, l.Machine.Cores, l.Machine.LoadBefore, l.Machine.LoadAfter)
	if o.Slice > 0 {
		fmt.Fprintf(&b, "%d rounds; per round a fresh collector per variant (`GOMAXPROCS=1`), all pinned to CPU %s side by side, each warmed up %s, "+
			"then the client sends to one at a time, in turn, in slices of %s, until each has been measured for %s, at %s; "+
			"the client (package `testbench/replay`, %d requests in flight, pinned to CPU %s) replays one pre-marshalled request of %d spans; "+
			"OTLP/gRPC → processor → `nop`, no batch. Figure: the collector threads' time on the CPU (schedstat, ns) per accepted span over its slices; ",
			o.Rounds, o.CollectorCPU, o.Warmup, o.Slice, o.Duration, load, o.Workers, o.ClientCPU, l.Spans)
	} else {
		fmt.Fprintf(&b, "%d interleaved rounds; per run a fresh collector (`GOMAXPROCS=1`, pinned to CPU %s), %s warm-up then %s measured at %s; "+
			"the client (package `testbench/replay`, %d requests in flight, pinned to CPU %s) replays one pre-marshalled request of %d spans; "+
			"OTLP/gRPC → processor → `nop`, no batch. Figure: collector utime+stime per accepted span; ",
			o.Rounds, o.CollectorCPU, o.Warmup, o.Duration, load, o.Workers, o.ClientCPU, l.Spans)
	}
	if len(o.CollectorEnv) > 0 {
		fmt.Fprintf(&b, "Every collector's environment adds `%s`.\n\n", strings.Join(o.CollectorEnv, " "))
	}
	if slices.ContainsFunc(l.Variants, func(v LineVariant) bool { return len(v.Env) > 0 }) {
		b.WriteString("and per variant:\n\n")
		for _, v := range l.Variants {
			if len(v.Env) > 0 {
				fmt.Fprintf(&b, "- `%s`'s environment adds `%s`;\n", v.Name, strings.Join(v.Env, " "))
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("Δ = median over rounds of (variant − bare pipeline of the same binary, same round), " +
		"[95% CI of that median] when there are 6 rounds or more. Floor = bare2 − bare.\n\n")

	var waits []float64
	for _, r := range l.Runs {
		waits = append(waits, r.WaitShare)
	}
	if w := median(waits); o.Slice > 0 {
		fmt.Fprintf(&b, "Runqueue wait, median over runs: %.0f%% of the time; side by side it includes the other variants' collectors, "+
			"which share the CPU and finish their last slice's requests at the start of the next one. Read the floor and the CIs.\n\n", 100*w)
	} else if w > maxQuietWait {
		fmt.Fprintf(&b, "**Disturbed session**: the collector was runnable but without its CPU %.0f%% of the time (median over runs; "+
			"a quiet machine shows under %.0f%%). These figures carry the rest of the machine's load: read the floor and the CIs, not the medians alone.\n\n",
			100*w, 100*maxQuietWait)
	}
	b.WriteString("| workload | bare µs/span | noise floor (bare2 − bare) | governance | governance, checks off | floor processor | attributes (same renames) | transform (same renames) | schema (schema_url " + SchemaFrom + " → " + SchemaTarget + ") | governance ÷ floor | attributes ÷ governance | transform ÷ governance | schema ÷ governance | resolves 1% of bare? |\n")
	b.WriteString("|---|---:|---|---|---|---|---|---|---|---:|---:|---:|---:|---|\n")
	for _, r := range l.Rows {
		bare, ok := r.Figures[VariantBare]
		if !ok {
			fmt.Fprintf(&b, "| %s: %s | no passing bare run | | | | | | | | | | | | |\n", r.Workload, r.Description)
			continue
		}
		g := r.Figures[VariantGovernance]
		fmt.Fprintf(&b, "| %s: %s | %.3f | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			r.Workload, r.Description, bare.MedianUS,
			cell(r.Figures, VariantBare2), cell(r.Figures, VariantGovernance), cell(r.Figures, VariantChecksOff),
			cell(r.Figures, VariantFloor), cell(r.Figures, VariantAttributes), cell(r.Figures, VariantTransform), cell(r.Figures, VariantSchema),
			ratioCell(r.OverFloor), ratio(r.Figures, VariantAttributes, g), ratio(r.Figures, VariantTransform, g), ratio(r.Figures, VariantSchema, g), resolves(r))
	}
	b.WriteString("\nEach cell: Δ µs/span (% of its own binary's bare) [95% CI]. ")
	b.WriteString("attributes and transform run in the baseline distribution (contrib, `make baseline`) and are paired with its own bare pipeline; " +
		"the floor processor runs in the floor collector (`make floor`) and is paired with its bare pipeline. " +
		"governance ÷ floor: the median over rounds of (governance − bare) ÷ (floor − bare-floor) [95% CI]; " +
		"a round in which the floor did not measure above its bare pipeline counts as ∞. " +
		"schema is contrib's schema processor (baseline distribution) translating requests whose resource's schema_url is " + SchemaFrom +
		" to " + SchemaTarget + ", the schema files served on loopback; it does the renames the schema files list (not `http.user_agent`'s).\n\n")
	if l.Before != "" {
		fmt.Fprintf(&b, "%s and %s run an earlier build (%s) and are paired with each other: the change's before and after in the same rounds.\n\n",
			VariantGovernanceBefore, VariantBareBefore, l.Before)
	}
	if len(l.Policies) > 0 {
		fmt.Fprintf(&b, "%s is governance's default configuration with `findings::policies: [%s]`, paired with bare, "+
			"and with governance for what policies add (the last table).\n\n", VariantPolicies, strings.Join(l.Policies, ", "))
	}

	b.WriteString("| workload | variant | µs/span (median) | Δ µs/span | % of bare | 95% CI of Δ | min, max Δ | rounds |\n|---|---|---:|---:|---:|---|---|---:|\n")
	for _, r := range l.Rows {
		for _, v := range l.Variants {
			f, ok := r.Figures[v.Name]
			if !ok {
				continue
			}
			if v.Bare == "" {
				fmt.Fprintf(&b, "| %s | %s | %.3f | | | | | %d |\n", r.Workload, v.Name, f.MedianUS, f.N)
				continue
			}
			ci := "n/a"
			if f.CI95 != nil {
				ci = fmt.Sprintf("[%+.3f, %+.3f]", f.CI95[0], f.CI95[1])
			}
			fmt.Fprintf(&b, "| %s | %s | %.3f | %+.3f | %+.1f%% | %s | %+.3f, %+.3f | %d |\n",
				r.Workload, v.Name, f.MedianUS, f.DeltaUS, f.PctOfBare, ci, f.MinUS, f.MaxUS, f.N)
		}
	}
	b.WriteString(l.overTable())
	b.WriteString(l.targets())
	fmt.Fprintf(&b, "\n%d runs, %d of them failed the loss or pinning check (left out of the figures). "+
		"In every other run: spans the client saw accepted = the receiver's accepted spans = every processor's outgoing items, 0 refused, "+
		"and every collector thread allowed only on CPU %s. "+
		"Collector runqueue wait (time runnable without a CPU, per second): median %.3f, max %.3f; client process at most %.2f cores.\n",
		len(l.Runs), l.Lost, o.CollectorCPU, median(waits), slices.Max(append(waits, 0)), l.ClientCPUs)
	return b.String()
}

func cell(figs map[string]LineFigure, variant string) string {
	f, ok := figs[variant]
	if !ok {
		return "not run"
	}
	s := fmt.Sprintf("%+.3f (%+.1f%%)", f.DeltaUS, f.PctOfBare)
	if f.CI95 != nil {
		s += fmt.Sprintf(" [%+.3f, %+.3f]", f.CI95[0], f.CI95[1])
	}
	return s
}

func ratio(figs map[string]LineFigure, variant string, g LineFigure) string {
	f, ok := figs[variant]
	if !ok || g.N == 0 || g.DeltaUS <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f×", f.DeltaUS/g.DeltaUS)
}

// ratioCell renders a paired ratio: median [95% CI].
func ratioCell(r *LineRatio) string {
	if r == nil {
		return "not run"
	}
	s := fmt.Sprintf("%.2f×", r.Median)
	if r.CI95 != nil {
		s += fmt.Sprintf(" [%.2f, %.2f]", r.CI95[0], r.CI95[1])
	}
	return s
}

func resolves(r LineRow) string {
	if r.ResolutionPct == nil {
		return "unknown (fewer than 6 rounds)"
	}
	if *r.ResolutionPct <= 1 {
		return fmt.Sprintf("yes (±%.2f%%)", *r.ResolutionPct)
	}
	return fmt.Sprintf("no (±%.2f%%)", *r.ResolutionPct)
}

// median of v; NaN for none.
func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// overTable renders LineRow.Over: what a variant adds to another, paired
// per round.
func (l *LineRate) overTable() string {
	var b strings.Builder
	for _, r := range l.Rows {
		for _, v := range l.Variants {
			f, ok := r.Over[v.Name]
			if !ok {
				continue
			}
			if b.Len() == 0 {
				b.WriteString("\n| workload | variant | over | Δ µs/span | % of bare | 95% CI of Δ | min, max Δ | rounds |\n|---|---|---|---:|---:|---|---|---:|\n")
			}
			ci := "n/a"
			if f.CI95 != nil {
				ci = fmt.Sprintf("[%+.3f, %+.3f]", f.CI95[0], f.CI95[1])
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %+.3f | %+.1f%% | %s | %+.3f, %+.3f | %d |\n",
				r.Workload, v.Name, v.Over, f.DeltaUS, f.PctOfBare, ci, f.MinUS, f.MaxUS, f.N)
		}
	}
	return b.String()
}

// targets says, per workload, where governance stands against the goals of
// issues 19 and 20: on the conforming workload governance ≤ 3% of bare and,
// when the run has governance-policies, the policies ≤ 1% of bare over
// governance, each met, not met or not resolved by its CI (goal); on the
// others governance ≥ 1.5× cheaper than attributes (the ratio of the
// medians' Δ) and the ratio to transform (goal ≥ 10×, not judged).
func (l *LineRate) targets() string {
	var b strings.Builder
	for _, r := range l.Rows {
		g, ok := r.Figures[VariantGovernance]
		if !ok || g.N == 0 {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("\nAgainst the goals (issues 19 and 20):\n")
		}
		if r.Workload == "conforming" {
			bare := r.Figures[VariantBare].MedianUS
			fmt.Fprintf(&b, "- %s: governance ≤ 3%% of bare: %s\n", r.Workload, goal(g, bare, 3))
			if r.OverFloor != nil {
				fmt.Fprintf(&b, "- %s: governance ÷ floor ≤ 1.5 (issue 38): %s\n", r.Workload, ratioGoal(*r.OverFloor, 1.5))
			}
			if p, ok := r.Over[VariantPolicies]; ok {
				fmt.Fprintf(&b, "- %s: policies ≤ 1%% of bare over governance (issue 20): %s\n", r.Workload, goal(p, bare, 1))
			}
			continue
		}
		if a, ok := r.Figures[VariantAttributes]; ok && g.DeltaUS > 0 {
			fmt.Fprintf(&b, "- %s: governance ≥ 1.5× cheaper than attributes: %s (%.2f×)", r.Workload, metWord(a.DeltaUS/g.DeltaUS >= 1.5), a.DeltaUS/g.DeltaUS)
			if tr, ok := r.Figures[VariantTransform]; ok {
				fmt.Fprintf(&b, "; transform ÷ governance %.1f× (goal ≥ 10×)", tr.DeltaUS/g.DeltaUS)
			}
			if sc, ok := r.Figures[VariantSchema]; ok {
				fmt.Fprintf(&b, "; schema ÷ governance %.1f×", sc.DeltaUS/g.DeltaUS)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// goal tells whether f's Δ is at most limit % of bare: met or not met when
// its CI says so, not resolved when the CI spans the limit.
func goal(f LineFigure, bare, limit float64) string {
	switch {
	case f.CI95 == nil:
		return fmt.Sprintf("%s on the median (%+.1f%%; no CI below 6 rounds)", metWord(f.PctOfBare <= limit), f.PctOfBare)
	case 100*f.CI95[1]/bare <= limit:
		return fmt.Sprintf("met (CI up to %+.1f%%)", 100*f.CI95[1]/bare)
	case 100*f.CI95[0]/bare > limit:
		return fmt.Sprintf("not met (CI from %+.1f%%)", 100*f.CI95[0]/bare)
	default:
		return fmt.Sprintf("not resolved by this session (CI %+.1f%% to %+.1f%%)", 100*f.CI95[0]/bare, 100*f.CI95[1]/bare)
	}
}

// ratioGoal tells whether a paired ratio is at most limit: met or not met
// when its CI says so, not resolved when the CI spans the limit.
func ratioGoal(r LineRatio, limit float64) string {
	switch {
	case r.CI95 == nil:
		return fmt.Sprintf("%s on the median (%.2f×; no CI below 6 rounds)", metWord(r.Median <= limit), r.Median)
	case r.CI95[1] <= limit:
		return fmt.Sprintf("met (%.2f×, CI up to %.2f×)", r.Median, r.CI95[1])
	case r.CI95[0] > limit:
		return fmt.Sprintf("not met (%.2f×, CI from %.2f×)", r.Median, r.CI95[0])
	default:
		return fmt.Sprintf("not resolved by this session (%.2f×, CI %.2f× to %.2f×)", r.Median, r.CI95[0], r.CI95[1])
	}
}

func metWord(ok bool) string {
	if ok {
		return "met"
	}
	return "not met"
}
