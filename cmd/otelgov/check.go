package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/otelgov/otelcol-governance/checker"
	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/otlpfile"
	"github.com/otelgov/otelcol-governance/policy"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

type checkOptions struct {
	reg       registrySource
	eng       engineFlags
	rep       reportFlags
	signal    string
	maxRecord int
	listen    listenOptions

	// Fail closed: --max-decompression-ratio and --allow-empty.
	maxRatio   int
	allowEmpty bool

	weaver weaverConfig // --config (.weaver.toml), --no-stream
	pol    policyFlags  // --advice-policies
}

func newCheck() *cobra.Command {
	var o checkOptions
	cmd := &cobra.Command{
		Use:   "check [FILES...]",
		Short: "Check recorded OTLP telemetry (or, with --listen, live OTLP) against the registry",
		Long: `check reads OTLP telemetry and reports, per service, the findings of the
governance processor's engine: OpenTelemetry Weaver live-check's finding IDs
and levels, with counts, the names each finding was reported for most often,
and example locations (signal, span/metric/event name, file:line).

Finding IDs (Weaver's) and their default levels:
` + findingLevels() + `
--profile weaver (the default) reports exactly Weaver live-check's findings
for the same registry and input; --profile extended adds span matchers on v1
semantic conventions, unexpected_attribute on v1 groups, span events checked
as events and service.name on resources (the processor's findings::profile).
--level-override ID=LEVEL changes a level (the processor's
findings::finding_level_overrides, unscoped); the finding_filters and
finding_level_overrides of a .weaver.toml (the processor's findings block
takes the same) apply too, in every format; --fail-on compares each
finding's level with it. --v2 is Weaver's v1/v2 mode switch (a definition
without a stability is then in development: not_stable).

--advice-policies DIR runs Weaver's Rego advice policies (package
live_check_advice) on every sample, next to the built-in findings: their
findings carry the policies' own IDs and levels (--level-override applies
to them too), join the same report and --fail-on. Every sample is
evaluated (no budget): a check is reproducible. A policy that does not
compile is exit 2, naming its file:line. --advice-data PATTERN adds JSON and
YAML files to the policies' data (schemas/user.json is data.user), and
--advice-preprocessor FILE replaces Weaver's default data with a jq
program's result over Weaver's live-checker document, as Weaver does
(docs/policies.md).

Inputs: the collector file exporter's JSON lines (traces, metrics and logs
mixed), otlpjsonfile-style JSON, binary protobuf (4-byte or varint length
prefix, or one message), each optionally gzip-compressed. "-" reads stdin.

--format json is the /conformance document of the registry extension, with
two more top-level fields: "items" (what was checked) and "examples" (per
service and finding ID, the example locations); text, markdown and junit (a
test case per finding ID per service) render the same data.

With --listen, check serves OTLP gRPC and HTTP instead, until POST /stop,
SIGTERM or, with --inactivity-timeout, no request for that long, then prints
the report.

A check fails closed: inputs that together hold no span, metric or log
record (an empty file, JSON that is not OTLP, NUL bytes, resources without
items), or a --listen run that received none, are exit 2 unless
--allow-empty. A metric without data points counts as checked: Weaver
checks it as a sample (instrument Unspecified when it has no data type,
so a registry-defined metric gets unexpected_instrument). More than 64
requests without a resource in a row are corrupt input, and gzip input
that expands more than --max-decompression-ratio times is refused.

For a deprecated finding, every output names what to use instead of each
name (the registry's renames, as otelgov explain lists them; a name whose
replacement depends on the context, such as net.peer.name on server and
client spans, once per context), or the deprecation's note when there is
no current name; --format json lists them under "replacements".

Exit codes: 0 clean, 1 a finding at or above --fail-on, 2 bad input or usage
(nothing checked included).`,
		Example: `  otelgov check recorded.jsonl
  otelgov check --fail-on improvement --format junit traces.pb.gz > otelgov.xml
  otelgov check --level-override missing_attribute=improvement --fail-on violation recorded.jsonl
  otelgov check --listen --grpc-endpoint 127.0.0.1:4317 --http-endpoint 127.0.0.1:4318`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.weaver.apply(cmd, &o.rep, &o.eng); err != nil {
				return err
			}
			o.pol.fromConfig(cmd, o.weaver.found, o.weaver.section)
			if err := o.pol.checkOverrides(o.eng.overrides); err != nil {
				return err
			}
			if o.listen.enabled {
				if len(args) > 0 {
					return badInput(errors.New("--listen takes no files"))
				}
				return runListen(cmd, &o)
			}
			if len(args) == 0 {
				return badInput(errors.New("no input: give files, - for stdin, or --listen"))
			}
			return runCheck(cmd, &o, args)
		},
	}
	fs := cmd.Flags()
	o.reg.bind(fs)
	o.eng.bindAllow(fs)
	o.eng.bindLevelOverrides(fs)
	o.eng.bindModes(fs, "off", "with --listen --forward: rename or copy deprecated keys in the forwarded data (off: forward unchanged)")
	o.rep.bind(fs)
	fs.StringVar(&o.signal, "signal", "", "signal of binary protobuf input: traces, metrics or logs (default: detected)")
	fs.IntVar(&o.maxRecord, "max-record-size", otlpfile.DefaultMaxRecordBytes, "largest single OTLP request in bytes; bounds memory")
	fs.IntVar(&o.maxRatio, "max-decompression-ratio", otlpfile.DefaultMaxDecompressionRatio, maxRatioUsage)
	fs.BoolVar(&o.allowEmpty, "allow-empty", false, "pass a run that checked no span, metric or log record (default: exit 2, so that an empty, missing or non-OTLP recording fails the gate)")
	o.listen.bind(fs, "the report", 0)
	o.listen.bindForward(fs)
	o.weaver.bind(fs)
	o.pol.bind(fs)
	return cmd
}

