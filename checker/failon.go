package checker // import "github.com/otelgov/otelcol-governance/checker"

import (
	"fmt"

	"github.com/otelgov/otelcol-governance/vocab"
)

// FailOn is the --fail-on threshold over the engine's levels: a finding
// fails when its level (after overrides) is at or above it. The zero value
// fails on violations.
type FailOn struct {
	// Level is the least serious level that fails.
	Level vocab.Level
	// None: nothing fails.
	None bool
}

// Fails reports whether a finding of level l fails. The engine orders its
// levels most serious first: violation, improvement, information.
func (f FailOn) Fails(l vocab.Level) bool { return !f.None && l <= f.Level }

// String returns the threshold as --fail-on spells it.
func (f FailOn) String() string {
	if f.None {
		return "none"
	}
	return f.Level.String()
}

// ParseFailOn parses a --fail-on value: violation, improvement, information
// or none.
func ParseFailOn(s string) (FailOn, error) {
	if s == "none" {
		return FailOn{None: true}, nil
	}
	if l, ok := vocab.ParseLevel(s); ok {
		return FailOn{Level: l}, nil
	}
	return FailOn{}, fmt.Errorf("invalid level %q: want violation, improvement, information or none", s)
}
