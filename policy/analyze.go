package policy

import (
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
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
			if n != "deny" && defsIn[1-g][n] && !defsIn[g][n] {
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
