package testbench

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/otelgov/otelcol-governance/internal/e2e"
)

// SchemasDirEnv overrides the directory of schema files SchemaServer
// serves (default ../shared/semconv/v1.44.0/schemas beside the repository).
const SchemasDirEnv = "TESTBENCH_SCHEMAS"

// SchemasDir is the directory of the semantic conventions' schema files:
// SchemasDirEnv, or semconv v1.44.0's beside the repository.
func SchemasDir(tb testing.TB) string {
	tb.Helper()
	if d := os.Getenv(SchemasDirEnv); d != "" {
		return d
	}
	return filepath.Join(e2e.RepoRoot(tb), "..", "shared", "semconv", "v1.44.0", "schemas")
}

// schemaFamily is the URL prefix of the semantic conventions' schema
// files, which SchemaServer rewrites to its own.
const schemaFamily = "https://opentelemetry.io/schemas/"

// schemaVersion is a schema file's name: a semantic conventions version.
var schemaVersion = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)

// SchemaServer serves schema files on loopback under /schemas/<version>,
// each with its URLs (schema_url) rewritten from opentelemetry.io to the
// server's: what contrib's schema processor fetches, without the network.
type SchemaServer struct {
	// Base is the family's URL, http://127.0.0.1:<port>/schemas.
	Base  string
	files map[string][]byte
}

// StartSchemaServer reads every schema file of dir and serves them until
// the test ends.
func StartSchemaServer(tb testing.TB, dir string) *SchemaServer {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatalf("schema files (set %s): %v", SchemasDirEnv, err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("schema server: %v", err)
	}
	s := &SchemaServer{Base: "http://" + l.Addr().String() + "/schemas", files: map[string][]byte{}}
	for _, e := range entries {
		if e.IsDir() || !schemaVersion.MatchString(e.Name()) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(path) //nolint:gosec // the operator's schema directory
		if err != nil {
			tb.Fatalf("read %s: %v", path, err)
		}
		if !strings.Contains(string(b), "schema_url: "+schemaFamily+e.Name()) {
			tb.Fatalf("%s: no schema_url %s%s", path, schemaFamily, e.Name())
		}
		s.files[e.Name()] = []byte(strings.ReplaceAll(string(b), schemaFamily, s.Base+"/"))
	}
	if len(s.files) == 0 {
		tb.Fatalf("%s: no schema files", dir)
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			tb.Errorf("schema server: %v", err)
		}
	}()
	tb.Cleanup(func() { _ = srv.Close() })
	return s
}

// URL is the schema URL of a version on this server.
func (s *SchemaServer) URL(version string) string { return s.Base + "/" + version }

func (s *SchemaServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, ok := s.files[strings.TrimPrefix(r.URL.Path, "/schemas/")]
	if !ok || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/yaml")
	_, _ = w.Write(b)
}

// The schema variant's versions: the workloads are sent as of
// SchemaFrom (before the HTTP and network renames they carry), and the
// schema processor translates them to SchemaTarget, the registry's.
const (
	SchemaFrom   = "1.20.0"
	SchemaTarget = "1.44.0"
)

// VariantSchema is contrib's schema processor translating the workload
// from SchemaFrom to SchemaTarget (baseline distribution).
const VariantSchema = "schema"

// SchemaVariant is contrib's schema processor with s's SchemaTarget as its
// target (prefetched at start), paired with the baseline's bare pipeline;
// its requests carry s's SchemaFrom as their resource's schema_url.
func SchemaVariant(s *SchemaServer) LineVariant {
	target := s.URL(SchemaTarget)
	return LineVariant{Name: VariantSchema, Bare: VariantBareBaseline, SchemaURL: s.URL(SchemaFrom), Config: Config{
		Name: VariantSchema, Distribution: "baseline",
		Processors: fmt.Sprintf("  schema:\n    targets: [%s]\n    prefetch: [%s]\n", target, target),
		Pipeline:   []string{"schema"},
	}}
}
