// Package conformance aggregates the engine's per-batch tallies into a
// bounded conformance report: per service, outcome counts and the top
// unknown and deprecated keys; over all services, registry coverage. The
// governance_registry extension serves it as GET /conformance and otelgov
// check prints it; both render the same JSON document.
package conformance // import "github.com/otelgov/otelcol-governance/conformance"

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// Bounds of the report that are not configurable.
const (
	// sketchFactor sizes each space-saving sketch at sketchFactor*top_keys
	// counters: the extra counters keep the top keys' counts exact unless
	// the key distribution is very flat.
	sketchFactor = 4
	// maxRegistrySeen bounds the set of distinct registry keys seen. Keys
	// come from the registry, never from telemetry, so this is only a
	// backstop across many reloads.
	maxRegistrySeen = 1 << 16
)

// Limits bound a Report.
type Limits struct {
	// MaxServices is how many services get their own entry; later ones are
	// counted under "_other".
	MaxServices int
	// TopKeys is how many unknown and deprecated keys each service lists.
	TopKeys int
}

// Report is the live conformance report. Front-ends feed it once per batch
// through Add: one mutex acquisition per batch, never per attribute. It is
// safe for concurrent use.
type Report struct {
	mu          sync.Mutex
	since       time.Time
	maxServices int
	topKeys     int

	services map[string]*serviceReport
	other    *serviceReport
	missing  *serviceReport
	overflow int64

	totals       [vocab.NumOutcomes]int64
	nonRegistry  int64
	registrySeen map[string]struct{}

	slots []*serviceReport // scratch for one batch, reused under mu

	// findings aggregates the signal checks' findings (findings.go).
	findings findingsState
}

type serviceReport struct {
	name        string
	first, last time.Time
	outcomes    [vocab.NumOutcomes]int64
	unknown     sketch
	deprecated  sketch
	findings    *serviceFindings // nil until the service's first finding
}

// New returns an empty report that counts from now.
func New(cfg Limits, now time.Time) *Report {
	r := &Report{
		since:        now,
		maxServices:  cfg.MaxServices,
		topKeys:      cfg.TopKeys,
		services:     make(map[string]*serviceReport, min(cfg.MaxServices, 1024)),
		registrySeen: map[string]struct{}{},
	}
	r.findings.signals = map[signalKey]*signalCoverage{}
	r.other = r.newService(vocab.ServiceOther)
	r.missing = r.newService(vocab.ServiceMissing)
	return r
}

func (r *Report) newService(name string) *serviceReport {
	c := sketchFactor * r.topKeys
	return &serviceReport{name: name, unknown: sketch{capacity: c}, deprecated: sketch{capacity: c}}
}

// Add merges one batch and returns how many of its services were counted
// under "_other": each service tally beyond max_services, plus each resource
// the front-end folded into its own "_other" slot (Batch.Overflow). It keeps
// no reference to b.
func (r *Report) Add(b *engine.Batch, now time.Time) (overflow int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.slots = r.slots[:0]
	for i := range b.Services {
		s := &b.Services[i]
		sr, over := r.service(s.Service)
		switch {
		case s.Service == vocab.ServiceOther:
			// The front-end's own "_other" slot: count every resource it
			// folded (beyond the processor's service_limit), not the one
			// tally that holds them, so that services_overflow means the
			// same with and without a processor limit.
			overflow += b.Overflow
		case over:
			overflow++
		}
		if sr.first.IsZero() {
			sr.first = now
		}
		sr.last = now
		for o, n := range s.Outcomes {
			sr.outcomes[o] += n
			r.totals[o] += n
		}
		r.slots = append(r.slots, sr)
	}
	for i := range b.Keys {
		k := &b.Keys[i]
		switch k.Kind {
		case engine.KeyRegistry:
			if _, ok := r.registrySeen[k.Key]; !ok && len(r.registrySeen) < maxRegistrySeen {
				r.registrySeen[strings.Clone(bound(k.Key))] = struct{}{}
			}
			continue
		case engine.KeyUnknown:
			r.nonRegistry += k.Count
		case engine.KeyDeprecated:
		default:
			continue
		}
		if k.Service < 0 || k.Service >= len(r.slots) {
			continue
		}
		sr := r.slots[k.Service]
		if k.Kind == engine.KeyUnknown {
			sr.unknown.add(k.Key, k.Count)
		} else {
			sr.deprecated.add(k.Key, k.Count)
		}
	}
	r.addFindings(b)
	r.overflow += overflow
	return overflow
}

// service returns the entry of a service name, adding it while there is
// room; over reports that the name was folded into "_other". The name is
// the engine's service identity (engine.ServiceID.Name): already bounded,
// and vocab.ServiceOther or vocab.ServiceMissing for a processor's reserved
// slots, which file under the report's own.
func (r *Report) service(name string) (sr *serviceReport, over bool) {
	switch name {
	case "", vocab.ServiceMissing:
		return r.missing, false
	case vocab.ServiceOther:
		return r.other, true
	}
	name = bound(name)
	if sr, ok := r.services[name]; ok {
		return sr, false
	}
	if len(r.services) >= r.maxServices {
		return r.other, true
	}
	sr = r.newService(strings.Clone(name))
	r.services[sr.name] = sr
	return sr, false
}

