package load

import (
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/internal/registry/def"
)

// Rules-file formats: /1 declares renames only; /2 adds value migrations
// (values, convert, split, merge, move; see migration.go) and span matchers.
// Both are read.
const (
	rulesFileFormat   = "otelgov.rules/2"
	rulesFileFormatV1 = "otelgov.rules/1"
)

// LoadRulesFile reads one rules file from disk.
func LoadRulesFile(path string) ([]def.Rule, []def.Matcher, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("reading rules file: %w", err)
	}
	return ParseRules(path, data)
}

// parseRulesFile decodes a rules file's rules; see ParseRules.
func parseRulesFile(name string, data []byte) ([]def.Rule, error) {
	rules, _, err := ParseRules(name, data)
	return rules, err
}

// ParseRules decodes a rules file:
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
func ParseRules(name string, data []byte) ([]def.Rule, []def.Matcher, error) {
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
		rules       []def.Rule
		matchers    []def.Matcher
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

func parseMatcher(f yfile, n *yaml.Node) (def.Matcher, error) {
	md := def.Matcher{File: f.name, Line: n.Line}
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

func parseRule(f yfile, r *yaml.Node) (def.Rule, error) {
	rd := def.Rule{File: f.name, Line: r.Line}
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
	if err := ValidKey(rd.Key); err != nil {
		return rd, f.errf(r, "key", "%w", err)
	}
	if len(rd.Renames) == 0 && !rd.ReplaceRegistry && rd.Migration == nil {
		return rd, f.errf(r, rd.Key, "rule has no renames")
	}
	return rd, nil
}

func parseRuleRename(f yfile, n *yaml.Node) (def.RuleRename, error) {
	rr := def.RuleRename{Line: n.Line}
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
				loc, ok := def.ParseLocation(s)
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
			if l != def.LocationDataPoint {
				return rr, f.errf(n, "metrics", "metrics scope requires locations [data_point], got %s", l)
			}
		}
		rr.Locations = []def.Location{def.LocationDataPoint}
	}
	if len(rr.Spans) > 0 {
		for _, l := range rr.Locations {
			if l != def.LocationSpan && l != def.LocationSpanEvent && l != def.LocationSpanLink {
				return rr, f.errf(n, "spans", "spans scope requires span locations, got %s", l)
			}
		}
		if len(rr.Locations) == 0 {
			rr.Locations = []def.Location{def.LocationSpan}
		}
	}
	return rr, nil
}

// spanKindList decodes a list of span kind names.
func spanKindList(f yfile, v *yaml.Node, key string) ([]def.SpanKind, error) {
	var out []def.SpanKind
	err := f.items(v, key, func(_ int, it *yaml.Node) error {
		s, err := f.str(it, key)
		if err != nil {
			return err
		}
		sk, ok := def.ParseSpanKind(s)
		if !ok {
			return f.errf(it, key, "unknown span kind %q", s)
		}
		out = append(out, sk)
		return nil
	})
	return out, err
}
