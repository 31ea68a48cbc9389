package governanceprocessor

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/otelgov/otelcol-governance/engine"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/vocab"
)

// Configurations that together exercise every code path of the walk.
var fuzzConfigs = []func(*config){
	nil,
	func(c *config) {
		c.Deprecated = engine.DeprecatedCopy
		c.Unknown = engine.UnknownDrop
		c.TypeMismatch = engine.TypeMismatchCoerce
		c.EnumViolation = engine.EnumViolationDrop
		c.Allow.Prefixes = []string{"acme."}
		c.ServiceLimit = 2
	},
	func(c *config) {
		c.Deprecated = engine.DeprecatedOff
		c.TypeMismatch = engine.TypeMismatchDrop
		c.IncludeResources = map[string][]string{"service.name": {"checkout"}}
	},
}

// Duplicate keys cannot be built with the pdata API; OTLP/JSON carries them.
const duplicateKeysJSON = `{"resourceSpans":[{"resource":{"attributes":[
 {"key":"service.name","value":{"stringValue":"checkout"}},
 {"key":"service.name","value":{"stringValue":"again"}},
 {"key":"http.method","value":{"stringValue":"GET"}},
 {"key":"http.method","value":{"stringValue":"POST"}}]},
 "scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"s","kind":3,
  "attributes":[
   {"key":"net.peer.name","value":{"stringValue":"a"}},
   {"key":"net.peer.name","value":{"stringValue":"b"}},
   {"key":"server.address","value":{"stringValue":"c"}},
   {"key":"server.address","value":{"stringValue":"c"}},
   {"key":"server.port","value":{"stringValue":"80"}},
   {"key":"server.port","value":{"stringValue":"x"}},
   {"key":"acme.x","value":{"intValue":"1"}},
   {"key":"zzz","value":{"intValue":"1"}},
   {"key":"zzz","value":{"intValue":"2"}},
   {"key":"","value":{}},
   {"key":"http.request.method","value":{}}],
  "events":[{"name":"e","attributes":[{"key":"http.method","value":{"stringValue":"GET"}},{"key":"http.method","value":{"stringValue":"GET"}}]}]
 }]}]}]}`

func TestDuplicateKeys(t *testing.T) {
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces([]byte(duplicateKeysJSON))
	require.NoError(t, err)
	attrs := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes()
	require.Equal(t, 11, attrs.Len(), "the payload keeps its duplicates")
	for _, mod := range fuzzConfigs {
		g := newTestGovernor(t, withConfig(mod), vocab.KindTraces, nopTelemetry())
		in := ptrace.NewTraces()
		td.CopyTo(in)
		c := walkBatch(g, in)
		var total int64
		for _, n := range outcomes(c) {
			total += n
		}
		assert.Positive(t, total)
		assert.Equal(t, 1, in.SpanCount())
	}
}

func TestEmptyBatches(t *testing.T) {
	traces := []ptrace.Traces{ptrace.NewTraces()}
	td := ptrace.NewTraces()
	td.ResourceSpans().AppendEmpty()
	traces = append(traces, td)
	td = ptrace.NewTraces()
	td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	traces = append(traces, td)

	md := pmetric.NewMetrics()
	ms := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics()
	ms.AppendEmpty() // empty metric type
	ms.AppendEmpty().SetEmptySum()
	ms.AppendEmpty().SetEmptyHistogram().DataPoints().AppendEmpty().Exemplars().AppendEmpty()

	ld := plog.NewLogs()
	ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()

	for _, mod := range fuzzConfigs {
		cfg := withConfig(mod)
		for _, td := range traces {
			_, err := newTestGovernor(t, cfg, vocab.KindTraces, nopTelemetry()).processTraces(context.Background(), td)
			require.NoError(t, err)
		}
		_, err := newTestGovernor(t, cfg, vocab.KindMetrics, nopTelemetry()).processMetrics(context.Background(), md)
		require.NoError(t, err)
		_, err = newTestGovernor(t, cfg, vocab.KindLogs, nopTelemetry()).processLogs(context.Background(), ld)
		require.NoError(t, err)
	}
}

// TestHugeMap walks 10,000 attributes in one map: unknown keys, template keys
// of the wrong type, a 64 KiB key, non-UTF-8 and NUL bytes, and renames, in
// bounded time (drops and coercions are applied in one linear pass).
func TestHugeMap(t *testing.T) {
	const n = 10_000
	for _, mod := range fuzzConfigs {
		g := newTestGovernor(t, withConfig(mod), vocab.KindLogs, nopTelemetry())
		ld := plog.NewLogs()
		rl := ld.ResourceLogs().AppendEmpty()
		rl.Resource().Attributes().PutStr("service.name", "checkout")
		m := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Attributes()
		m.EnsureCapacity(n + 8)
		long := strings.Repeat("k", 64<<10)
		m.PutStr(long, "very long key")
		m.PutStr("http.request.header."+long, "long template key")
		m.PutStr("\xff\xfe\xfd", "not utf-8")
		m.PutStr("http.method\x00", "nul byte")
		for i := m.Len(); i < n; i++ {
			switch i % 3 {
			case 0:
				m.PutStr(fmt.Sprintf("acme.key_%d", i), "v")
			case 1:
				m.PutStr(fmt.Sprintf("http.request.header.h%d", i), "not an array")
			default:
				m.PutInt(fmt.Sprintf("x.%d.y", i), int64(i))
			}
		}
		m.PutStr("http.method", "GET")
		m.PutStr("net.host.name", "h")
		start := time.Now()
		c := walkBatch(g, ld)
		assert.Less(t, time.Since(start), 5*time.Second)
		var total int64
		for _, v := range outcomes(c) {
			total += v
		}
		// n+2 log attributes and service.name on the resource.
		assert.Equal(t, int64(n+3), total, "every attribute counted once")
	}
}

