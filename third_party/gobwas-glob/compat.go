package glob

// Glob is glob v0.2's matcher interface. This file is the one change to
// github.com/gobwas/glob v1.1.0 in this directory (see README.md):
// go.opentelemetry.io/collector/confmap v1.71.0 still names glob.Glob, which
// v1 removed, and the Open Policy Agent needs v1's *Pattern; a *Pattern is a
// Glob, so both compile against this one copy.
type Glob interface {
	Match(s string) bool
}

var _ Glob = (*Pattern)(nil)
