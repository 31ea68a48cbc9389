// Command mkimage assembles the otelcol-governance OCI image without a
// container engine: a tarball that `docker load`, `podman load` and
// `kind load image-archive` accept, with the same file layout, entrypoint,
// user and ports as distribution/Dockerfile.
//
//	go run ./cmd/mkimage -binary _build/otelcol-governance -out _build/otelcol-governance-image.tar
//
// The binary must be statically linked (OCB builds with CGO_ENABLED=0 unless
// dist.cgo_enabled is set): the image has no libc.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "mkimage: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mkimage", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.binary, "binary", "_build/otelcol-governance", "statically linked collector binary")
	fs.StringVar(&o.otelgov, "otelgov", "_build/otelgov", "statically linked otelgov CLI, shipped next to the collector (docker run --entrypoint /otelgov)")
	fs.StringVar(&o.config, "config", "distribution/config.yaml", "default config, run by the image's CMD")
	fs.StringVar(&o.caBundle, "ca-bundle", "/etc/ssl/certs/ca-certificates.crt", "PEM CA certificates (Debian: the ca-certificates package)")
	fs.StringVar(&o.tag, "tag", defaultTag, "image reference written into the tarball's manifest")
	fs.StringVar(&o.out, "out", "_build/otelcol-governance-image.tar", "output tarball")
	fs.StringVar(&o.version, "version", "0.1.0", "org.opencontainers.image.version label")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	digest, size, err := build(o)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %s %s (%.1f MiB of files)\n", o.out, o.tag, digest, float64(size)/(1<<20))
	return nil
}
