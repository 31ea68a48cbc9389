package main

import (
	"fmt"
	"io"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/checker"
)

// checkSink is what check feeds each request to: the checker, and with
// --format weaver the Weaver report writer too.
type checkSink interface {
	Traces(td ptrace.Traces, input string)
	Metrics(md pmetric.Metrics, input string)
	Logs(ld plog.Logs, input string)
}

// weaverTee feeds the checker and the Weaver report writer.
type weaverTee struct {
	*checker.Checker
	w *checker.WeaverWriter
}

func (t weaverTee) Traces(td ptrace.Traces, input string) {
	t.Checker.Traces(td, input)
	t.w.Traces(td)
}

func (t weaverTee) Metrics(md pmetric.Metrics, input string) {
	t.Checker.Metrics(md, input)
	t.w.Metrics(md)
}

func (t weaverTee) Logs(ld plog.Logs, input string) {
	t.Checker.Logs(ld, input)
	t.w.Logs(ld)
}

// isWeaverFormat reports whether format is written per sample.
func isWeaverFormat(format string) bool {
	return format == checker.FormatWeaver || format == checker.FormatWeaverLines
}

// sink is what runCheck feeds: the checker alone, or with the Weaver
// report writer on w.
func (o *checkOptions) sink(w io.Writer, s *checkSetup) (checkSink, *checker.WeaverWriter) {
	if !isWeaverFormat(o.rep.format) {
		return s.checker, nil
	}
	ww := checker.NewWeaverWriter(w, s.ix, checker.WeaverOptions{
		Engine: s.engine, Report: o.weaver.noStream,
		Lines: o.rep.format == checker.FormatWeaverLines,
	})
	return weaverTee{Checker: s.checker, w: ww}, ww
}

// finish writes the report and turns it into the exit code. The engine
// applied the .weaver.toml rules and --level-override to every finding, so
// Weaver's report and the aggregate of the other formats gate alike.
func (o *checkOptions) finish(w io.Writer, s *checkSetup, ww *checker.WeaverWriter) error {
	if ww != nil {
		if err := ww.Close(); err != nil {
			return fmt.Errorf("writing the report: %w", err)
		}
		if ww.Fails(s.failOn) {
			return findings()
		}
		return nil
	}
	res := s.checker.Result()
	if err := checker.Render(w, o.rep.format, &res, s.failOn); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	if res.Fails(s.failOn) {
		return findings()
	}
	return nil
}
