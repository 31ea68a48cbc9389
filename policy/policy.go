// Package policy evaluates Weaver live-check's Rego advice policies
// (package live_check_advice, `deny contains` finding objects) with the Open
// Policy Agent library: the same input document and the same data as
// Weaver's default jq preprocessor, sandboxed, bounded in time and in what a
// finding may carry. It knows pdata and the registry, never the collector.
package policy

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/otelgov/otelcol-governance/engine"
	"github.com/otelgov/otelcol-governance/registry"
)

// Package is the Rego package of advice policies, as in Weaver.
const Package = "live_check_advice"

// denyRule is the rule Weaver evaluates, query its reference.
const (
	denyRule = "deny"
	query    = "data." + Package + "." + denyRule
)

// Defaults of Options.
const (
	// DefaultTimeout bounds one evaluation of one sample. It is generous
	// (otel.rego takes about 0.3 ms on a new key) so that a loaded machine
	// does not turn into time-outs what otelgov check must report
	// reproducibly; the collector may set a tighter one.
	DefaultTimeout = time.Second
	// CollectorTimeout is the collector's bound (the governance processor
	// and registry extension): a sample's evaluation must not hold a
	// pipeline for long; a time-out is counted and the data passes.
	CollectorTimeout = 100 * time.Millisecond
	// MaxPolicyBytes bounds one .rego file.
	MaxPolicyBytes = 1 << 20
	// MaxPolicyFiles bounds the .rego files of one Set.
	MaxPolicyFiles = 256
)

// Errors of Load and Eval, for errors.Is.
var (
	ErrNoPolicies = errors.New("no .rego files")
	ErrCompile    = errors.New("policy does not compile")
	ErrPackage    = errors.New("policy package is not " + Package)
	ErrTimeout    = errors.New("policy evaluation timed out")
	ErrFinding    = errors.New("policy finding has an invalid shape")
)

// blocked are the built-in functions a policy may not call: network and
// environment access (http.send, net.*, opa.runtime) and what is not
// deterministic (time, randomness, verification against the clock), so that
// a policy's findings depend on the sample and the registry only. trace and
// print are allowed (print is erased: no print hook is installed).
var blocked = []string{
	"http.send", "opa.runtime", "time.now_ns", "rand.intn", "uuid.rfc4122",
	"io.jwt.decode_verify", "crypto.x509.parse_and_verify_certificates",
	"crypto.x509.parse_and_verify_certificates_with_options", "providers.aws.sign_req",
}

// blockedPrefixes are namespaces of blocked built-in functions.
var blockedPrefixes = []string{"net.", "http."}

// capabilities are OPA's capabilities of this version without the blocked
// built-in functions.
func capabilities() *ast.Capabilities {
	c := ast.CapabilitiesForThisVersion()
	c.Builtins = slices.DeleteFunc(c.Builtins, func(b *ast.Builtin) bool { return isBlocked(b.Name) })
	c.AllowNet = []string{} // no host for http.send and friends, should one slip through
	return c
}

