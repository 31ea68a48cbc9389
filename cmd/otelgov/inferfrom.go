package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync/atomic"

	"github.com/otelgov/otelcol-governance/infer"
)

// maxEvidenceBytes bounds one collector's answer: the JSON of the largest
// sketch the extension keeps (infer::max_attributes at most 100000) is far
// smaller; Evidence.Check then bounds what is merged.
const maxEvidenceBytes = 256 << 20

// inferFrom reads every collector's sketch (or a saved evidence file),
// checks it against the limits and merges it into acc, one replica at a
// time: at most one replica's evidence is held beside acc. A collector
// that does not answer is bad input: the run stops and nothing is written.
func inferFrom(ctx context.Context, o *inferOptions, acc *infer.Accumulator) error {
	lim := o.lim
	lim.MaxServices = infer.MaxSketchServices // the extension's largest infer::max_services
	if ctx == nil {
		ctx = context.Background()
	}
	client := newFromClient()
	for _, src := range o.from {
		ev, err := readEvidence(ctx, client, src)
		if err != nil {
			return badInput(fmt.Errorf("--from %s: %w: nothing written", redactURL(src), err))
		}
		if err := ev.Check(lim); err != nil {
			return badInput(fmt.Errorf("--from %s: %w (raise --max-attributes or --max-groups if the collector's infer::max_attributes is larger): nothing written", redactURL(src), err))
		}
		acc.Merge(ev)
		mergedReplicas.Add(1)
	}
	ev := acc.Evidence()
	if len(ev.Attributes) == 0 && ev.Overflow.Attributes == 0 && acc.Empty() {
		return badInput(fmt.Errorf("nothing to infer from: the sketches of %s list no key the registry does not know", strings.Join(redactURLs(o.from), ", ")))
	}
	return nil
}

// mergedReplicas counts the evidence documents merged (a test hook: each
// is merged as soon as it is read).
var mergedReplicas atomic.Int64

// readEvidence reads one --from source: a collector's base URL
// (http:// or https://) or a file of saved evidence (--evidence-file).
func readEvidence(ctx context.Context, client *http.Client, src string) (*infer.Evidence, error) {
	if strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://") {
		return fetchEvidence(ctx, client, src)
	}
	f, err := os.Open(src) //nolint:gosec // a path the user gave
	if err != nil {
		return nil, fmt.Errorf("neither a collector's URL (http://HOST:PORT) nor a readable evidence file: %w", err)
	}
	defer f.Close()
	ev, err := infer.DecodeEvidence(io.LimitReader(f, maxEvidenceBytes+1))
	if err != nil {
		return nil, fmt.Errorf("not evidence saved by registry infer (--evidence-file): %w", err)
	}
	return ev, nil
}

// fetchEvidence GETs base's inference sketch.
func fetchEvidence(ctx context.Context, client *http.Client, base string) (*infer.Evidence, error) {
	var ev infer.Evidence
	if err := getFrom(ctx, client, base, evidenceDoc, &ev); err != nil {
		return nil, err
	}
	if ev.Attributes == nil {
		return nil, fmt.Errorf("GET %s: not the inference sketch's JSON: no attributes object", evidenceDoc.path)
	}
	if err := ev.NormalizeNumbers(); err != nil {
		return nil, fmt.Errorf("GET %s: %w", evidenceDoc.path, err)
	}
	return &ev, nil
}