// Entry is the name of the entry a service is listed under: its own
// name (bounded by vocab.Bound), "_missing" for "" or "_other" when it has no
// entry of its own. Front-ends that keep per-service data next to the report
// (otelgov's example locations) file it under the same entry after Add.
func (r *Report) Entry(service string) string {
	switch service {
	case "", vocab.ServiceMissing:
		return vocab.ServiceMissing
	case vocab.ServiceOther:
		return vocab.ServiceOther
	}
	name, _ := vocab.Bound(service)
	r.mu.Lock()
	defer r.mu.Unlock()
	if sr, ok := r.services[name]; ok {
		return sr.name
	}
	return vocab.ServiceOther
}

// Document renders the report against the registry in force (ix, of
// generation generation). service filters the listed services ("" for all);
// totals stay global.
func (r *Report) Document(ix *registry.Index, generation int64, service string, now time.Time) Document {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := Document{
		Generation:  generation,
		Digest:      ix.Digest(),
		SchemaURL:   ix.SchemaURL(),
		Since:       r.since,
		GeneratedAt: now,
		Limits:      DocumentLimits{MaxServices: r.maxServices, TopKeys: r.topKeys, MaxKeyLength: vocab.MaxKeyLength},
		Totals: Totals{
			Attributes:                outcomeMap(&r.totals),
			SeenNonRegistryAttributes: r.nonRegistry,
			Services:                  len(r.services),
			ServicesOverflow:          r.overflow,
		},
		Services: []ServiceReport{},
	}
	seen := 0
	for k := range r.registrySeen {
		if a := ix.Lookup(k); a != nil && !a.Placeholder && a.Key == k {
			seen++
		}
	}
	out.Totals.SeenRegistryAttributes = seen
	r.documentFindings(&out, ix)
	if known := ix.Stats().Known; known > 0 {
		out.Totals.RegistryCoverage = float64(seen) / float64(known)
	}
	emit := func(sr *serviceReport) {
		if sr.first.IsZero() || (service != "" && sr.name != service) {
			return
		}
		out.Services = append(out.Services, ServiceReport{
			Service:        sr.name,
			FirstSeen:      sr.first,
			LastSeen:       sr.last,
			Attributes:     outcomeMap(&sr.outcomes),
			UnknownKeys:    sr.unknown.top(r.topKeys),
			DeprecatedKeys: sr.deprecated.top(r.topKeys),
			Findings:       r.findingsDoc(sr.findings),
		})
	}
	if service != "" {
		// One map lookup instead of a scan.
		switch service {
		case vocab.ServiceOther:
			emit(r.other)
		case vocab.ServiceMissing:
			emit(r.missing)
		default:
			if sr, ok := r.services[service]; ok {
				emit(sr)
			}
		}
		return out
	}
	for _, sr := range r.services {
		emit(sr)
	}
	emit(r.other)
	emit(r.missing)
	slices.SortFunc(out.Services, func(a, b ServiceReport) int { return strings.Compare(a.Service, b.Service) })
	return out
}

func outcomeMap(c *[vocab.NumOutcomes]int64) map[string]int64 {
	m := make(map[string]int64, vocab.NumOutcomes)
	for o, n := range c {
		m[vocab.Outcome(o).String()] = n
	}
	return m
}

// sketch is a weighted space-saving sketch (Metwally et al.): at most
// capacity counters; a new key evicts the smallest counter and inherits its
// count as its error bound. Every key whose true count exceeds
// total/capacity is in the sketch, and no count is underestimated.
type sketch struct {
	capacity int
	entries  []sketchEntry
}

type sketchEntry struct {
	key   string
	count int64
	err   int64
}

func (s *sketch) add(key string, n int64) {
	if s.capacity == 0 || n <= 0 {
		return
	}
	key = bound(key)
	for i := range s.entries {
		if s.entries[i].key == key {
			s.entries[i].count += n
			return
		}
	}
	if len(s.entries) < s.capacity {
		s.entries = append(s.entries, sketchEntry{key: strings.Clone(key), count: n})
		return
	}
	m := 0
	for i := 1; i < len(s.entries); i++ {
		if s.entries[i].count < s.entries[m].count {
			m = i
		}
	}
	floor := s.entries[m].count
	s.entries[m] = sketchEntry{key: strings.Clone(key), count: floor + n, err: floor}
}

// top returns the n largest counters, largest first, ties by key.
func (s *sketch) top(n int) []KeyCount {
	es := slices.Clone(s.entries)
	slices.SortFunc(es, func(a, b sketchEntry) int {
		if c := cmp.Compare(b.count, a.count); c != 0 {
			return c
		}
		return strings.Compare(a.key, b.key)
	})
	out := make([]KeyCount, 0, min(n, len(es)))
	for _, e := range es[:min(n, len(es))] {
		out = append(out, KeyCount{Key: e.key, Count: e.count, MaxError: e.err})
	}
	return out
}

// bound is vocab.Bound without the flag.
func bound(s string) string {
	b, _ := vocab.Bound(s)
	return b
}
