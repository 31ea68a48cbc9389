package e2e

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Scrape fetches the Prometheus text exposition at 127.0.0.1:port/metrics
// and parses it with Prometheus' own parser.
func Scrape(port int) (Families, error) {
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/metrics"
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", url, err)
	}
	return Families(fams), nil
}

// MustScrape is Scrape that fails the test on error.
func MustScrape(tb testing.TB, port int) Families {
	tb.Helper()
	f, err := Scrape(port)
	if err != nil {
		tb.Fatalf("scrape: %v", err)
	}
	return f
}

// Families is a parsed scrape, by metric family name.
type Families map[string]*dto.MetricFamily

// Sum adds up the values of every series of family name whose labels include
// all of labels. found is false when no series matched.
func (f Families) Sum(name string, labels map[string]string) (sum float64, found bool) {
	fam, ok := f[name]
	if !ok {
		return 0, false
	}
	for _, m := range fam.GetMetric() {
		if !hasLabels(m, labels) {
			continue
		}
		found = true
		switch {
		case m.GetCounter() != nil:
			sum += m.GetCounter().GetValue()
		case m.GetGauge() != nil:
			sum += m.GetGauge().GetValue()
		case m.GetUntyped() != nil:
			sum += m.GetUntyped().GetValue()
		case m.GetHistogram() != nil:
			sum += float64(m.GetHistogram().GetSampleCount())
		}
	}
	return sum, found
}

// Series returns the label sets of every series of family name.
func (f Families) Series(name string) []map[string]string {
	fam, ok := f[name]
	if !ok {
		return nil
	}
	out := make([]map[string]string, 0, len(fam.GetMetric()))
	for _, m := range fam.GetMetric() {
		labels := make(map[string]string, len(m.GetLabel()))
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		out = append(out, labels)
	}
	return out
}

func hasLabels(m *dto.Metric, want map[string]string) bool {
	for k, v := range want {
		ok := false
		for _, l := range m.GetLabel() {
			if l.GetName() == k && l.GetValue() == v {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
