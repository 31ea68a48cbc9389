package registryextension // import "github.com/otelgov/otelcol-governance/extension/registryextension"

import (
	"encoding/json"
	"net/http"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/otelgov/otelcol-governance/extension/registryextension/registryapi"
)

func (e *registryExtension) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /registry", e.serveRegistry)
	mux.HandleFunc("GET /registry/attributes/{key}", e.serveAttribute)
	mux.HandleFunc("GET /conformance", e.serveConformance)
	if e.sketch != nil {
		mux.HandleFunc("GET /infer/evidence", e.serveEvidence)
	}
	return mux
}

func (e *registryExtension) writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		e.logger.Debug("Writing a registry response failed", zap.Error(err))
	}
}

// info renders GET /registry.
func (e *registryExtension) info() registryapi.RegistryInfo {
	snap := e.cur.Load()
	ix := snap.Index
	st := ix.Stats()
	out := registryapi.RegistryInfo{
		SchemaURL:  ix.SchemaURL(),
		Digest:     ix.Digest(),
		Generation: snap.Generation,
		LoadedAt:   snap.LoadedAt,
		Sources: registryapi.Sources{
			Embedded:      e.cfg.SemconvDir == "",
			SemconvDir:    e.cfg.SemconvDir,
			OrgRegistries: append([]string{}, e.cfg.OrgRegistries...),
			RulesFiles:    append([]string{}, e.cfg.RulesFiles...),
			Policies:      append([]string{}, e.cfg.Policies...),
		},
		PollInterval: e.cfg.PollInterval.String(),
		Counts: registryapi.RegistryCounts{
			Attributes:        st.Known,
			Templates:         st.Templates,
			Enums:             st.Enums,
			Placeholders:      st.Placeholders,
			Deprecated:        st.DeprecatedRenamed + st.DeprecatedObsoleted + st.DeprecatedUncategorized + st.DeprecatedUnspecified,
			Renames:           st.Renames,
			ContextualRenames: st.ContextualRenames,
			ManyToOneTargets:  st.ManyToOneTargets,
			Metrics:           st.Metrics,
			MetricRenames:     st.MetricRenames,
			Rules:             st.Rules,
			Disagreements:     st.Disagreements,
		},
		Status: e.status.Load(),
	}
	if sh, cc := e.shadow.Load(), e.cfg.Candidate.Get(); sh != nil && cc != nil {
		out.Candidate = &registryapi.CandidateInfo{
			Sources: registryapi.Sources{
				Embedded:      cc.SemconvDir == "",
				SemconvDir:    cc.SemconvDir,
				OrgRegistries: append([]string{}, cc.OrgRegistries...),
				RulesFiles:    append([]string{}, cc.RulesFiles...),
				Policies:      []string{},
			},
			Generation: sh.Generation, ActiveGeneration: sh.ActiveGeneration,
			SchemaURL: sh.SchemaURL, Digest: sh.Digest, Error: sh.Err,
		}
	}
	e.mu.Lock()
	out.LastCheck = e.lastCheck
	if e.lastErr != nil {
		le := *e.lastErr
		le.Files = slices.Clone(le.Files)
		out.LastReloadError = &le
	}
	e.mu.Unlock()
	return out
}

func (e *registryExtension) serveRegistry(w http.ResponseWriter, _ *http.Request) {
	e.writeJSON(w, http.StatusOK, e.info())
}

func (e *registryExtension) serveConformance(w http.ResponseWriter, r *http.Request) {
	snap := e.cur.Load()
	e.writeJSON(w, http.StatusOK, e.report.Document(snap.Index, snap.Generation, r.URL.Query().Get("service"), time.Now()))
}

// serveAttribute answers what the registry in force says about one key:
// 200 when some registry entry matches, else 404 with known=false.
func (e *registryExtension) serveAttribute(w http.ResponseWriter, r *http.Request) {
	snap := e.cur.Load()
	key := r.PathValue("key")
	q := r.URL.Query()
	out := registryapi.Describe(snap.Index, snap.Generation, key, q.Get("metric"), q.Get("span_name"))
	code := http.StatusOK
	if out.Entry == "" {
		code = http.StatusNotFound
	}
	e.writeJSON(w, code, out)
}
