package testbench // import "github.com/otelgov/otelcol-governance/testbench"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// Signal is the telemetry kind the testbench generates (vocab.Kind: it
// encodes as "traces", "metrics" or "logs").
type Signal = vocab.Kind

// The kinds the testbench generates.
const (
	Traces  = vocab.KindTraces
	Metrics = vocab.KindMetrics
	Logs    = vocab.KindLogs
)

// Keys the workload reserves: every item carries them, and no profile picks them.
const (
	serviceNameKey = "service.name"
	// seqKey carries a per-item value on spans and log records, so that a
	// changed value in one item cannot hide behind a profile shared by many.
	seqKey = "url.path"
	// ShapeKeyPrefix starts the key that Mix.NewShapes adds to each item.
	ShapeKeyPrefix = "acme.shape."
	// AllowedKey is an unknown key on the governance allow list (AllowPrefix):
	// kept in drop mode.
	AllowedKey  = "acme.tenant"
	AllowPrefix = "acme."
	// MetricName is the name of every generated gauge. The registry does not
	// know it, so the processor leaves the name alone.
	MetricName = "testbench.gauge"
	scopeName  = "testbench"
)

// Mix is the attribute mix of every generated item. Percentages are shares
// of AttrsPerItem; the remainder are current registry keys.
type Mix struct {
	// Seed makes the workload deterministic: the same Seed and Mix always
	// produce the same items. Default 1.
	Seed uint64
	// AttrsPerItem is the number of attributes on each span, data point or log
	// record, not counting url.path (spans and logs). Default 12.
	AttrsPerItem int
	// DeprecatedPct of the attributes are deprecated keys drawn from the
	// registry's real renames. Default 25.
	DeprecatedPct int
	// UnknownPct are keys no registry defines; one of them per item is
	// AllowedKey when UnknownPct > 0. Default 25.
	UnknownPct int
	// TemplatePct are instances of template keys (http.request.header.<x>).
	// Default 10.
	TemplatePct int
	// DeprecatedPool bounds how many distinct renames the workload draws
	// from, spread evenly over the registry, with the context-dependent ones
	// always included. 0 uses every usable rename.
	DeprecatedPool int
	// Services is the number of distinct resource service.name values.
	// Default 10.
	Services int
	// Profiles is the number of distinct attribute sets; each item uses
	// one, chosen from its sequence number. Default 64.
	Profiles int
	// SpanKinds are the kinds spans cycle through, so that context rules
	// (net.peer.name is server.address on client spans, client.address on
	// server spans, and kept on internal ones) are exercised. Default: all
	// five.
	SpanKinds []ptrace.SpanKind
	// NewShapes puts a key no earlier item carried first on every span and
	// log record (ShapeKeyPrefix followed by the item's sequence number,
	// an allowed unknown key, so it is kept in every mode): an adversarial
	// client whose every attribute map has a shape never seen before.
	NewShapes bool
}

func (m Mix) withDefaults() Mix {
	if m.Seed == 0 {
		m.Seed = 1
	}
	if m.AttrsPerItem == 0 {
		m.AttrsPerItem = 12
	}
	if m.DeprecatedPct == 0 && m.UnknownPct == 0 && m.TemplatePct == 0 {
		m.DeprecatedPct, m.UnknownPct, m.TemplatePct = 25, 25, 10
	}
	if m.Services == 0 {
		m.Services = 10
	}
	if m.Profiles == 0 {
		m.Profiles = 64
	}
	if len(m.SpanKinds) == 0 {
		m.SpanKinds = []ptrace.SpanKind{
			ptrace.SpanKindServer, ptrace.SpanKindClient, ptrace.SpanKindInternal,
			ptrace.SpanKindProducer, ptrace.SpanKindConsumer,
		}
	}
	return m
}

// Expectation is what the pipeline under test does to attributes, and so what
// the backend must receive.
type Expectation struct {
	// Rename: deprecated keys arrive under their current name in contexts
	// where the registry renames them.
	Rename bool
	// DropUnknown: keys the registry does not define, other than AllowedKey,
	// do not arrive.
	DropUnknown bool
	// KeysOnly: renamed keys keep their values. The baseline's transform
	// and attributes configurations rename keys only; governance also
	// migrates values (value maps, conversions, enum member renames).
	KeysOnly bool
}

