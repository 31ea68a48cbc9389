package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/otlpfile"
	"github.com/otelgov/otelcol-governance/vocab"
)

type fixOptions struct {
	reg       registrySource
	eng       engineFlags
	signal    string
	maxRecord int
	maxRatio  int
}

func newFix() *cobra.Command {
	var o fixOptions
	cmd := &cobra.Command{
		Use:   "fix IN OUT",
		Short: "Write recorded telemetry migrated by the engine, as deprecated: rename would",
		Long: `fix reads recorded OTLP telemetry (any format check reads) and writes it
migrated by the governance engine, in the input's format and compression:
deprecated keys and metric names renamed to their current names and
deprecated values migrated (enum members, value maps, splits, merges), exactly
as the processor's deprecated: rename does. Use it on test fixtures and golden
files. "-" is stdin or stdout.

Exit codes: 0 written, 2 bad input or usage.`,
		Example: `  otelgov fix testdata/recorded.jsonl testdata/recorded.jsonl.new && mv testdata/recorded.jsonl.new testdata/recorded.jsonl`,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFix(cmd, &o, args[0], args[1])
		},
	}
	fs := cmd.Flags()
	o.reg.bind(fs)
	o.eng.bindAllow(fs)
	o.eng.bindModes(fs, string(engine.DeprecatedRename), "deprecated keys and metric names: rename or copy")
	fs.StringVar(&o.signal, "signal", "", "signal of binary protobuf input: traces, metrics or logs (default: detected)")
	fs.IntVar(&o.maxRecord, "max-record-size", otlpfile.DefaultMaxRecordBytes, "largest single OTLP request in bytes; bounds memory")
	fs.IntVar(&o.maxRatio, "max-decompression-ratio", otlpfile.DefaultMaxDecompressionRatio, maxRatioUsage)
	return cmd
}

func runFix(cmd *cobra.Command, o *fixOptions, in, out string) error {
	eo, err := o.eng.options()
	if err != nil {
		return err
	}
	if !eo.Mutates() {
		return badInput(errors.New("nothing to fix with these modes: --deprecated off and keep everywhere"))
	}
	sig, err := parseKind(o.signal)
	if err != nil {
		return badInput(fmt.Errorf("--signal: %w", err))
	}
	if o.maxRatio <= 0 {
		return badInput(errors.New("--max-decompression-ratio must be positive"))
	}
	if in != "-" && out != "-" {
		if a, b := absPath(in), absPath(out); a == b {
			return badInput(fmt.Errorf("IN and OUT are the same file %s: write elsewhere, then move", in))
		}
	}
	ix, err := o.reg.load(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	src, closeIn, err := openInput(cmd.InOrStdin(), in)
	if err != nil {
		return badInput(err)
	}
	defer func() { _ = closeIn() }()
	r, err := otlpfile.NewReader(src, otlpfile.Options{Name: in, Kind: sig, MaxRecordBytes: o.maxRecord, MaxDecompressionRatio: o.maxRatio})
	if err != nil {
		return badInput(err)
	}
	defer func() { _ = r.Close() }()

	dst := cmd.OutOrStdout()
	var tmp *os.File
	if out != "-" {
		// Write next to OUT and rename at the end: a bad input leaves OUT as it was.
		tmp, err = os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*")
		if err != nil {
			return badInput(err)
		}
		defer func() {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}()
		dst = tmp
	}
	w := otlpfile.NewWriter(dst, r.Format(), r.Gzip())
	e := engine.New(eo)
	var requests, renamed, copied, values, names int64
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return badInput(err)
		}
		wk := e.Walker(ix, false)
		switch rec.Kind {
		case vocab.KindTraces:
			wk.Traces(rec.Traces)
		case vocab.KindMetrics:
			wk.Metrics(rec.Metrics)
		case vocab.KindLogs:
			wk.Logs(rec.Logs)
		case vocab.KindUnknown, vocab.NumKinds:
		}
		c := wk.Batch()
		for l := range c.Attrs {
			renamed += c.Attrs[l][vocab.OutcomeRenamed]
			copied += c.Attrs[l][vocab.OutcomeCopied]
			for _, o := range valueMigrations {
				values += c.Attrs[l][o]
			}
		}
		names += c.Names[vocab.OutcomeRenamed] + c.Names[vocab.OutcomeCopied]
		e.Release(wk)
		requests++
		if err := w.Write(&rec); err != nil {
			return fmt.Errorf("writing %s: %w", out, err)
		}
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	if tmp != nil {
		if err := tmp.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", out, err)
		}
		if err := os.Rename(tmp.Name(), out); err != nil {
			return fmt.Errorf("writing %s: %w", out, err)
		}
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "otelgov fix: %d request(s) written to %s (%s%s): %d attribute(s) renamed, %d copied, %d value(s) migrated, %d metric name(s) migrated\n",
		requests, out, r.Format(), map[bool]string{true: ", gzip"}[r.Gzip()], renamed, copied, values, names)
	return nil
}

// valueMigrations are the outcomes of the engine's value migrations.
var valueMigrations = [...]vocab.Outcome{
	vocab.OutcomeValueRenamed, vocab.OutcomeConverted, vocab.OutcomeSplit, vocab.OutcomeMerged, vocab.OutcomeMoved,
}

func absPath(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if r, err := filepath.EvalSymlinks(a); err == nil {
		return r
	}
	return a
}
