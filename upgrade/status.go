package upgrade

import (
	"fmt"
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
}

// Evaluate answers from the fleet over the window and the consumers read
// against the new registry (nil when none were named).
func Evaluate(f *Fleet, c *Consumers, window time.Duration) *Status {
	s := &Status{Window: window, Reasons: []string{}, Sent: f.Sent, Reads: []Read{}, Services: f.Services}
	if !f.Covered {
		s.Reasons = append(s.Reasons, fmt.Sprintf("the window is not observed in full: Prometheus holds no governance processor series from before the last %s", promDuration(window)))
	}
	for _, e := range f.Sent {
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
