package weaversuite

import (
	"fmt"

	"github.com/otelgov/otelcol-governance/engine"
)

// parseProfile returns the engine profile a case names; empty: weaver.
func parseProfile(s string) (engine.Profile, error) {
	if s == "" {
		return engine.ProfileWeaver, nil
	}
	p, ok := engine.ParseProfile(s)
	if !ok {
		return 0, fmt.Errorf("unknown profile %q", s)
	}
	return p, nil
}

func setProfile(o *engine.Options, p engine.Profile) { o.Profile = p }
