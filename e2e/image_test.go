//go:build e2e

package e2e_test

import (
	"archive/tar"
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

const imageTag = "ghcr.io/otelgov/otelcol-governance:0.1.0"

// buildImage runs cmd/mkimage on the built binary, as `make image` does.
func buildImage(t *testing.T, binary string) (string, string, error) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "image.tar")
	cmd := exec.Command("go", "run", "./cmd/mkimage", "-binary", binary, "-out", out, "-tag", imageTag)
	cmd.Dir = e2e.RepoRoot(t)
	log, err := cmd.CombinedOutput()
	return out, string(log), err
}

// TestImageTarball builds the image from the built binary, loads it the way
// `docker load` reads it, checks its config, then extracts the binary and
// the default config from the layers and runs `validate`.
func TestImageTarball(t *testing.T) {
	path, log, err := buildImage(t, e2e.Binary(t))
	require.NoError(t, err, log)
	st, err := os.Stat(path)
	require.NoError(t, err)
	t.Logf("image tarball: %.1f MiB (%s)", float64(st.Size())/(1<<20), strings.TrimSpace(log))

	// docker load reads manifest.json's RepoTags.
	mf, err := tarball.LoadManifest(func() (io.ReadCloser, error) { return os.Open(path) })
	require.NoError(t, err)
	require.Len(t, mf, 1)
	assert.Equal(t, []string{imageTag}, mf[0].RepoTags)

	tag, err := name.NewTag(imageTag)
	require.NoError(t, err)
	img, err := tarball.ImageFromPath(path, &tag)
	require.NoError(t, err)
	cf, err := img.ConfigFile()
	require.NoError(t, err)
	assert.Equal(t, "linux", cf.OS)
	assert.Equal(t, "amd64", cf.Architecture)
	c := cf.Config
	assert.Equal(t, []string{"/otelcol-governance"}, c.Entrypoint, "the Operator sets no command: the entrypoint must be the binary")
	assert.Equal(t, []string{"--config", "/etc/otelcol-governance/config.yaml"}, c.Cmd)
	assert.Equal(t, "10001", c.User)
	assert.NotContains(t, []string{"", "0", "root"}, c.User, "non-root")
	assert.Equal(t, []string{"13133/tcp", "4317/tcp", "4318/tcp", "8888/tcp"}, sortedKeys(c.ExposedPorts))

	files := extract(t, img, t.TempDir())
	bin := files["otelcol-governance"]
	require.NotEmpty(t, bin, "binary at /otelcol-governance")
	info, err := os.Stat(bin)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), info.Mode().Perm())
	require.FileExists(t, files["etc/ssl/certs/ca-certificates.crt"])
	cfg := files["etc/otelcol-governance/config.yaml"]
	require.FileExists(t, cfg)
	assert.Equal(t, mustRead(t, filepath.Join(e2e.RepoRoot(t), "distribution/config.yaml")), mustRead(t, cfg))

	out, err := exec.Command(bin, "validate", "--config", cfg).CombinedOutput()
	require.NoError(t, err, "the image's binary validates the image's default config: %s", out)
	out, err = exec.Command(bin, "components").CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "name: governance", "the image holds this distribution's processor")

	// otelgov ships next to the collector: docker run --entrypoint /otelgov.
	gov := files["otelgov"]
	require.NotEmpty(t, gov, "otelgov at /otelgov")
	out, err = exec.Command(gov, "explain", "http.method").CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "renamed to http.request.method")

	// The Dockerfile states the same contract.
	df, err := parseDockerfile(filepath.Join(e2e.RepoRoot(t), "distribution/Dockerfile"))
	require.NoError(t, err)
	assert.Empty(t, df.problems, "distribution/Dockerfile")
	assert.Equal(t, c.Entrypoint, df.entrypoint, "ENTRYPOINT")
	assert.Equal(t, c.Cmd, df.cmd, "CMD")
	assert.Equal(t, c.User, df.user, "USER")
	assert.Equal(t, sortedKeys(c.ExposedPorts), df.ports, "EXPOSE")
	var imageFiles []string
	for f := range files {
		imageFiles = append(imageFiles, "/"+f)
	}
	sort.Strings(imageFiles)
	assert.Equal(t, imageFiles, df.copies, "COPY destinations of the final stage")
}

