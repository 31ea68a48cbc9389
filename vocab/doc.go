// Package vocab is the governance vocabulary: the names that the engine
// counts by and that front-ends publish as metric labels (:8888), report
// keys (/conformance), log attributes and CLI output. Each word is defined
// once here: the telemetry kind (traces, metrics, logs), attribute outcomes,
// drop reasons, finding IDs, finding levels, finding subjects, the findings
// profiles (weaver, extended), Weaver's sample types, signal types, metric
// instruments and finding context keys as Weaver spells them (weaver.go),
// and the reserved service entries (_other, _missing) with the bound
// applied to every client-controlled string before it becomes a label.
//
// Every enum has a keyed name table ([...]string{X: "x", ...}), a String
// method and a Parse function; a test fails when a table misses an entry,
// and another (in the processor package) when metadata.yaml or a README
// table disagrees with these tables.
//
// The package imports nothing of the project: the engine, the conformance
// report, the processor, the extension and the CLI all import it.
package vocab // import "github.com/otelgov/otelcol-governance/vocab"
