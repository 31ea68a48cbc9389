package policy

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/otelgov/otelcol-governance/vocab"
)

// Bounds of what a policy's finding carries; longer strings are cut on a
// rune boundary.
const (
	// MaxMessageBytes bounds a finding's message.
	MaxMessageBytes = 1024
	// MaxContextBytes bounds a finding's context, as JSON: a longer
	// context is replaced by {"truncated": true}.
	MaxContextBytes = 1024
	// MaxFindingsPerSample bounds the findings one evaluation reports; the
	// rest are dropped and counted (Stats.Dropped).
	MaxFindingsPerSample = 64
)

// FindingOther is the finding of a policy ID beyond the catalog's bound
// (vocab.MaxDefinedFindings), or of an ID that does not have Weaver's name
// format: it is reported as OtherID.
const FindingOther = vocab.NumFindings + vocab.MaxDefinedFindings

// OtherID names FindingOther.
const OtherID = "_other"

// Finding is one finding of a policy, in Weaver's unified shape, bounded.
type Finding struct {
	// Finding is the built-in finding of a Weaver ID (otel.rego's
	// missing_namespace), the policy-defined finding of the Set's IDs, or
	// FindingOther.
	Finding vocab.Finding
	// ID is the finding's ID (OtherID for FindingOther).
	ID    string
	Level vocab.Level
	// Message is the policy's message, at most MaxMessageBytes.
	Message string
	// Context is the finding's context as JSON, "" when none.
	Context string
	// SignalType and SignalName are the policy's, "" when it set none
	// (Weaver then takes the sample's signal).
	SignalType, SignalName string
}

// IDs is the catalog of a Set's finding IDs: Weaver's built-in IDs and the
// ones policies report, defined as they first appear, bounded by
// vocab.MaxDefinedFindings. It is safe for concurrent use.
type IDs struct {
	mu  sync.RWMutex
	cat vocab.Catalog // guarded by mu
}

// Resolve returns the finding of id, defining it (at level) when it is
// new; FindingOther beyond the bound or for an invalid ID.
func (c *IDs) Resolve(id string, level vocab.Level) (vocab.Finding, string) {
	c.mu.RLock()
	f, ok := c.cat.Parse(id)
	c.mu.RUnlock()
	if ok {
		return f, c.Name(f)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.cat.Parse(id); ok {
		return f, c.cat.Name(f)
	}
	f, err := c.cat.Define(id, level)
	if err != nil {
		return FindingOther, OtherID
	}
	return f, c.cat.Name(f)
}

// Name returns the ID of f.
func (c *IDs) Name(f vocab.Finding) string {
	if f == FindingOther {
		return OtherID
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.cat.Name(f)
}

// Len is the number of IDs defined so far, built-in ones included.
func (c *IDs) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.cat.Len()
}

// cut bounds s to n bytes on a rune boundary, valid UTF-8.
func cut(s string, n int) string {
	if len(s) > n {
		i := n
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = s[:i]
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// parseFinding reads one deny element in any of the three shapes Weaver
// accepts (crates/weaver_checker/src/finding.rs): the unified one (id,
// level, message, context, signal_type, signal_name), type "advice"
// (advice_type, advice_level, advice_context, message) and the old
// "semconv_attribute" (id, category, group, attr; a violation).
func (c *IDs) parseFinding(v any) (Finding, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return Finding{}, fmt.Errorf("%w: not an object", ErrFinding)
	}
	get := func(k string) (string, bool, error) {
		x, ok := m[k]
		if !ok {
			return "", false, nil
		}
		s, isStr := x.(string)
		if !isStr {
			return "", true, fmt.Errorf("%w: %s is not a string", ErrFinding, k)
		}
		return s, true, nil
	}
	need := func(k string) (string, error) {
		s, ok, err := get(k)
		if err == nil && !ok {
			err = fmt.Errorf("%w: missing field %s", ErrFinding, k)
		}
		return s, err
	}
	typ, hasType, err := get("type")
	if err != nil {
		return Finding{}, err
	}
	var f Finding
	var id, level string
	var ctx any
	switch {
	case hasType && typ == "semconv_attribute":
		var parts [4]string
		for i, k := range []string{"id", "category", "group", "attr"} {
			if parts[i], err = need(k); err != nil {
				return Finding{}, err
			}
		}
		id, level = "semconv_attribute", "violation"
		ctx = map[string]any{"id": parts[0], "category": parts[1], "group": parts[2], "attr": parts[3]}
		f.Message = fmt.Sprintf("id=%s, category=%s, group=%s, attr=%s", parts[0], parts[1], parts[2], parts[3])
	case hasType && typ == "advice":
		if level, err = needLevel(m, need, "advice_level", "level"); err != nil {
			return Finding{}, err
		}
		if id, err = need("advice_type"); err != nil {
			return Finding{}, err
		}
		if f.Message, err = need("message"); err != nil {
			return Finding{}, err
		}
		ctx = findingContext(m)
	case !hasType:
		if id, err = need("id"); err != nil {
			return Finding{}, err
		}
		if level, err = needLevel(m, need, "level", "advice_level"); err != nil {
			return Finding{}, err
		}
		if f.Message, err = need("message"); err != nil {
			return Finding{}, err
		}
		ctx = findingContext(m)
	default:
		return Finding{}, fmt.Errorf("%w: unknown type %q", ErrFinding, cut(typ, vocab.MaxKeyLength))
	}
	lv, ok := vocab.ParseLevel(level)
	if !ok {
		return Finding{}, fmt.Errorf("%w: unknown level %q", ErrFinding, cut(level, vocab.MaxKeyLength))
	}
	f.Level = lv
	for k, dst := range map[string]*string{"signal_type": &f.SignalType, "signal_name": &f.SignalName} {
		s, _, err := get(k)
		if err != nil {
			return Finding{}, err
		}
		*dst, _ = vocab.Bound(s)
	}
	f.Message = cut(f.Message, MaxMessageBytes)
	if ctx != nil {
		b, err := json.Marshal(ctx)
		switch {
		case err != nil || len(b) > MaxContextBytes:
			f.Context = `{"truncated":true}`
		default:
			f.Context = string(b)
		}
	}
	if len(id) > vocab.MaxFindingIDLength || !vocab.ValidName(id) {
		f.Finding, f.ID = FindingOther, OtherID
	} else {
		f.Finding, f.ID = c.Resolve(id, lv)
	}
	return f, nil
}

// needLevel reads the level from the first of keys that is set (Weaver
// takes advice_level and level alike, the last one read winning).
func needLevel(m map[string]any, need func(string) (string, error), keys ...string) (string, error) {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return need(k)
		}
	}
	return need(keys[0])
}

// findingContext is the finding's context: context or advice_context.
func findingContext(m map[string]any) any {
	if c, ok := m["context"]; ok {
		return c
	}
	if c, ok := m["advice_context"]; ok {
		return c
	}
	return nil
}
