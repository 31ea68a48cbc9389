// Package engine is the governance engine: it walks every attribute of every
// signal in a pdata batch against a registry, renames what is deprecated,
// checks the rest, and tallies the outcomes. It knows pdata and the registry,
// never the collector's component or config types: the governance processor,
// the otelgov CLI and the registry extension's report are front-ends over it.
//
// A walk over conforming data allocates nothing. Front-ends take a Walker
// from the Engine per batch, walk, read the batch's one tally (Walker.Batch),
// and release it. The vocabulary the tally counts by is package vocab.
//
// Each Engine keeps a shape memo (memo.go): an attribute map whose key
// sequence, value types and context the engine has seen is walked as one
// key comparison per attribute, the checks that read values, and one vector
// added to the tally, with the same result as the full walk. It is bounded
// (2048 entries, 4 MiB), belongs to one registry Index, and its counters are
// Engine.MemoStats.
package engine // import "github.com/otelgov/otelcol-governance/engine"

import (
	"maps"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelgov/otelcol-governance/findingrules"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// DeprecatedMode says what happens to a deprecated attribute key or metric
// name that the registry renames.
type DeprecatedMode string

const (
	// DeprecatedRename replaces the old key with the current one.
	DeprecatedRename DeprecatedMode = "rename"
	// DeprecatedCopy keeps the old key and adds the current one next to it.
	DeprecatedCopy DeprecatedMode = "copy"
	// DeprecatedOff leaves deprecated keys alone; they are only counted.
	DeprecatedOff DeprecatedMode = "off"
)

// UnknownMode says what happens to keys that the registry does not know.
type UnknownMode string

const (
	// UnknownKeep keeps unknown keys; they are only counted.
	UnknownKeep UnknownMode = "keep"
	// UnknownDrop removes unknown keys.
	UnknownDrop UnknownMode = "drop"
)

// TypeMismatchMode says what happens to a value whose type differs from the
// type the registry declares for its key.
type TypeMismatchMode string

const (
	// TypeMismatchKeep keeps the value; it is only counted.
	TypeMismatchKeep TypeMismatchMode = "keep"
	// TypeMismatchDrop removes the attribute.
	TypeMismatchDrop TypeMismatchMode = "drop"
	// TypeMismatchCoerce converts the value where no information is lost
	// (string "200" to int 200) and keeps it unchanged otherwise.
	TypeMismatchCoerce TypeMismatchMode = "coerce"
)

// EnumViolationMode says what happens to a value outside the members of an
// enum.
type EnumViolationMode string

const (
	// EnumViolationKeep keeps the value; it is only counted.
	EnumViolationKeep EnumViolationMode = "keep"
	// EnumViolationDrop removes the attribute.
	EnumViolationDrop EnumViolationMode = "drop"
)

// ServiceID is a resource's service identity, computed once per resource
// and shared by every sink of the batch's tally: the processor's per-service
// series on :8888 and the conformance report both file the resource under
// Name.
type ServiceID struct {
	// Slot identifies the service in the front-end's table.
	Slot int
	// Name is the resource's service.name bounded by vocab.Bound, or
	// vocab.ServiceOther (folded by a limit) or vocab.ServiceMissing (no
	// string service.name). It must stay valid after the batch: a table
	// keeps its own copy.
	Name string
	// Overflow reports that the service was folded into
	// vocab.ServiceOther.
	Overflow bool
}

// ServiceSlots bounds the services a front-end tallies separately (the
// processor's service_limit). Slot is called once per governed resource,
// except that a walker remembers the last name whose identity is a slot of
// its own (Name equal to the name as received, Overflow unset) and reuses
// it without calling Slot: such an identity must never change.
// Without ServiceSlots, the engine files each resource under its bounded
// service.name, one entry per distinct name in the batch, unbounded in
// number (a front-end that keeps them bounds them itself, as the
// conformance report does with max_services).
type ServiceSlots interface {
	// Slot returns the identity of a present service.name, as received.
	Slot(name string) ServiceID
	// Missing is the identity of resources without a string service.name.
	Missing() ServiceID
}

// Options configure an Engine. The zero value of a mode is invalid; front-ends
// validate their own configuration and pass valid modes.
type Options struct {
	Deprecated DeprecatedMode
	// DeprecatedNames are per-name modes: a deprecated attribute key or
	// metric name listed here (its old name, as received) is handled with
	// its own mode instead of Deprecated; its values' migrations follow
	// the same mode. Empty: every deprecated name follows Deprecated.
	// Every mode must be valid.
	DeprecatedNames map[string]DeprecatedMode
	Unknown         UnknownMode
	TypeMismatch    TypeMismatchMode
	EnumViolation   EnumViolationMode
	// AllowKeys and AllowPrefixes are unknown keys that count as allowed.
	AllowKeys     []string
	AllowPrefixes []string
	// IncludeResources restricts the walk to resources whose attributes
	// match: every key listed must be present with one of the listed string
	// values. Empty: every resource.
	IncludeResources map[string][]string
	// Services, when set, gives each resource its service identity (see
	// ServiceSlots).
	Services ServiceSlots
	// Detail fills the Batch's per-key, per-finding-name and
	// per-definition detail, the conformance report's input.
	Detail bool
	// ClosedEnums are the enum attributes whose members are the only
	// allowed values: a value outside them is an enum_violation, dropped
	// with EnumViolationDrop. Every other enum is open: a value outside its
	// members is an undefined_enum_variant and always kept.
	ClosedEnums []string
	// Findings turns on the signal conformance checks: each attribute,
	// metric, log event, matched span and resource is checked against the
	// registry's definitions, with Weaver live-check's findings.
	Findings bool
	// Rules are Weaver's finding_level_overrides and finding_filters
	// (package findingrules), applied to each finding where it is counted:
	// a finding they drop is not counted, reported nor offered to the
	// Sink. nil: Weaver's levels, every finding kept. Rules without scope
	// cost one table lookup per finding; scoped rules are matched per
	// finding against the walk's sample context (rules.go).
	Rules *findingrules.Rules
	// DropUnexpected removes data-point attributes outside a registry
	// metric's attribute set (a cardinality guard). Needs Findings.
	DropUnexpected bool
	// Sink, when set, is offered each finding with its context (Findings
	// only); it samples or rate-limits them itself.
	Sink FindingSink
	// V2 checks as Weaver's live-check with --v2 at afa9700c: the registry
	// is read as Weaver's v2 schema, in which a definition that states no
	// stability is in development, so its attributes, metrics and events
	// get not_stable. Otherwise a registry is checked alike in both modes
	// (Weaver's tests assert the same findings for the v1 and v2 form of
	// each registry); a semantic-conventions registry, where every
	// definition states its stability, gets the same findings.
	V2 bool
	// Profile chooses the findings reported (Findings only). The zero
	// value, vocab.ProfileWeaver, reports exactly Weaver live-check's findings;
	// vocab.ProfileExtended adds this engine's extensions. DropUnexpected guards
	// in every profile.
	Profile vocab.Profile
	// Advisor, when set, is offered every sample (advice.go) and its
	// findings are counted with the built-in ones (Findings only). Nil
	// costs the walk nothing. The shape memo is off with an Advisor,
	// unless it is a ShapeAdvisor whose findings on attributes are
	// shape-free: the memo's entries then keep them.
	Advisor Advisor
}

// Mutates reports whether the options can change telemetry.
func (o *Options) Mutates() bool {
	for _, m := range o.DeprecatedNames {
		if m != DeprecatedOff {
			return true
		}
	}
	return o.Deprecated != DeprecatedOff ||
		o.Unknown == UnknownDrop ||
		o.TypeMismatch != TypeMismatchKeep ||
		(o.EnumViolation == EnumViolationDrop && len(o.ClosedEnums) > 0) ||
		(o.Findings && o.DropUnexpected)
}

// deprecatedMode is the mode of the deprecated name k: its own
// (Options.DeprecatedNames) or Options.Deprecated.
func (e *Engine) deprecatedMode(k string) DeprecatedMode {
	if len(e.opts.DeprecatedNames) > 0 {
		if m, ok := e.opts.DeprecatedNames[k]; ok {
			return m
		}
	}
	return e.opts.Deprecated
}

// Engine is one compiled set of Options. It is safe for concurrent use: every
// concurrent batch gets its own Walker.
type Engine struct {
	opts          Options
	mutates       bool
	allowKeys     map[string]struct{}
	allowPrefixes []string
	include       []includeRule
	closed        map[string]struct{} // ClosedEnums
	levels        [vocab.NumFindings]vocab.Level
	findingRules  ruleTable // Options.Rules (rules.go)
	extended      bool      // Profile is vocab.ProfileExtended
	// rules are the name rules of the last registry walked (weaver.go).
	rules atomic.Pointer[nameRules]
	// walkers are the idle walkers. Not a sync.Pool: the collector
	// collects garbage often at line rate, every collection empties a
	// sync.Pool, and a new walker costs about 20 KB of allocation and
	// zeroing, its caches cold: a fixed cost per batch that a free list
	// bounded by maxIdle avoids.
	mu      sync.Mutex
	walkers []*Walker // guarded by mu
	// maxIdle bounds walkers: maxIdleWalkersPerProc per GOMAXPROCS thread
	// when the engine was made. runtime.GOMAXPROCS takes the scheduler's
	// lock, too dear per batch (7% of a one-span batch's fixed cost), and
	// a bound of idle walkers need not follow a later change.
	maxIdle int
	// memo is the shape memo (memo.go); nil turns it off (tests compare
	// the walk without it).
	memo *memo
	// noted is the set of registry entries listed in Batch.Keys for the
	// last Index a walker was asked for (Options.Detail; report.go).
	noted atomic.Pointer[notedKeys]
}

// maxIdleWalkersPerProc bounds the idle walkers kept per engine, per
// GOMAXPROCS thread; the walkers of more concurrent batches are dropped.
const maxIdleWalkersPerProc = 4

// includeRule is one key of IncludeResources.
type includeRule struct {
	key    string
	values map[string]struct{}
}

// New compiles opts into an Engine.
func New(opts Options) *Engine {
	opts.DeprecatedNames = maps.Clone(opts.DeprecatedNames)
	e := &Engine{
		opts:          opts,
		mutates:       opts.Mutates(),
		allowKeys:     make(map[string]struct{}, len(opts.AllowKeys)),
		allowPrefixes: append([]string(nil), opts.AllowPrefixes...),
	}
	for _, k := range opts.AllowKeys {
		e.allowKeys[k] = struct{}{}
	}
	e.closed = make(map[string]struct{}, len(opts.ClosedEnums))
	for _, k := range opts.ClosedEnums {
		e.closed[k] = struct{}{}
	}
	for k, vs := range opts.IncludeResources {
		r := includeRule{key: k, values: make(map[string]struct{}, len(vs))}
		for _, v := range vs {
			r.values[v] = struct{}{}
		}
		e.include = append(e.include, r)
	}
	for f := range e.levels {
		e.levels[f] = vocab.DefaultLevel(vocab.Finding(f))
	}
	e.findingRules = newRuleTable(opts.Rules, &e.levels)
	e.maxIdle = maxIdleWalkersPerProc * runtime.GOMAXPROCS(0)
	e.extended = opts.Profile == vocab.ProfileExtended
	if _, shape := opts.Advisor.(ShapeAdvisor); opts.Advisor == nil || shape {
		// An Advisor sees every attribute with its value, in the walk's
		// order (advice.go): the shape memo, which replays a map's
		// findings without visiting its attributes, is off with one,
		// unless it is a ShapeAdvisor, whose findings on attributes the
		// entries keep while it reports them shape-free (Walker).
		e.memo = newMemo()
	}
	return e
}

// Level is the level of finding f under this engine's rules without scope:
// the level every finding f is counted at unless a scoped override
// (LevelScoped) changes it for some samples. Front-ends that label
// findings (the processor's counters) ask the engine, so that they agree
// with it.
func (e *Engine) Level(f vocab.Finding) vocab.Level {
	if f < vocab.NumFindings {
		return e.levels[f]
	}
	return vocab.LevelViolation
}

// LevelScoped reports whether a finding's level can depend on its sample (a
// scoped rule): Batch.Relevelled then holds the findings counted at another
// level than Level's.
func (e *Engine) LevelScoped() bool { return e.findingRules.scoped }

// Mutates reports whether the engine can change telemetry.
func (e *Engine) Mutates() bool { return e.mutates }

// Walker returns a walker for one batch checked against ix. readOnly data is
// checked and counted but never changed. Release it when done.
func (e *Engine) Walker(ix *registry.Index, readOnly bool) *Walker {
	return e.WalkerAdvised(ix, readOnly, e.opts.Advisor)
}

// WalkerAdvised is Walker with adv as the batch's Advisor instead of
// Options.Advisor (nil: none), so that one engine and its shape memo serve
// batches with and without one (a front-end whose policies are in force
// some of the time). The memo serves the batch when adv is nil or a
// ShapeAdvisor whose findings on attributes are shape-free (and the engine
// has a memo: Options.Advisor nil or a ShapeAdvisor). The entries
// recorded while one is offered the attributes hold for such walks only
// (memoAdvised), as with Options.Advisor.
func (e *Engine) WalkerAdvised(ix *registry.Index, readOnly bool, adv Advisor) *Walker {
	var w *Walker
	e.mu.Lock()
	if n := len(e.walkers); n > 0 {
		w = e.walkers[n-1]
		e.walkers[n-1] = nil
		e.walkers = e.walkers[:n-1]
	}
	e.mu.Unlock()
	if w == nil {
		w = newWalker(e)
	}
	w.mutate = e.mutates && !readOnly
	w.ix = ix
	w.advisor = adv
	w.shape, _ = adv.(ShapeAdvisor)
	w.memo.on = e.memo != nil && (adv == nil || w.shape != nil && w.shape.AttrsShapeFree())
	w.adv.cacheOn = w.shape != nil && w.memo.on
	w.adv.kinds, w.adv.typeFree = AllSampleKinds, false
	if w.shape != nil {
		w.adv.kinds, w.adv.typeFree = w.shape.Kinds(), w.shape.AttrsTypeFree()
	}
	if e.memo != nil {
		e.memo.use(ix)
	}
	if e.opts.Detail {
		w.report.noted = e.notedFor(ix)
	}
	return w
}

// notedFor returns the set of registry entries listed for ix, a new one
// when ix is not the last Index asked for (a reload: the report then sees
// every entry met again, which its set of names absorbs).
func (e *Engine) notedFor(ix *registry.Index) *notedKeys {
	for {
		n := e.noted.Load()
		if n != nil && n.ix == ix {
			return n
		}
		if m := newNotedKeys(ix); e.noted.CompareAndSwap(n, m) {
			return m
		}
	}
}

// Release returns a walker to the pool; the walker and its tallies must not
// be used afterwards.
func (e *Engine) Release(w *Walker) {
	if e.memo != nil && w.memo.hits+w.memo.misses > 0 {
		e.memo.hits.Add(w.memo.hits)
		e.memo.misses.Add(w.memo.misses)
	}
	w.memo.hits, w.memo.misses = 0, 0
	w.reset()
	e.mu.Lock()
	if len(e.walkers) < e.maxIdle {
		e.walkers = append(e.walkers, w)
	}
	e.mu.Unlock()
}

// included reports whether a resource is governed under IncludeResources.
func (e *Engine) included(attrs pcommon.Map) bool {
	for i := range e.include {
		r := &e.include[i]
		v, ok := attrs.Get(r.key)
		if !ok || v.Type() != pcommon.ValueTypeStr {
			return false
		}
		if _, ok := r.values[v.Str()]; !ok {
			return false
		}
	}
	return true
}

// allowed reports whether an unknown key is on the allow list.
func (e *Engine) allowed(key string) bool {
	if _, ok := e.allowKeys[key]; ok {
		return true
	}
	for _, p := range e.allowPrefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}
