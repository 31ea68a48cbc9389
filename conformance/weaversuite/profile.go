package weaversuite

import (
	"fmt"

	"github.com/otelgov/otelcol-governance/engine"
)

// parseProfile checks a case's profile name; the engine has no profiles yet.
func parseProfile(s string) (string, error) {
	switch s {
	case "", "weaver", "extended":
		return s, nil
	}
	return "", fmt.Errorf("unknown profile %q", s)
}

func setProfile(_ *engine.Options, _ string) {}
