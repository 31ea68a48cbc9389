// Command registrygen writes registry/embedded_gen.go, the semantic
// conventions the collector embeds, from a semantic-conventions checkout
// (model/ plus schemas/).
//
//	go run ./cmd/registrygen -semconv ../shared/semconv/v1.44.0 -out registry/embedded_gen.go
//
// Without -semconv it reads $SEMCONV_DIR, else ../shared/semconv/v1.44.0.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
)

// defaultSemconvDir is relative to the repository root, where `make generate`
// runs.
const defaultSemconvDir = "../shared/semconv/v1.44.0"

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "registrygen:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fset := flag.NewFlagSet("registrygen", flag.ContinueOnError)
	semconv := fset.String("semconv", "", "semantic-conventions checkout with model/ and schemas/ (default $SEMCONV_DIR or "+defaultSemconvDir+")")
	out := fset.String("out", "registry/embedded_gen.go", "output file")
	check := fset.Bool("check", false, "do not write; fail if the output file is out of date")
	if err := fset.Parse(args); err != nil {
		return err
	}
	dir := *semconv
	if dir == "" {
		dir = os.Getenv("SEMCONV_DIR")
	}
	if dir == "" {
		dir = defaultSemconvDir
	}
	src, err := generate(dir)
	if err != nil {
		return fmt.Errorf("generating from %s: %w", dir, err)
	}
	if *check {
		cur, err := os.ReadFile(*out)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("reading %s: %w", *out, err)
		}
		if !bytes.Equal(cur, src) {
			return fmt.Errorf("%s is out of date; run go run ./cmd/registrygen", *out)
		}
		return nil
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil { //nolint:gosec // generated source is world-readable like any source file
		return fmt.Errorf("writing %s: %w", *out, err)
	}
	return nil
}
