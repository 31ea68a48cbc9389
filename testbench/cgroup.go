package testbench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// MemoryCgroup is a memory cgroup the testbench made, with a limit: what a
// pod's limits.memory is to its container. Version 1 (memory controller
// under /sys/fs/cgroup/memory) and version 2 (/sys/fs/cgroup) are both
// handled.
type MemoryCgroup struct {
	Dir string
	v2  bool
}

// NewMemoryCgroup makes a cgroup named name with a memory limit of limit
// bytes, removed at the end of tb (after the processes in it are gone). It
// skips tb where cgroups cannot be made (no root, a read-only
// /sys/fs/cgroup).
func NewMemoryCgroup(tb testing.TB, name string, limit int64) *MemoryCgroup {
	tb.Helper()
	cg := &MemoryCgroup{Dir: filepath.Join("/sys/fs/cgroup/memory", name)}
	limitFile := "memory.limit_in_bytes"
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		cg = &MemoryCgroup{Dir: filepath.Join("/sys/fs/cgroup", name), v2: true}
		limitFile = "memory.max"
	}
	if err := os.Mkdir(cg.Dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) { //nolint:gosec // a cgroup directory
		tb.Skipf("no memory cgroup here (%v): the run needs root and a writable /sys/fs/cgroup", err)
	}
	tb.Cleanup(func() {
		// rmdir fails while a process is still in it; the collector's
		// own cleanup stops it first, but may still be exiting.
		for range 50 {
			if err := os.Remove(cg.Dir); err == nil || errors.Is(err, os.ErrNotExist) {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		tb.Logf("cgroup %s left behind", cg.Dir)
	})
	if err := os.WriteFile(filepath.Join(cg.Dir, limitFile), []byte(strconv.FormatInt(limit, 10)), 0o600); err != nil {
		tb.Fatalf("memory cgroup %s: %v", cg.Dir, err)
	}
	if !cg.v2 {
		// Without it, the cgroup's peak carries an earlier run's.
		_ = os.WriteFile(filepath.Join(cg.Dir, "memory.max_usage_in_bytes"), []byte("0"), 0o600)
	}
	return cg
}

// CgroupUsage is what the kernel accounts to a memory cgroup.
type CgroupUsage struct {
	Current, Peak uint64 // bytes charged now, and the high-water mark
	OOMKills      uint64 // processes the kernel's OOM killer ended in it
	LimitHits     uint64 // times usage reached the limit (v1 memory.failcnt; v2 memory.events max)
}

// Read reads the cgroup's counters.
func (c *MemoryCgroup) Read() (CgroupUsage, error) {
	var u CgroupUsage
	files := map[string]*uint64{"memory.usage_in_bytes": &u.Current, "memory.max_usage_in_bytes": &u.Peak, "memory.failcnt": &u.LimitHits}
	events, eventsFile := map[string]*uint64{"oom_kill": &u.OOMKills}, "memory.oom_control"
	if c.v2 {
		files = map[string]*uint64{"memory.current": &u.Current, "memory.peak": &u.Peak}
		events, eventsFile = map[string]*uint64{"oom_kill": &u.OOMKills, "max": &u.LimitHits}, "memory.events"
	}
	for name, dst := range files {
		b, err := os.ReadFile(filepath.Join(c.Dir, name)) //nolint:gosec // a cgroup file
		if err != nil {
			return u, err
		}
		if *dst, err = strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err != nil {
			return u, fmt.Errorf("%s/%s: %w", c.Dir, name, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(c.Dir, eventsFile)) //nolint:gosec // a cgroup file
	if err != nil {
		return u, err
	}
	for line := range strings.Lines(string(b)) {
		k, v, _ := strings.Cut(strings.TrimSpace(line), " ")
		if dst, ok := events[k]; ok {
			*dst, _ = strconv.ParseUint(v, 10, 64)
		}
	}
	return u, nil
}
