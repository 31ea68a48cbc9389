package load

import (
	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/internal/registry/def"
)

// This file holds the value migrations of rules files in file_format
// otelgov.rules/2: what a key's value becomes, not only its name.
//
//	- key: db.system               # renamed by the registry to db.system.name
//	  values: {mssql: microsoft.sql_server}
//	- key: rpc.jsonrpc.error_code
//	  renames: [{to: rpc.response.status_code}]
//	  convert: string              # lossless: int -> string
//	- key: http.target
//	  split: {separator: "?", into: [url.path, url.query]}
//	- key: http.flavor
//	  split:
//	    cases:
//	      "1.1": {network.protocol.name: http, network.protocol.version: "1.1"}
//	- key: code.function
//	  merge: {to: code.function.name, template: "{code.namespace}.{code.function}"}
//	- key: event.name
//	  move: event_name             # log records only
//	- key: rpc.jsonrpc.error_message
//	  move: status_message         # spans with status Error only

// parseMigrationField decodes one value-migration field of a rule.
func parseMigrationField(f yfile, key string, k, v *yaml.Node, rd *def.Rule) error {
	if rd.Migration == nil {
		rd.Migration = &def.Migration{Line: k.Line}
	}
	md := rd.Migration
	switch key {
	case "values":
		return f.fields(v, key, func(from string, fk, fv *yaml.Node) error {
			to, err := f.str(fv, key)
			if err != nil {
				return err
			}
			if to == "" {
				return f.errf(fk, key, "value %q maps to an empty value", from)
			}
			md.Values = append(md.Values, def.ValueEntry{From: from, To: to, Line: fk.Line})
			return nil
		})
	case "convert":
		var s string
		var err error
		if v.Kind == yaml.MappingNode {
			err = f.fields(v, key, func(fk string, kn, fv *yaml.Node) error {
				var err error
				switch fk {
				case "to":
					md.ConvertTo, err = f.str(fv, fk)
				case "type":
					s, err = f.str(fv, fk)
				default:
					err = f.errf(kn, fk, "unknown field")
				}
				return err
			})
			if err == nil && md.ConvertTo == "" {
				err = f.errf(v, key, "convert: {to, type} needs to")
			}
		} else {
			s, err = f.str(v, key)
		}
		if err != nil {
			return err
		}
		if t, ok := def.ParseType(s); !ok || t == def.TypeAny {
			return f.errf(v, key, "unknown type %q", s)
		}
		md.Convert, md.ConvertLine = s, v.Line
		return nil
	case "split":
		sd := &def.Split{Line: k.Line}
		md.Split = sd
		return f.fields(v, key, func(fk string, kn, fv *yaml.Node) error {
			var err error
			switch fk {
			case "separator":
				sd.Separator, err = f.str(fv, fk)
			case "into":
				sd.Into, err = f.strList(fv, fk)
			case "cases":
				err = f.fields(fv, fk, func(val string, cn, cv *yaml.Node) error {
					c := def.SplitCase{Value: val, Line: cn.Line}
					err := f.fields(cv, "cases."+val, func(ak string, _, av *yaml.Node) error {
						s, err := f.str(av, ak)
						c.Set = append(c.Set, def.Assign{Key: ak, Value: s})
						return err
					})
					sd.Cases = append(sd.Cases, c)
					return err
				})
			default:
				err = f.errf(kn, fk, "unknown field")
			}
			return err
		})
	case "merge":
		mg := &def.Merge{Line: k.Line}
		md.Merge = mg
		return f.fields(v, key, func(fk string, kn, fv *yaml.Node) error {
			var err error
			switch fk {
			case "to":
				mg.To, err = f.str(fv, fk)
			case "template":
				mg.Template, err = f.str(fv, fk)
			default:
				err = f.errf(kn, fk, "unknown field")
			}
			return err
		})
	case "move":
		s, err := f.str(v, key)
		if err != nil {
			return err
		}
		if _, ok := def.ParseField(s); !ok {
			return f.errf(v, key, "unknown field %q, want event_name or status_message", s)
		}
		md.Move, md.MoveLine = s, v.Line
		return nil
	}
	return f.errf(k, key, "unknown field")
}
