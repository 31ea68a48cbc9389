package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

const (
	oldSchema      = "https://opentelemetry.io/schemas/1.20.0"
	registrySchema = "https://opentelemetry.io/schemas/1.44.0"
)

// spanBatch is one resource, one scope and one span carrying attrs.
func spanBatch(t testing.TB, attrs map[string]any) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.SetSchemaUrl(oldSchema)
	rs.Resource().Attributes().PutStr("service.name", "svc")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.SetSchemaUrl(oldSchema)
	sp := ss.Spans().AppendEmpty()
	sp.SetName("op")
	sp.SetKind(ptrace.SpanKindClient)
	require.NoError(t, sp.Attributes().FromRaw(attrs))
	return td
}

func firstSpan(td ptrace.Traces) ptrace.Span {
	return td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
}

// outcomes returns the non-zero outcomes of one location by name.
func outcomes(c counts, l registry.Location) map[string]int64 {
	out := map[string]int64{}
	for o, n := range c.Attrs[l] {
		if n != 0 {
			out[vocab.Outcome(o).String()] = n
		}
	}
	return out
}

func TestValueMigrationsSpan(t *testing.T) {
	tests := []struct {
		name   string
		opts   func(*Options)
		in     map[string]any
		want   map[string]any
		outs   map[string]int64
		schema bool // schema_url moves to the registry's
	}{
		{
			name: "the issue's span",
			in: map[string]any{
				"db.system": "mssql", "cloud.platform": "azure_vm", "http.target": "/a?b=1",
				"http.flavor": "1.1", "code.namespace": "N", "code.function": "f",
			},
			want: map[string]any{
				"db.system.name": "microsoft.sql_server", "cloud.platform": "azure.vm",
				"url.path": "/a", "url.query": "b=1",
				"network.protocol.name": "http", "network.protocol.version": "1.1",
				"code.function.name": "N.f",
			},
			outs:   map[string]int64{"value_renamed": 2, "split": 2, "merged": 2},
			schema: true,
		},
		{
			name:   "value without a counterpart keeps its value on rename",
			in:     map[string]any{"db.system": "edb"},
			want:   map[string]any{"db.system.name": "edb"},
			outs:   map[string]int64{"renamed": 1},
			schema: true,
		},
		{
			name:   "open enum: a custom value is kept and counted",
			opts:   func(o *Options) { o.EnumViolation = EnumViolationDrop },
			in:     map[string]any{"db.system.name": "acme_db"},
			want:   map[string]any{"db.system.name": "acme_db"},
			outs:   map[string]int64{"undefined_enum_variant": 1},
			schema: false,
		},
		{
			name: "closed enum: drop applies",
			opts: func(o *Options) {
				o.EnumViolation = EnumViolationDrop
				o.ClosedEnums = []string{"db.system.name"}
			},
			in:   map[string]any{"db.system.name": "acme_db", "cloud.platform": "acme_cloud"},
			want: map[string]any{"cloud.platform": "acme_cloud"},
			outs: map[string]int64{"dropped": 1, "undefined_enum_variant": 1},
		},
		{
			name: "conversions",
			in: map[string]any{
				"rpc.jsonrpc.error_code": int64(-32602), "db.redis.database_index": int64(3),
				"enduser.role": "admin", "messaging.kafka.destination.partition": int64(7),
			},
			want: map[string]any{
				"rpc.response.status_code": "-32602", "db.namespace": "3",
				"user.roles": []any{"admin"}, "messaging.destination.partition.id": "7",
			},
			outs:   map[string]int64{"converted": 4},
			schema: true,
		},
		{
			name:   "convert into a key under a template",
			in:     map[string]any{"http.request_content_length": int64(3495), "http.response_content_length": int64(12)},
			want:   map[string]any{"http.request.header.content-length": []any{"3495"}, "http.response.header.content-length": []any{"12"}},
			outs:   map[string]int64{"converted": 2},
			schema: true,
		},
		{
			name:   "int value map",
			in:     map[string]any{"rpc.grpc.status_code": int64(4)},
			want:   map[string]any{"rpc.response.status_code": "DEADLINE_EXCEEDED"},
			outs:   map[string]int64{"value_renamed": 1},
			schema: true,
		},
		{
			name:   "split without a separator, and cases",
			in:     map[string]any{"http.target": "/a", "http.flavor": "2.0", "net.sock.family": "inet6"},
			want:   map[string]any{"url.path": "/a", "network.protocol.name": "http", "network.protocol.version": "2", "network.type": "ipv6"},
			outs:   map[string]int64{"split": 3},
			schema: true,
		},
		{
			name: "split with no case and split conflicts are kept",
			in:   map[string]any{"http.flavor": "QUIC", "http.target": "/a?b", "url.path": "/other"},
			want: map[string]any{"http.flavor": "QUIC", "http.target": "/a?b", "url.path": "/other"},
			outs: map[string]int64{"deprecated_kept": 1, "conflict": 1, "conformant": 1},
		},
		{
			name: "merge needs every key",
			in:   map[string]any{"code.function": "f"},
			want: map[string]any{"code.function": "f"},
			outs: map[string]int64{"deprecated_kept": 1},
		},
		{
			name:   "merge with an equal target deduplicates",
			in:     map[string]any{"code.function": "f", "code.namespace": "N", "code.function.name": "N.f"},
			want:   map[string]any{"code.function.name": "N.f"},
			outs:   map[string]int64{"merged": 2, "conformant": 1},
			schema: true,
		},
		{
			name: "copy mode: only the copy carries the current value",
			opts: func(o *Options) { o.Deprecated = DeprecatedCopy },
			in:   map[string]any{"cloud.platform": "azure_vm", "http.target": "/a?b=1", "db.system": "mssql"},
			want: map[string]any{"cloud.platform": "azure_vm", "http.target": "/a?b=1", "db.system": "mssql", "db.system.name": "microsoft.sql_server"},
			outs: map[string]int64{"deprecated_kept": 2, "copied": 1},
		},
		{
			name: "copy mode converts the copy",
			opts: func(o *Options) { o.Deprecated = DeprecatedCopy },
			in:   map[string]any{"rpc.jsonrpc.error_code": int64(-32602)},
			want: map[string]any{"rpc.jsonrpc.error_code": int64(-32602), "rpc.response.status_code": "-32602"},
			outs: map[string]int64{"copied": 1},
		},
		{
			name: "per-name copy converts only that name's copy",
			opts: func(o *Options) {
				o.DeprecatedNames = map[string]DeprecatedMode{"rpc.jsonrpc.error_code": DeprecatedCopy}
			},
			in:     map[string]any{"rpc.jsonrpc.error_code": int64(-32602), "db.system": "mssql"},
			want:   map[string]any{"rpc.jsonrpc.error_code": int64(-32602), "rpc.response.status_code": "-32602", "db.system.name": "microsoft.sql_server"},
			outs:   map[string]int64{"copied": 1, "value_renamed": 1},
			schema: true,
		},
		{
			name: "off mode changes nothing",
			opts: func(o *Options) { o.Deprecated = DeprecatedOff },
			in:   map[string]any{"cloud.platform": "azure_vm", "code.function": "f", "code.namespace": "N"},
			want: map[string]any{"cloud.platform": "azure_vm", "code.function": "f", "code.namespace": "N"},
			outs: map[string]int64{"deprecated_kept": 3},
		},
		{
			name: "obsoleted member is deprecated, kept",
			in:   map[string]any{"browser.web_vital.name": "fid"},
			want: map[string]any{"browser.web_vital.name": "fid"},
			outs: map[string]int64{"deprecated_kept": 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := defaultOptions()
			if tt.opts != nil {
				tt.opts(&opts)
			}
			e, ix := newTestEngine(t, opts)
			td := spanBatch(t, tt.in)
			w := e.Walker(ix, false)
			w.Traces(td)
			assert.Equal(t, tt.want, firstSpan(td).Attributes().AsRaw())
			assert.Equal(t, tt.outs, outcomes(countsOf(w.Batch()), registry.LocationSpan))
			rs := td.ResourceSpans().At(0)
			wantURL, n := oldSchema, int64(0)
			if tt.schema {
				wantURL, n = registrySchema, 1
			}
			assert.Equal(t, wantURL, rs.SchemaUrl())
			assert.Equal(t, wantURL, rs.ScopeSpans().At(0).SchemaUrl())
			assert.Equal(t, [NumSchemaLevels]int64{n, n}, countsOf(w.Batch()).SchemaURLs)
			e.Release(w)
		})
	}
}

