package policy

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/registry"
)

// sampleKey, the key Advisor.Advise asks the memo with before it builds
// an Input, is the key of that Input, for every sample kind.
func TestSampleKeyIsInputKey(t *testing.T) {
	sp := ptrace.NewSpan()
	sp.SetName("GET /cart")
	sp.SetKind(ptrace.SpanKindServer)
	ev := sp.Events().AppendEmpty()
	ev.SetName("exception")
	m := pmetric.NewMetric()
	m.SetName("http.server.request.duration")
	m.SetUnit("s")
	m.SetEmptySum().SetIsMonotonic(true)
	lr := plog.NewLogRecord()
	lr.SetEventName("session.start")
	scope := pcommon.NewInstrumentationScope()
	scope.SetName("io.opentelemetry.http")
	g, a := &registry.Group{ID: "g"}, &registry.Attribute{Key: "k"}
	for k := range engine.NumSampleKinds {
		s := engine.Sample{
			Kind: k, Key: "http.request.method", Value: pcommon.NewValueInt(3), Span: sp, SpanEvent: ev,
			SpanLink: sp.Links().AppendEmpty(), Metric: m, Log: lr, Group: g,
			NumberPoint: pmetric.NewNumberDataPoint(), HistogramPoint: pmetric.NewHistogramDataPoint(),
			ExpPoint: pmetric.NewExponentialHistogramDataPoint(), Exemplar: pmetric.NewExemplar(),
			Scope: scope, HasScope: true,
		}
		if k == engine.SampleAttribute {
			s.Attr = a
		}
		in := Input{Sample: sample(&s), Attribute: s.Attr, Group: s.Group}
		assert.Equal(t, in.Key(), sampleKey(&s), k.String())
	}
}
