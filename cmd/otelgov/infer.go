package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/otelgov/otelcol-governance/infer"
	"github.com/otelgov/otelcol-governance/otlpfile"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/registry/regwrite"
	"github.com/otelgov/otelcol-governance/vocab"
)

type inferOptions struct {
	reg       registrySource
	output    string
	v1        bool
	format    string
	signal    string
	maxRecord int
	maxRatio  int
	listen    listenOptions
	from      []string
	// evidenceFile is where --listen saves the evidence before writing.
	evidenceFile string
	lim          infer.Limits
	opts         infer.Options
}

// defaultInactivity is Weaver registry infer's --inactivity-timeout.
const defaultInactivity = 60 * time.Second

func newInfer() *cobra.Command {
	var o inferOptions
	cmd := &cobra.Command{
		Use:   "infer [FILES...] --output DIR",
		Short: "Write an organisation registry from recorded (or, with --listen, live) OTLP telemetry",
		Long: `infer reads OTLP telemetry, the files otelgov check reads or, with --listen,
live OTLP, and writes what the loaded registries (--embedded, --semconv-dir,
--org-registry and DIR itself) do not define into DIR/registry.yaml, as
Weaver's registry infer does: attributes with their type and up to five
example values, metrics with instrument, unit and attributes, a span per span
name with its kind and attributes, events by name. Beyond Weaver it reports
type conflicts (one key sent with two types, and by which services), proposes
an enum where values are few and stable (from a distinct-value sketch),
warns where a high-cardinality key is a metric attribute, proposes
requirement levels from presence (required when every item had it), proposes
near-misses of a registry name (http_method, httpMethod) as deprecated
attributes renamed_to it, and runs the naming rules of Weaver's default
policy on every proposed name. No enum is proposed for a key named as an
identifier (…id, …uuid) or a quantity, nor for values that are numbers
written as strings, durations, coordinates, timestamps, URLs, paths, query
text or free text. A key that is a namespace of other names (url beside
url.full) is reported illegal_namespace and proposed deprecated without a
rename, so that url.* stay conformant. Keys spelling one concept
differently (fooID, foo_id, param.fooID) are grouped in the summary.

Nothing the collector accepts is refused: a name that cannot be a registry
ID as written (an event named in plain words, a key with a space) is
skipped and listed in the summary with its counts; a span name without a
letter or digit gets a derived type ("/" is root).

DIR is written in Weaver's v2 format (file_format: definition/2) unless
--v1. A second run adds what is new and keeps what DIR already defines as
written (briefs, notes, stability, requirement levels, order, comments).
The result is staged in a temporary directory and loaded before it is
renamed into place: a failed run leaves DIR as it was. A summary of what was
proposed and why goes to stdout (--format text or json).

With --from, the evidence is the inference sketch of running collectors
(the governance_registry extension with infer::enabled, GET /infer/evidence):
the keys the collector's registry does not know, with their types,
distinct-value estimate, services, locations, metrics and spans. One --from
per replica; the sketches are merged as each is read, as one source
would be. Every collector must answer with a sketch within
--max-attributes and --max-groups, or nothing is written (exit 2). A path
instead of a URL reads evidence saved by --listen (--evidence-file).

With --listen, whatever ends the run, the evidence received is saved first
(--evidence-file, default DIR.evidence.json), so that a failed write loses
no capture; POST /stop answers with the run's outcome.

Example values come from the telemetry (each at most 256 bytes, valid
UTF-8, as every client string in a report); review them before committing
a registry, as they may hold personal data, or leave them out with
--no-examples.

Exit codes: 0 written (or nothing new; skipped names listed), 2 bad input:
no span, data point or log record, DIR not a registry.`,
		Example: `  otelgov registry infer --output acme-registry recorded.jsonl
  otelgov registry infer --output acme-registry --format json traces.pb.gz metrics.jsonl
  otelgov registry infer --output acme-registry --listen --inactivity-timeout 2m
  otelgov registry infer --output acme-registry --from http://10.0.0.5:13180 --from http://10.0.0.6:13180
  otelgov check --org-registry acme-registry recorded.jsonl`,
		RunE: func(cmd *cobra.Command, args []string) error {
			sources := 0
			for _, on := range []bool{len(args) > 0, o.listen.enabled, len(o.from) > 0} {
				if on {
					sources++
				}
			}
			if sources > 1 {
				return badInput(errors.New("give one source: files, --listen or --from"))
			}
			if sources == 0 {
				return badInput(errors.New("no input: give files, - for stdin, --listen, or --from URL"))
			}
			return runInfer(cmd, &o, args)
		},
	}
	fs := cmd.Flags()
	o.reg.bind(fs)
	fs.StringVar(&o.output, "output", "", "the registry directory to write (required): created when missing, added to when it holds a registry")
	fs.BoolVar(&o.v1, "v1", false, "write the v1 format (groups:) instead of Weaver's v2 (file_format: definition/2); an existing registry.yaml keeps its own format")
	fs.StringVar(&o.format, "format", infer.FormatText, "summary on stdout: text or json")
	fs.StringVar(&o.signal, "signal", "", "signal of binary protobuf input: traces, metrics or logs (default: detected)")
	fs.IntVar(&o.maxRecord, "max-record-size", otlpfile.DefaultMaxRecordBytes, "largest single OTLP request in bytes; bounds memory")
	fs.IntVar(&o.maxRatio, "max-decompression-ratio", otlpfile.DefaultMaxDecompressionRatio, maxRatioUsage)
	fs.IntVar(&o.lim.MaxAttributes, "max-attributes", infer.DefaultMaxAttributes, "distinct attribute keys tracked; later ones are counted, not proposed (bounds memory)")
	fs.IntVar(&o.lim.MaxGroups, "max-groups", infer.DefaultMaxGroups, "distinct metrics, span names and event names tracked, each (bounds memory)")
	fs.BoolVar(&o.opts.NoExamples, "no-examples", false, "leave example values out of the registry and the summary (they come from the telemetry and may hold personal data)")
	fs.Float64Var(&o.opts.HighCardinality, "high-cardinality", infer.DefaultHighCardinality, "warn about a metric attribute with more distinct values than this (estimated)")
	fs.StringArrayVar(&o.from, "from", nil, "the base URL of a running collector's governance_registry extension (e.g. http://127.0.0.1:13180) whose inference sketch (infer::enabled, GET /infer/evidence) is read (repeatable: one per replica, merged)")
	o.listen.bind(fs, "the registry", defaultInactivity)
	fs.StringVar(&o.evidenceFile, "evidence-file", "", "with --listen: where the evidence received is saved (JSON) before the registry is written, so that no capture is lost whatever ends the run; infer again from it with --from FILE (default: DIR.evidence.json, beside DIR)")
	return cmd
}