// TestValueMigrationsReadOnly: read-only data is counted, never changed.
func TestValueMigrationsReadOnly(t *testing.T) {
	e, ix := newTestEngine(t, defaultOptions())
	td := spanBatch(t, map[string]any{"cloud.platform": "azure_vm", "http.target": "/a?b=1", "db.system": "mssql"})
	w := e.Walker(ix, true)
	defer e.Release(w)
	w.Traces(td)
	assert.Equal(t, map[string]any{"cloud.platform": "azure_vm", "http.target": "/a?b=1", "db.system": "mssql"}, firstSpan(td).Attributes().AsRaw())
	assert.Equal(t, map[string]int64{"deprecated_kept": 3}, outcomes(countsOf(w.Batch()), registry.LocationSpan))
	assert.Equal(t, oldSchema, td.ResourceSpans().At(0).SchemaUrl())
}

func TestMoveEventName(t *testing.T) {
	tests := []struct {
		name      string
		eventName string
		in        map[string]any
		wantAttrs map[string]any
		wantName  string
		outs      map[string]int64
	}{
		{name: "empty field", in: map[string]any{"event.name": "x"}, wantAttrs: map[string]any{}, wantName: "x", outs: map[string]int64{"moved": 1}},
		{name: "equal field", eventName: "x", in: map[string]any{"event.name": "x"}, wantAttrs: map[string]any{}, wantName: "x", outs: map[string]int64{"moved": 1}},
		{name: "other field wins", eventName: "y", in: map[string]any{"event.name": "x"}, wantAttrs: map[string]any{"event.name": "x"}, wantName: "y", outs: map[string]int64{"conflict": 1}},
		{name: "not a string", in: map[string]any{"event.name": int64(1)}, wantAttrs: map[string]any{"event.name": int64(1)}, outs: map[string]int64{"deprecated_kept": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ix := newTestEngine(t, defaultOptions())
			ld := plog.NewLogs()
			rl := ld.ResourceLogs().AppendEmpty()
			rec := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
			rec.SetEventName(tt.eventName)
			require.NoError(t, rec.Attributes().FromRaw(tt.in))
			w := e.Walker(ix, false)
			defer e.Release(w)
			w.Logs(ld)
			assert.Equal(t, tt.wantAttrs, rec.Attributes().AsRaw())
			assert.Equal(t, tt.wantName, rec.EventName())
			assert.Equal(t, tt.outs, outcomes(countsOf(w.Batch()), registry.LocationLog))
		})
	}
	// rpc.jsonrpc.error_message moves to the status description of spans
	// whose status is Error, and only there.
	for _, tt := range []struct {
		name      string
		code      ptrace.StatusCode
		message   string
		wantAttrs map[string]any
		wantMsg   string
	}{
		{name: "error, empty description", code: ptrace.StatusCodeError, wantAttrs: map[string]any{}, wantMsg: "Invalid params"},
		{name: "error, other description", code: ptrace.StatusCodeError, message: "boom", wantAttrs: map[string]any{"rpc.jsonrpc.error_message": "Invalid params"}, wantMsg: "boom"},
		{name: "unset status", code: ptrace.StatusCodeUnset, wantAttrs: map[string]any{"rpc.jsonrpc.error_message": "Invalid params"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, ix := newTestEngine(t, defaultOptions())
			td := spanBatch(t, map[string]any{"rpc.jsonrpc.error_message": "Invalid params"})
			firstSpan(td).Status().SetCode(tt.code)
			firstSpan(td).Status().SetMessage(tt.message)
			w := e.Walker(ix, false)
			defer e.Release(w)
			w.Traces(td)
			assert.Equal(t, tt.wantAttrs, firstSpan(td).Attributes().AsRaw())
			assert.Equal(t, tt.wantMsg, firstSpan(td).Status().Message())
		})
	}

	// event.name on a span is not moved: spans have no EventName.
	e, ix := newTestEngine(t, defaultOptions())
	td := spanBatch(t, map[string]any{"event.name": "x"})
	w := e.Walker(ix, false)
	defer e.Release(w)
	w.Traces(td)
	assert.Equal(t, map[string]any{"event.name": "x"}, firstSpan(td).Attributes().AsRaw())
}

