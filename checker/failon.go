package checker // import "github.com/otelgov/otelcol-governance/checker"

import (
	"fmt"
	"strings"

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

// ParseLevelOverride parses one ID=LEVEL level override (the processor's
// findings::level_overrides entry) with Weaver's finding IDs and levels.
func ParseLevelOverride(s string) (vocab.Finding, vocab.Level, error) {
	id, level, ok := strings.Cut(s, "=")
	if !ok {
		return 0, 0, fmt.Errorf("want FINDING_ID=LEVEL, got %q", s)
	}
	f, ok := vocab.ParseFinding(id)
	if !ok {
		return 0, 0, fmt.Errorf("unknown finding ID %q", id)
	}
	l, ok := vocab.ParseLevel(level)
	if !ok {
		return 0, 0, fmt.Errorf("%s: unknown level %q, want violation, improvement or information", id, level)
	}
	return f, l, nil
}