// TestImageReadByContainersTooling reads the tarball with skopeo, which uses
// containers/image's docker-archive reader, the one `podman load` uses: an
// implementation independent of go-containerregistry that wrote it.
func TestImageReadByContainersTooling(t *testing.T) {
	skopeo, err := exec.LookPath("skopeo")
	if err != nil {
		t.Fatalf("skopeo not found: the image tarball cannot be checked by an independent reader (Debian: apt-get install -y skopeo): %v", err)
	}
	path, log, err := buildImage(t, e2e.Binary(t))
	require.NoError(t, err, log)
	out, err := exec.Command(skopeo, "inspect", "--config", "docker-archive:"+path).CombinedOutput()
	require.NoError(t, err, string(out))
	var cf v1.ConfigFile
	require.NoError(t, json.Unmarshal(out, &cf), string(out))
	assert.Equal(t, []string{"/otelcol-governance"}, cf.Config.Entrypoint)
	assert.Equal(t, "10001", cf.Config.User)
	assert.Len(t, cf.Config.ExposedPorts, 4)
	// And copies it into an OCI layout, which reads every layer blob.
	out, err = exec.Command(skopeo, "copy", "-q", "docker-archive:"+path, "oci:"+filepath.Join(t.TempDir(), "oci")+":latest").CombinedOutput()
	require.NoError(t, err, string(out))

	// The same reader rejects a tarball cut short (a failed write, a full disk).
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	cut := filepath.Join(t.TempDir(), "cut.tar")
	require.NoError(t, os.WriteFile(cut, data[:len(data)/2], 0o600)) //nolint:gosec // a path under t.TempDir()
	out, err = exec.Command(skopeo, "copy", "-q", "docker-archive:"+cut, "oci:"+filepath.Join(t.TempDir(), "oci-cut")+":latest").CombinedOutput()
	require.Error(t, err, "skopeo accepted a truncated tarball: %s", out)
}

// TestImageRefusesDynamicBinary: the image has no libc, so a dynamically
// linked binary would fail at start with "no such file or directory" and no
// other message; mkimage refuses it instead.
func TestImageRefusesDynamicBinary(t *testing.T) {
	dynamic, err := exec.LookPath("ls")
	require.NoError(t, err)
	_, log, err := buildImage(t, dynamic)
	require.Error(t, err)
	assert.Contains(t, log, "dynamically linked")
}

// TestDockerfileCheckCatchesBrokenInput runs the Dockerfile check on a
// deliberately broken Dockerfile.
func TestDockerfileCheckCatchesBrokenInput(t *testing.T) {
	df, err := parseDockerfile(filepath.Join(e2e.RepoRoot(t), "e2e/testdata/image/Dockerfile.broken"))
	require.NoError(t, err)
	assert.Equal(t, []string{
		`final stage FROM debian:bookworm: want scratch or distroless`,
		`USER must be a non-root numeric UID, got "root"`,
		"EXPOSE 8888 has no comment saying what the port is",
		`ENTRYPOINT must be exec form (a JSON array), got "/otelcol-governance --config /etc/otelcol-governance/config.yaml"`,
		"no exec-form ENTRYPOINT: the Operator sets no command",
		"no CMD: plain `docker run` starts without a config",
	}, df.problems)
}

type dockerfile struct {
	entrypoint, cmd []string
	user            string
	ports           []string // "4317/tcp"
	copies          []string // destinations in the final stage
	problems        []string
}

