package infer

import (
	"slices"
	"strings"
	"unicode"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

// nearMisses finds the registry attribute a key misspells: the same words
// with other separators ('_', '-', '/', ' ' for '.') or in camelCase
// (http_method, httpMethod and http.request_method are near-misses of
// http.request.method, the first two through the deprecated http.method).
type nearMisses struct {
	ix    *registry.Index
	byKey map[string]string // normalized form -> registry key ("" when ambiguous)
}

func newNearMisses(ix *registry.Index) *nearMisses {
	n := &nearMisses{ix: ix, byKey: map[string]string{}}
	for _, a := range ix.Attributes() {
		if a.Placeholder || a.Template {
			continue
		}
		f := normalize(a.Key)
		if prev, ok := n.byKey[f]; ok && prev != a.Key {
			n.byKey[f] = "" // two registry keys read alike: no guess
			continue
		}
		n.byKey[f] = a.Key
	}
	return n
}

// match returns the current registry name k is a near-miss of, or "".
func (n *nearMisses) match(k string) string {
	r := n.byKey[normalize(k)]
	if r == "" || r == k {
		return ""
	}
	// Follow renames to the current name (a chain ends within the
	// registry's size; bound it anyway).
	for range 16 {
		a := n.ix.Lookup(r)
		if a == nil {
			return ""
		}
		switch {
		case a.Deprecation.Reason == registry.NotDeprecated:
			return r
		case a.Deprecation.RenamedTo != "":
			r = a.Deprecation.RenamedTo
		default:
			return "" // deprecated without a successor
		}
	}
	return ""
}

// normalize lowercases k, splits camelCase words and writes every
// separator as '.'.
func normalize(k string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range k {
		switch {
		case r == '.' || r == '_' || r == '-' || r == '/' || r == ' ':
			if b.Len() > 0 && !strings.HasSuffix(b.String(), ".") {
				b.WriteByte('.')
			}
			prevLower = false
		case unicode.IsUpper(r):
			if prevLower {
				b.WriteByte('.')
			}
			b.WriteRune(unicode.ToLower(r))
			prevLower = false
		default:
			b.WriteRune(r)
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		}
	}
	return strings.TrimSuffix(b.String(), ".")
}

// nameFindingIDs are the naming rules of Weaver's default policy
// (defaults/policies/live_check_advice/otel.rego) the engine implements
// (engine/weaver.go).
var nameFindingIDs = []vocab.Finding{
	vocab.FindingMissingNamespace, vocab.FindingInvalidFormat,
	vocab.FindingIllegalNamespace, vocab.FindingExtendsNamespace,
}

type findingSink struct{ out []NameFinding }

func (s *findingSink) Emit(ev *engine.FindingEvent) bool {
	if !slices.Contains(nameFindingIDs, ev.Finding) {
		return true
	}
	what := "attribute"
	if ev.Subject == vocab.SubjectMetric {
		what = "metric"
	}
	s.out = append(s.out, NameFinding{
		ID: ev.Finding.String(), Level: ev.Level.String(),
		Name: strings.Clone(ev.Name), What: what,
	})
	return true
}

// nameFindings runs the engine over the proposed names, against ix, and
// keeps its naming findings: every proposed attribute key as a log
// record's attribute (renames included), every proposed metric as a gauge. The engine, not a
// copy of its rules, decides.
func nameFindings(ix *registry.Index, p *Proposal) []NameFinding {
	sink := &findingSink{}
	e := engine.New(engine.Options{
		Deprecated: engine.DeprecatedOff, Unknown: engine.UnknownKeep,
		TypeMismatch: engine.TypeMismatchKeep, EnumViolation: engine.EnumViolationKeep,
		Findings: true, Sink: sink,
	})
	w := e.Walker(ix, true)
	defer e.Release(w)
	if len(p.Attributes)+len(p.Renames) > 0 {
		ld := plog.NewLogs()
		attrs := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Attributes()
		for _, a := range p.Attributes {
			attrs.PutStr(a.Key, "")
		}
		for _, a := range p.Renames {
			attrs.PutStr(a.Key, "")
		}
		w.Logs(ld)
	}
	if len(p.Metrics) > 0 {
		md := pmetric.NewMetrics()
		ms := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics()
		for _, m := range p.Metrics {
			mm := ms.AppendEmpty()
			mm.SetName(m.Name)
			mm.SetEmptyGauge().DataPoints().AppendEmpty()
		}
		w.Metrics(md)
	}
	out := sink.out
	// A proposed key that is a namespace of others (url for url.full)
	// breaks otel.rego's illegal_namespace on them once defined: it is
	// the key's finding here, as the rule's cause.
	for _, a := range p.Attributes {
		if len(a.Namespace) > 0 {
			out = append(out, NameFinding{
				ID: vocab.FindingIllegalNamespace.String(), Level: vocab.DefaultLevel(vocab.FindingIllegalNamespace).String(),
				Name: a.Key, What: "attribute",
			})
		}
	}
	slices.SortFunc(out, func(a, b NameFinding) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return slices.CompactFunc(out, func(a, b NameFinding) bool { return a == b })
}
