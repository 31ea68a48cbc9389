package registryextension

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/otelgov/otelcol-governance/conformance"
	"github.com/otelgov/otelcol-governance/engine"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/otelgov/otelcol-governance/extension/registryextension/internal/metadatatest"
	"github.com/otelgov/otelcol-governance/extension/registryextension/registryapi"
	"github.com/otelgov/otelcol-governance/vocab"
)

func get(t *testing.T, h http.Handler, url string, out any) int {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, url, http.NoBody))
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), out), rec.Body.String())
	return rec.Code
}

func outcomes(kv map[registryapi.Outcome]int64) [vocab.NumOutcomes]int64 {
	var o [vocab.NumOutcomes]int64
	for k, v := range kv {
		o[k] = v
	}
	return o
}

// TestConformanceReport feeds known traffic from three services and checks
// the report to the count.
func TestConformanceReport(t *testing.T) {
	e, _ := newTestExtension(t, nil)
	b := &registryapi.Batch{Generation: 1}
	for range 3 { // three batches of the same shape
		b.Reset()
		b.Generation = 1
		b.Services = append(b.Services,
			registryapi.ServiceTally{Service: "checkout", Outcomes: outcomes(map[registryapi.Outcome]int64{
				vocab.OutcomeConformant: 10, vocab.OutcomeUnknown: 3, vocab.OutcomeRenamed: 2,
			})},
			registryapi.ServiceTally{Service: "cart", Outcomes: outcomes(map[registryapi.Outcome]int64{
				vocab.OutcomeConformant: 5,
			})},
			registryapi.ServiceTally{Service: "payment", Outcomes: outcomes(map[registryapi.Outcome]int64{
				vocab.OutcomeConformant: 1, vocab.OutcomeDeprecatedKept: 4,
			})},
		)
		b.Keys = append(b.Keys,
			registryapi.KeyTally{Service: 0, Key: "acme.cart.sz", Kind: engine.KeyUnknown, Count: 2},
			registryapi.KeyTally{Service: 0, Key: "acme.promo", Kind: engine.KeyUnknown, Count: 1},
			registryapi.KeyTally{Service: 0, Key: "http.method", Kind: engine.KeyDeprecated, Count: 2},
			registryapi.KeyTally{Service: 2, Key: "http.method", Kind: engine.KeyDeprecated, Count: 4},
			registryapi.KeyTally{Key: "http.request.method", Kind: engine.KeyRegistry, Count: 6},
			registryapi.KeyTally{Key: "server.address", Kind: engine.KeyRegistry, Count: 10},
		)
		e.Report(b)
	}

	var rep conformance.Document
	require.Equal(t, http.StatusOK, get(t, e.handler(), "/conformance", &rep))
	assert.Equal(t, int64(1), rep.Generation)
	assert.Equal(t, e.Current().Index.Digest(), rep.Digest)
	require.Len(t, rep.Services, 3)
	assert.Equal(t, []string{"cart", "checkout", "payment"}, []string{rep.Services[0].Service, rep.Services[1].Service, rep.Services[2].Service})

	checkout := rep.Services[1]
	assert.Equal(t, int64(30), checkout.Attributes["conformant"])
	assert.Equal(t, int64(9), checkout.Attributes["unknown"])
	assert.Equal(t, int64(6), checkout.Attributes["renamed"])
	assert.Equal(t, []conformance.KeyCount{{Key: "acme.cart.sz", Count: 6}, {Key: "acme.promo", Count: 3}}, checkout.UnknownKeys)
	assert.Equal(t, []conformance.KeyCount{{Key: "http.method", Count: 6}}, checkout.DeprecatedKeys)
	assert.False(t, checkout.FirstSeen.IsZero())
	assert.False(t, checkout.LastSeen.Before(checkout.FirstSeen))

	assert.Equal(t, []conformance.KeyCount{}, rep.Services[0].UnknownKeys)
	assert.Equal(t, []conformance.KeyCount{{Key: "http.method", Count: 12}}, rep.Services[2].DeprecatedKeys)

	assert.Equal(t, int64(48), rep.Totals.Attributes["conformant"])
	assert.Equal(t, int64(12), rep.Totals.Attributes["deprecated_kept"])
	assert.Len(t, rep.Totals.Attributes, int(vocab.NumOutcomes))
	assert.Equal(t, 2, rep.Totals.SeenRegistryAttributes)
	assert.Equal(t, int64(9), rep.Totals.SeenNonRegistryAttributes)
	assert.InDelta(t, 2/float64(e.Current().Index.Stats().Known), rep.Totals.RegistryCoverage, 1e-12)
	assert.Equal(t, 3, rep.Totals.Services)

	// ?service= lists one service, totals stay global.
	var one conformance.Document
	get(t, e.handler(), "/conformance?service=payment", &one)
	require.Len(t, one.Services, 1)
	assert.Equal(t, "payment", one.Services[0].Service)
	assert.Equal(t, rep.Totals, one.Totals)
	var none conformance.Document
	get(t, e.handler(), "/conformance?service=nope", &none)
	assert.Empty(t, none.Services)
}

