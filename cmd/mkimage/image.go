package main

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's contract; distribution/Dockerfile states the same, and
// e2e/image_test.go checks that both agree.
const (
	defaultTag    = "ghcr.io/otelgov/otelcol-governance:0.1.0"
	binaryPath    = "/otelcol-governance"
	otelgovPath   = "/otelgov"
	configPath    = "/etc/otelcol-governance/config.yaml"
	caBundlePath  = "/etc/ssl/certs/ca-certificates.crt"
	user          = "10001"
	imageSource   = "https://github.com/otelgov/otelcol-governance"
	imageLicenses = "Apache-2.0"
)

// exposedPorts are the ports the image documents (EXPOSE in the Dockerfile).
var exposedPorts = []string{
	"4317/tcp",  // OTLP gRPC receiver
	"4318/tcp",  // OTLP/HTTP receiver
	"8888/tcp",  // internal telemetry (Prometheus), the Operator's monitoring port
	"13133/tcp", // health_check: the Operator's liveness/readiness probes
}

type options struct {
	binary, otelgov, config, caBundle, tag, out, version string
}

// epoch is every timestamp in the image: the same inputs give the same digest.
var epoch = time.Unix(0, 0).UTC()

type file struct {
	path string
	mode int64
	data []byte
}

func build(o options) (v1.Hash, int64, error) {
	bin, err := os.ReadFile(o.binary)
	if err != nil {
		return v1.Hash{}, 0, fmt.Errorf("binary: %w (run `make build`)", err)
	}
	if err := checkStatic(o.binary); err != nil {
		return v1.Hash{}, 0, err
	}
	gov, err := os.ReadFile(o.otelgov)
	if err != nil {
		return v1.Hash{}, 0, fmt.Errorf("otelgov: %w (run `make build`)", err)
	}
	if err := checkStatic(o.otelgov); err != nil {
		return v1.Hash{}, 0, err
	}
	cfg, err := os.ReadFile(o.config)
	if err != nil {
		return v1.Hash{}, 0, fmt.Errorf("config: %w", err)
	}
	ca, err := os.ReadFile(o.caBundle)
	if err != nil {
		return v1.Hash{}, 0, fmt.Errorf("ca bundle: %w (apt-get install ca-certificates, or pass -ca-bundle)", err)
	}
	if !bytes.Contains(ca, []byte("-----BEGIN CERTIFICATE-----")) {
		return v1.Hash{}, 0, fmt.Errorf("ca bundle %s holds no PEM certificate", o.caBundle)
	}
	ref, err := name.NewTag(o.tag)
	if err != nil {
		return v1.Hash{}, 0, fmt.Errorf("tag: %w", err)
	}

	// Two layers, as the Dockerfile's COPY lines: the rarely changing CA
	// certificates, then the distribution itself.
	base, err := layer([]file{
		{caBundlePath[1:], 0o644, ca},
	})
	if err != nil {
		return v1.Hash{}, 0, err
	}
	app, err := layer([]file{
		{binaryPath[1:], 0o755, bin},
		{otelgovPath[1:], 0o755, gov},
		{configPath[1:], 0o644, cfg},
	})
	if err != nil {
		return v1.Hash{}, 0, err
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.DockerManifestSchema2), base, app)
	if err != nil {
		return v1.Hash{}, 0, fmt.Errorf("append layers: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return v1.Hash{}, 0, err
	}
	cf = cf.DeepCopy()
	cf.Architecture = "amd64"
	cf.OS = "linux"
	cf.Created = v1.Time{Time: epoch}
	cf.Config = imageConfig(o.version)
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return v1.Hash{}, 0, fmt.Errorf("config file: %w", err)
	}
	if err := tarball.WriteToFile(o.out, ref, img); err != nil {
		return v1.Hash{}, 0, fmt.Errorf("write %s: %w", o.out, err)
	}
	digest, err := img.Digest()
	if err != nil {
		return v1.Hash{}, 0, err
	}
	return digest, int64(len(bin) + len(gov) + len(cfg) + len(ca)), nil
}

// imageConfig is the runtime config: what the Dockerfile's USER, EXPOSE,
// ENTRYPOINT and CMD say.
func imageConfig(version string) v1.Config {
	ports := make(map[string]struct{}, len(exposedPorts))
	for _, p := range exposedPorts {
		ports[p] = struct{}{}
	}
	return v1.Config{
		User:         user,
		ExposedPorts: ports,
		// The Operator sets no command and passes --config=/conf/collector.yaml;
		// plain `docker run` gets the default config from CMD.
		Entrypoint: []string{binaryPath},
		Cmd:        []string{"--config", configPath},
		WorkingDir: "/",
		Env:        []string{"SSL_CERT_FILE=" + caBundlePath},
		Labels: map[string]string{
			"org.opencontainers.image.title":    "otelcol-governance",
			"org.opencontainers.image.version":  version,
			"org.opencontainers.image.source":   imageSource,
			"org.opencontainers.image.licenses": imageLicenses,
		},
	}
}

// layer builds an uncompressed layer tarball holding files and their parent
// directories, owned by root, with fixed timestamps.
func layer(files []file) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := map[string]bool{}
	for _, f := range files {
		for i := range len(f.path) {
			if f.path[i] != '/' {
				continue
			}
			d := f.path[:i+1]
			if dirs[d] {
				continue
			}
			dirs[d] = true
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d, Mode: 0o755, ModTime: epoch, Format: tar.FormatPAX}); err != nil {
				return nil, err
			}
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: f.path, Mode: f.mode, Size: int64(len(f.data)), ModTime: epoch, Format: tar.FormatPAX}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	})
}

// errNotStatic: the image has no libc or dynamic loader.
var errNotStatic = errors.New("binary is dynamically linked; the image has no libc: build with CGO_ENABLED=0 (OCB's default; unset dist.cgo_enabled)")

// checkStatic refuses an ELF binary that needs a dynamic loader.
func checkStatic(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("binary %s: not an ELF executable: %w", path, err)
	}
	defer f.Close()
	if f.Machine != elf.EM_X86_64 {
		return fmt.Errorf("binary %s is for %s, the image is linux/amd64", path, f.Machine)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s: %w", path, errNotStatic)
		}
	}
	return nil
}
