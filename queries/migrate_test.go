package queries

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/registry"
)

// rewrite applies scanPromQL's rewrites to expr.
func rewrite(t *testing.T, n *Names, expr string) (string, []hit) {
	t.Helper()
	hits, err := scanPromQL(expr, n)
	require.NoError(t, err, expr)
	var edits []edit
	for _, h := range hits {
		edits = append(edits, h.edits...)
	}
	out, ok := applyEdits(expr, edits)
	require.True(t, ok)
	return out, hits
}

// selectorMatcher parses expr and returns its selector's matcher on label.
func selectorMatcher(t *testing.T, expr, label string) *labels.Matcher {
	t.Helper()
	e, err := parser.NewParser(parser.Options{}).ParseExpr(expr)
	require.NoError(t, err, expr)
	var m *labels.Matcher
	parser.Inspect(e, func(node parser.Node, _ []parser.Node) error {
		if vs, ok := node.(*parser.VectorSelector); ok {
			for _, x := range vs.LabelMatchers {
				if x.Name == label {
					m = x
				}
			}
		}
		return nil
	})
	require.NotNil(t, m, "%s has no matcher on %s", expr, label)
	return m
}

// TestValueMapsKeepSelection: for every value map the registry ships, a
// matcher on the old label, rewritten, selects on migrated data exactly
// what it selected on old data (=, !=, =~ and !~ over the map's values and
// over a value the map keeps).
func TestValueMapsKeepSelection(t *testing.T) {
	ix, err := registry.Default()
	require.NoError(t, err)
	n := NewNames(ix)
	maps := 0
	for _, a := range ix.Attributes() {
		mg := a.Migration
		if mg == nil || len(mg.Values)+len(mg.IntValues) == 0 || a.Template {
			continue
		}
		label := PromLabel(a.Key)
		r, ok := n.Label(label, nil)
		if !ok || !r.Rewritable {
			continue // not renamed as a label: nothing to rewrite
		}
		maps++
		newLabel := PromLabel(r.New)
		migrate := map[string]string{}
		for from, to := range mg.Values {
			migrate[from] = to
		}
		for from, to := range mg.IntValues {
			migrate[strconv.FormatInt(from, 10)] = to
		}
		olds := make([]string, 0, len(migrate))
		for k := range migrate {
			olds = append(olds, k)
		}
		slices.Sort(olds)
		// The values old data can hold: the map's, the old enum's members
		// (some are the new values already) and one the map keeps.
		domain := append(slices.Clone(olds), "kept_value")
		if len(mg.IntValues) == 0 {
			domain = append(domain, a.EnumStrings...)
		}
		after := func(v string) string {
			if to, ok := migrate[v]; ok {
				return to
			}
			return v
		}
		t.Run(a.Key, func(t *testing.T) {
			var exprs []string
			for _, op := range []string{"=", "!="} {
				for _, v := range olds {
					exprs = append(exprs, `sum(rate(x{`+label+op+strconv.Quote(v)+`}[5m]))`)
				}
			}
			alt := make([]string, 0, len(olds))
			for i, v := range olds {
				if i%2 == 0 {
					alt = append(alt, regexp.QuoteMeta(v))
				}
			}
			for _, op := range []string{"=~", "!~"} {
				exprs = append(exprs, `x{`+label+op+strconv.Quote(strings.Join(alt, "|"))+`}`)
			}
			// An old value that shares its new value with another old one
			// cannot be selected alone after the migration.
			shared := func(v string) bool {
				for _, w := range domain {
					if w != v && after(w) == after(v) {
						return true
					}
				}
				return false
			}
			for _, expr := range exprs {
				out, hits := rewrite(t, n, expr)
				require.Len(t, hits, 1, expr)
				alone := false
				for _, v := range olds {
					if shared(v) && (strings.Contains(expr, strconv.Quote(v)) || strings.Contains(expr, "|"+regexp.QuoteMeta(v)) || strings.Contains(expr, `"`+regexp.QuoteMeta(v))) {
						alone = true
					}
				}
				if alone {
					if hits[0].rewritable {
						// Allowed only when the regex lists every old value of the shared new one.
						for _, v := range domain {
							assert.Equal(t, selectorMatcher(t, expr, label).Matches(v), selectorMatcher(t, out, newLabel).Matches(after(v)), "%s -> %s on value %q", expr, out, v)
						}
					} else {
						assert.Contains(t, hits[0].why, "several old values become")
					}
					continue
				}
				require.True(t, hits[0].rewritable, "%s: %s", expr, hits[0].why)
				oldM := selectorMatcher(t, expr, label)
				newM := selectorMatcher(t, out, newLabel)
				for _, v := range domain {
					assert.Equal(t, oldM.Matches(v), newM.Matches(after(v)), "%s -> %s on value %q", expr, out, v)
				}
			}
			// A regex that is not a list of values cannot be migrated.
			_, hits := rewrite(t, n, `x{`+label+`=~`+strconv.Quote(regexp.QuoteMeta(olds[0])+".*")+`}`)
			require.Len(t, hits, 1)
			assert.False(t, hits[0].rewritable)
			assert.Contains(t, hits[0].why, "regex over values that migrate")
			// Nor can a Grafana variable.
			_, hits = rewrite(t, n, `x{`+label+`="$v"}`)
			require.Len(t, hits, 1)
			assert.False(t, hits[0].rewritable)
		})
	}
	assert.GreaterOrEqual(t, maps, 2, "rpc.grpc.status_code and db.system at least")
}

// TestIssueRepro is issue 18's reproduction: the status code's values
// migrate with its key.
func TestIssueValueRepro(t *testing.T) {
	n := names(t)
	out, _ := rewrite(t, n, `sum(rate(rpc_server_duration_count{rpc_grpc_status_code!="0"}[5m]))>0`)
	assert.Equal(t, `sum(rate(rpc_server_duration_count{rpc_response_status_code!="OK"}[5m]))>0`, out)
	out, _ = rewrite(t, n, `sum(db_client_operation_duration_seconds_count{db_system="mssql"})`)
	assert.Equal(t, `sum(db_client_operation_duration_seconds_count{db_system_name="microsoft.sql_server"})`, out)
	out, _ = rewrite(t, n, `x{db_system=~"mssql|postgresql"}`)
	assert.Equal(t, `x{db_system_name=~"microsoft\\.sql_server|postgresql"}`, out)
}