// TestReportBounds sends 10,000 distinct unknown keys from 1,000 services,
// keys longer than max_key_length among them, and checks the stated bounds
// at the defaults (max_services 100, top_keys 10): at most 102 service
// entries (_other and _missing included), at most top_keys keys per list,
// keys cut to 256 bytes, a JSON report under 1 MiB and under 4 MiB of heap
// retained by the report.
func TestReportBounds(t *testing.T) {
	tt := componenttest.NewTelemetry()
	e, _ := newTestExtension(t, tt)
	pad := strings.Repeat("x", 300)

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	b := &registryapi.Batch{}
	const services, keysPerService = 1000, 10
	for s := range services {
		b.Reset()
		b.Services = append(b.Services, registryapi.ServiceTally{
			Service:  fmt.Sprintf("svc-%04d", s),
			Outcomes: outcomes(map[registryapi.Outcome]int64{vocab.OutcomeUnknown: keysPerService + 1000}),
		})
		for k := range keysPerService {
			b.Keys = append(b.Keys, registryapi.KeyTally{
				Key: fmt.Sprintf("acme.unknown.%05d.%s", s*keysPerService+k, pad), Kind: engine.KeyUnknown, Count: 1,
			})
		}
		// One frequent key per service must stay on top of its list.
		b.Keys = append(b.Keys, registryapi.KeyTally{Key: "acme.hot", Kind: engine.KeyUnknown, Count: 1000})
		e.Report(b)
	}
	// A flood of distinct keys into one service: the sketch stays bounded
	// and the frequent key stays on top.
	for i := range 10_000 {
		b.Reset()
		b.Services = append(b.Services, registryapi.ServiceTally{Service: "svc-0000"})
		b.Keys = append(b.Keys, registryapi.KeyTally{Key: fmt.Sprintf("flood.%d", i), Kind: engine.KeyUnknown, Count: 1})
		e.Report(b)
	}

	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	retained := float64(after.HeapAlloc) - float64(before.HeapAlloc)
	t.Logf("heap retained by the report: %.0f bytes", retained)
	assert.Less(t, retained, float64(4<<20))

	rec := httptest.NewRecorder()
	e.handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/conformance", http.NoBody))
	t.Logf("report JSON: %d bytes", rec.Body.Len())
	assert.Less(t, rec.Body.Len(), 1<<20)

	var rep conformance.Document
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &rep))
	assert.Len(t, rep.Services, defaultMaxServices+1, "100 services and _other")
	assert.Equal(t, defaultMaxServices, rep.Totals.Services)
	assert.Equal(t, int64(services-defaultMaxServices), rep.Totals.ServicesOverflow)
	for _, s := range rep.Services {
		assert.LessOrEqual(t, len(s.UnknownKeys), defaultTopKeys, s.Service)
		require.NotEmpty(t, s.UnknownKeys, s.Service)
		assert.Equal(t, "acme.hot", s.UnknownKeys[0].Key, s.Service)
		for _, k := range s.UnknownKeys {
			assert.LessOrEqual(t, len(k.Key), vocab.MaxKeyLength)
		}
	}
	other := rep.Services[0] // "_" sorts before letters
	assert.Equal(t, "_other", other.Service)
	assert.Equal(t, int64(900*1000), other.UnknownKeys[0].Count)
	assert.Equal(t, int64(services*(keysPerService+1000)), rep.Totals.Attributes["unknown"])

	metadatatest.AssertEqualExtensionGovernanceRegistryReportOverflow(t, tt,
		[]metricdata.DataPoint[int64]{{Value: services - defaultMaxServices}}, metricdatatest.IgnoreTimestamp())
}

