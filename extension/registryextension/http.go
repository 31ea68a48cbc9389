package registryextension // import "github.com/otelgov/otelcol-governance/extension/registryextension"

import (
	"encoding/json"
	"net/http"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/otelgov/otelcol-governance/extension/registryextension/registryapi"
	"github.com/otelgov/otelcol-governance/registry"
)

func (e *registryExtension) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /registry", e.serveRegistry)
	mux.HandleFunc("GET /registry/attributes/{key}", e.serveAttribute)
	mux.HandleFunc("GET /conformance", e.serveConformance)
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
			Embedded:      true,
			OrgRegistries: append([]string{}, e.cfg.OrgRegistries...),
			RulesFiles:    append([]string{}, e.cfg.RulesFiles...),
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
			DeprecatedMembers: st.DeprecatedMembers,
			ValueMigrations:   st.ValueMigrations,
		},
		Status: e.status.Load(),
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
	out := describe(snap, key, q.Get("metric"), q.Get("span_name"))
	code := http.StatusOK
	if out.Entry == "" {
		code = http.StatusNotFound
	}
	e.writeJSON(w, code, out)
}

// spanKinds are the kinds a span-scoped rename may depend on.
var spanKinds = []registry.SpanKind{
	registry.SpanKindUnspecified, registry.SpanKindInternal, registry.SpanKindServer,
	registry.SpanKindClient, registry.SpanKindProducer, registry.SpanKindConsumer,
}

var locations = []registry.Location{
	registry.LocationResource, registry.LocationScope, registry.LocationSpan,
	registry.LocationSpanEvent, registry.LocationSpanLink, registry.LocationDataPoint,
	registry.LocationLog,
}

func describe(snap *registryapi.Snapshot, key, metricName, spanName string) registryapi.AttributeInfo {
	out := registryapi.AttributeInfo{Key: key, Generation: snap.Generation, CurrentNames: []registryapi.ContextName{}}
	a := snap.Index.Lookup(key)
	if a == nil {
		return out
	}
	out.Known = !a.Placeholder
	out.Entry = a.Key
	out.Template = a.Template
	out.Placeholder = a.Placeholder
	out.Source = a.Source
	if !a.Placeholder {
		out.Type = typeName(a.Type)
		out.Stability = stabilityName(a.Stability)
		out.EnumStrings = slices.Clone(a.EnumStrings)
		out.EnumInts = slices.Clone(a.EnumInts)
	}
	out.DeprecatedMembers = deprecatedMembers(a)
	out.ValueMigration = valueMigration(a)
	if a.Deprecation.Reason != registry.NotDeprecated {
		out.Deprecated = &registryapi.Deprecation{
			Reason:    reasonName(a.Deprecation.Reason),
			RenamedTo: a.Deprecation.RenamedTo,
			Note:      a.Deprecation.Note,
		}
	}
	for _, l := range locations {
		ctx := registry.Context{Location: l}
		cn := registryapi.ContextName{Location: l.String()}
		switch l {
		case registry.LocationDataPoint:
			ctx.MetricName, cn.MetricName = metricName, metricName
		case registry.LocationSpan, registry.LocationSpanEvent, registry.LocationSpanLink:
			ctx.SpanName, cn.SpanName = spanName, spanName
			// One entry when the kind does not matter, else one per kind.
			names := make([]string, len(spanKinds))
			same := true
			for i, k := range spanKinds {
				ctx.SpanKind = k
				names[i], _ = currentName(a, key, ctx)
				same = same && names[i] == names[0]
			}
			if !same {
				for i, k := range spanKinds {
					kc := cn
					kc.SpanKind = k.String()
					kc.Name, kc.Renamed = names[i], names[i] != key
					out.CurrentNames = append(out.CurrentNames, kc)
				}
				continue
			}
			ctx.SpanKind = registry.SpanKindUnspecified
		case registry.LocationResource, registry.LocationScope, registry.LocationLog:
		}
		cn.Name, cn.Renamed = currentName(a, key, ctx)
		out.CurrentNames = append(out.CurrentNames, cn)
	}
	return out
}

// currentName is key's name after renaming in ctx, as the processor
// computes it: a renamed template keeps the suffix.
func currentName(a *registry.Attribute, key string, ctx registry.Context) (string, bool) {
	t := a.Target(ctx)
	if t == nil {
		return key, false
	}
	if a.Template && t.Template && len(key) > len(a.Key) {
		return t.Key + key[len(a.Key):], true
	}
	return t.Key, true
}

func typeName(t registry.Type) string {
	switch t {
	case registry.TypeString:
		return "string"
	case registry.TypeInt:
		return "int"
	case registry.TypeDouble:
		return "double"
	case registry.TypeBoolean:
		return "boolean"
	case registry.TypeStringArray:
		return "string[]"
	case registry.TypeIntArray:
		return "int[]"
	case registry.TypeDoubleArray:
		return "double[]"
	case registry.TypeBooleanArray:
		return "boolean[]"
	case registry.TypeAny:
		return "any"
	case registry.TypeUnknown:
	}
	return "unknown"
}

func stabilityName(s registry.Stability) string {
	switch s {
	case registry.StabilityDevelopment:
		return "development"
	case registry.StabilityAlpha:
		return "alpha"
	case registry.StabilityBeta:
		return "beta"
	case registry.StabilityReleaseCandidate:
		return "release_candidate"
	case registry.StabilityStable:
		return "stable"
	case registry.StabilityUnspecified:
	}
	return "unspecified"
}

func reasonName(r registry.DeprecationReason) string {
	switch r {
	case registry.DeprecatedRenamed:
		return "renamed"
	case registry.DeprecatedObsoleted:
		return "obsoleted"
	case registry.DeprecatedUncategorized:
		return "uncategorized"
	case registry.DeprecatedUnspecified:
		return "unspecified"
	case registry.NotDeprecated:
	}
	return ""
}
