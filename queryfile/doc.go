// Package queryfile finds the queries that files hold and where their bytes
// lie: PromQL in Prometheus rule files, PrometheusRule manifests, Grafana
// dashboards (plain, in ConfigMaps, ConfigMapLists, GrafanaDashboard
// resources and Helm values) with their targets' legendFormat, Grafana
// alerting rules (data[].model.expr) and promtool test files; alert rules'
// label and annotation templates; OTTL and attribute keys in collector configurations
// (plain, OpenTelemetryCollector resources, Helm values `config:`). Helm
// templates are read as text outside their {{ }} blocks.
//
// Each Query carries a Map from offsets in its text to offsets in the file,
// exact where the file's bytes are the text's bytes, so that a caller can
// rewrite a name in place without touching any other byte. Grafana's
// template variables and macros are substituted by ParsePromQL with an
// offset map back to the written expression.
//
// It is a library: both `otelgov queries` and manifestlint read files
// through it.
package queryfile // import "github.com/otelgov/otelcol-governance/queryfile"