func runInfer(cmd *cobra.Command, o *inferOptions, files []string) error {
	if o.output == "" {
		return badInput(errors.New("--output: required: the registry directory to write"))
	}
	if o.format != infer.FormatText && o.format != infer.FormatJSON {
		return badInput(fmt.Errorf("--format: unknown format %q: want text or json", o.format))
	}
	sig, err := parseKind(o.signal)
	if err != nil {
		return badInput(fmt.Errorf("--signal: %w", err))
	}
	if o.maxRecord <= 0 || o.maxRatio <= 0 {
		return badInput(errors.New("--max-record-size and --max-decompression-ratio must be positive"))
	}
	if o.lim.MaxAttributes <= 0 || o.lim.MaxGroups <= 0 {
		return badInput(errors.New("--max-attributes and --max-groups must be positive"))
	}
	exists, err := regwrite.IsRegistryDir(o.output)
	if err != nil {
		return badInput(fmt.Errorf("--output: %w", err))
	}
	// DIR's own definitions are loaded too, so that a second run proposes
	// only what is new.
	var own []string
	if exists && !slices.ContainsFunc(o.reg.src.OrgRegistries, func(p string) bool { return filepath.Clean(p) == filepath.Clean(o.output) }) {
		own = []string{o.output}
	}
	ix, err := registry.Load(o.reg.sources(own...))
	switch {
	case err == nil:
	case exists && errors.Is(err, registry.ErrNotRegistry):
		return badInput(fmt.Errorf("--output %s: %w: give an empty or new directory, or an existing registry", o.output, err))
	case exists:
		return badInput(fmt.Errorf("--output %s or the registry flags: the registry does not load: %w", o.output, err))
	default:
		return badInput(fmt.Errorf("registry: %w", err))
	}
	ownNames, err := ownDefinitions(o.output, exists, ix)
	if err != nil {
		return badInput(fmt.Errorf("--output %s: %w", o.output, err))
	}
	o.opts.Own = ownNames

	acc := infer.New(o.lim)
	if o.listen.enabled {
		return inferListen(cmd, o, acc, func() error { return proposeAndWrite(cmd, o, ix, acc) })
	}
	if len(o.from) > 0 {
		err = inferFrom(cmd.Context(), o, acc)
	} else {
		err = inferFiles(cmd, o, sig, acc, files)
	}
	if err != nil {
		return err
	}
	return proposeAndWrite(cmd, o, ix, acc)
}

// proposeAndWrite proposes from acc's evidence, writes the registry (staged
// and loaded first: a failure leaves DIR as it was) and renders the
// summary. Names that cannot be registry IDs are skipped and listed in the
// summary, never a reason to refuse the rest.
func proposeAndWrite(cmd *cobra.Command, o *inferOptions, ix *registry.Index, acc *infer.Accumulator) error {
	p := infer.Propose(acc.Evidence(), ix, o.opts)
	format := regwrite.V2
	if o.v1 {
		format = regwrite.V1
	}
	res, err := regwrite.Write(o.output, p.Model(), regwrite.Options{
		Format: format,
		Check: func(staged string) error {
			_, err := registry.Load(o.reg.sources(staged))
			return err
		},
	})
	if err != nil {
		return badInput(fmt.Errorf("--output %s: %w", o.output, err))
	}
	s := &infer.Summary{
		Output: o.output, File: res.File, Format: res.Format.String(),
		Added: res.Added, Kept: res.Kept, Proposal: p, MemoryBound: acc.Limits().Bytes(),
	}
	if err := s.Render(cmd.OutOrStdout(), o.format); err != nil {
		return fmt.Errorf("writing the summary: %w", err)
	}
	return nil
}

