package policy

import (
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/otelgov/otelcol-governance/engine"
)

// The analysis decides, from a compiled policy's references, whether it
// reads anything of the input that the memo key (Key) does not hold. A
// value-free policy gives the same findings for every sample with the same
// key, so its findings are memoized per key; any other policy is
// value-dependent and evaluated for every sample.
//
// Value-free references: the leaves below (and anything under them), and
// the existence of a sample kind (input.sample.attribute as a whole
// expression, or negated). Everything else that reads input is
// value-dependent: attribute values, data points, span status, attributes
// lists, log bodies, input.resource and input.instrumentation_scope, a
// reference with a variable in its path (input.sample[x]), and input used
// as a value (walk(input), object.get(input, ...), x := input.sample, with
// input as ...).
var valueFree = [][]string{
	{"sample", "attribute", "name"},
	{"sample", "attribute", "type"},
	{"sample", "span", "name"},
	{"sample", "span", "kind"},
	{"sample", "span_event", "name"},
	{"sample", "metric", "name"},
	{"sample", "metric", "instrument"},
	{"sample", "metric", "unit"},
	{"sample", "log", "event_name"},
	{"registry_attribute"},
	{"registry_group"},
}

// path returns the constant string path of r below input, and false when
// a part is not a constant string.
func path(r ast.Ref) ([]string, bool) {
	out := make([]string, 0, len(r)-1)
	for _, t := range r[1:] {
		s, ok := t.Value.(ast.String)
		if !ok {
			return nil, false
		}
		out = append(out, string(s))
	}
	return out, true
}

func hasPrefix(p, prefix []string) bool {
	if len(p) < len(prefix) {
		return false
	}
	for i := range prefix {
		if p[i] != prefix[i] {
			return false
		}
	}
	return true
}

// allowedRef reports whether an input reference keeps a policy value-free;
// existence says it is a whole expression (an existence test).
func allowedRef(r ast.Ref, existence bool) bool {
	p, ok := path(r)
	if !ok {
		return false
	}
	for _, leaf := range valueFree {
		if hasPrefix(p, leaf) {
			return true
		}
	}
	// input.sample.<kind> tests which sample this is: the kind is in the key.
	return existence && len(p) == 2 && p[0] == "sample"
}

// readsValues returns why m is value-dependent (the first reference that
// makes it so, located), "" when it is value-free.
func readsValues(m *ast.Module) string {
	existence := map[*ast.Term]bool{}
	ast.WalkExprs(m, func(e *ast.Expr) bool {
		if t, ok := e.Terms.(*ast.Term); ok && isInputRef(t) {
			existence[t] = true
		}
		return false
	})
	heads := map[*ast.Term]bool{}
	why := ""
	ast.WalkTerms(m, func(t *ast.Term) bool {
		if why != "" {
			return true
		}
		switch v := t.Value.(type) {
		case ast.Ref:
			if isInputRef(t) {
				heads[v[0]] = true
				if !allowedRef(v, existence[t]) {
					why = fmt.Sprintf("%s reads %s", loc(t), v)
				}
			}
		case ast.Var:
			if v.Equal(ast.InputRootDocument.Value) && !heads[t] {
				why = fmt.Sprintf("%s reads input as a whole", loc(t))
			}
		}
		return false
	})
	return why
}

func isInputRef(t *ast.Term) bool {
	r, ok := t.Value.(ast.Ref)
	return ok && r.HasPrefix(ast.InputRootRef)
}

func loc(t *ast.Term) string {
	if t.Location == nil {
		return "?"
	}
	return fmt.Sprintf("%s:%d:%d", t.Location.File, t.Location.Row, t.Location.Col)
}

// attrType is the inferred type of an attribute sample, under input.
var attrType = []string{"sample", "attribute", "type"}

// readsType reports whether m reads an attribute sample's inferred type:
// a reference to input.sample.attribute.type, or one with a variable in
// its path. Only a value-free policy's answer counts (Set.readsType): its
// only ways to read the type are these, and a value-dependent policy is
// either not evaluated on attributes (FiresOn) or turns the shape memo off.
func readsType(m *ast.Module) bool {
	found := false
	ast.WalkRefs(m, func(r ast.Ref) bool {
		if !found && r.HasPrefix(ast.InputRootRef) {
			p, ok := path(r)
			found = !ok || hasPrefix(p, attrType)
		}
		return found
	})
	return found
}

// packageRefs returns the rules of the package that m refers to, and
// those it defines.
func packageRefs(m *ast.Module) (refs, defs map[string]bool) {
	refs, defs = map[string]bool{}, map[string]bool{}
	pkg := ast.MustParseRef("data." + Package)
	ast.WalkRefs(m, func(r ast.Ref) bool {
		if r.HasPrefix(pkg) && len(r) > len(pkg) {
			if s, ok := r[len(pkg)].Value.(ast.String); ok {
				refs[string(s)] = true
			}
		}
		return false
	})
	for _, rule := range m.Rules {
		if n := rule.Head.Ref(); len(n) > 0 {
			defs[n[0].Value.String()] = true
			if v, ok := n[0].Value.(ast.Var); ok {
				defs[string(v)] = true
			}
		}
	}
	return refs, defs
}

