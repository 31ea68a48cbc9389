// Command manifestlint checks Kubernetes manifests against the platform
// team's GitOps review checklist for otelcol-governance. Each argument is a
// file, a directory of YAML files, a kustomization directory (rendered with
// kustomize first) or "-" for standard input.
//
// Exit status: 0 when every check passes, 1 when there are findings, 2 when
// the input cannot be read or the flags are wrong.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/internal/manifestlint"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("manifestlint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	governed := fs.String("governed-namespaces", "", "comma-separated namespaces whose workloads must be governed, besides Namespaces labelled "+manifestlint.GovernedLabel+"=true")
	image := fs.String("image-contains", "otelcol-governance", "substring every OpenTelemetryCollector spec.image must contain (empty: no check)")
	printConfig := fs.String("print-config", "", "print the spec.config of collector CR NAMESPACE/NAME as YAML (what the Operator writes to /conf/collector.yaml) instead of linting")
	crds := fs.String("crds", "", "directory of CustomResourceDefinition YAML (e.g. the Operator's) to validate CRs against; empty: no schema check")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: manifestlint [flags] PATH... (file, directory, kustomization directory, or - for stdin)\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	var objs []manifestlint.Object
	for _, p := range fs.Args() {
		var (
			o   []manifestlint.Object
			err error
		)
		if st, serr := os.Stat(p); serr == nil && st.IsDir() && manifestlint.IsKustomization(p) {
			var out []byte
			out, err = manifestlint.Kustomize(p)
			if err == nil {
				o, err = manifestlint.DecodeBytes(out, "kustomize build "+p)
			}
		} else {
			o, err = manifestlint.LoadPaths(stdin, p)
		}
		if err != nil {
			fmt.Fprintf(stderr, "manifestlint: %v\n", err)
			return 2
		}
		objs = append(objs, o...)
	}
	if len(objs) == 0 {
		fmt.Fprintf(stderr, "manifestlint: no Kubernetes objects in %s\n", strings.Join(fs.Args(), " "))
		return 2
	}
	if *printConfig != "" {
		return printCollectorConfig(objs, *printConfig, stdout, stderr)
	}
	opts := manifestlint.Options{ImageContains: *image}
	if *governed != "" {
		opts.GovernedNamespaces = strings.Split(*governed, ",")
	}
	findings := manifestlint.Lint(objs, opts)
	if *crds != "" {
		schemas, err := manifestlint.LoadCRDs(*crds)
		if err != nil {
			fmt.Fprintf(stderr, "manifestlint: %v\n", err)
			return 2
		}
		findings = append(findings, schemas.Validate(objs)...)
	}
	for _, f := range findings {
		fmt.Fprintln(stdout, f)
	}
	if len(findings) > 0 {
		fmt.Fprintf(stderr, "manifestlint: %d finding(s) in %d objects\n", len(findings), len(objs))
		return 1
	}
	fmt.Fprintf(stderr, "manifestlint: %d objects, all checks pass\n", len(objs))
	return 0
}

// printCollectorConfig writes the spec.config of the collector CR ref
// (namespace/name) as YAML.
func printCollectorConfig(objs []manifestlint.Object, ref string, stdout, stderr io.Writer) int {
	for _, o := range objs {
		if o.Kind() != "OpenTelemetryCollector" || o.Namespace()+"/"+o.Name() != ref {
			continue
		}
		cfg, err := manifestlint.CollectorConfig(o)
		if err == nil {
			var out []byte
			out, err = yaml.Marshal(cfg)
			if err == nil {
				_, err = stdout.Write(out)
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "manifestlint: %s: %v\n", o.Ref(), err)
			return 2
		}
		return 0
	}
	fmt.Fprintf(stderr, "manifestlint: no OpenTelemetryCollector %s in the input\n", ref)
	return 2
}
