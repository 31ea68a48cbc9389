package governanceprocessor // import "github.com/otelgov/otelcol-governance/processor/governanceprocessor"

import (
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/processor/governanceprocessor/internal/metadata"
	"github.com/otelgov/otelcol-governance/vocab"
)

// findingEventName is the event name of Weaver live-check's finding records.
const findingEventName = "weaver.live_check.finding"

// findingLog turns a rate-limited sample of the findings into OTLP log
// records in Weaver's weaver.live_check.finding shape, and hands them to
// the logs pipelines of the same configured processor. The traces, metrics
// and logs instances share one findingLog: the first findings of each
// second up to max_per_second are kept (a token bucket refilled at
// max_per_second with a burst of max_per_second), the rest are only
// counted. Records wait in a buffer of at most max_per_second records until
// the processor's logs instance appends them to the next logs batch it
// passes on; without a logs pipeline they are never emitted.
type findingLog struct {
	mu      sync.Mutex
	bucket  tokenBucket
	now     func() time.Time
	pending plog.Logs
	records plog.LogRecordSlice
	n, max  int
}

func newFindingLog(perSecond int, now func() time.Time) *findingLog {
	f := &findingLog{bucket: newTokenBucket(perSecond, now()), max: perSecond, now: now}
	f.reset()
	return f
}

// reset starts an empty buffer; called with mu held or before use.
func (f *findingLog) reset() {
	f.pending = plog.NewLogs()
	rl := f.pending.ResourceLogs().AppendEmpty()
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName(metadata.ScopeName)
	f.records = sl.LogRecords()
	f.n = 0
}

var _ engine.FindingSink = (*findingLog)(nil)

// Emit keeps one finding as a log record while the rate allows.
func (f *findingLog) Emit(ev *engine.FindingEvent) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	if f.n >= f.max || !f.bucket.take(now) {
		return false
	}
	f.n++
	lr := f.records.AppendEmpty()
	lr.SetTimestamp(pcommon.NewTimestampFromTime(now))
	lr.SetObservedTimestamp(pcommon.NewTimestampFromTime(now))
	lr.SetEventName(findingEventName)
	switch ev.Level {
	case vocab.LevelViolation:
		lr.SetSeverityNumber(plog.SeverityNumberError)
		lr.SetSeverityText("ERROR")
	case vocab.LevelImprovement:
		lr.SetSeverityNumber(plog.SeverityNumberWarn)
		lr.SetSeverityText("WARN")
	case vocab.LevelInformation, vocab.NumLevels:
		lr.SetSeverityNumber(plog.SeverityNumberInfo)
		lr.SetSeverityText("INFO")
	}
	name := strings.Clone(ev.Name)
	id := ev.FindingID() // a policy's own ID, bounded, or Weaver's
	lr.Body().SetStr(id + ": " + ev.Subject.String() + " '" + name + "'")
	a := lr.Attributes()
	a.EnsureCapacity(7)
	a.PutStr("weaver.finding.id", id)
	a.PutStr("weaver.finding.level", ev.Level.String())
	a.PutStr("weaver.finding.sample.type", ev.SampleType)
	if ev.SignalType != "" { // none for a scope and its attributes, as in Weaver
		a.PutStr("weaver.finding.signal.type", ev.SignalType)
	}
	if ev.SignalName != "" {
		a.PutStr("weaver.finding.signal.name", strings.Clone(ev.SignalName))
	}
	if ev.Finding == vocab.FindingEntityAssociationNotSatisfied {
		// Weaver's context names the candidate entities (registry names).
		types := a.PutEmptySlice("weaver.finding.context." + vocab.ContextEntityType.String())
		for _, e := range ev.EntityTypes() {
			types.AppendEmpty().SetStr(e)
		}
	} else {
		a.PutStr("weaver.finding.context."+vocab.SubjectContextKey(ev.Subject).String(), name)
		if ev.Entity != "" {
			a.PutStr("weaver.finding.context."+vocab.ContextEntityType.String(), ev.Entity)
		}
	}
	if ev.Service != "" {
		a.PutStr("weaver.finding.resource.attribute.service.name", strings.Clone(ev.Service))
	}
	return true
}

// drainInto moves the buffered records into ld.
func (f *findingLog) drainInto(ld plog.Logs) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		return
	}
	f.pending.ResourceLogs().MoveAndAppendTo(ld.ResourceLogs())
	f.reset()
}