func isBlocked(name string) bool {
	if slices.Contains(blocked, name) {
		return true
	}
	for _, p := range blockedPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// Options configure a Set.
type Options struct {
	// Timeout bounds the evaluation of one sample; zero means DefaultTimeout.
	Timeout time.Duration
	// Data is Weaver's advice data (--advice-data, ReadData): added to
	// the data document first, then the preprocessor's result, as Weaver's
	// RegoAdvisor (crates/weaver_live_check/src/advice/rego_advisor.rs):
	// a top-level key both set to different values is an error
	// (ErrDataConflict). Nil adds nothing.
	Data map[string]any
	// Preprocessor derives the rest of the data document from the
	// registry (Weaver's --advice-preprocessor); nil is the default
	// preprocessor's data (Data).
	Preprocessor *Preprocessor
	// Memo bounds the memo of value-free policies; zero values mean the
	// defaults (DefaultMemoEntries, DefaultMemoBytes).
	Memo MemoLimits
}

// Module is one loaded policy file and what the analysis decided about it.
type Module struct {
	// File is the path the policy was read from.
	File string
	// ReadsValues reports that the policy reads sample values, or refers to
	// the input in a way the analysis cannot decide: it is evaluated for
	// every sample.
	ReadsValues bool
	// Why names the first reference that made the policy value-dependent
	// ("" when it is value-free), with its file:line.
	Why string
	// FiresOn are the sample kinds on which the policy's deny rules can
	// fire (analyze.go): the collector offers no sample of another kind.
	FiresOn engine.SampleKinds
	// ReadsType reports that the policy reads an attribute sample's
	// inferred type (input.sample.attribute.type), or may (analyze.go).
	ReadsType bool
}

// Set is a compiled set of policies against one registry. It is safe for
// concurrent use.
type Set struct {
	modules []Module
	// free evaluates the value-free policies, dep the value-dependent ones;
	// either may be nil.
	free, dep *prepared
	timeout   time.Duration
	ids       *IDs
	memo      *memo
	n         counters
	// firesOn are the sample kinds some policy can fire on; freeOn and
	// depOn those of the free and of the dep group: a group is not
	// evaluated on a sample of a kind it cannot fire on (freeFires,
	// depFires).
	firesOn, freeOn, depOn engine.SampleKinds
	// readsType: some value-free policy reads an attribute's inferred
	// type (Module.ReadsType).
	readsType bool
}

// Modules are the loaded policies in file order.
func (s *Set) Modules() []Module { return slices.Clone(s.modules) }

// IDs is the catalog of the finding IDs the policies reported.
func (s *Set) IDs() *IDs { return s.ids }

// FiresOn returns the sample kinds on which some policy's deny rules can
// fire: on a sample of another kind, every policy's deny is empty.
func (s *Set) FiresOn() engine.SampleKinds { return s.firesOn }

// HasValueFree reports whether some policies are memoized.
func (s *Set) HasValueFree() bool { return s.free != nil }

// HasValueDependent reports whether some policies are evaluated per sample.
func (s *Set) HasValueDependent() bool { return s.dep != nil }

// Source is one policy file's name and text.
type Source struct {
	File string
	Text string
}

// ReadDir reads the *.rego files of each directory (not recursively, in
// name order, as Weaver's add_policies with "*.rego").
func ReadDir(dirs ...string) ([]Source, error) {
	var out []Source
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("advice policies: %w", err)
		}
		n := 0
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".rego") {
				continue
			}
			n++
			src, err := readSource(filepath.Join(dir, e.Name()))
			if err != nil {
				return nil, err
			}
			out = append(out, src)
			if len(out) > MaxPolicyFiles {
				return nil, fmt.Errorf("advice policies: more than %d .rego files", MaxPolicyFiles)
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("advice policies %s: %w", dir, ErrNoPolicies)
		}
	}
	return out, nil
}

