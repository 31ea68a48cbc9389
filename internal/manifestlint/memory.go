package manifestlint

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"

	"k8s.io/apimachinery/pkg/api/resource"
)

// RuleMemoryPacing: a collector CR's Go memory settings (spec.env GOGC and
// GOMEMLIMIT) and its memory_limiter work against each other or against
// limits.memory. The Operator (operator.golang.flags, on by default since
// v0.140.0) sets GOMEMLIMIT to limits.memory unless spec.env sets it; the
// memory limiter reads the Go heap, so a GC that lets the heap grow past
// the limiter's soft limit makes the limiter refuse data at a load the
// collector could carry.
const RuleMemoryPacing Rule = "memory-pacing"

// memoryLimiter is one memory_limiter's limits in bytes, as the processor
// computes them (memorylimiter's getMemUsageChecker): limit_mib and
// spike_limit_mib (20 % of the limit when unset), or limit_percentage and
// spike_limit_percentage of the container's memory limit.
type memoryLimiter struct {
	id          string
	hard, spike int64
}

// soft is where the limiter starts refusing data.
func (m memoryLimiter) soft() int64 { return m.hard - m.spike }

const mib = 1 << 20

// memoryLimiters returns the memory_limiter processors of cfg that a
// pipeline uses, with their limits resolved against limit (limits.memory in
// bytes, 0 when unset); a limiter whose percentages cannot be resolved
// (no limits.memory) is left out.
func memoryLimiters(cfg map[string]any, limit int64) []memoryLimiter {
	used := map[string]bool{}
	for _, p := range mapAt(cfg, "service", "pipelines") {
		pm, _ := p.(map[string]any)
		for _, id := range listAt(pm, "processors") {
			if s := fmt.Sprint(id); componentType(s) == "memory_limiter" {
				used[s] = true
			}
		}
	}
	ids := make([]string, 0, len(used))
	for id := range used {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []memoryLimiter
	for _, id := range ids {
		c := mapAt(cfg, "processors", id)
		if n := number(c["limit_mib"]); n > 0 {
			m := memoryLimiter{id: id, hard: int64(n) * mib, spike: int64(number(c["spike_limit_mib"])) * mib}
			if m.spike == 0 {
				m.spike = m.hard / 5
			}
			out = append(out, m)
			continue
		}
		if pct := number(c["limit_percentage"]); pct > 0 && limit > 0 {
			// The processor rounds the total to MiB, then takes integer
			// percentages of it.
			total := limit / mib
			out = append(out, memoryLimiter{id: id, hard: total * int64(pct) / 100 * mib, spike: total * int64(number(c["spike_limit_percentage"])) / 100 * mib})
		}
	}
	return out
}

// number reads a YAML scalar as a float; 0 when it is not a number.
func number(v any) float64 {
	switch n := v.(type) {
	case int:
		return float64(n)
	case int64:
		return float64(n)
	case uint64:
		return float64(n)
	case float64:
		return n
	case string:
		f, _ := strconv.ParseFloat(n, 64)
		return f
	}
	return 0
}

// goMemLimitSyntax is the runtime's GOMEMLIMIT syntax: bytes, with an
// optional IEC unit (runtime.parseByteCount).
var goMemLimitSyntax = regexp.MustCompile(`^([0-9]+)(B|KiB|MiB|GiB|TiB)?$`)

// ParseGoMemLimit parses a GOMEMLIMIT value as the Go runtime does; "off"
// is math.MaxInt64, no limit.
func ParseGoMemLimit(s string) (int64, error) {
	if s == "off" {
		return math.MaxInt64, nil
	}
	m := goMemLimitSyntax.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("%q is not a Go memory limit (bytes with an optional B, KiB, MiB, GiB or TiB; Kubernetes' Mi and Gi are not understood, and the runtime would refuse to start)", s)
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q: %w", s, err)
	}
	shift := map[string]uint{"": 0, "B": 0, "KiB": 10, "MiB": 20, "GiB": 30, "TiB": 40}[m[2]]
	if n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("%q overflows", s)
	}
	return n << shift, nil
}

// MemorySettings is what a collector CR sets for the Go runtime's memory:
// spec.env's literal values by name, the names spec.env sets through
// valueFrom, and spec.resources.limits.memory in bytes (0 when unset). The
// memory-pacing rule reads them, and so does the testbench that runs the
// CRs' settings.
type MemorySettings struct {
	Env   map[string]string
	From  map[string]bool
	Limit int64
}

