package testbench

import (
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// TestSchemaServer: the schema files are served on loopback with every
// opentelemetry.io URL rewritten to the server's (the target file's own
// schema_url and its history alike), unknown versions and paths are 404,
// and the schema variant targets the server's SchemaTarget and is sent
// requests whose resource carries its SchemaFrom URL (the other variants'
// requests carry none).
func TestSchemaServer(t *testing.T) {
	dir := SchemasDir(t)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("shared semconv schema files absent (%s; set %s): %v", dir, SchemasDirEnv, err)
	}
	s := StartSchemaServer(t, dir)
	require.True(t, strings.HasPrefix(s.Base, "http://127.0.0.1:"), s.Base)
	get := func(url string) (int, string) {
		resp, err := http.Get(url) //nolint:gosec,noctx // the test's own loopback server
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	code, body := get(s.URL(SchemaTarget))
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "schema_url: "+s.URL(SchemaTarget)+"\n")
	assert.NotContains(t, body, "opentelemetry.io")
	assert.Contains(t, body, "http.method: http.request.method", "the history renames the workloads' keys")
	for _, path := range []string{"/schemas/9.9.9", "/schemas/../README.md", "/1.44.0", "/schemas/"} {
		code, _ := get(strings.TrimSuffix(s.Base, "/schemas") + path)
		assert.Equal(t, http.StatusNotFound, code, path)
	}

	v := SchemaVariant(s)
	assert.Equal(t, VariantBareBaseline, v.Bare)
	assert.Equal(t, "baseline", v.Config.Distribution)
	assert.Contains(t, v.Config.Processors, "targets: ["+s.URL(SchemaTarget)+"]")
	reqs, err := NewLineRequests(LineWorkloads[1], []LineVariant{LineVariants(nil)[0], v})
	require.NoError(t, err)
	require.Len(t, reqs, 2)
	for url, req := range reqs {
		er := ptraceotlp.NewExportRequest()
		require.NoError(t, er.UnmarshalProto(req.Body()))
		td := er.Traces()
		assert.Equal(t, LineSpansPerRequest, td.SpanCount())
		assert.Equal(t, url, td.ResourceSpans().At(0).SchemaUrl())
	}
	assert.Equal(t, s.URL(SchemaFrom), v.SchemaURL)
}