// split groups the parsed modules into the value-free and the
// value-dependent ones. Groups are evaluated apart, so a policy that uses a
// rule (a helper) only the other group defines would lose it: then all are
// value-dependent. deny itself is every policy's and joins both.
func split(parsed, compiled map[string]*ast.Module, mods []Module) (free, dep map[string]*ast.Module) {
	free, dep = map[string]*ast.Module{}, map[string]*ast.Module{}
	defsIn := [2]map[string]bool{{}, {}} // by ReadsValues
	refsIn := [2]map[string]bool{{}, {}}
	for _, m := range mods {
		refs, defs := packageRefs(compiled[m.File])
		g := 0
		if m.ReadsValues {
			g = 1
		}
		for n := range defs {
			defsIn[g][n] = true
		}
		for n := range refs {
			if !defs[n] {
				refsIn[g][n] = true
			}
		}
	}
	crossed := false
	for g := range 2 {
		for n := range refsIn[g] {
			if n != denyRule && defsIn[1-g][n] && !defsIn[g][n] {
				crossed = true
			}
		}
	}
	for i, m := range mods {
		if crossed && !m.ReadsValues {
			mods[i].ReadsValues = true
			mods[i].Why = "uses a rule that a value-dependent policy defines"
		}
		if mods[i].ReadsValues {
			dep[m.File] = parsed[m.File]
		} else {
			free[m.File] = parsed[m.File]
		}
	}
	return free, dep
}

// The second analysis decides on which sample kinds a policy's deny rules
// can fire, so that the engine offers no sample of another kind
// (engine.ShapeAdvisor.Kinds): Weaver's otel.rego fires on attributes and
// metrics only, and a span then costs nothing.
//
// input.sample holds one member, the sample's kind. A deny rule whose body
// has an expression, not negated and without with, of which a term is a
// reference under input.sample.<kind> (the whole expression, as in
// `input.sample.attribute`, or an operand, as in
// `contains(input.sample.attribute.name, "x")`) is undefined on a sample of
// any other kind: every expression with an undefined operand is. Such a
// rule fires on that kind only. Any other deny rule (no such expression, or
// one only inside a comprehension, a negation, every or a helper rule) may
// fire on every kind.

// sampleKinds are the sample kinds by Weaver's names.
var sampleKinds = func() map[string]engine.SampleKind {
	m := make(map[string]engine.SampleKind, engine.NumSampleKinds)
	for k := range engine.NumSampleKinds {
		m[k.String()] = k
	}
	return m
}()

// fires reports whether deny rules that can fire on kinds can fire on a
// sample of kind k.
func fires(kinds engine.SampleKinds, k engine.SampleKind) bool {
	return k >= engine.NumSampleKinds || kinds.Has(k)
}

// firesOn returns the sample kinds on which m's deny rules can fire.
func firesOn(m *ast.Module) engine.SampleKinds {
	var ks engine.SampleKinds
	for _, r := range m.Rules {
		if ref := r.Head.Ref(); len(ref) > 0 && ref[0].Value.Compare(ast.Var(denyRule)) == 0 {
			ks |= ruleFiresOn(r)
		}
	}
	return ks
}

// ruleFiresOn returns the sample kinds on which one deny rule can fire.
func ruleFiresOn(r *ast.Rule) engine.SampleKinds {
	for _, e := range r.Body {
		if e.Negated || len(e.With) > 0 {
			continue
		}
		var terms []*ast.Term
		switch ts := e.Terms.(type) {
		case *ast.Term:
			terms = []*ast.Term{ts}
		case []*ast.Term:
			if len(ts) > 1 {
				terms = ts[1:] // the operands; ts[0] is the operator
			}
		}
		for _, t := range terms {
			if k, ok := sampleKindOf(t); ok {
				return 1 << k
			}
		}
	}
	return engine.AllSampleKinds
}

// sampleKindOf returns the kind of sample a reference under
// input.sample.<kind> requires.
func sampleKindOf(t *ast.Term) (engine.SampleKind, bool) {
	r, ok := t.Value.(ast.Ref)
	if !ok || !r.HasPrefix(ast.InputRootRef) || len(r) < 3 {
		return 0, false
	}
	if s, ok := r[1].Value.(ast.String); !ok || s != "sample" {
		return 0, false
	}
	s, ok := r[2].Value.(ast.String)
	if !ok {
		return 0, false
	}
	k, ok := sampleKinds[string(s)]
	return k, ok
}
