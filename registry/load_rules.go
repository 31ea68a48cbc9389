package registry

import (
	_ "embed"
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"
)

// Rules-file formats: /1 declares renames only; /2 adds value migrations
// (values, convert, split, merge, move; see values.go) and span matchers.
// Both are read.
const (
	rulesFileFormat   = "otelgov.rules/2"
	rulesFileFormatV1 = "otelgov.rules/1"
)

// shippedRulesName names the embedded rules file in messages.
const shippedRulesName = "registry/rules/semconv.yaml"

//go:embed rules/semconv.yaml
var shippedRules []byte

// loadRulesFile reads one rules file from disk.
func loadRulesFile(path string) ([]ruleDef, []matcherDef, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("reading rules file: %w", err)
	}
	return parseRulesFileAll(path, data)
}

// parseRulesFile decodes a rules file's rules; see parseRulesFileAll.
func parseRulesFile(name string, data []byte) ([]ruleDef, error) {
	rules, _, err := parseRulesFileAll(name, data)
	return rules, err
}

// parseRulesFileAll decodes a rules file:
//
//	file_format: otelgov.rules/2   # or otelgov.rules/1, without matchers
//	rules:
//	  - key: net.peer.name
//	    replace_registry: false      # optional
//	    renames:
//	      - to: server.address
//	        locations: [span]        # optional; default every location
//	        span_kinds: [client]     # optional; default any
//	        metrics: [a.b]           # optional; data_point only
//	        spans: [GET /]           # optional; span locations only
//	matchers:                        # otelgov.rules/2 only
//	  - span: span.http.server       # a span definition's group id
//	    span_kinds: [server]         # optional; default any kind
//	    present: [http.request.method]
//	    absent: [url.full]           # optional
func parseRulesFileAll(name string, data []byte) ([]ruleDef, []matcherDef, error) {
	f := yfile{name: name}
	root, err := f.parse(data)
	if err != nil {
		return nil, nil, err
	}
	if root == nil {
		return nil, nil, f.errf(nil, "", "empty rules file")
	}
	var (
		format      string
		rules       []ruleDef
		matchers    []matcherDef
		matchersKey *yaml.Node
	)
	err = f.fields(root, "", func(key string, k, v *yaml.Node) error {
		var err error
		switch key {
		case "file_format":
			format, err = f.str(v, key)
		case "rules":
			err = f.items(v, key, func(_ int, r *yaml.Node) error {
				rd, err := parseRule(f, r)
				if err != nil {
					return err
				}
				rules = append(rules, rd)
				return nil
			})
		case "matchers":
			matchersKey = k
			err = f.items(v, key, func(_ int, m *yaml.Node) error {
				md, err := parseMatcher(f, m)
				if err != nil {
					return err
				}
				matchers = append(matchers, md)
				return nil
			})
		default:
			err = f.errf(k, key, "unknown field")
		}
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	switch format {
	case rulesFileFormat:
	case rulesFileFormatV1:
		if matchersKey != nil {
			return nil, nil, f.errf(matchersKey, "matchers", "matchers need file_format %q", rulesFileFormat)
		}
		for _, rd := range rules {
			if rd.Migration != nil {
				return nil, nil, &posError{File: f.name, Line: rd.Migration.Line, Key: rd.Key, Err: fmt.Errorf("value migrations need file_format %q", rulesFileFormat)}
			}
		}
	default:
		return nil, nil, f.errf(root, "file_format", "want %q or %q, got %q", rulesFileFormat, rulesFileFormatV1, format)
	}
	return rules, matchers, nil
}

// matcherDef is one span matcher of a rules file.
type matcherDef struct {
	Span      string
	SpanKinds []SpanKind
	Present   []string
	Absent    []string
	File      string
	Line      int
}

func parseMatcher(f yfile, n *yaml.Node) (matcherDef, error) {
	md := matcherDef{File: f.name, Line: n.Line}
	err := f.fields(n, "matchers[]", func(key string, k, v *yaml.Node) error {
		var err error
		switch key {
		case "span":
			md.Span, err = f.str(v, key)
		case "span_kinds":
			md.SpanKinds, err = spanKindList(f, v, key)
		case "present":
			md.Present, err = f.strList(v, key)
		case "absent":
			md.Absent, err = f.strList(v, key)
		default:
			err = f.errf(k, key, "unknown field")
		}
		return err
	})
	if err != nil {
		return md, err
	}
	if md.Span == "" {
		return md, f.errf(n, "span", "matcher without span")
	}
	if len(md.Present) == 0 {
		return md, f.errf(n, "present", "matcher for %q names no present attribute", md.Span)
	}
	return md, nil
}

func parseRule(f yfile, r *yaml.Node) (ruleDef, error) {
	rd := ruleDef{File: f.name, Line: r.Line}
	err := f.fields(r, "rules[]", func(key string, k, v *yaml.Node) error {
		var err error
		switch key {
		case "key":
			rd.Key, err = f.str(v, key)
		case "replace_registry":
			rd.ReplaceRegistry, err = f.boolean(v, key)
		case "renames":
			err = f.items(v, key, func(_ int, n *yaml.Node) error {
				rr, err := parseRuleRename(f, n)
				if err != nil {
					return err
				}
				rd.Renames = append(rd.Renames, rr)
				return nil
			})
		case "values", "convert", "split", "merge", "move":
			err = parseMigrationField(f, key, k, v, &rd)
		default:
			err = f.errf(k, key, "unknown field")
		}
		return err
	})
	if err != nil {
		return rd, err
	}
	if rd.Key == "" {
		return rd, f.errf(r, "key", "rule without key")
	}
	if err := validKey(rd.Key); err != nil {
		return rd, f.errf(r, "key", "%w", err)
	}
	if len(rd.Renames) == 0 && !rd.ReplaceRegistry && rd.Migration == nil {
		return rd, f.errf(r, rd.Key, "rule has no renames")
	}
	return rd, nil
}

func parseRuleRename(f yfile, n *yaml.Node) (ruleRename, error) {
	rr := ruleRename{Line: n.Line}
	err := f.fields(n, "renames[]", func(key string, k, v *yaml.Node) error {
		var err error
		switch key {
		case "to":
			rr.To, err = f.str(v, key)
		case "locations":
			err = f.items(v, key, func(_ int, it *yaml.Node) error {
				s, err := f.str(it, key)
				if err != nil {
					return err
				}
				loc, ok := ParseLocation(s)
				if !ok {
					return f.errf(it, key, "unknown location %q", s)
				}
				rr.Locations = append(rr.Locations, loc)
				return nil
			})
		case "span_kinds":
			rr.SpanKinds, err = spanKindList(f, v, key)
		case "metrics":
			rr.Metrics, err = f.strList(v, key)
		case "spans":
			rr.Spans, err = f.strList(v, key)
		default:
			err = f.errf(k, key, "unknown field")
		}
		return err
	})
	if err != nil {
		return rr, err
	}
	if rr.To == "" {
		return rr, f.errf(n, "to", "rename without target")
	}
	if len(rr.Metrics) > 0 {
		for _, l := range rr.Locations {
			if l != LocationDataPoint {
				return rr, f.errf(n, "metrics", "metrics scope requires locations [data_point], got %s", l)
			}
		}
		rr.Locations = []Location{LocationDataPoint}
	}
	if len(rr.Spans) > 0 {
		for _, l := range rr.Locations {
			if l != LocationSpan && l != LocationSpanEvent && l != LocationSpanLink {
				return rr, f.errf(n, "spans", "spans scope requires span locations, got %s", l)
			}
		}
		if len(rr.Locations) == 0 {
			rr.Locations = []Location{LocationSpan}
		}
	}
	return rr, nil
}

// spanKindList decodes a list of span kind names.
func spanKindList(f yfile, v *yaml.Node, key string) ([]SpanKind, error) {
	var out []SpanKind
	err := f.items(v, key, func(_ int, it *yaml.Node) error {
		s, err := f.str(it, key)
		if err != nil {
			return err
		}
		sk, ok := ParseSpanKind(s)
		if !ok {
			return f.errf(it, key, "unknown span kind %q", s)
		}
		out = append(out, sk)
		return nil
	})
	return out, err
}
