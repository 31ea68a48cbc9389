package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/otelgov/otelcol-governance/registry"
)

// embeddedSide names the embedded semantic conventions as a side of a diff
// or an upgrade (--old embedded).
const embeddedSide = "embedded"

// registrySource is one registry as otelgov's flags give it: the semantic
// conventions (embedded, or a checkout), organisation registries and rules
// files on top. Its model is registry.Sources, whose YAML is the
// processor's registry section. Without a side it binds the processor's
// keys as flags (--embedded, --semconv-dir, --org-registry, --rules: check,
// fix, explain, queries, registry infer); a side ("old", "new": registry
// diff, upgrade) binds --SIDE DIR|embedded, --SIDE-org-registry and
// --SIDE-rules.
type registrySource struct {
	side string // "", "old" or "new"
	src  registry.Sources
	// dir is a side's semantic conventions: a checkout or "embedded"
	// (--old, --new, or registry diff's OLD and NEW).
	dir string
	// dirFlag says dir came from --SIDE (not an argument), for messages.
	dirFlag bool
}

// newSide is the registry source of one side: "old" or "new".
func newSide(side string) registrySource { return registrySource{side: side} }

// bind binds the source's flags. Without a side: --embedded (default
// true), --semconv-dir, --org-registry, --rules. With one:
// --SIDE-org-registry and --SIDE-rules (its directory is bindDir's or an
// argument's).
func (r *registrySource) bind(fs *pflag.FlagSet) {
	if r.side == "" {
		fs.BoolVar(&r.src.Embedded, "embedded", true, "load the semantic conventions compiled into otelgov (ignored with --semconv-dir)")
		fs.StringVar(&r.src.SemconvDir, "semconv-dir", "", "a semantic-conventions checkout (model/, schemas/) that replaces the embedded conventions")
		fs.StringArrayVar(&r.src.OrgRegistries, "org-registry", nil, "an organisation registry directory or manifest, loaded on top (repeatable)")
		fs.StringArrayVar(&r.src.RulesFiles, "rules", nil, "an extra context-rule file (repeatable)")
		return
	}
	fs.StringArrayVar(&r.src.OrgRegistries, r.side+"-org-registry", nil, fmt.Sprintf("an organisation registry directory or manifest loaded on top of the %s registry (repeatable)", r.side))
	fs.StringArrayVar(&r.src.RulesFiles, r.side+"-rules", nil, fmt.Sprintf("an extra context-rule file of the %s registry (repeatable)", r.side))
}

// bindDir binds a side's directory flag, --SIDE (default def).
func (r *registrySource) bindDir(fs *pflag.FlagSet, def string) {
	r.dirFlag = true
	fs.StringVar(&r.dir, r.side, def, fmt.Sprintf(`the %s registry: a semantic-conventions checkout (model/, schemas/) or "embedded" (the conventions compiled into otelgov)`, r.side))
}

// sources is what the source loads, with more organisation registries
// loaded on top.
func (r *registrySource) sources(org ...string) registry.Sources {
	s := r.src
	if r.side != "" {
		s.Embedded, s.SemconvDir = r.dir == embeddedSide, ""
		if !s.Embedded {
			s.SemconvDir = r.dir
		}
	}
	if s.SemconvDir != "" {
		s.Embedded = false
	}
	s.OrgRegistries = append(append([]string(nil), s.OrgRegistries...), org...)
	return s
}

// label names the source in messages: "registry", "--new DIR" or
// "new registry DIR".
func (r *registrySource) label() string {
	switch {
	case r.side == "":
		return "registry"
	case r.dirFlag:
		return "--" + r.side + " " + r.dir
	}
	return r.side + " registry " + r.dir
}

// load builds the registry exactly as the processor does; a source that
// does not load (or is not a registry: registry.ErrNotRegistry) is bad
// input, named. What loading accepted with leniency (registry.Index
// Warnings: a shipped rule left out on another release, a remote
// dependency's release that is not the one in force) is written to
// stderr, named.
func (r *registrySource) load(stderr io.Writer) (*registry.Index, error) {
	ix, err := r.loadIndex()
	if err != nil {
		return nil, err
	}
	for _, w := range ix.Warnings() {
		fmt.Fprintf(stderr, "otelgov: warning: %s: %s\n", r.label(), w)
	}
	return ix, nil
}

func (r *registrySource) loadIndex() (*registry.Index, error) {
	if r.side != "" && r.dir == "" {
		return nil, badInput(fmt.Errorf("--%s: needs a semantic-conventions directory or %q", r.side, embeddedSide))
	}
	s := r.sources()
	if s.Embedded && len(s.OrgRegistries) == 0 && len(s.RulesFiles) == 0 {
		return registry.Default()
	}
	ix, err := registry.Load(s)
	if err != nil {
		if errors.Is(err, registry.ErrNotRegistry) {
			return nil, badInput(fmt.Errorf("%s: %w", r.label(), err))
		}
		return nil, badInput(fmt.Errorf("%s: registry does not load: %w", r.label(), err))
	}
	return ix, nil
}

// flags is the source as the flags of otelgov's registry commands (check,
// queries, ...: no side), for the commands a plan prints.
func (r *registrySource) flags() string {
	s := r.sources()
	var out []string
	if s.SemconvDir != "" {
		out = append(out, "--semconv-dir", shellArg(s.SemconvDir))
	} else {
		out = append(out, "--embedded")
	}
	for _, o := range s.OrgRegistries {
		out = append(out, "--org-registry", shellArg(o))
	}
	for _, f := range s.RulesFiles {
		out = append(out, "--rules", shellArg(f))
	}
	return strings.Join(out, " ")
}

// shellArg quotes s for a POSIX shell where it needs quoting.
func shellArg(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=@%+,-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