func (e Expectation) String() string {
	return fmt.Sprintf("rename=%t drop_unknown=%t keys_only=%t", e.Rename, e.DropUnknown, e.KeysOnly)
}

// Rename is one deprecated key the workload uses and where it goes.
type Rename struct {
	From string
	// To is the target for each span kind (indexed by ptrace.SpanKind), for
	// log records and for data points of MetricName; "" where the key keeps
	// its name.
	SpanTo   [6]string
	LogTo    string
	MetricTo string
}

// kv is one attribute of a profile.
type kv struct {
	key string
	val pcommon.Value
}

// profile is one attribute set, with what must arrive for each expectation.
type profile struct {
	kind  ptrace.SpanKind
	attrs []kv
	// expected output, indexed by expectationIndex.
	want [8][]kv
}

func expectationIndex(e Expectation) int {
	i := 0
	if e.Rename {
		i |= 1
	}
	if e.DropUnknown {
		i |= 2
	}
	if e.KeysOnly {
		i |= 4
	}
	return i
}

// Workload is a deterministic attribute workload built from the registry.
// Item seq of a signal uses profile ProfileOf(seq) and service ServiceOf(seq).
type Workload struct {
	Mix      Mix
	services []string
	profiles map[Signal][]profile

	// Renames are the deprecated keys the workload uses (sorted by key).
	Renames []Rename
	// RegistryKeys are every registry-known key the workload sends, before and
	// after renaming, plus service.name, url.path and AllowedKey: what a
	// redaction allowlist must list to keep the same data (sorted).
	RegistryKeys []string
	// UnknownKeys are the unknown keys the workload sends (sorted), AllowedKey
	// not included.
	UnknownKeys []string
}

// pools are the registry keys a workload draws from.
type pools struct {
	deprecated []*registry.Attribute
	current    []*registry.Attribute
	templates  []*registry.Attribute
}

func scalarOrArray(t registry.Type) bool {
	return t != registry.TypeUnknown
}

// NewWorkload builds the workload for mix from ix. It fails when the registry
// cannot supply the mix.
func NewWorkload(ix *registry.Index, mix Mix) (*Workload, error) {
	mix = mix.withDefaults()
	if mix.DeprecatedPct+mix.UnknownPct+mix.TemplatePct > 100 {
		return nil, errors.New("testbench: deprecated, unknown and template percentages exceed 100")
	}
	p, err := buildPools(ix, mix)
	if err != nil {
		return nil, err
	}
	w := &Workload{Mix: mix, profiles: map[Signal][]profile{}}
	for i := range mix.Services {
		w.services = append(w.services, fmt.Sprintf("svc-%02d", i))
	}
	renames := map[string]*Rename{}
	regKeys := map[string]struct{}{serviceNameKey: {}, seqKey: {}, AllowedKey: {}}
	unknown := map[string]struct{}{}
	for _, sig := range []Signal{Traces, Metrics, Logs} {
		rng := newRand(mix.Seed ^ uint64(len(sig.String()))<<40 ^ hashString(sig.String()))
		for pi := range mix.Profiles {
			pr, err := buildProfile(ix, mix, p, sig, pi, rng)
			if err != nil {
				return nil, err
			}
			w.profiles[sig] = append(w.profiles[sig], pr)
			for _, a := range pr.attrs {
				switch at := ix.Lookup(a.key); {
				case at == nil && a.key != AllowedKey:
					unknown[a.key] = struct{}{}
				default:
					regKeys[a.key] = struct{}{}
					if at != nil && at.Renamed() && !at.Template {
						if _, ok := renames[a.key]; !ok {
							renames[a.key] = renameOf(at)
						}
					}
				}
			}
			for _, a := range pr.want[expectationIndex(Expectation{Rename: true})] {
				if ix.Lookup(a.key) != nil {
					regKeys[a.key] = struct{}{}
				}
			}
		}
	}
	for _, k := range sortedKeys(renames) {
		w.Renames = append(w.Renames, *renames[k])
	}
	w.RegistryKeys = sortedKeys(regKeys)
	w.UnknownKeys = sortedKeys(unknown)
	return w, nil
}

