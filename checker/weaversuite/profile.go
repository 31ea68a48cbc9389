package weaversuite

import (
	"fmt"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/vocab"
)

// parseProfile returns the engine profile a case names; empty: weaver.
func parseProfile(s string) (vocab.Profile, error) {
	if s == "" {
		return vocab.ProfileWeaver, nil
	}
	p, ok := vocab.ParseProfile(s)
	if !ok {
		return 0, fmt.Errorf("unknown profile %q", s)
	}
	return p, nil
}

func setProfile(o *engine.Options, p vocab.Profile) { o.Profile = p }
