package load

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/internal/registry/def"
)

// schemaFileFormat is the schema file format this loader understands.
const schemaFileFormatPrefix = "1."

// loadSchemaFile reads one OpenTelemetry schema file (file_format 1.x) and
// appends its attribute and metric renames to out, oldest version first.
func loadSchemaFile(path, name string, out *def.Defs) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading schema file: %w", err)
	}
	return parseSchemaFile(name, data, out)
}

// parseSchemaFile decodes a schema file. Sections: all, resources, spans,
// span_events, metrics, logs; each `changes:` item may hold rename_attributes
// (attribute_map, with apply_to_spans / apply_to_metrics) and, in metrics,
// rename_metrics. Other transformations (rename_events, split, ...) carry no
// attribute renames and are ignored.
func parseSchemaFile(name string, data []byte, out *def.Defs) error {
	f := yfile{name: name}
	root, err := f.parse(data)
	if err != nil {
		return err
	}
	if root == nil {
		return f.errf(nil, "", "empty schema file")
	}
	type versionNode struct {
		version string
		node    *yaml.Node
	}
	var (
		format, url string
		versions    []versionNode
	)
	err = f.fields(root, "", func(key string, _, v *yaml.Node) error {
		var err error
		switch key {
		case "file_format":
			format, err = f.str(v, key)
		case "schema_url":
			url, err = f.str(v, key)
		case "versions":
			err = f.fields(v, key, func(ver string, k, vv *yaml.Node) error {
				if _, perr := parseVersion(ver); perr != nil {
					return f.errf(k, "versions", "bad version %q: %w", ver, perr)
				}
				versions = append(versions, versionNode{ver, vv})
				return nil
			})
		}
		return err
	})
	if err != nil {
		return err
	}
	if !strings.HasPrefix(format, schemaFileFormatPrefix) {
		return f.errf(root, "file_format", "unsupported schema file_format %q (want 1.x)", format)
	}
	sort.SliceStable(versions, func(i, j int) bool {
		return VersionLess(versions[i].version, versions[j].version)
	})
	if out.SchemaURL == "" {
		out.SchemaURL = url
	}
	out.SchemaFile = name
	for _, vn := range versions {
		err := f.fields(vn.node, "versions."+vn.version, func(section string, k, sv *yaml.Node) error {
			switch section {
			case def.SectionAll, def.SectionResources, def.SectionSpans, def.SectionSpanEvents, def.SectionMetrics, def.SectionLogs:
			default:
				return f.errf(k, "versions."+vn.version, "unknown schema section %q", section)
			}
			return f.fields(sv, section, func(key string, _, cv *yaml.Node) error {
				if key != "changes" {
					return nil
				}
				return f.items(cv, section+".changes", func(_ int, ch *yaml.Node) error {
					return parseSchemaChange(f, vn.version, section, ch, out)
				})
			})
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func parseSchemaChange(f yfile, version, section string, ch *yaml.Node, out *def.Defs) error {
	return f.fields(ch, section+".changes[]", func(key string, _, v *yaml.Node) error {
		switch key {
		case "rename_attributes":
			var (
				pairs           [][2]string
				lines           []int
				spans, metrics  []string
				spansN, metricN *yaml.Node
			)
			err := f.fields(v, key, func(k string, _, fv *yaml.Node) error {
				var err error
				switch k {
				case "attribute_map":
					err = f.fields(fv, k, func(from string, kn, tv *yaml.Node) error {
						to, err := f.str(tv, from)
						if err != nil {
							return err
						}
						if from == "" || to == "" {
							return f.errf(kn, "attribute_map", "empty attribute name")
						}
						pairs = append(pairs, [2]string{from, to})
						lines = append(lines, kn.Line)
						return nil
					})
				case "apply_to_spans":
					spansN = fv
					spans, err = f.strList(fv, k)
				case "apply_to_metrics":
					metricN = fv
					metrics, err = f.strList(fv, k)
				}
				return err
			})
			if err != nil {
				return err
			}
			if spansN != nil && section != def.SectionSpans && section != def.SectionSpanEvents {
				return f.errf(spansN, "apply_to_spans", "only valid in the spans and span_events sections")
			}
			if metricN != nil && section != def.SectionMetrics {
				return f.errf(metricN, "apply_to_metrics", "only valid in the metrics section")
			}
			for i, p := range pairs {
				out.SchemaRenames = append(out.SchemaRenames, def.SchemaRename{
					Version: version, Section: section, From: p[0], To: p[1],
					Spans: spans, Metrics: metrics, Line: lines[i],
				})
			}
		case "rename_metrics":
			if section != def.SectionMetrics {
				return f.errf(v, key, "only valid in the metrics section")
			}
			return f.fields(v, key, func(from string, kn, tv *yaml.Node) error {
				to, err := f.str(tv, from)
				if err != nil {
					return err
				}
				if from == "" || to == "" {
					return f.errf(kn, key, "empty metric name")
				}
				out.MetricRenames = append(out.MetricRenames, def.MetricRename{Version: version, From: from, To: to, Line: kn.Line})
				return nil
			})
		}
		return nil
	})
}

// parseVersion splits "1.23.1" into numeric parts.
func parseVersion(v string) ([]int, error) {
	parts := strings.Split(v, ".")
	out := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, fmt.Errorf("version part %q: %w", p, err)
		}
		out[i] = n
	}
	return out, nil
}

// VersionLess orders schema versions numerically ("1.9.0" < "1.10.0"); an
// unparsable part compares as missing.
func VersionLess(a, b string) bool {
	va, _ := parseVersion(a)
	vb, _ := parseVersion(b)
	for i := 0; i < len(va) && i < len(vb); i++ {
		if va[i] != vb[i] {
			return va[i] < vb[i]
		}
	}
	return len(va) < len(vb)
}

// latestSchemaFile returns the schema file with the highest version in dir
// (files are named after their version, e.g. schemas/1.44.0), or "" if none.
func latestSchemaFile(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return "", nil
		}
		return "", fmt.Errorf("reading schemas directory: %w", err)
	}
	best := ""
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		if _, err := parseVersion(e.Name()); err != nil {
			continue
		}
		if best == "" || VersionLess(best, e.Name()) {
			best = e.Name()
		}
	}
	if best == "" {
		return "", nil
	}
	return filepath.Join(dir, best), nil
}
