package infertest

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/otlpfile"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// Findings walks the recording at path with the engine as otelgov check
// does (every finding, the given profile, nothing rewritten) against ix,
// and returns the finding IDs by what they are about: "key NAME",
// "metric NAME", "event NAME", "span ID".
func Findings(ix *registry.Index, path string, profile vocab.Profile) (map[string][]string, error) {
	sink := &findingSet{out: map[string][]string{}}
	e := engine.New(engine.Options{
		Deprecated: engine.DeprecatedOff, Unknown: engine.UnknownKeep,
		TypeMismatch: engine.TypeMismatchKeep, EnumViolation: engine.EnumViolationKeep,
		Findings: true, Sink: sink, Profile: profile,
	})
	err := EachRecord(path, func(rec *otlpfile.Record) error {
		w := e.Walker(ix, false)
		switch rec.Kind {
		case vocab.KindTraces:
			w.Traces(rec.Traces)
		case vocab.KindMetrics:
			w.Metrics(rec.Metrics)
		case vocab.KindLogs:
			w.Logs(rec.Logs)
		case vocab.KindUnknown, vocab.NumKinds:
		}
		e.Release(w)
		return nil
	})
	return sink.out, err
}

// EachRecord calls fn with each request of the recording at path, in
// order, until fn fails.
func EachRecord(path string, fn func(rec *otlpfile.Record) error) error {
	f, err := os.Open(path) //nolint:gosec // a test's recording
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := otlpfile.NewReader(f, otlpfile.Options{Name: path})
	if err != nil {
		return err
	}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(&rec); err != nil {
			return err
		}
	}
}

type findingSet struct{ out map[string][]string }

func (s *findingSet) Emit(ev *engine.FindingEvent) bool {
	id := ev.Finding.String()
	if ev.ID != "" {
		id = ev.ID
	}
	k := ev.Subject.String() + " " + strings.Clone(ev.Name)
	if !slices.Contains(s.out[k], id) {
		s.out[k] = append(s.out[k], id)
	}
	return true
}

// AppRecording writes, as JSON lines, the application in small:
// keys named url and error beside url.* and error.* of the semantic
// conventions, one concept spelled three ways (paramID, param_id,
// request.paramID), an identifier, coordinates, durations and query text
// with few values, a log level, span events named in plain words, a span
// named "/", an array, an int past 2^53, a log-record event.
func AppRecording(w io.Writer) error {
	ow := otlpfile.NewWriter(w, otlpfile.FormatJSON, false)
	levels := []string{"INFO", "WARN", "ERROR"}
	for round := range 30 {
		td := ptrace.NewTraces()
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", "frontend")
		ss := rs.ScopeSpans().AppendEmpty().Spans()
		for i := range 3 {
			sp := ss.AppendEmpty()
			sp.SetKind(ptrace.SpanKindServer)
			sp.SetName([]string{"/", "GET /cart", "placeOrder"}[i])
			a := sp.Attributes()
			a.PutStr("url", fmt.Sprintf("https://shop.example/p/%d", round%4))
			a.PutStr("url.full", fmt.Sprintf("https://shop.example/p/%d", round%4))
			a.PutStr("url.path", fmt.Sprintf("/p/%d", round%4))
			a.PutStr("url.scheme", "https")
			a.PutStr("http.request.method", "GET")
			a.PutBool("error", round%7 == 0)
			if round%7 == 0 {
				a.PutStr("error.type", "timeout")
			}
			a.PutStr("paramID", fmt.Sprintf("p%d", round%3))
			a.PutStr("param_id", fmt.Sprintf("p%d", round%3))
			a.PutStr("request.paramID", fmt.Sprintf("p%d", round%3))
			a.PutStr("app.session.id", fmt.Sprintf("s%d", round%4))
			a.PutStr("app.geo", []string{"52.52,13.40", "48.85,2.35"}[round%2])
			a.PutStr("app.wait", []string{"150ms", "2s", "1.5s"}[round%3])
			a.PutStr("app.lookup", []string{"SELECT * FROM carts WHERE id = ?", "SELECT 1"}[round%2])
			a.PutStr("app.log.level", levels[round%3])
			a.PutInt("app.order.seq", int64(1)<<53+int64(round))
			tags := a.PutEmptySlice("app.tags")
			tags.AppendEmpty().SetStr("new")
			tags.AppendEmpty().SetStr(fmt.Sprint(round % 2))
			ev := sp.Events().AppendEmpty()
			ev.SetName(fmt.Sprintf("cart item %d added", round%5))
			ev.Attributes().PutStr("app.item.sku", fmt.Sprintf("sku-%d", round))
			ev2 := sp.Events().AppendEmpty()
			ev2.SetName("app.cache.miss")
			ev2.Attributes().PutStr("app.cache.name", []string{"cart", "price"}[round%2])
		}
		if err := ow.Write(&otlpfile.Record{Kind: vocab.KindTraces, Traces: td}); err != nil {
			return err
		}
		ld := plog.NewLogs()
		rl := ld.ResourceLogs().AppendEmpty()
		rl.Resource().Attributes().PutStr("service.name", "frontend")
		lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
		lr.SetEventName("app.order.placed")
		lr.Attributes().PutStr("app.log.level", levels[round%3])
		lr.Attributes().PutStr("paramID", fmt.Sprintf("p%d", round%3))
		if err := ow.Write(&otlpfile.Record{Kind: vocab.KindLogs, Logs: ld}); err != nil {
			return err
		}
	}
	return ow.Close()
}