// parseDockerfile reads the final stage of a Dockerfile: enough of the
// format (comments, continuation lines, exec-form JSON) for this check.
func parseDockerfile(path string) (dockerfile, error) {
	f, err := os.Open(path)
	if err != nil {
		return dockerfile{}, err
	}
	defer f.Close()
	var (
		df          dockerfile
		lines       []string
		comments    []bool // whether a comment line precedes the instruction
		prevComment bool
		cont        string
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if cont == "" && strings.HasPrefix(line, "#") {
			prevComment = true
			continue
		}
		if line == "" && cont == "" {
			prevComment = false
			continue
		}
		if strings.HasSuffix(line, "\\") {
			cont += strings.TrimSuffix(line, "\\") + " "
			continue
		}
		lines = append(lines, cont+line)
		comments = append(comments, prevComment)
		cont, prevComment = "", false
	}
	if err := sc.Err(); err != nil {
		return dockerfile{}, err
	}
	final := 0
	for i, l := range lines {
		if strings.HasPrefix(strings.ToUpper(l), "FROM ") {
			final = i
		}
	}
	if len(lines) == 0 {
		return df, errors.New("empty Dockerfile")
	}
	from := strings.Fields(lines[final])[1]
	if from != "scratch" && !strings.HasPrefix(from, "gcr.io/distroless/") {
		df.problems = append(df.problems, fmt.Sprintf("final stage FROM %s: want scratch or distroless", from))
	}
	for i := final + 1; i < len(lines); i++ {
		instr, rest, _ := strings.Cut(lines[i], " ")
		rest = strings.TrimSpace(rest)
		switch strings.ToUpper(instr) {
		case "ENTRYPOINT", "CMD":
			var v []string
			if err := json.Unmarshal([]byte(rest), &v); err != nil {
				df.problems = append(df.problems, fmt.Sprintf("%s must be exec form (a JSON array), got %q", strings.ToUpper(instr), rest))
				continue
			}
			if strings.ToUpper(instr) == "ENTRYPOINT" {
				df.entrypoint = v
			} else {
				df.cmd = v
			}
		case "USER":
			df.user = rest
			if rest == "" || rest == "0" || rest == "root" || strings.Trim(rest, "0123456789:") != "" {
				df.problems = append(df.problems, fmt.Sprintf("USER must be a non-root numeric UID, got %q", rest))
			}
		case "EXPOSE":
			for _, p := range strings.Fields(rest) {
				if !strings.Contains(p, "/") {
					p += "/tcp"
				}
				df.ports = append(df.ports, p)
				if !comments[i] {
					df.problems = append(df.problems, fmt.Sprintf("EXPOSE %s has no comment saying what the port is", strings.TrimSuffix(p, "/tcp")))
				}
			}
		case "COPY":
			fields := strings.Fields(rest)
			df.copies = append(df.copies, fields[len(fields)-1])
		}
	}
	if df.entrypoint == nil {
		df.problems = append(df.problems, "no exec-form ENTRYPOINT: the Operator sets no command")
	}
	if df.cmd == nil {
		df.problems = append(df.problems, "no CMD: plain `docker run` starts without a config")
	}
	sort.Strings(df.ports)
	sort.Strings(df.copies)
	return df, nil
}

// extract unpacks the image's flattened filesystem into dir and returns the
// regular files by path (without the leading slash).
func extract(t *testing.T, img v1.Image, dir string) map[string]string {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	files := map[string]string{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if h.Typeflag != tar.TypeReg {
			continue
		}
		clean := filepath.Clean(h.Name)
		require.False(t, strings.HasPrefix(clean, ".."), h.Name)
		dst := filepath.Join(dir, clean)
		require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o750))
		f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fs.FileMode(h.Mode&0o777)) //nolint:gosec // masked to permission bits
		require.NoError(t, err)
		_, err = io.Copy(f, tr) //nolint:gosec // our own image, bounded by its size
		require.NoError(t, f.Close())
		require.NoError(t, err)
		files[clean] = dst
	}
	return files
}

func sortedKeys(m map[string]struct{}) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
