package admissionextension

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// genTraces builds one OTLP request like the gateway-burst test's: spans
// spans in one resource, each with attrs attributes (three in four
// strings, the rest ints) and a per-span url.path.
func genTraces(spans, attrs int) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "checkout")
	rs.Resource().Attributes().PutStr("k8s.pod.name", "checkout-7d9f8c6b5-x2lqp")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("admission-test")
	for i := range spans {
		sp := ss.Spans().AppendEmpty()
		sp.SetName("GET /api/cart")
		sp.SetKind(ptrace.SpanKindServer)
		sp.SetTraceID(pcommon.TraceID{byte(i), byte(i >> 8), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14})
		sp.SetSpanID(pcommon.SpanID{byte(i), byte(i >> 8), 1, 2, 3, 4, 5, 6})
		sp.SetStartTimestamp(pcommon.Timestamp(1_700_000_000_000_000_000 + uint64(i)))
		sp.SetEndTimestamp(pcommon.Timestamp(1_700_000_000_000_500_000 + uint64(i)))
		a := sp.Attributes()
		a.PutStr("url.path", "/api/cart/"+strconv.Itoa(i))
		for j := range attrs {
			key := fmt.Sprintf("acme.attribute.%02d", j)
			if j%4 == 3 {
				a.PutInt(key, int64(i*j))
				continue
			}
			a.PutStr(key, fmt.Sprintf("value-%d-of-attribute-%d", i%64, j))
		}
	}
	return td
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestDecodeExpansion measures what the README's sizing uses: the live heap
// of a decoded OTLP export request against its size on the wire, for the
// protobuf (gRPC, HTTP) and JSON (HTTP) encodings the receiver decodes. It
// runs only with ADMISSION_MEASURE=1 (it allocates a few hundred MiB):
//
//	ADMISSION_MEASURE=1 go test -run TestDecodeExpansion -v ./extension/admissionextension/
func TestDecodeExpansion(t *testing.T) {
	if os.Getenv("ADMISSION_MEASURE") == "" {
		t.Skip("measurement: set ADMISSION_MEASURE=1")
	}
	const copies = 32
	for _, shape := range []struct{ spans, attrs int }{{500, 20}, {2000, 20}, {500, 5}} {
		req := ptraceotlp.NewExportRequestFromTraces(genTraces(shape.spans, shape.attrs))
		proto, err := req.MarshalProto()
		require.NoError(t, err)
		js, err := req.MarshalJSON()
		require.NoError(t, err)
		for _, enc := range []struct {
			name   string
			wire   []byte
			decode func(ptraceotlp.ExportRequest, []byte) error
		}{
			{"protobuf", proto, ptraceotlp.ExportRequest.UnmarshalProto},
			{"json", js, ptraceotlp.ExportRequest.UnmarshalJSON},
		} {
			held := make([]ptraceotlp.ExportRequest, copies)
			before := liveHeap()
			for i := range held {
				held[i] = ptraceotlp.NewExportRequest()
				require.NoError(t, enc.decode(held[i], enc.wire))
			}
			after := liveHeap()
			perReq := float64(after-before) / copies
			runtime.KeepAlive(held)
			t.Logf("%d spans x %d attributes, %s: wire %d B, decoded heap %.0f B, expansion %.2fx",
				shape.spans, shape.attrs, enc.name, len(enc.wire), perReq, perReq/float64(len(enc.wire)))
		}
	}
}