// ownDefinitions is infer.Options.Own: what DIR itself defines. Its
// attributes are told by their source file under DIR (refs may point to
// them, in any of its files); its metrics, spans and events are those of
// DIR/registry.yaml, the file the writer merges into and adds refs to.
func ownDefinitions(dir string, exists bool, ix *registry.Index) (func(kind, name string) bool, error) {
	if !exists {
		return func(string, string) bool { return false }, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("its absolute path: %w", err)
	}
	groups, err := regwrite.Groups(dir)
	if err != nil {
		return nil, err
	}
	return func(kind, name string) bool {
		if kind != "attribute" {
			return groups[kind+" "+name]
		}
		a := ix.Lookup(name)
		if a == nil || a.Source == "" {
			return false
		}
		src, err := filepath.Abs(a.Source)
		return err == nil && strings.HasPrefix(src, abs+string(filepath.Separator))
	}, nil
}

// inferFiles reads the recordings as check does; an input set without a
// span, data point or log record is bad input (exit 2), as for check.
func inferFiles(cmd *cobra.Command, o *inferOptions, sig vocab.Kind, acc *infer.Accumulator, files []string) error {
	ro := otlpfile.Options{Kind: sig, MaxRecordBytes: o.maxRecord, MaxDecompressionRatio: o.maxRatio}
	read := make([]fileRead, len(files))
	var items int64
	for i, f := range files {
		ro.Name = f
		var err error
		if read[i], err = checkFile(cmd.InOrStdin(), ro, acc); err != nil {
			return badInput(err)
		}
		items += read[i].items
	}
	if items == 0 {
		return badInput(fmt.Errorf("nothing to infer from: no span, data point or log record in %s", describeEmpty(read, files)))
	}
	return nil
}

// inferListen serves OTLP into acc until /stop, a signal or
// --inactivity-timeout; then, before anything else can fail, it saves the
// evidence (--evidence-file), and runs finish (propose and write). POST
// /stop answers with the run's outcome: the summary, or the error, and
// the exit code in X-Otelgov-Exit.
func inferListen(cmd *cobra.Command, o *inferOptions, acc *infer.Accumulator, finish func() error) error {
	l := &listener{maxRecord: o.maxRecord, stop: make(chan struct{}), sink: acc, outcome: make(chan listenOutcome, 1)}
	l.report = func(w http.ResponseWriter) {
		l.mu.Lock()
		it := acc.Evidence().Items
		l.mu.Unlock()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "otelgov: received %d span(s), %d data point(s), %d log record(s)\n", it.Spans, it.DataPoints, it.LogRecords)
	}
	by, err := l.serve(cmd, &o.listen)
	if err != nil {
		return err
	}
	// The servers are stopped (l.closed): nothing feeds acc now.
	var summary bytes.Buffer
	stdout := cmd.OutOrStdout()
	cmd.SetOut(io.MultiWriter(stdout, &summary))
	defer cmd.SetOut(stdout)
	err = func() error {
		if acc.Empty() {
			return badInput(fmt.Errorf("nothing received by %s: no span, data point or log record arrived: nothing to infer from", by))
		}
		saved := saveEvidence(evidenceFile(o), acc.Evidence())
		if saved == nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "otelgov: the evidence received is saved in %s (infer again from it with --from %s)\n", evidenceFile(o), evidenceFile(o))
		}
		if err := finish(); err != nil {
			if saved != nil {
				return badInput(fmt.Errorf("%w; and the evidence was not saved: %w", err, saved))
			}
			return fmt.Errorf("%w (the evidence received is saved in %s: infer again from it with --from %s)", err, evidenceFile(o), evidenceFile(o))
		}
		if saved != nil {
			return badInput(fmt.Errorf("--evidence-file: %w (the registry was written)", saved))
		}
		return nil
	}()
	code, body := exitClean, summary.String()
	if err != nil {
		code, body = exitBad, "otelgov: "+err.Error()+"\n"
		var ee *exitError
		if errors.As(err, &ee) {
			code = ee.code
		}
	}
	l.deliver(code, body)
	return err
}

// evidenceFile is --evidence-file, by default DIR.evidence.json beside DIR.
func evidenceFile(o *inferOptions) string {
	if o.evidenceFile != "" {
		return o.evidenceFile
	}
	return filepath.Clean(o.output) + ".evidence.json"
}

// saveEvidence writes ev as JSON to path, through a temporary file renamed
// into place.
func saveEvidence(path string, ev *infer.Evidence) error {
	b, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("encoding the evidence: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("saving the evidence: %w", err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("saving the evidence in %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("saving the evidence in %s: %w", path, err)
	}
	return nil
}