func TestServeRegistry(t *testing.T) {
	dir, _ := orgDir(t, orgV2)
	e, _ := newTestExtension(t, nil, dir)
	var info registryapi.RegistryInfo
	require.Equal(t, http.StatusOK, get(t, e.handler(), "/registry", &info))
	assert.Equal(t, int64(1), info.Generation)
	assert.Equal(t, e.Current().Index.Digest(), info.Digest)
	assert.Equal(t, e.Current().Index.SchemaURL(), info.SchemaURL)
	assert.Equal(t, []string{dir}, info.Sources.OrgRegistries)
	assert.Equal(t, "0s", info.PollInterval)
	assert.Equal(t, e.Current().Index.Stats().Known, info.Counts.Attributes)
	assert.Positive(t, info.Counts.Deprecated)
	assert.Nil(t, info.LastReloadError)
	assert.WithinDuration(t, time.Now(), info.LoadedAt, time.Minute)
}

func TestServeAttribute(t *testing.T) {
	dir, _ := orgDir(t, orgV2)
	e, _ := startTestExtension(t, nil, func(cfg *Config) {
		cfg.OrgRegistries = []string{dir}
		cfg.RulesFiles = []string{"testdata/rules.yaml"}
	})
	h := e.handler()

	var a registryapi.AttributeInfo
	require.Equal(t, http.StatusOK, get(t, h, "/registry/attributes/acme.cart.sz", &a))
	assert.True(t, a.Known)
	assert.Equal(t, "acme.cart.sz", a.Entry)
	assert.Equal(t, "int", a.Type)
	assert.Equal(t, "development", a.Stability)
	assert.Equal(t, &registryapi.Deprecation{Reason: "renamed", RenamedTo: "acme.cart.size"}, a.Deprecated)
	require.Len(t, a.CurrentNames, 7, "one per location; the kind does not matter")
	for _, cn := range a.CurrentNames {
		assert.Equal(t, "acme.cart.size", cn.Name, cn.Location)
		assert.True(t, cn.Renamed)
	}

	a = registryapi.AttributeInfo{}
	require.Equal(t, http.StatusOK, get(t, h, "/registry/attributes/http.method", &a))
	assert.Equal(t, "renamed", a.Deprecated.Reason)
	assert.Equal(t, "http.request.method", a.CurrentNames[2].Name)

	// Enum members, deprecated members and value migrations.
	a = registryapi.AttributeInfo{}
	require.Equal(t, http.StatusOK, get(t, h, "/registry/attributes/cloud.platform", &a))
	assert.Contains(t, a.EnumStrings, "azure.vm")
	assert.Contains(t, a.DeprecatedMembers, registryapi.DeprecatedMember{Value: "azure_vm", Reason: "renamed", RenamedTo: "azure.vm"})
	assert.Len(t, a.DeprecatedMembers, 7)
	a = registryapi.AttributeInfo{}
	require.Equal(t, http.StatusOK, get(t, h, "/registry/attributes/db.system", &a))
	require.NotNil(t, a.ValueMigration)
	assert.Equal(t, "values", a.ValueMigration.Operation)
	assert.Equal(t, "microsoft.sql_server", a.ValueMigration.Values["mssql"])
	assert.Contains(t, a.ValueMigration.Where, "registry/rules/semconv.yaml:")
	a = registryapi.AttributeInfo{}
	require.Equal(t, http.StatusOK, get(t, h, "/registry/attributes/http.target", &a))
	require.NotNil(t, a.ValueMigration)
	assert.Equal(t, registryapi.ValueMigration{Operation: "split", Targets: []string{"url.path", "url.query"}, Where: a.ValueMigration.Where}, *a.ValueMigration)

	// A template match names the template and keeps the suffix.
	a = registryapi.AttributeInfo{}
	require.Equal(t, http.StatusOK, get(t, h, "/registry/attributes/http.request.header.x-acme", &a))
	assert.True(t, a.Template)
	assert.Equal(t, "http.request.header", a.Entry)
	assert.Equal(t, "string[]", a.Type)

	// A rename scoped to client spans lists the span kinds.
	a = registryapi.AttributeInfo{}
	require.Equal(t, http.StatusOK, get(t, h, "/registry/attributes/acme.peer", &a))
	assert.False(t, a.Known)
	assert.True(t, a.Placeholder)
	var client, server string
	for _, cn := range a.CurrentNames {
		if cn.Location == "span" && cn.SpanKind == "client" {
			client = cn.Name
		}
		if cn.Location == "span" && cn.SpanKind == "server" {
			server = cn.Name
		}
	}
	assert.Equal(t, "service.peer.name", client)
	assert.Equal(t, "acme.peer", server)

	a = registryapi.AttributeInfo{}
	require.Equal(t, http.StatusNotFound, get(t, h, "/registry/attributes/acme.nope", &a))
	assert.False(t, a.Known)
	assert.Empty(t, a.Entry)
	assert.Equal(t, int64(1), a.Generation)
}