// ReadMemorySettings reads o's MemorySettings; a limits.memory that is not
// a Kubernetes quantity is an error.
func ReadMemorySettings(o Object) (MemorySettings, error) {
	m := MemorySettings{Env: map[string]string{}, From: map[string]bool{}}
	for _, e := range listAt(o.Doc, "spec", "env") {
		kv, _ := e.(map[string]any)
		name := fmt.Sprint(kv["name"])
		if _, ok := kv["valueFrom"]; ok {
			m.From[name] = true
			continue
		}
		m.Env[name] = fmt.Sprint(kv["value"])
	}
	if s := fmt.Sprint(mapAt(o.Doc, "spec", "resources", "limits")["memory"]); s != "<nil>" && s != "" {
		q, err := resource.ParseQuantity(s)
		if err != nil {
			return m, fmt.Errorf("spec.resources.limits.memory %q: %w", s, err)
		}
		m.Limit = q.Value()
	}
	return m, nil
}

// errGoMemLimitFrom: spec.env sets GOMEMLIMIT through valueFrom, which a
// linter cannot read.
var errGoMemLimitFrom = errors.New("spec.env GOMEMLIMIT comes from valueFrom: set a literal value, so that it can be kept below memory_limiter's soft limit")

// GoMemLimit is the GOMEMLIMIT the collector runs with: spec.env's value
// (fromEnv), else limits.memory, which the Operator sets when spec.env
// does not; math.MaxInt64 when neither bounds it. The error is a
// valueFrom (errGoMemLimitFrom) or a value the runtime would refuse.
func (m MemorySettings) GoMemLimit() (n int64, fromEnv bool, err error) {
	if m.From["GOMEMLIMIT"] {
		return 0, true, errGoMemLimitFrom
	}
	if s, ok := m.Env["GOMEMLIMIT"]; ok {
		n, err := ParseGoMemLimit(s)
		if err != nil {
			return 0, true, fmt.Errorf("spec.env GOMEMLIMIT %w", err)
		}
		return n, true, nil
	}
	if m.Limit > 0 {
		return m.Limit, false, nil
	}
	return math.MaxInt64, false, nil
}

// checkMemoryPacing keeps GOGC, GOMEMLIMIT, the memory limiter and
// limits.memory in step (RuleMemoryPacing).
func (l *linter) checkMemoryPacing(o Object, cfg map[string]any) {
	ms, err := ReadMemorySettings(o)
	if err != nil {
		l.report(o, RuleMemoryPacing, "%v", err)
		return
	}
	env, limit := ms.Env, ms.Limit
	gogc, hasGOGC := env["GOGC"]
	if hasGOGC && gogc != "off" {
		if n, err := strconv.Atoi(gogc); err != nil || n < 0 {
			l.report(o, RuleMemoryPacing, "spec.env GOGC %q: want off or a percentage", gogc)
		}
	}
	memLimit, fromEnv, err := ms.GoMemLimit()
	if err != nil {
		l.report(o, RuleMemoryPacing, "%v", err)
		return
	}
	if gogc == "off" && memLimit == math.MaxInt64 {
		l.report(o, RuleMemoryPacing, "spec.env GOGC=off without GOMEMLIMIT or limits.memory: the heap grows until the node runs out of memory")
		return
	}
	if limit > 0 && memLimit != math.MaxInt64 && memLimit > limit {
		l.report(o, RuleMemoryPacing, "spec.env GOMEMLIMIT %s is above limits.memory (%s): the pod is OOM-killed before the GC works hard", mibString(memLimit), mibString(limit))
	}
	for _, m := range memoryLimiters(cfg, limit) {
		if limit > 0 && m.hard >= limit {
			l.report(o, RuleMemoryPacing, "processors.%s limit %s is at or above limits.memory (%s): the pod is OOM-killed before the limiter refuses data", m.id, mibString(m.hard), mibString(limit))
		}
		if memLimit > m.soft() {
			what := "spec.env GOMEMLIMIT " + mibString(memLimit)
			if !fromEnv {
				what = "GOMEMLIMIT (unset in spec.env: the Operator sets limits.memory, " + mibString(memLimit) + ")"
			}
			if memLimit == math.MaxInt64 {
				what = "GOMEMLIMIT (unset, and no limits.memory)"
			}
			l.report(o, RuleMemoryPacing, "%s is above processors.%s's soft limit (%s = limit %s - spike %s): the GC lets the heap grow past it, and the limiter forces collections and refuses data at a load the collector carries; set GOMEMLIMIT at or below %s",
				what, m.id, mibString(m.soft()), mibString(m.hard), mibString(m.spike), mibString(m.soft()))
		}
	}
}

func mibString(b int64) string {
	if b%mib == 0 {
		return strconv.FormatInt(b/mib, 10) + " MiB"
	}
	return strconv.FormatFloat(float64(b)/mib, 'f', 1, 64) + " MiB"
}
