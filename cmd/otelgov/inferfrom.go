package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/otelgov/otelcol-governance/infer"
)

// maxEvidenceBytes bounds one collector's answer: the JSON of the largest
// sketch the extension keeps (infer::max_attributes at most 100000) is far
// smaller; Evidence.Check then bounds what is merged.
const maxEvidenceBytes = 256 << 20

// inferFrom fetches every collector's sketch, checks each against the
// limits and merges them into acc. Nothing is merged until every
// collector has answered: one that does not is bad input, and nothing is
// written.
func inferFrom(ctx context.Context, o *inferOptions, acc *infer.Accumulator) error {
	lim := o.lim
	lim.MaxServices = infer.MaxSketchServices // the extension's largest infer::max_services
	if ctx == nil {
		ctx = context.Background()
	}
	client := newFromClient()
	got := make([]*infer.Evidence, 0, len(o.from))
	for _, base := range o.from {
		ev, err := fetchEvidence(ctx, client, base)
		if err != nil {
			return badInput(fmt.Errorf("--from %s: %w: nothing written", redactURL(base), err))
		}
		if err := ev.Check(lim); err != nil {
			return badInput(fmt.Errorf("--from %s: %w (raise --max-attributes or --max-groups if the collector's infer::max_attributes is larger): nothing written", redactURL(base), err))
		}
		got = append(got, ev)
	}
	for _, ev := range got {
		acc.Merge(ev)
	}
	ev := acc.Evidence()
	if len(ev.Attributes) == 0 && ev.Overflow.Attributes == 0 {
		return badInput(fmt.Errorf("nothing to infer from: the sketches of %s list no key the registry does not know", strings.Join(redactURLs(o.from), ", ")))
	}
	return nil
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
	return &ev, nil
}