func renameOf(a *registry.Attribute) *Rename {
	r := &Rename{From: a.Key}
	for k := range r.SpanTo {
		if t := a.Target(registry.Context{Location: registry.LocationSpan, SpanKind: registry.SpanKind(k)}); t != nil {
			r.SpanTo[k] = t.Key
		}
	}
	if t := a.Target(registry.Context{Location: registry.LocationLog}); t != nil {
		r.LogTo = t.Key
	}
	if t := a.Target(registry.Context{Location: registry.LocationDataPoint, MetricName: MetricName}); t != nil {
		r.MetricTo = t.Key
	}
	return r
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func buildPools(ix *registry.Index, mix Mix) (pools, error) {
	var p pools
	var plain, contextual []*registry.Attribute
	for _, a := range ix.Attributes() {
		switch {
		case a.Placeholder || !scalarOrArray(a.Type):
		case a.Renamed() && !a.Template:
			if a.Contextual() {
				contextual = append(contextual, a)
			} else {
				plain = append(plain, a)
			}
		case a.Renamed() || a.Deprecation.Reason != registry.NotDeprecated:
		case a.Template:
			p.templates = append(p.templates, a)
		case a.Key == serviceNameKey || a.Key == seqKey || strings.HasPrefix(a.Key, "otel."):
			// otel.* keys (otel.scope.name, ...) are what exporters derive
			// labels from; sending them would make the data ambiguous.
		default:
			p.current = append(p.current, a)
		}
	}
	// Contextual renames that rename on spans are always in the pool: they
	// are what span kinds exercise.
	for _, a := range contextual {
		if renameOf(a).SpanTo != [6]string{} {
			p.deprecated = append(p.deprecated, a)
		}
	}
	if n := mix.DeprecatedPool - len(p.deprecated); mix.DeprecatedPool > 0 && n < len(plain) {
		if n < 1 {
			n = 1
		}
		step := float64(len(plain)) / float64(n)
		for i := range n {
			p.deprecated = append(p.deprecated, plain[int(float64(i)*step)])
		}
	} else {
		p.deprecated = append(p.deprecated, plain...)
	}
	if len(p.deprecated) == 0 || len(p.current) == 0 || len(p.templates) == 0 {
		return p, fmt.Errorf("testbench: registry has %d renames, %d current keys, %d templates; need some of each",
			len(p.deprecated), len(p.current), len(p.templates))
	}
	return p, nil
}

// contextTarget is the target of a in the signal's context for kind.
func contextTarget(a *registry.Attribute, sig Signal, kind ptrace.SpanKind) *registry.Attribute {
	switch sig {
	case Traces:
		return a.Target(registry.Context{Location: registry.LocationSpan, SpanKind: registry.SpanKind(kind)}) //nolint:gosec // span kinds are 0-5
	case Logs:
		return a.Target(registry.Context{Location: registry.LocationLog})
	case Metrics:
		return a.Target(registry.Context{Location: registry.LocationDataPoint, MetricName: MetricName})
	case vocab.KindUnknown, vocab.NumKinds:
	}
	return nil
}

func buildProfile(ix *registry.Index, mix Mix, p pools, sig Signal, pi int, rng *rand) (profile, error) {
	pr := profile{kind: mix.SpanKinds[pi%len(mix.SpanKinds)]}
	n := mix.AttrsPerItem
	nDep := n * mix.DeprecatedPct / 100
	nUnk := n * mix.UnknownPct / 100
	nTpl := n * mix.TemplatePct / 100
	nCur := n - nDep - nUnk - nTpl
	// used holds every key present in the input or the renamed output, so
	// that no rename collides with another key of the same map: collisions
	// have their own, separately tested policy in the processor.
	used := map[string]bool{serviceNameKey: true, seqKey: true, AllowedKey: true}
	type dep struct {
		key, to string
		val     pcommon.Value
	}
	// migrated holds, per input key, the value the processor writes when
	// it renames (value maps, conversions, enum member renames).
	migrated := map[string]pcommon.Value{}
	var deps []dep
	for tries := 0; len(deps) < nDep; tries++ {
		if tries > 1000 {
			return pr, fmt.Errorf("testbench: cannot pick %d collision-free deprecated keys", nDep)
		}
		a := p.deprecated[rng.intn(len(p.deprecated))]
		t := contextTarget(a, sig, pr.kind)
		// Prometheus must see no deprecated label, so data points only use
		// keys that are renamed on data points.
		if sig == Metrics && t == nil {
			continue
		}
		to := ""
		if t != nil {
			to = t.Key
		}
		if used[a.Key] || (to != "" && used[to]) {
			continue
		}
		used[a.Key] = true
		if to != "" {
			used[to] = true
		}
		v := valueFor(a, pi, len(deps))
		if mv, ok := migratedValue(a, t, v); ok {
			migrated[a.Key] = mv
		}
		deps = append(deps, dep{key: a.Key, to: to, val: v})
	}
	for i := 0; i < nCur; {
		a := p.current[rng.intn(len(p.current))]
		if used[a.Key] {
			continue
		}
		used[a.Key] = true
		v := valueFor(a, pi, 100+i)
		if mv, ok := migratedValue(a, nil, v); ok {
			migrated[a.Key] = mv
		}
		pr.attrs = append(pr.attrs, kv{a.Key, v})
		i++
	}
	for i := 0; i < nTpl; {
		a := p.templates[rng.intn(len(p.templates))]
		k := a.Key + ".tb_" + strconv.Itoa(rng.intn(4))
		if used[k] || ix.Lookup(k) != a {
			continue
		}
		used[k] = true
		pr.attrs = append(pr.attrs, kv{k, valueFor(a, pi, 200+i)})
		i++
	}
	for i := 0; i < nUnk; {
		k := AllowedKey
		if i > 0 {
			k = "tb.custom.attr_" + strconv.Itoa(rng.intn(32))
			if used[k] || ix.Lookup(k) != nil {
				continue
			}
		}
		used[k] = true
		v := pcommon.NewValueStr("u-" + strconv.Itoa(pi) + "-" + strconv.Itoa(i))
		pr.attrs = append(pr.attrs, kv{k, v})
		i++
	}
	for _, d := range deps {
		pr.attrs = append(pr.attrs, kv{d.key, d.val})
	}
	// Shuffle so that deprecated keys are not always last.
	for i := len(pr.attrs) - 1; i > 0; i-- {
		j := rng.intn(i + 1)
		pr.attrs[i], pr.attrs[j] = pr.attrs[j], pr.attrs[i]
	}
	target := map[string]string{}
	for _, d := range deps {
		target[d.key] = d.to
	}
	for ei := range pr.want {
		e := Expectation{Rename: ei&1 != 0, DropUnknown: ei&2 != 0, KeysOnly: ei&4 != 0}
		var out []kv
		for _, a := range pr.attrs {
			key, val := a.key, a.val
			if to, ok := target[key]; ok && e.Rename && to != "" {
				key = to
			}
			if mv, ok := migrated[a.key]; ok && e.Rename && !e.KeysOnly {
				val = mv
			}
			if e.DropUnknown && key != AllowedKey && ix.Lookup(key) == nil {
				continue
			}
			out = append(out, kv{key, val})
		}
		slices.SortFunc(out, func(a, b kv) int {
			switch {
			case a.key < b.key:
				return -1
			case a.key > b.key:
				return 1
			}
			return 0
		})
		pr.want[ei] = out
	}
	return pr, nil
}

// migratedValue is the value the processor writes for v of key a when it
// renames (deprecated: rename): a's value map or conversion, or the enum
// member rename of the target t (a itself when t is nil). It reports false
// when the value stays as it is.
func migratedValue(a, t *registry.Attribute, v pcommon.Value) (pcommon.Value, bool) {
	if t != nil && a.Migration != nil {
		m := a.Migration
		switch v.Type() {
		case pcommon.ValueTypeStr:
			if to, ok := m.Values[v.Str()]; ok {
				return pcommon.NewValueStr(to), true
			}
		case pcommon.ValueTypeInt:
			if to, ok := m.IntValues[v.Int()]; ok {
				return pcommon.NewValueStr(to), true
			}
		default:
		}
		switch m.Convert {
		case registry.TypeString:
			return pcommon.NewValueStr(v.AsString()), true
		case registry.TypeStringArray:
			out := pcommon.NewValueSlice()
			out.Slice().AppendEmpty().SetStr(v.AsString())
			return out, true
		default:
		}
	}
	owner := t
	if owner == nil {
		owner = a
	}
	if v.Type() == pcommon.ValueTypeStr {
		if to, ok := owner.CurrentMember(v.Str()); ok {
			return pcommon.NewValueStr(to), true
		}
	}
	return pcommon.Value{}, false
}

// valueFor is a value of a's declared type (an enum member for enums).
func valueFor(a *registry.Attribute, pi, i int) pcommon.Value {
	n := int64(pi*1000 + i)
	switch a.Type {
	case registry.TypeInt:
		if len(a.EnumInts) > 0 {
			return pcommon.NewValueInt(a.EnumInts[int(n)%len(a.EnumInts)])
		}
		return pcommon.NewValueInt(n)
	case registry.TypeDouble:
		return pcommon.NewValueDouble(float64(n) + 0.5)
	case registry.TypeBoolean:
		return pcommon.NewValueBool(n%2 == 0)
	case registry.TypeStringArray, registry.TypeIntArray, registry.TypeDoubleArray, registry.TypeBooleanArray:
		v := pcommon.NewValueSlice()
		s := v.Slice()
		for j := range 2 {
			e := s.AppendEmpty()
			switch a.Type {
			case registry.TypeIntArray:
				e.SetInt(n + int64(j))
			case registry.TypeDoubleArray:
				e.SetDouble(float64(n+int64(j)) + 0.25)
			case registry.TypeBooleanArray:
				e.SetBool(j == 0)
			default:
				e.SetStr("a-" + strconv.FormatInt(n, 10) + "-" + strconv.Itoa(j))
			}
		}
		return v
	case registry.TypeString, registry.TypeAny, registry.TypeUnknown:
	}
	if len(a.EnumStrings) > 0 {
		return pcommon.NewValueStr(a.EnumStrings[int(n)%len(a.EnumStrings)])
	}
	return pcommon.NewValueStr("v-" + strconv.FormatInt(n, 10))
}

// ProfileOf is the profile index of item seq.
func (w *Workload) ProfileOf(seq uint64) int {
	return int(splitmix(w.Mix.Seed^seq) % uint64(len(w.profiles[Traces]))) //nolint:gosec // less than the profile count
}

// ServiceOf is the service index of item seq.
func (w *Workload) ServiceOf(seq uint64) int {
	return int((splitmix(w.Mix.Seed^seq) >> 32) % uint64(len(w.services))) //nolint:gosec // less than the service count
}

// Service is the service.name of service index i.
func (w *Workload) Service(i int) string { return w.services[i] }

// Services is every service.name the workload uses.
func (w *Workload) Services() []string { return slices.Clone(w.services) }

// KindOf is the span kind of item seq.
func (w *Workload) KindOf(seq uint64) ptrace.SpanKind {
	return w.profiles[Traces][w.ProfileOf(seq)].kind
}

// traceID and spanID encode seq: the backend reads seq back from the span ID.
func traceID(seq uint64) pcommon.TraceID {
	var id pcommon.TraceID
	binary.BigEndian.PutUint64(id[:8], 0x7465737462656e63) // "testbenc"
	binary.BigEndian.PutUint64(id[8:], seq+1)
	return id
}

func spanID(seq uint64) pcommon.SpanID {
	var id pcommon.SpanID
	binary.BigEndian.PutUint64(id[:], seq+1)
	return id
}

func seqOfSpanID(id pcommon.SpanID) (uint64, bool) {
	v := binary.BigEndian.Uint64(id[:])
	return v - 1, v != 0
}

// appendShapeKey is the key Mix.NewShapes puts on item seq.
func appendShapeKey(buf []byte, seq uint64) []byte {
	buf = append(buf, ShapeKeyPrefix...)
	return strconv.AppendUint(buf, seq, 10)
}

// appendSeqValue is url.path of item seq.
func appendSeqValue(buf []byte, seq uint64) []byte {
	buf = append(buf, "/items/"...)
	return strconv.AppendUint(buf, seq, 10)
}

func spanName(kind ptrace.SpanKind) string {
	return "op-" + kind.String()
}

// splitmix is SplitMix64: a fast, well-mixed hash of seq.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// rand is a deterministic SplitMix64 stream.
type rand struct{ s uint64 }

func newRand(seed uint64) *rand { return &rand{s: seed} }

func (r *rand) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	return splitmix(r.s)
}

func (r *rand) intn(n int) int { return int(r.next() % uint64(n)) } //nolint:gosec // 0 < n
