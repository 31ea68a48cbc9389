package governanceprocessor // import "github.com/otelgov/otelcol-governance/processor/governanceprocessor"

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/vocab"
)

// findingLevels is the level of each finding under the configuration's
// rules without scope; nil when the signal checks are off. With scoped
// level overrides (scoped), a finding ID can be counted at every level: its
// series are then one per ID and level.
type findingLevels struct {
	at     [vocab.NumFindings]vocab.Level
	scoped bool
}

// levelsOf asks the engine, the one place that applies level overrides,
// for the level each finding is counted at.
func levelsOf(e *engine.Engine, findings bool) *findingLevels {
	if !findings {
		return nil
	}
	l := &findingLevels{scoped: e.LevelScoped()}
	for f := range l.at {
		l.at[f] = e.Level(vocab.Finding(f))
	}
	return l
}

// findingCounters holds one series per finding ID at its level, or, with
// scoped level overrides, one per ID and level (index f*NumLevels+l);
// empty when the signal checks are off.
type findingCounters struct {
	c      []counter
	levels *findingLevels
}

func newFindingCounters(base []attribute.KeyValue, levels *findingLevels, svc *attribute.KeyValue) findingCounters {
	if levels == nil {
		return findingCounters{}
	}
	perID := 1
	if levels.scoped {
		perID = int(vocab.NumLevels)
	}
	c := findingCounters{c: make([]counter, int(vocab.NumFindings)*perID), levels: levels}
	for f := range vocab.NumFindings {
		for i := range perID {
			l := levels.at[f]
			if levels.scoped {
				l = vocab.Level(i)
			}
			kvs := []attribute.KeyValue{attribute.String("finding", f.String()), attribute.String("level", l.String())}
			if svc != nil {
				kvs = append([]attribute.KeyValue{*svc}, kvs...)
			}
			c.c[int(f)*perID+i].opts = observeOpts(base, kvs...)
		}
	}
	return c
}

// at is the series of finding f at level l.
func (c findingCounters) at(f vocab.Finding, l vocab.Level) *counter {
	if c.levels.scoped {
		return &c.c[int(f)*int(vocab.NumLevels)+int(l)]
	}
	return &c.c[f]
}

// add adds one batch's findings: n by ID, of which relevelled (those of
// service svc, or of every service when svc is -1) were counted at another
// level than the ID's.
func (c findingCounters) add(n *[vocab.NumFindings]int64, relevelled []engine.LevelCount, svc int) {
	if c.levels == nil {
		return
	}
	rest := *n
	for i := range relevelled {
		r := &relevelled[i]
		if (svc < 0 || r.Service == svc) && r.Finding < vocab.NumFindings && r.Level < vocab.NumLevels {
			c.at(r.Finding, r.Level).add(r.Count)
			rest[r.Finding] -= r.Count
		}
	}
	for f := range vocab.NumFindings {
		c.at(f, c.levels.at[f]).add(rest[f])
	}
}

// observe reports every finding series that has counted something.
func (c findingCounters) observe(o metric.Int64Observer) {
	for i := range c.c {
		c.c[i].observe(o)
	}
}