func readSource(path string) (Source, error) {
	f, err := os.Open(path) //nolint:gosec // the operator names the directory
	if err != nil {
		return Source{}, fmt.Errorf("advice policies: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Source{}, fmt.Errorf("advice policies: %w", err)
	}
	if st.Size() > MaxPolicyBytes {
		return Source{}, fmt.Errorf("advice policies: %s: larger than %d bytes", path, MaxPolicyBytes)
	}
	b, err := fs.ReadFile(os.DirFS(filepath.Dir(path)), filepath.Base(path))
	if err != nil {
		return Source{}, fmt.Errorf("advice policies: %w", err)
	}
	return Source{File: path, Text: string(b)}, nil
}

// LoadDirs reads and compiles the policies of dirs against ix.
func LoadDirs(ix *registry.Index, opts Options, dirs ...string) (*Set, error) {
	srcs, err := ReadDir(dirs...)
	if err != nil {
		return nil, err
	}
	return Compile(ix, opts, srcs...)
}

// Check parses and compiles the policies of dirs without a registry, for
// config validation: the error names the file, line and column.
func Check(dirs ...string) error {
	srcs, err := ReadDir(dirs...)
	if err != nil {
		return err
	}
	_, _, _, err = compileModules(srcs)
	return err
}

// Compile compiles srcs (package live_check_advice, Rego v1) against the
// data Weaver's default preprocessor derives from ix. Errors name the file,
// line and column.
func Compile(ix *registry.Index, opts Options, srcs ...Source) (*Set, error) {
	parsed, compiled, mods, err := compileModules(srcs)
	if err != nil {
		return nil, err
	}
	data, err := dataDocument(ix, &opts)
	if err != nil {
		return nil, err
	}
	s := &Set{timeout: opts.Timeout, ids: &IDs{}, memo: newMemo(opts.Memo)}
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	freeSrc, depSrc := split(parsed, compiled, mods)
	s.modules = mods
	for _, m := range mods {
		s.firesOn |= m.FiresOn
		if m.ReadsValues {
			s.depOn |= m.FiresOn
		} else {
			s.freeOn |= m.FiresOn
			s.readsType = s.readsType || m.ReadsType
		}
	}
	store := inmem.NewFromObject(data)
	if len(freeSrc) > 0 {
		q, err := prepare(freeSrc, store)
		if err != nil {
			return nil, err
		}
		s.free = q
	}
	if len(depSrc) > 0 {
		q, err := prepare(depSrc, store)
		if err != nil {
			return nil, err
		}
		s.dep = q
	}
	return s, nil
}

// dataDocument is the policies' data: opts.Data, then the preprocessor's
// result (Weaver's order).
func dataDocument(ix *registry.Index, opts *Options) (map[string]any, error) {
	pre := Data(ix)
	if opts.Preprocessor != nil {
		var err error
		if pre, err = opts.Preprocessor.Run(context.Background(), ix); err != nil {
			return nil, err
		}
	}
	data := make(map[string]any, len(opts.Data)+len(pre))
	for k, v := range opts.Data {
		data[k] = v
	}
	if err := mergeData(data, pre); err != nil {
		return nil, fmt.Errorf("advice data and the preprocessor's result: %w", err)
	}
	return data, nil
}

// compileModules parses and compiles srcs together, and analyses each
// module.
func compileModules(srcs []Source) (parsed, compiled map[string]*ast.Module, mods []Module, err error) {
	if len(srcs) == 0 {
		return nil, nil, nil, ErrNoPolicies
	}
	parsed = make(map[string]*ast.Module, len(srcs))
	for _, src := range srcs {
		m, err := ast.ParseModuleWithOpts(src.File, src.Text, ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%w: %w", ErrCompile, located(err))
		}
		if got := m.Package.Path.String(); got != "data."+Package {
			return nil, nil, nil, fmt.Errorf("%s: %w (package %s)", m.Package.Location, ErrPackage, strings.TrimPrefix(got, "data."))
		}
		parsed[src.File] = m
	}
	c := newCompiler()
	c.Compile(parsed)
	if c.Failed() {
		return nil, nil, nil, fmt.Errorf("%w: %w", ErrCompile, located(c.Errors))
	}
	files := make([]string, 0, len(parsed))
	for f := range parsed {
		files = append(files, f)
	}
	sort.Strings(files)
	mods = make([]Module, 0, len(files))
	for _, f := range files {
		why := readsValues(c.Modules[f])
		mods = append(mods, Module{File: f, ReadsValues: why != "", Why: why, FiresOn: firesOn(c.Modules[f]), ReadsType: readsType(c.Modules[f])})
	}
	return parsed, c.Modules, mods, nil
}

func newCompiler() *ast.Compiler {
	return ast.NewCompiler().WithCapabilities(capabilities()).WithStrict(true)
}

// located makes OPA's errors read file:line:col: message.
func located(err error) error {
	var errs ast.Errors
	if !errors.As(err, &errs) {
		return err
	}
	var b strings.Builder
	for i, e := range errs {
		if i > 0 {
			b.WriteString("; ")
		}
		if e.Location != nil {
			fmt.Fprintf(&b, "%s:%d:%d: ", e.Location.File, e.Location.Row, e.Location.Col)
		}
		b.WriteString(e.Message)
	}
	return errors.New(b.String())
}

// prepared is one group's compiled query, evaluated with OPA's evaluator
// (topdown) directly: the rego package around it links OPA's Wasm
// compiler, planner and IR, 3.2 MB of the collector's binary that policies
// never use.
type prepared struct {
	c     *ast.Compiler
	qc    ast.QueryCompiler
	body  ast.Body
	store storage.Store
}

// denyVar is bound to the deny set by the prepared query.
const denyVar = ast.Var("deny")

// prepare compiles one group of modules and the query of its deny set.
func prepare(mods map[string]*ast.Module, store storage.Store) (*prepared, error) {
	c := newCompiler()
	c.Compile(mods)
	if c.Failed() {
		return nil, fmt.Errorf("%w: %w", ErrCompile, located(c.Errors))
	}
	qc := c.QueryCompiler()
	body, err := qc.Compile(ast.MustParseBody(string(denyVar) + " = " + query))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCompile, located(err))
	}
	return &prepared{c: c, qc: qc, body: body, store: store}, nil
}

// eval evaluates the deny set on input, stopped when ctx is done; nil
// when deny is undefined.
func (p *prepared) eval(ctx context.Context, input ast.Value) (ast.Value, error) {
	txn, err := p.store.NewTransaction(ctx)
	if err != nil {
		return nil, err
	}
	defer p.store.Abort(ctx, txn)
	cancel := topdown.NewCancel()
	defer context.AfterFunc(ctx, cancel.Cancel)()
	rs, err := topdown.NewQuery(p.body).WithQueryCompiler(p.qc).WithCompiler(p.c).WithStore(p.store).
		WithTransaction(txn).WithInput(ast.NewTerm(input)).WithCancel(cancel).Run(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		if t := r[denyVar]; t != nil {
			return t.Value, nil
		}
	}
	return nil, nil
}
