// Command otelgov runs the governance engine outside the collector: in CI on
// recorded telemetry (check, fix), in integration tests as an OTLP endpoint
// (check --listen), and over the queries that read telemetry names
// (queries). It is a thin front-end: the walk and the verdicts are the
// engine's (package engine), the findings the checker's (package checker),
// the readers otlpfile's and the scanners queries'.
//
// Exit codes: 0 clean, 1 findings at or above --fail-on, 2 bad input or
// usage.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// Exit codes.
const (
	exitClean    = 0
	exitFindings = 1
	exitBad      = 2
)

// version is set with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// printJSON writes v as indented JSON: every command's --format json.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// badInput is exit code 2.
func badInput(err error) error { return &exitError{code: exitBad, err: err} }

// findings is exit code 1, with nothing more to print.
func findings() error { return &exitError{code: exitFindings} }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitClean
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "otelgov: %v\n", ee.err)
		}
		return ee.code
	}
	// cobra's own errors: unknown command or flag, wrong arguments.
	fmt.Fprintf(stderr, "otelgov: %v\n", err)
	return exitBad
}

func newRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "otelgov",
		Short: "The otelcol-governance engine in CI, on recorded telemetry, and over dashboards and alert rules",
		Long: `otelgov checks telemetry against the semantic-convention registry with the
same engine as the governance processor. Its findings are the engine's:
OpenTelemetry Weaver live-check's finding IDs (deprecated, missing_attribute,
required_attribute_not_present, ...) and levels (violation, improvement,
information), which --level-override ID=LEVEL changes like the processor's
findings::finding_level_overrides. See otelgov check --help for the full list.

Exit codes: 0 clean, 1 a finding at or above --fail-on (default violation),
2 bad input or usage.`,
		Example: `  otelgov check --fail-on violation recorded.jsonl
  otelgov check --fail-on improvement --format junit recorded.jsonl > otelgov.xml
  otelgov fix recorded.jsonl migrated.jsonl
  otelgov queries --fail-on violation deploy/monitoring
  otelgov explain http.method`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newCheck(), newFix(), newQueries(), newExplain(),
		newRegistry(newRegistryDiff(), newInfer(), newRegistryConfigMaps()),
		newUpgrade(newUpgradePlan(), newUpgradeStatus()),
	)
	return root
}
