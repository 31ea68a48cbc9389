package registryextension // import "github.com/otelgov/otelcol-governance/extension/registryextension"

import (
	"crypto/sha256"
	"fmt"
	"runtime/debug"

	"go.uber.org/zap"

	"github.com/otelgov/otelcol-governance/extension/registryextension/registryapi"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/registry/change"
)

// candidateState is the candidate registry's reload state, written only by
// Start and then the poll goroutine (check), one after the other: no lock.
// Processors read the result, the Shadow, through an atomic pointer.
//
// The candidate's Index is not kept once it has been compared: the Shadow
// holds only the change set's lookup. Kept, the Index and the heap spans
// its load scattered it over stayed live next to the one in force, and
// under a memory limit (GOMEMLIMIT) the collector then collected more
// often and marked more each time at line rate: 14 % more collections per
// span, 2 to 3 MB more heap after each (benchmarks/results/shadow-gc). The
// candidate is loaded again when the registry in force moves (a reload of
// an org registry): rare, and off the data path.
type candidateState struct {
	loaded  bool  // a candidate loaded, and its files have not changed since
	gen     int64 // its generation
	goodSum [sha256.Size]byte
	badSum  [sha256.Size]byte
	err     error // the latest load's error; nil when it loaded
}

var _ registryapi.Shadower = (*registryExtension)(nil)

// Shadow returns the candidate compared with the registry in force; nil
// without a candidate section.
func (e *registryExtension) Shadow() *registryapi.Shadow { return e.shadow.Load() }

// checkCandidate loads the candidate when its files changed (at start: when
// none was loaded yet) or the registry in force moved, and compares the
// two. A candidate that does not load is logged once per state of its
// files and published as failed: processors evaluate nothing until it
// loads again. It never touches the registry in force.
func (e *registryExtension) checkCandidate() {
	cc := e.cfg.Candidate.Get()
	if cc == nil {
		return
	}
	c := &e.cand
	_, sum, ferr := fingerprint(cc.watched())
	if ferr != nil {
		sum = sha256.Sum256([]byte(ferr.Error()))
	}
	unchanged := c.loaded && sum == c.goodSum
	switch {
	case unchanged && c.err == nil:
		// The candidate is unchanged: compare again only if the registry
		// in force moved.
		if s := e.shadow.Load(); s != nil && s.ActiveGeneration == e.cur.Load().Generation {
			return
		}
	case c.err != nil && sum == c.badSum:
		return // already reported
	}
	ix, err := cc.load()
	if err == nil && ferr != nil {
		err = ferr
	}
	if err != nil {
		c.err, c.badSum = err, sum
		e.logger.Error("Candidate registry does not load; the shadow evaluates nothing until it does, the registry in force is unchanged",
			zap.Error(err), zap.Int64("candidate_generation", c.gen))
		e.publishShadow(nil)
		return
	}
	if !unchanged {
		c.gen++
	} else if c.err != nil {
		e.logger.Info("Candidate registry files are back to the candidate that loaded", zap.Int64("candidate_generation", c.gen))
	}
	c.loaded, c.err, c.goodSum = true, nil, sum
	e.publishShadow(ix)
	if c.err != nil {
		// The comparison failed: reported once for these files, as a
		// load that fails is.
		c.badSum = sum
		e.logger.Error("Candidate registry does not compare with the registry in force; the shadow evaluates nothing until it does",
			zap.Error(c.err), zap.Int64("candidate_generation", c.gen))
	}
	returnLoadMemory() // after the comparison: the Index is garbage too by then
}

// returnLoadMemory collects the garbage a candidate's load leaves (reading
// a semantic-conventions directory allocates about 30 MB) and returns its
// pages to the OS at once. Without it the freed pages stay mapped until
// the scavenger gets to them, and a memory limit (GOMEMLIMIT, which the
// Operator sets to the pod's limit) counts them: the collector then
// collects more often at line rate (benchmarks/results/extension-features).
// Once per candidate load, never per batch.
func returnLoadMemory() { debug.FreeOSMemory() }

// publishShadow computes the change set between the registry in force and
// the candidate ix (nil: it did not load, c.err says why), once, and
// publishes its lookup.
func (e *registryExtension) publishShadow(ix *registry.Index) {
	c := &e.cand
	active := e.cur.Load()
	s := &registryapi.Shadow{Generation: c.gen, ActiveGeneration: active.Generation}
	if c.err == nil && ix != nil {
		set, err := change.Diff(active.Index, ix)
		if err != nil {
			c.err = fmt.Errorf("candidate: compare with the registry in force: %w", err)
		} else {
			s.Changes = change.NewLookup(set)
			s.SchemaURL, s.Digest = ix.SchemaURL(), ix.Digest()
			e.logger.Info("Candidate registry compared with the registry in force",
				zap.Int64("candidate_generation", c.gen),
				zap.String("candidate_schema_url", s.SchemaURL),
				zap.String("candidate_digest", s.Digest),
				zap.Int64("generation", active.Generation),
				zap.Int("changes", len(set.Changes)))
		}
	}
	if c.err != nil {
		s.Err = boundError(c.err)
	}
	e.shadow.Store(s)
}
