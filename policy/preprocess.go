package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/itchyny/gojq"
	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/otelgov/otelcol-governance/registry"
)

// Bounds of a preprocessor.
const (
	// MaxPreprocessorBytes bounds a jq program.
	MaxPreprocessorBytes = 1 << 20
	// DefaultPreprocessorTimeout bounds one run of a preprocessor: once per
	// registry load, not per sample.
	DefaultPreprocessorTimeout = 10 * time.Second
)

// ErrPreprocessor wraps what goes wrong with a jq preprocessor: it does not
// read or compile, fails, runs out of time, or its result is no object or
// too large.
var ErrPreprocessor = errors.New("advice preprocessor")

// Preprocessor is a compiled jq program that derives the policies' data
// from the registry, as Weaver's --advice-preprocessor: it replaces the
// default preprocessor (Data). It runs with gojq, sandboxed: no modules
// (import, include), no environment ($ENV, env), no input beyond the
// document (input, inputs).
type Preprocessor struct {
	// File is the path the program was read from.
	File string
	code *gojq.Code
	// Timeout bounds one run; zero means DefaultPreprocessorTimeout.
	Timeout time.Duration
}

// LoadPreprocessor reads and compiles the jq program at path. A syntax
// error names the file, line and column.
func LoadPreprocessor(path string) (*Preprocessor, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrPreprocessor, err)
	}
	if st.Size() > MaxPreprocessorBytes {
		return nil, fmt.Errorf("%w: %s: larger than %d bytes", ErrPreprocessor, path, MaxPreprocessorBytes)
	}
	b, err := os.ReadFile(path) //nolint:gosec // the operator names the program
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrPreprocessor, err)
	}
	return CompilePreprocessor(path, string(b))
}

// CompilePreprocessor compiles the jq program src, read from file.
func CompilePreprocessor(file, src string) (*Preprocessor, error) {
	q, err := gojq.Parse(src)
	if err != nil {
		var pe *gojq.ParseError
		if errors.As(err, &pe) {
			line, col := position([]byte(src), pe.Offset-len(pe.Token))
			return nil, fmt.Errorf("%w: %s:%d:%d: %w", ErrPreprocessor, file, line, col, err)
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrPreprocessor, file, err)
	}
	code, err := gojq.Compile(q, gojq.WithEnvironLoader(func() []string { return nil }))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrPreprocessor, file, err)
	}
	return &Preprocessor{File: file, code: code}, nil
}

// Run runs the program on Weaver's preprocessor input built from ix
// (Document) and returns the data document: the one result, or the array
// of the results when there are none or several (Weaver's execute_jq),
// which must be an object (Weaver's add_data). The run is bounded by the
// Timeout and the result by MaxDataBytes.
func (p *Preprocessor) Run(ctx context.Context, ix *registry.Index) (map[string]any, error) {
	in, err := Document(ix)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrPreprocessor, p.File, err)
	}
	return p.run(ctx, in)
}

func (p *Preprocessor) run(ctx context.Context, in any) (map[string]any, error) {
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = DefaultPreprocessorTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var out []any
	size := 0
	iter := p.code.RunWithContext(ctx, in)
	for {
		v, ok := iter.Next()
		if !ok {
			break
		}
		if err, ok := v.(error); ok {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				break
			}
			if errors.Is(err, context.DeadlineExceeded) {
				return nil, fmt.Errorf("%w: %s: ran longer than %s", ErrPreprocessor, p.File, timeout)
			}
			return nil, fmt.Errorf("%w: %s: %w", ErrPreprocessor, p.File, err)
		}
		b, err := gojq.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrPreprocessor, p.File, err)
		}
		if size += len(b); size > MaxDataBytes {
			return nil, fmt.Errorf("%w: %s: result larger than %d bytes", ErrPreprocessor, p.File, MaxDataBytes)
		}
		var jv any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&jv); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrPreprocessor, p.File, err)
		}
		out = append(out, jv)
	}
	var res any = out
	if len(out) == 1 {
		res = out[0]
	}
	m, ok := res.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: %s: the result must be one object (the data document), got %s", ErrPreprocessor, p.File, jsonKind(res))
	}
	return m, nil
}

func jsonKind(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case []any:
		return fmt.Sprintf("%d results", len(t))
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}

// Document is the input Weaver gives a preprocessor: its live checker
// serialized (crates/weaver_live_check/src/live_checker.rs, LiveChecker's
// Serialize at afa9700c), built from ix in the shapes of the policies'
// input (input.registry_attribute, input.registry_group):
//   - registry: the resolved registry, {"registry_url", "groups"};
//   - semconv_attributes: every attribute that is no template, by key;
//   - semconv_templates: the template attributes, by key;
//   - semconv_metrics: the metric definitions, by metric name;
//   - semconv_events: the event definitions, by event name.
//
// Keys only known for their scoped renames (placeholders) are not the
// registry's attributes and are left out, as in Data. Numbers are JSON
// numbers (float64), as gojq wants them.
func Document(ix *registry.Index) (map[string]any, error) {
	attrs, templates := ast.NewObject(), ast.NewObject()
	for _, a := range ix.Attributes() {
		switch {
		case a.Placeholder:
		case a.Template:
			templates.Insert(str(a.Key), registryAttribute(a))
		default:
			attrs.Insert(str(a.Key), registryAttribute(a))
		}
	}
	metrics, events := ast.NewObject(), ast.NewObject()
	groups := make([]*ast.Term, 0, len(ix.Groups()))
	for _, g := range ix.Groups() {
		t := registryGroup(g)
		groups = append(groups, t)
		switch g.Kind {
		case registry.GroupMetric:
			if g.Metric != nil {
				metrics.Insert(str(g.Metric.Name), t)
			}
		case registry.GroupEvent:
			events.Insert(str(g.Name), t)
		default:
		}
	}
	reg := []any{"groups", ast.ArrayTerm(groups...)}
	if u := ix.SchemaURL(); u != "" {
		reg = append(reg, "registry_url", str(u))
	}
	doc := obj("registry", obj(reg...), "semconv_attributes", ast.NewTerm(attrs), "semconv_templates", ast.NewTerm(templates),
		"semconv_metrics", ast.NewTerm(metrics), "semconv_events", ast.NewTerm(events))
	v, err := ast.JSON(doc.Value)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}
