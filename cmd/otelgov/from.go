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
	"time"
)

// A running collector is named by --from: the base URL of its
// governance_registry extension's HTTP server (http://HOST:PORT or
// https://HOST:PORT; basic-auth credentials may be given in the URL).
// otelgov registry infer reads its inference sketch (evidenceDoc),
// otelgov upgrade plan its conformance report (conformanceDoc); both
// through getFrom, so that both name a collector and its failures alike.

// fromTimeout bounds one collector's answer.
const fromTimeout = 30 * time.Second

// fromDoc is a document of the extension that --from reads.
type fromDoc struct {
	path string // under the base URL
	what string // its name in messages
	max  int64  // the largest answer read
	off  string // what a 404 means (a document served only when a setting is on)
	// numbers decodes JSON numbers as json.Number (the evidence's ints
	// stay exact).
	numbers bool
}

var (
	// evidenceDoc is the inference sketch (infer::enabled), for registry infer.
	evidenceDoc = fromDoc{
		path: "/infer/evidence", what: "the inference sketch", max: maxEvidenceBytes, numbers: true,
		off: "the collector serves no inference sketch: set infer::enabled: true on its governance_registry extension",
	}
	// conformanceDoc is the conformance report, for upgrade plan; its lists
	// are bounded by the extension's top_keys and service_limit, far below max.
	conformanceDoc = fromDoc{
		path: "/conformance", what: "the conformance report", max: 64 << 20,
		off: "the collector serves no conformance report: is this its governance_registry extension?",
	}
)

// newFromClient is the HTTP client of every --from request.
func newFromClient() *http.Client { return &http.Client{Timeout: fromTimeout} }

// getFrom GETs d from the collector at base and decodes its JSON into v,
// reading at most d.max bytes and refusing fields v does not have. Errors
// do not repeat the URL (callers name it with redactURL: it may hold
// credentials).
func getFrom(ctx context.Context, client *http.Client, base string, d fromDoc, v any) error {
	path := d.path
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("not a base URL (want http://HOST:PORT or https://HOST:PORT of the governance_registry extension)")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.JoinPath(path).String(), http.NoBody)
	if err != nil {
		return fmt.Errorf("request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is named by the caller, without credentials
		}
		return fmt.Errorf("the collector does not answer: %w", err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return fmt.Errorf("GET %s: 404: %s", path, d.off)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return fmt.Errorf("GET %s: %s: the extension's http::auth refused the request (give credentials in the URL for basicauth)", path, resp.Status)
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, d.max+1))
	if err != nil {
		return fmt.Errorf("GET %s: reading the answer: %w", path, err)
	}
	if int64(len(body)) > d.max {
		return fmt.Errorf("GET %s: answer larger than %d bytes: not %s of the governance_registry extension", path, d.max, d.what)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if d.numbers {
		dec.UseNumber() // ints exact, past 2^53 too
	}
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("GET %s: not %s's JSON: %w", path, d.what, err)
	}
	return nil
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