// RandomRecording writes, as JSON lines, a random application seeded by
// seed: keys of random words, separators and case (some namespaces of
// others, some semantic-convention keys and namespaces), values of random
// types and shapes, random span names and kinds, span events and
// log-record events.
func RandomRecording(w io.Writer, seed uint64) error {
	rnd := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) //nolint:gosec // a test's workload
	words := []string{"cart", "user", "order", "id", "url", "error", "level", "region", "item", "price", "http", "db", "session", "tenant", "queue", "retry", "count", "name", "type", "path"}
	seps := []string{".", "_", ".", "", "-"}
	key := func() string {
		n := 1 + rnd.IntN(3)
		var b strings.Builder
		for i := range n {
			wd := words[rnd.IntN(len(words))]
			if i > 0 {
				sep := seps[rnd.IntN(len(seps))]
				if sep == "" {
					wd = strings.ToUpper(wd[:1]) + wd[1:]
				}
				b.WriteString(sep)
			}
			b.WriteString(wd)
		}
		return b.String()
	}
	semconv := []string{"url.full", "url.path", "error.type", "http.request.method", "server.address", "db.system.name", "user.id"}
	keys := make([]string, 0, 24)
	for range 16 {
		keys = append(keys, key())
	}
	keys = append(keys, semconv...)
	value := func(a pcommon.Map, k string) {
		switch rnd.IntN(6) {
		case 0:
			a.PutStr(k, fmt.Sprintf("v%d", rnd.IntN(3)))
		case 1:
			a.PutInt(k, int64(rnd.IntN(5)))
		case 2:
			a.PutDouble(k, rnd.Float64())
		case 3:
			a.PutBool(k, rnd.IntN(2) == 0)
		case 4:
			a.PutStr(k, fmt.Sprintf("%dms", rnd.IntN(500)))
		default:
			s := a.PutEmptySlice(k)
			s.AppendEmpty().SetStr(fmt.Sprint(rnd.IntN(3)))
		}
	}
	ow := otlpfile.NewWriter(w, otlpfile.FormatJSON, false)
	for range 20 {
		td := ptrace.NewTraces()
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", fmt.Sprintf("svc%d", rnd.IntN(2)))
		ss := rs.ScopeSpans().AppendEmpty().Spans()
		for range 5 {
			sp := ss.AppendEmpty()
			sp.SetName([]string{"/", "GET /a", "work", "work item", "sync"}[rnd.IntN(5)])
			sp.SetKind(ptrace.SpanKind(1 + rnd.IntN(5))) //nolint:gosec // 1..5
			for range 4 {
				k := keys[rnd.IntN(len(keys))]
				value(sp.Attributes(), k)
			}
			ev := sp.Events().AppendEmpty()
			ev.SetName([]string{"retry 1", "app.retry", "cache miss!"}[rnd.IntN(3)])
			value(ev.Attributes(), keys[rnd.IntN(len(keys))])
		}
		if err := ow.Write(&otlpfile.Record{Kind: vocab.KindTraces, Traces: td}); err != nil {
			return err
		}
	}
	return ow.Close()
}