// TestZeroAllocsValues proves that conforming data, key renames, member
// renames and string value maps allocate nothing, schema_url rewrite
// included. Batches are prepared up front, one per run.
func TestZeroAllocsValues(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	for _, tt := range []struct {
		name string
		in   map[string]any
		want map[string]any
	}{
		{name: "conforming", in: map[string]any{"db.system.name": "postgresql", "cloud.platform": "azure.vm", "url.path": "/a"}},
		{name: "key rename", in: map[string]any{"http.method": "GET", "net.peer.name": "db"}, want: map[string]any{"http.request.method": "GET", "server.address": "db"}},
		{name: "member rename", in: map[string]any{"cloud.platform": "azure_vm", "cpu.mode": "kernel"}, want: map[string]any{"cloud.platform": "azure.vm", "cpu.mode": "system"}},
		{name: "value map", in: map[string]any{"db.system": "mssql", "gen_ai.system": "az.ai.openai"}, want: map[string]any{"db.system.name": "microsoft.sql_server", "gen_ai.provider.name": "azure.ai.openai"}},
		{name: "open enum", in: map[string]any{"db.system.name": "acme_db"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, ix := newTestEngine(t, defaultOptions())
			const runs = 50
			batches := make([]ptrace.Traces, runs+1)
			for i := range batches {
				batches[i] = spanBatch(t, tt.in)
			}
			// Warm the walker pool.
			w := e.Walker(ix, false)
			w.Traces(spanBatch(t, tt.in))
			e.Release(w)
			i := 0
			allocs := testing.AllocsPerRun(runs, func() {
				w := e.Walker(ix, false)
				w.Traces(batches[i])
				e.Release(w)
				i++
			})
			assert.Zero(t, allocs)
			want := tt.want
			if want == nil {
				want = tt.in
			}
			assert.Equal(t, want, firstSpan(batches[runs-1]).Attributes().AsRaw(), "the measured runs migrated")
		})
	}
}

