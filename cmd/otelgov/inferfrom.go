package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/otelgov/otelcol-governance/infer"
)

// evidencePath is where the governance_registry extension serves its
// inference sketch (infer: enabled).
const evidencePath = "/infer/evidence"

// fromTimeout bounds one collector's answer.
const fromTimeout = 30 * time.Second

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
	client := &http.Client{Timeout: fromTimeout}
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

// fetchEvidence GETs base's /infer/evidence and decodes it.
func fetchEvidence(ctx context.Context, client *http.Client, base string) (*infer.Evidence, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("not a base URL (want http://HOST:PORT or https://HOST:PORT of the governance_registry extension)")
	}
	u = u.JoinPath(evidencePath)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), http.NoBody)
	if err != nil {
		return nil, fmt.Errorf("request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is already named, maybe with credentials
		}
		return nil, fmt.Errorf("the collector does not answer: %w", err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, fmt.Errorf("GET %s: 404: the collector serves no inference sketch: set infer::enabled: true on its governance_registry extension", evidencePath)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, fmt.Errorf("GET %s: %s: the extension's http::auth refused the request (give credentials in the URL for basicauth)", evidencePath, resp.Status)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("GET %s: %s", evidencePath, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxEvidenceBytes+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: reading the answer: %w", evidencePath, err)
	}
	if len(body) > maxEvidenceBytes {
		return nil, fmt.Errorf("GET %s: answer larger than %d bytes: not a sketch of the governance_registry extension", evidencePath, maxEvidenceBytes)
	}
	var ev infer.Evidence
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ev); err != nil {
		return nil, fmt.Errorf("GET %s: not the inference sketch's JSON: %w", evidencePath, err)
	}
	if ev.Attributes == nil {
		return nil, fmt.Errorf("GET %s: not the inference sketch's JSON: no attributes object", evidencePath)
	}
	return &ev, nil
}

// redactURL is base without its password, for messages.
func redactURL(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return fmt.Sprintf("%q", base)
	}
	return u.Redacted()
}

func redactURLs(bases []string) []string {
	out := make([]string, len(bases))
	for i, b := range bases {
		out[i] = redactURL(b)
	}
	return out
}
