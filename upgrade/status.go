package upgrade

import (
	"fmt"
	"strings"
	"time"
)

// Status says whether an upgrade's transition window can end: no service
// sent an old name over the window and no dashboard or rule reads one.
type Status struct {
	Window time.Duration `json:"window"`
	// Done: the window can end (deprecated_names removed).
	Done bool `json:"done"`
	// Reasons say why not yet, one line each; empty when Done.
	Reasons []string `json:"reasons"`
	// Sent are the old names services sent over the window.
	Sent []Sent `json:"sent"`
	// Reads are the reads of old names left in the consumers.
	Reads []Read `json:"reads"`
	// Services are every service the collectors saw over the window.
	Services []string `json:"services"`
	// Instances are the governance processor instances scraped over the
	// window and the transition each runs.
	Instances []Instance `json:"instances"`
	// Notes qualify the evidence (a shadow's sample); they do not hold the
	// window open.
	Notes []string `json:"notes"`
}

// Evaluate answers from the fleet over the window and the consumers read
// against the new registry (nil when none were named).
func Evaluate(f *Fleet, c *Consumers, window time.Duration) *Status {
	s := &Status{Window: window, Reasons: []string{}, Sent: f.Sent, Reads: []Read{}, Services: f.Services, Instances: f.Instances, Notes: f.Notes}
	if s.Notes == nil {
		s.Notes = []string{}
	}
	if s.Instances == nil {
		s.Instances = []Instance{}
	}
	// Counts prove an absence only where the transition is in force on
	// every instance: never "done" from missing series.
	if !f.InForce {
		if len(f.Why) == 0 {
			s.Reasons = append(s.Reasons, "the transition configuration is not known to be in force on any instance")
		}
		s.Reasons = append(s.Reasons, f.Why...)
	}
	if !f.Covered {
		s.Reasons = append(s.Reasons, fmt.Sprintf("the window is not observed in full: Prometheus holds no governance processor series from before the last %s", promDuration(window)))
	}
	for _, e := range f.Sent {
		if e.Sampled {
			s.Reasons = append(s.Reasons, fmt.Sprintf("service %q sent names the change renames: the shadow counted %d %s change(s) over the window on its sample", e.Service, e.Count, strings.Join(e.Kinds, ", ")))
			continue
		}
		s.Reasons = append(s.Reasons, fmt.Sprintf("service %q sent the old name %s %d time(s) over the window (%.3g/s)", e.Service, e.Name, e.Count, e.Rate))
	}
	if len(f.Sent) == 0 && f.Copied > 0 {
		s.Reasons = append(s.Reasons, fmt.Sprintf("the collectors copied %.0f deprecated name(s) over the window but counted none in otelcol_processor_governance_service_deprecated_names: is the plan's configuration (deprecated_names) in force?", f.Copied))
	}
	if c != nil {
		for _, r := range c.Reads {
			if !r.Breaks {
				continue
			}
			s.Reads = append(s.Reads, r)
			s.Reasons = append(s.Reasons, fmt.Sprintf("%s:%d: %s reads the old name %s", r.File, r.Line, r.Where, r.Name))
		}
		if c.Unreadable > 0 {
			s.Reasons = append(s.Reasons, fmt.Sprintf("%d consumer input(s) could not be read, so what they read is unknown", c.Unreadable))
		}
	}
	s.Done = len(s.Reasons) == 0
	return s
}
