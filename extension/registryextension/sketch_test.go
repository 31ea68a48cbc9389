package registryextension

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/infer"
)

// sketchBatch walks n spans of checkout with the unknown keys acme.tenant
// (a long string) and acme.size (an int) as a processor does for this
// extension: the engine's walker with the report's detail, tracking
// unknown keys when the extension asks for them.
func sketchBatch(t *testing.T, e *registryExtension, n int) {
	t.Helper()
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "checkout")
	ss := rs.ScopeSpans().AppendEmpty()
	for i := range n {
		a := ss.Spans().AppendEmpty().Attributes()
		a.PutStr("acme.tenant", strings.Repeat("t", 300))
		a.PutInt("acme.size", int64(i))
		a.PutStr("acme bad key", "x")
	}
	eng := engine.New(engine.Options{Detail: true, Findings: true})
	w := eng.Walker(e.Current().Index, false)
	if on, values := e.TracksUnknowns(); on {
		w.TrackUnknowns(true, values)
	}
	w.Traces(td)
	e.Report(w.Batch())
	eng.Release(w)
}

// TestServeEvidence: off (the default), the extension asks processors for
// nothing and has no /infer/evidence; on, it serves the sketch of the keys
// the registry does not know as infer.Evidence, with example values only
// with infer.examples, each cut by vocab.Bound.
func TestServeEvidence(t *testing.T) {
	t.Run("off", func(t *testing.T) {
		e, _ := startTestExtension(t, nil, func(*Config) {})
		on, _ := e.TracksUnknowns()
		assert.False(t, on)
		sketchBatch(t, e, 3)
		rec := httptest.NewRecorder()
		e.handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/infer/evidence", http.NoBody))
		assert.Equal(t, http.StatusNotFound, rec.Code)
	})
	for _, examples := range []bool{false, true} {
		name := map[bool]string{false: "on", true: "examples"}[examples]
		t.Run(name, func(t *testing.T) {
			e, _ := startTestExtension(t, nil, func(cfg *Config) {
				cfg.Infer.Enabled, cfg.Infer.Examples = true, examples
			})
			sketchBatch(t, e, 5)
			sketchBatch(t, e, 5)
			var ev infer.Evidence
			require.Equal(t, http.StatusOK, get(t, e.handler(), "/infer/evidence", &ev))
			require.NoError(t, ev.Check(infer.Limits{}))
			require.Contains(t, ev.Attributes, "acme.tenant")
			require.Contains(t, ev.Attributes, "acme.size")
			tenant, size := ev.Attributes["acme.tenant"], ev.Attributes["acme.size"]
			assert.Equal(t, int64(10), tenant.Count)
			assert.Equal(t, []string{"checkout"}, tenant.Services)
			assert.Equal(t, infer.WhereSpan, tenant.Where)
			require.Len(t, size.Types, 1)
			assert.Equal(t, "int", size.Types[0].Type)
			assert.Equal(t, int64(10), size.Types[0].Count)
			assert.Positive(t, size.Cardinality())
			assert.NotContains(t, ev.Attributes, "service.name", "the registry defines it")
			assert.NotContains(t, ev.Attributes, "acme bad key")
			require.Len(t, ev.Invalid, 1, "a name that cannot be a registry ID is named once")
			assert.Equal(t, "acme bad key", ev.Invalid[0].Name)
			assert.Equal(t, infer.SketchInput, ev.Invalid[0].Input)
			if !examples {
				assert.Empty(t, tenant.Examples, "no production value leaves the collector")
				assert.Empty(t, tenant.Values)
				return
			}
			require.Len(t, tenant.Examples, 1)
			assert.Len(t, tenant.Examples[0], 256, "cut by vocab.Bound")
		})
	}
}

// stuckWriter is a client that never reads: its first Write blocks until
// release is closed, as a full TCP send buffer does.
type stuckWriter struct {
	header  http.Header
	writing chan struct{}
	release chan struct{}
	once    sync.Once
}

func (w *stuckWriter) Header() http.Header { return w.header }
func (w *stuckWriter) WriteHeader(int)     {}
func (w *stuckWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.writing) })
	<-w.release
	return len(p), nil
}

// TestEvidenceReaderNeverReads: while GET /infer/evidence is stuck writing
// to a reader that never reads, the processors' per-batch Report (which
// takes the sketch's lock) still returns: the response is encoded from a
// copy taken under the lock, not under it.
func TestEvidenceReaderNeverReads(t *testing.T) {
	e, _ := startTestExtension(t, nil, func(cfg *Config) { cfg.Infer.Enabled = true })
	sketchBatch(t, e, 3)
	w := &stuckWriter{header: http.Header{}, writing: make(chan struct{}), release: make(chan struct{})}
	served := make(chan struct{})
	go func() {
		defer close(served)
		e.serveEvidence(w, httptest.NewRequest(http.MethodGet, "/infer/evidence", http.NoBody))
	}()
	<-w.writing
	reported := make(chan struct{})
	go func() {
		defer close(reported)
		sketchBatch(t, e, 3)
	}()
	select {
	case <-reported:
	case <-time.After(5 * time.Second):
		t.Error("Report blocked behind a reader that never reads")
	}
	close(w.release)
	<-served
	<-reported
	var ev infer.Evidence
	require.Equal(t, http.StatusOK, get(t, e.handler(), "/infer/evidence", &ev))
	assert.Equal(t, int64(6), ev.Attributes["acme.size"].Count, "the batch reported while the reader was stuck was kept")
}