// maxRatioUsage documents --max-decompression-ratio (check and fix).
const maxRatioUsage = "gzip input may expand at most this many times its compressed size (checked past the first 16 MiB); bounds a decompression bomb"

// findingLevels lists the engine's finding IDs under their default
// levels, wrapped for --help.
func findingLevels() string {
	var b strings.Builder
	for l := range vocab.NumLevels {
		line := fmt.Sprintf("  %-11s ", l)
		first := true
		for f := range vocab.NumFindings {
			if vocab.DefaultLevel(f) != l {
				continue
			}
			item := f.String()
			if !first {
				item = " " + item
				line += ","
			}
			if len(line)+len(item) > 78 {
				b.WriteString(line + "\n")
				line = strings.Repeat(" ", 14)
				item = strings.TrimPrefix(item, " ")
			}
			line += item
			first = false
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// checkSetup is what check needs once its flags are parsed.
type checkSetup struct {
	checker *checker.Checker
	failOn  checker.FailOn
	signal  vocab.Kind
	ix      *registry.Index
	engine  engine.Options
	advisor *policy.Advisor // nil without --advice-policies
}

func (o *checkOptions) setup(stderr io.Writer) (*checkSetup, error) {
	failOn, limits, err := o.rep.parse()
	if err != nil {
		return nil, err
	}
	sig, err := parseKind(o.signal)
	if err != nil {
		return nil, badInput(fmt.Errorf("--signal: %w", err))
	}
	if o.maxRecord <= 0 {
		return nil, badInput(errors.New("--max-record-size must be positive"))
	}
	if o.maxRatio <= 0 {
		return nil, badInput(errors.New("--max-decompression-ratio must be positive"))
	}
	eo, err := o.eng.options()
	if err != nil {
		return nil, err
	}
	eo.Rules = o.weaver.rules
	ix, err := o.reg.load(stderr)
	if err != nil {
		return nil, err
	}
	adv, err := o.pol.advisor(ix)
	if err != nil {
		return nil, err
	}
	setAdvisor(&eo, adv)
	return &checkSetup{
		advisor: adv,
		checker: checker.New(ix, checker.Options{Engine: eo, Limits: limits}),
		failOn:  failOn,
		signal:  sig,
		ix:      ix,
		engine:  eo,
	}, nil
}

func runCheck(cmd *cobra.Command, o *checkOptions, files []string) error {
	s, err := o.setup(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	if s.engine.Mutates() {
		return badInput(errors.New("check never changes files: --deprecated, --unknown, --type-mismatch and --enum-violation other than off/keep apply to --listen --forward (use otelgov fix to migrate a file)"))
	}
	ro := otlpfile.Options{Kind: s.signal, MaxRecordBytes: o.maxRecord, MaxDecompressionRatio: o.maxRatio}
	sink, ww := o.sink(cmd.OutOrStdout(), s)
	read := make([]fileRead, len(files))
	var items int64
	for i, f := range files {
		ro.Name = f
		if read[i], err = checkFile(cmd.InOrStdin(), ro, sink); err != nil {
			return badInput(err)
		}
		items += read[i].items
	}
	if items == 0 && !o.allowEmpty {
		return badInput(fmt.Errorf("nothing checked: no span, metric or log record in %s: an empty, non-OTLP or zero-filled recording fails the gate (--allow-empty passes it)", describeEmpty(read, files)))
	}
	for i, f := range files {
		if read[i].items == 0 {
			fmt.Fprintf(cmd.ErrOrStderr(), "otelgov: warning: no span, metric or log record in %s (%s)\n", f, read[i])
		}
	}
	reportPolicyErrors(cmd.ErrOrStderr(), s.advisor)
	return o.finish(cmd.OutOrStdout(), s, ww)
}

// fileRead is what one input held.
type fileRead struct {
	requests int64 // with a resource
	empty    int64 // without: skipped by the reader
	items    int64 // spans, data points, log records and metrics without data points
}

func (f fileRead) String() string {
	switch {
	case f.requests == 0 && f.empty == 0:
		return "no request"
	case f.requests == 0:
		return fmt.Sprintf("%d request(s) without a resource", f.empty)
	}
	return fmt.Sprintf("%d request(s), resources without items", f.requests)
}

// maxEmptyListed bounds the files named in the nothing-checked error.
const maxEmptyListed = 10

// describeEmpty names the inputs and what each held: "a.jsonl (no
// request), b.pb (3 request(s) without a resource)".
func describeEmpty(read []fileRead, files []string) string {
	var b strings.Builder
	for i, f := range files {
		if i == maxEmptyListed {
			fmt.Fprintf(&b, " and %d more", len(files)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%s)", f, read[i])
	}
	return b.String()
}

func openInput(stdin io.Reader, name string) (io.Reader, func() error, error) {
	if name == "-" {
		return stdin, func() error { return nil }, nil
	}
	f, err := os.Open(name) //nolint:gosec // the user names the file
	if err != nil {
		return nil, nil, err
	}
	return f, f.Close, nil
}

func checkFile(stdin io.Reader, opts otlpfile.Options, c checkSink) (fileRead, error) {
	name := opts.Name
	var read fileRead
	in, closeIn, err := openInput(stdin, name)
	if err != nil {
		return read, err
	}
	defer func() { _ = closeIn() }()
	r, err := otlpfile.NewReader(in, opts)
	if err != nil {
		return read, err
	}
	defer func() { _ = r.Close() }()
	for {
		rec, err := r.Next()
		read.empty = r.Empty()
		if errors.Is(err, io.EOF) {
			return read, nil
		}
		if err != nil {
			return read, err
		}
		read.requests++
		read.items += int64(rec.Items())
		if rec.Kind == vocab.KindMetrics {
			read.items += checker.MetricsWithoutData(rec.Metrics)
		}
		in := where(name, &rec)
		switch rec.Kind {
		case vocab.KindTraces:
			c.Traces(rec.Traces, in)
		case vocab.KindMetrics:
			c.Metrics(rec.Metrics, in)
		case vocab.KindLogs:
			c.Logs(rec.Logs, in)
		case vocab.KindUnknown, vocab.NumKinds:
		}
	}
}

// where is a record's location: file:line, or file@byte for binary input.
func where(name string, rec *otlpfile.Record) string {
	if rec.Line > 0 {
		return name + ":" + strconv.Itoa(rec.Line)
	}
	return name + "@" + strconv.FormatInt(rec.Offset, 10)
}