// valueBench walks one-span batches whose span carries in. The batches are
// prepared in sets of benchBatches while the timer is stopped (which also
// stops the allocation count), so ns/op and allocs/op are one walk of one
// resource, one scope and one span, migration included.
func valueBench(b *testing.B, in map[string]any) {
	e, ix := newTestEngine(b, defaultOptions())
	const benchBatches = 512
	batches := make([]ptrace.Traces, benchBatches)
	prepare := func() {
		for i := range batches {
			batches[i] = spanBatch(b, in)
		}
	}
	prepare()
	w := e.Walker(ix, false)
	w.Traces(spanBatch(b, in)) // warm the walker's op list
	e.Release(w)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i == benchBatches {
			b.StopTimer()
			prepare()
			i = 0
			b.StartTimer()
		}
		w := e.Walker(ix, false)
		w.Traces(batches[i])
		e.Release(w)
		i++
	}
}

// BenchmarkValues: one walk of a one-span batch per op, the span carrying
// one migration (baseline_conforming: one current attribute, no change).
func BenchmarkValues(b *testing.B) {
	for _, bc := range []struct {
		name string
		in   map[string]any
	}{
		{"baseline_conforming", map[string]any{"url.path": "/a"}},
		{"key_rename", map[string]any{"http.method": "GET"}},
		{"member_rename", map[string]any{"cloud.platform": "azure_vm"}},
		{"value_map", map[string]any{"db.system": "mssql"}},
		{"value_map_int", map[string]any{"rpc.grpc.status_code": int64(4)}},
		{"convert_int_string", map[string]any{"rpc.jsonrpc.error_code": int64(-32602)}},
		{"convert_string_array", map[string]any{"enduser.role": "admin"}},
		{"convert_to_template_key", map[string]any{"http.request_content_length": int64(3495)}},
		{"split_separator", map[string]any{"http.target": "/a?b=1"}},
		{"split_cases", map[string]any{"http.flavor": "1.1"}},
		{"merge", map[string]any{"code.namespace": "N", "code.function": "f"}},
		{"move", nil},
	} {
		if bc.in == nil {
			b.Run(bc.name, benchMove)
			continue
		}
		b.Run(bc.name, func(b *testing.B) { valueBench(b, bc.in) })
	}
}

// benchMove is valueBench for a log record with event.name.
func benchMove(b *testing.B) {
	e, ix := newTestEngine(b, defaultOptions())
	const benchBatches = 512
	batches := make([]plog.Logs, benchBatches)
	prepare := func() {
		for i := range batches {
			ld := plog.NewLogs()
			rl := ld.ResourceLogs().AppendEmpty()
			rl.Resource().Attributes().PutStr("service.name", "svc")
			rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Attributes().PutStr("event.name", "x")
			batches[i] = ld
		}
	}
	prepare()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i == benchBatches {
			b.StopTimer()
			prepare()
			i = 0
			b.StartTimer()
		}
		w := e.Walker(ix, false)
		w.Logs(batches[i])
		e.Release(w)
		i++
	}
}

// TestSchemaURLFromOrgRegistry: an organisation registry whose manifest
// declares schema_base_url names the URL that rewritten data declares.
func TestSchemaURLFromOrgRegistry(t *testing.T) {
	ix, err := registry.Load(registry.Sources{Embedded: true, OrgRegistries: []string{"../registry/testdata/acme"}})
	require.NoError(t, err)
	require.Equal(t, "https://telemetry.acme.example/schemas/1.2.0", ix.SchemaURL())
	e := New(defaultOptions())
	td := spanBatch(t, map[string]any{"http.method": "GET"})
	w := e.Walker(ix, false)
	defer e.Release(w)
	w.Traces(td)
	assert.Equal(t, "https://telemetry.acme.example/schemas/1.2.0", td.ResourceSpans().At(0).SchemaUrl())
	assert.Equal(t, "https://telemetry.acme.example/schemas/1.2.0", td.ResourceSpans().At(0).ScopeSpans().At(0).SchemaUrl())
}
