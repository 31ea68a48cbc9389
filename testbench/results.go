package testbench

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// ResultsDirEnv names the directory where full runs write their JSON results
// (benchmarks/results under `make bench`). Unset: nothing is written.
const ResultsDirEnv = "TESTBENCH_RESULTS"

// Machine describes where a run happened, so that a results set can be read
// and reproduced.
type Machine struct {
	CPU        string    `json:"cpu"`
	Cores      int       `json:"cores"`
	MemTotal   string    `json:"mem_total"`
	Kernel     string    `json:"kernel"`
	Go         string    `json:"go"`
	Commit     string    `json:"commit"`
	LoadBefore string    `json:"loadavg_before"`
	LoadAfter  string    `json:"loadavg_after,omitempty"`
	Start      time.Time `json:"start"`
	End        time.Time `json:"end,omitzero"`
}

// DescribeMachine reads /proc and git; missing facts stay empty.
func DescribeMachine() Machine {
	m := Machine{Cores: runtime.NumCPU(), Go: runtime.Version(), Start: time.Now().UTC(), LoadBefore: loadavg()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && k == "MemTotal" {
				m.MemTotal = strings.TrimSpace(v)
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		m.Commit = strings.TrimSpace(string(out))
	}
	return m
}

// Finish records the end of the run.
func (m *Machine) Finish() {
	m.End = time.Now().UTC()
	m.LoadAfter = loadavg()
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// SaveResult writes v as <name>.json into $TESTBENCH_RESULTS, if set.
func SaveResult(tb testing.TB, name string, v any) {
	tb.Helper()
	dir := os.Getenv(ResultsDirEnv)
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o750); err != nil { //nolint:gosec // the operator names the results directory
		tb.Fatalf("results dir: %v", err)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		tb.Fatalf("marshal %s: %v", name, err)
	}
	path := filepath.Join(dir, name+".json")
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil { //nolint:gosec // results are for reading
		tb.Fatalf("write %s: %v", path, err)
	}
	tb.Logf("wrote %s", path)
}
