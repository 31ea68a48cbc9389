package registry

import (
	_ "embed"
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"
)

// Rules-file formats: /1 declares renames only; /2 adds value migrations
// (values, convert, split, merge, move; see values.go). Both are read.
const (
	rulesFileFormat  = "otelgov.rules/1"
	rulesFileFormat2 = "otelgov.rules/2"
)

// shippedRulesName names the embedded rules file in messages.
const shippedRulesName = "registry/rules/semconv.yaml"

//go:embed rules/semconv.yaml
var shippedRules []byte

// loadRulesFile reads one rules file from disk.
func loadRulesFile(path string) ([]ruleDef, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading rules file: %w", err)
	}
	return parseRulesFile(path, data)
}

var locationNames = map[string]Location{
	"resource":   LocationResource,
	"scope":      LocationScope,
	"span":       LocationSpan,
	"span_event": LocationSpanEvent,
	"span_link":  LocationSpanLink,
	"data_point": LocationDataPoint,
	"log":        LocationLog,
}

var spanKindNames = map[string]SpanKind{
	"unspecified": SpanKindUnspecified,
	"internal":    SpanKindInternal,
	"server":      SpanKindServer,
	"client":      SpanKindClient,
	"producer":    SpanKindProducer,
	"consumer":    SpanKindConsumer,
}

// parseRulesFile decodes a rules file:
//
//	file_format: otelgov.rules/1
//	rules:
//	  - key: net.peer.name
//	    replace_registry: false      # optional
//	    renames:
//	      - to: server.address
//	        locations: [span]        # optional; default every location
//	        span_kinds: [client]     # optional; default any
//	        metrics: [a.b]           # optional; data_point only
//	        spans: [GET /]           # optional; span locations only
func parseRulesFile(name string, data []byte) ([]ruleDef, error) {
	f := yfile{name: name}
	root, err := f.parse(data)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, f.errf(nil, "", "empty rules file")
	}
	var (
		format string
		rules  []ruleDef
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
		default:
			err = f.errf(k, key, "unknown field")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	switch format {
	case rulesFileFormat:
		for _, rd := range rules {
			if rd.Migration != nil {
				return nil, &posError{File: f.name, Line: rd.Migration.Line, Key: rd.Key, Err: fmt.Errorf("value migrations need file_format %q", rulesFileFormat2)}
			}
		}
	case rulesFileFormat2:
	default:
		return nil, f.errf(root, "file_format", "want %q or %q, got %q", rulesFileFormat, rulesFileFormat2, format)
	}
	return rules, nil
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
				loc, ok := locationNames[s]
				if !ok {
					return f.errf(it, key, "unknown location %q", s)
				}
				rr.Locations = append(rr.Locations, loc)
				return nil
			})
		case "span_kinds":
			err = f.items(v, key, func(_ int, it *yaml.Node) error {
				s, err := f.str(it, key)
				if err != nil {
					return err
				}
				sk, ok := spanKindNames[s]
				if !ok {
					return f.errf(it, key, "unknown span kind %q", s)
				}
				rr.SpanKinds = append(rr.SpanKinds, sk)
				return nil
			})
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
