package upgrade

import (
	"maps"
	"slices"

	"github.com/otelgov/otelcol-governance/queries"
	"github.com/otelgov/otelcol-governance/registry"
)

// Read is one place a consumer reads an old name: a queries finding against
// the new registry, with what the change set does to the name.
type Read struct {
	queries.Finding
	// Kinds are the change kinds on the name; empty when the name was
	// already deprecated in the old registry (the collector already
	// rewrote it, to a name this upgrade may move again: not this
	// upgrade's doing).
	Kinds []string `json:"kinds,omitempty"`
	// Breaks: the upgrade makes the collector rewrite a name this
	// consumer reads, so it sees less data from the day the old name stops
	// arriving.
	Breaks bool `json:"breaks"`
	// Both is the query as `otelgov queries --write --both` writes it for
	// the transition window (reads old or new): Window.Form, for the
	// reads that break; "" when --both leaves the query as it is
	// (Window.Why says why, and Window.Works whether it reads both anyway).
	Both string `json:"both,omitempty"`
}

// Consumers is the impact of a change set on the consumers scanned.
type Consumers struct {
	Files int `json:"files"`
	// Reads are the reads of old names, breaking ones first, then by file
	// and line.
	Reads []Read `json:"reads"`
	// Breaking counts the reads that break; Rewritable those of them that
	// `otelgov queries --write` rewrites.
	Breaking   int `json:"breaking"`
	Rewritable int `json:"rewritable"`
	// Kept are the names the change set removes, obsoletes or leaves
	// without a replacement the collector applies: the collector keeps
	// sending them as they arrive, so a read keeps working while producers
	// send them (queries does not look for them).
	Kept       []string       `json:"kept"`
	Notes      []queries.Note `json:"notes"`
	Unreadable int            `json:"unreadable"`
}

// ScanConsumers reads the dashboards, rule files and collector configs at
// paths against the new registry (newIx, the change set's new side) and
// joins what they read with the change set. It writes nothing to paths.
func ScanConsumers(t *Touches, newIx *registry.Index, paths []string) (*Consumers, error) {
	res, err := queries.NewScanner(queries.NewNames(newIx)).ScanPaths(paths)
	if err != nil {
		return nil, err
	}
	out := &Consumers{Files: res.Files, Reads: []Read{}, Kept: []string{}, Notes: res.Notes, Unreadable: res.Unreadable}
	for _, f := range res.Findings {
		r := Read{Finding: f}
		if tc := t.Lookup(f.Deprecated); tc != nil && tc.Breaks() {
			r.Kinds, r.Breaks, r.Both = tc.KindNames(), true, f.Window.Form
			out.Breaking++
			if f.Rewritable {
				out.Rewritable++
			}
		}
		out.Reads = append(out.Reads, r)
	}
	slices.SortStableFunc(out.Reads, func(a, b Read) int {
		if a.Breaks != b.Breaks {
			if a.Breaks {
				return -1
			}
			return 1
		}
		return 0
	})
	for _, m := range []map[string]*Touch{t.Attributes, t.Metrics} {
		for _, name := range slices.Sorted(maps.Keys(m)) {
			if !m[name].Rewritten {
				out.Kept = append(out.Kept, name)
			}
		}
	}
	return out, nil
}