func fuzzSeeds(f *testing.F, seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
}

func mustMarshal[T any](b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// FuzzTraces feeds arbitrary OTLP protobuf to every configuration. The seed
// corpus runs as part of `go test`; `go test -fuzz FuzzTraces` explores.
func FuzzTraces(f *testing.F) {
	dup, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces([]byte(duplicateKeysJSON))
	require.NoError(f, err)
	m := &ptrace.ProtoMarshaler{}
	fuzzSeeds(f,
		mustMarshal[ptrace.Traces](m.MarshalTraces(dup)),
		mustMarshal[ptrace.Traces](m.MarshalTraces(genTraces(3, mixDeprecated))),
		mustMarshal[ptrace.Traces](m.MarshalTraces(genTraces(3, mixUnknown))),
		mustMarshal[ptrace.Traces](m.MarshalTraces(smallMixedTraces())),
		nil,
	)
	gs := fuzzGovernors(f, vocab.KindTraces)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, g := range gs {
			td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(data)
			if err != nil {
				return
			}
			n := td.SpanCount()
			out, err := g.processTraces(context.Background(), td)
			require.NoError(t, err)
			require.Equal(t, n, out.SpanCount())
		}
	})
}

func FuzzMetrics(f *testing.F) {
	m := &pmetric.ProtoMarshaler{}
	fuzzSeeds(f,
		mustMarshal[pmetric.Metrics](m.MarshalMetrics(genMetrics(3, mixDeprecated))),
		mustMarshal[pmetric.Metrics](m.MarshalMetrics(smallMixedMetrics())),
		nil,
	)
	gs := fuzzGovernors(f, vocab.KindMetrics)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, g := range gs {
			md, err := (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics(data)
			if err != nil {
				return
			}
			n := md.DataPointCount()
			out, err := g.processMetrics(context.Background(), md)
			require.NoError(t, err)
			require.GreaterOrEqual(t, out.DataPointCount(), n, "copy mode may add metrics, nothing is lost")
		}
	})
}

func FuzzLogs(f *testing.F) {
	m := &plog.ProtoMarshaler{}
	fuzzSeeds(f,
		mustMarshal[plog.Logs](m.MarshalLogs(genLogs(3, mixDeprecated))),
		mustMarshal[plog.Logs](m.MarshalLogs(smallMixedLogs())),
		nil,
	)
	gs := fuzzGovernors(f, vocab.KindLogs)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, g := range gs {
			ld, err := (&plog.ProtoUnmarshaler{}).UnmarshalLogs(data)
			if err != nil {
				return
			}
			n := ld.LogRecordCount()
			out, err := g.processLogs(context.Background(), ld)
			require.NoError(t, err)
			require.Equal(t, n, out.LogRecordCount())
		}
	})
}

// fuzzGovernors loads the registry once: under the fuzzer's coverage
// instrumentation a load is slow, and every worker process pays for it.
func fuzzGovernors(f *testing.F, sig vocab.Kind) []*governor {
	ix, err := withConfig(orgRegistry).Registry.load()
	require.NoError(f, err)
	var gs []*governor
	for _, mod := range fuzzConfigs {
		g, err := newGovernor(nopTelemetry(), component.MustNewID("governance"), withConfig(mod), ix, nil, sig, nil)
		require.NoError(f, err)
		gs = append(gs, g)
	}
	return gs
}

// Small seeds keep fuzzing fast; the large batches run in TestNoDataLoss.
func smallMixedTraces() ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	putMixed(rs.Resource().Attributes(), 1)
	s := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	s.SetKind(ptrace.SpanKindClient)
	putMixed(s.Attributes(), 2)
	putMixed(s.Events().AppendEmpty().Attributes(), 3)
	putMixed(s.Links().AppendEmpty().Attributes(), 4)
	return td
}

func smallMixedMetrics() pmetric.Metrics {
	md := pmetric.NewMetrics()
	ms := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics()
	m := ms.AppendEmpty()
	m.SetName("db.client.connections.usage")
	m.SetUnit("{connection}")
	dp := m.SetEmptySum().DataPoints().AppendEmpty()
	dp.Attributes().PutStr("state", "idle")
	putMixed(dp.Exemplars().AppendEmpty().FilteredAttributes(), 1)
	h := ms.AppendEmpty()
	h.SetName("http.server.request.duration")
	putMixed(h.SetEmptyExponentialHistogram().DataPoints().AppendEmpty().Attributes(), 2)
	putMixed(ms.AppendEmpty().SetEmptySummary().DataPoints().AppendEmpty().Attributes(), 3)
	return md
}

func smallMixedLogs() plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "checkout")
	putMixed(rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Attributes(), 1)
	return ld
}
