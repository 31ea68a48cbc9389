package upgrade

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
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
	// Both is the line as `otelgov queries --write --both` rewrites it for
	// the transition window (reads old or new); "" when it does not
	// rewrite it (Why says why).
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

// maxLine bounds a --both line in the report.
const maxLine = 2000

// ScanConsumers reads the dashboards, rule files and collector configs at
// paths against the new registry (newIx, the change set's new side) and
// joins what they read with the change set. It writes nothing to paths.
func ScanConsumers(t *Touches, newIx *registry.Index, paths []string) (*Consumers, error) {
	names := queries.NewNames(newIx)
	res, err := queries.NewScanner(names).ScanPaths(paths)
	if err != nil {
		return nil, err
	}
	out := &Consumers{Files: res.Files, Reads: []Read{}, Kept: []string{}, Notes: res.Notes, Unreadable: res.Unreadable}
	files := map[string]bool{}
	for _, f := range res.Findings {
		r := Read{Finding: f}
		if tc := t.Lookup(f.Deprecated); tc != nil && tc.Breaks() {
			r.Kinds, r.Breaks = tc.KindNames(), true
			out.Breaking++
			if f.Rewritable {
				out.Rewritable++
			}
			files[f.File] = true
		}
		out.Reads = append(out.Reads, r)
	}
	both, err := bothLines(names, slices.Sorted(maps.Keys(files)))
	if err != nil {
		return nil, err
	}
	for i := range out.Reads {
		r := &out.Reads[i]
		if r.Breaks {
			r.Both = both[r.File][r.Line]
		}
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

// bothLines runs `queries --write --both` on a copy of each file and
// returns, per file, the lines it changed (1-based line -> new line). A
// file whose line count changes is left out.
func bothLines(names *queries.Names, files []string) (map[string]map[int]string, error) {
	out := map[string]map[int]string{}
	if len(files) == 0 {
		return out, nil
	}
	dir, err := os.MkdirTemp("", "otelgov-both-")
	if err != nil {
		return nil, fmt.Errorf("transition form: %w", err)
	}
	defer os.RemoveAll(dir)
	for i, f := range files {
		orig, err := os.ReadFile(f) //nolint:gosec // a file the scan just read
		if err != nil {
			return nil, err
		}
		tmp := filepath.Join(dir, fmt.Sprintf("%d-%s", i, filepath.Base(f)))
		if err := os.WriteFile(tmp, orig, 0o600); err != nil { //nolint:gosec // our own temporary directory
			return nil, fmt.Errorf("transition form: %w", err)
		}
		s := queries.NewScanner(names)
		s.Write, s.Both = true, true
		if _, err := s.ScanPaths([]string{tmp}); err != nil {
			return nil, fmt.Errorf("transition form of %s: %w", f, err)
		}
		got, err := os.ReadFile(tmp) //nolint:gosec // our own temporary file
		if err != nil {
			return nil, err
		}
		ol, nl := bytes.Split(orig, []byte("\n")), bytes.Split(got, []byte("\n"))
		if len(ol) != len(nl) {
			continue
		}
		for j := range ol {
			if !bytes.Equal(ol[j], nl[j]) {
				if out[f] == nil {
					out[f] = map[int]string{}
				}
				line := string(bytes.TrimSpace(nl[j]))
				if len(line) > maxLine {
					line = line[:maxLine] + "..."
				}
				out[f][j+1] = line
			}
		}
	}
	return out, nil
}
