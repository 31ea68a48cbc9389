package governanceprocessor // import "github.com/otelgov/otelcol-governance/processor/governanceprocessor"

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/otelgov/otelcol-governance/registry"
)

// The transition in force: every processor instance says, on :8888, which
// registry it runs, its deprecated mode and which deprecated_names the
// registry in force deprecates (processor_governance_transition_info, one
// series per instance whatever its configuration, and
// processor_governance_deprecated_names_in_force, one per listed name).
// otelgov upgrade status reads them: "done" is an answer only where every
// instance says that the transition is in force, never from the absence of
// processor_governance_service_deprecated_names, which has no series until
// a listed name arrives.

// noneDigest is the digest label of an empty deprecated_names and of a
// missing candidate.
const noneDigest = "none"

// transitionState is what one instance observes: computed when its
// registry changes (start, a reload), read when the SDK collects.
type transitionState struct {
	schemaURL, digest string
	// counted is how many listed names the registry in force deprecates.
	counted int64
	// names are the listed names' series, sorted by name.
	names []nameInForce
}

type nameInForce struct {
	opts []metric.ObserveOption
	// deprecated: the registry in force deprecates the name, so the
	// processor applies its mode and counts it.
	deprecated bool
}

// deprecatedNamesDigest names a deprecated_names list: the first 16 hex
// digits of the SHA-256 of its sorted "name=mode" lines; none when empty.
func deprecatedNamesDigest(cfg *config) string {
	if len(cfg.DeprecatedNames) == 0 {
		return noneDigest
	}
	h := sha256.New()
	for _, n := range slices.Sorted(maps.Keys(cfg.DeprecatedNames)) {
		fmt.Fprintf(h, "%s=%s\n", n, cfg.DeprecatedNames[n])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// newTransitionState computes the state of deprecated_names against ix,
// and returns the listed names ix does not deprecate, sorted.
func newTransitionState(base []attribute.KeyValue, cfg *config, ix *registry.Index) (*transitionState, []string) {
	st := &transitionState{schemaURL: ix.SchemaURL(), digest: ix.Digest()}
	var missing []string
	for _, n := range slices.Sorted(maps.Keys(cfg.DeprecatedNames)) {
		ok := deprecatedIn(ix, n)
		if ok {
			st.counted++
		} else {
			missing = append(missing, n)
		}
		st.names = append(st.names, nameInForce{
			opts:       observeOpts(base, attribute.String("deprecated_name", n), attribute.String("mode", string(cfg.DeprecatedNames[n]))),
			deprecated: ok,
		})
	}
	return st, missing
}

// errNamesNotInForce: deprecated_names lists names the registry in force
// does not deprecate (a registry from the extension, which Validate cannot
// see).
var errNamesNotInForce = errors.New("deprecated_names lists names the registry in force does not deprecate: they would pass as sent and be counted nowhere")

// adoptTransition makes ix's transition state the one observed, and
// returns an error naming the listed names ix does not deprecate.
func (g *governor) adoptTransition(ix *registry.Index) error {
	st, missing := newTransitionState(g.tel.base, g.cfg, ix)
	g.transition.Store(st)
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s (registry schema_url %s, digest %s): list only names it deprecates, or load the new registry first",
		errNamesNotInForce, strings.Join(missing, ", "), ix.SchemaURL(), ix.Digest())
}

// startTransition checks deprecated_names against the registry in force at
// start: a listed name it does not deprecate is refused.
func (g *governor) startTransition(ix *registry.Index) error {
	if err := g.adoptTransition(ix); err != nil {
		if id := g.cfg.Registry.Extension; id != nil {
			return fmt.Errorf("registry::extension %q: %w", id.String(), err)
		}
		return err
	}
	return nil
}

// reloadTransition follows a registry reload: a listed name the new
// registry no longer deprecates is logged, and its
// processor_governance_deprecated_names_in_force series drops to 0.
func (g *governor) reloadTransition(ix *registry.Index) {
	if err := g.adoptTransition(ix); err != nil {
		g.logger.Warn("Governance processor: after the registry reload, deprecated_names lists names the registry no longer deprecates: they pass as sent and are counted nowhere (processor_governance_deprecated_names_in_force is 0 for them)",
			zap.Error(err))
	}
}

// observeTransition reports the instance's transition series.
func (g *governor) observeTransition(_ context.Context, o metric.Int64Observer) error {
	st := g.transition.Load()
	if st == nil {
		return nil // not started
	}
	cand := noneDigest
	if s := g.candidate.Load(); s != nil {
		if sh := s.src.Shadow(); sh != nil && sh.Digest != "" {
			cand = sh.Digest
		}
	}
	attrs := append(slices.Clone(g.tel.base),
		attribute.String("schema_url", st.schemaURL),
		attribute.String("digest", st.digest),
		attribute.String("deprecated", string(g.cfg.Deprecated)),
		attribute.String("deprecated_names_digest", deprecatedNamesDigest(g.cfg)),
		attribute.String("candidate_digest", cand),
	)
	o.Observe(st.counted, metric.WithAttributeSet(attribute.NewSet(attrs...)))
	return nil
}

// observeNamesInForce reports one series per listed name.
func (g *governor) observeNamesInForce(_ context.Context, o metric.Int64Observer) error {
	st := g.transition.Load()
	if st == nil {
		return nil
	}
	for i := range st.names {
		v := int64(0)
		if st.names[i].deprecated {
			v = 1
		}
		o.Observe(v, st.names[i].opts...)
	}
	return nil
}

// registerTransition adds the transition series to the instance's
// telemetry.
func (g *governor) registerTransition() error {
	return errors.Join(
		g.tel.tb.RegisterProcessorGovernanceTransitionInfoCallback(g.observeTransition),
		g.tel.tb.RegisterProcessorGovernanceDeprecatedNamesInForceCallback(g.observeNamesInForce),
	)
}
