package testbench

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat. It
// is 100 on every Linux architecture the collector ships for.
const clockTicks = 100

// Usage is one reading of a process's resource use.
type Usage struct {
	// CPU is user plus system time of all threads.
	CPU time.Duration
	// RSS is the current resident set (VmRSS), PeakRSS the high-water mark
	// since the process started (VmHWM), both in bytes. RSSAnon and RSSFile
	// split RSS (RssAnon, RssFile): the process's own memory, and the pages
	// of files it maps (its binary's above all), which the page cache
	// shares with every process that maps the same file.
	RSS, PeakRSS, RSSAnon, RSSFile uint64
	// RunqueueWait is how long the process's live threads waited for a CPU
	// while runnable (/proc/<pid>/task/*/schedstat): how much the rest of
	// the machine disturbed the measurement. OnCPU is how long they ran, to
	// the nanosecond (CPU is in clock ticks); both 0 without schedstats.
	RunqueueWait, OnCPU time.Duration
	At                  time.Time
}

// ReadUsage reads /proc/<pid>/stat and /proc/<pid>/status.
func ReadUsage(pid int) (Usage, error) {
	u := Usage{At: time.Now()}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return u, err
	}
	// Fields after the command name, which is in parentheses and may hold
	// spaces: state is field 3, utime 14 and stime 15 (1-based).
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return u, fmt.Errorf("parse /proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return u, fmt.Errorf("parse /proc/%d/stat: %d fields", pid, len(f))
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return u, fmt.Errorf("parse /proc/%d/stat utime %q stime %q", pid, f[11], f[12])
	}
	u.CPU = time.Duration(ut+st) * time.Second / clockTicks //nolint:gosec // ticks of one process
	u.OnCPU, u.RunqueueWait = schedstat(pid)
	err = readKB("/proc/"+strconv.Itoa(pid)+"/status", map[string]*uint64{
		"VmRSS": &u.RSS, "VmHWM": &u.PeakRSS, "RssAnon": &u.RSSAnon, "RssFile": &u.RSSFile,
	})
	return u, err
}

// ReadPSS reads a process's proportional set size (Pss in
// /proc/<pid>/smaps_rollup), in bytes: its resident pages, each shared
// page divided by the number of processes that map it. Of collectors of
// one binary side by side, it is what each costs the node.
func ReadPSS(pid int) (uint64, error) {
	var pss uint64
	err := readKB("/proc/"+strconv.Itoa(pid)+"/smaps_rollup", map[string]*uint64{"Pss": &pss})
	return pss, err
}

// readKB reads the "Name: <n> kB" lines of a /proc file into fields, in
// bytes; a field the file lacks is an error.
func readKB(path string, fields map[string]*uint64) error {
	b, err := os.ReadFile(path) //nolint:gosec // a /proc path of a process the harness started
	if err != nil {
		return err
	}
	found := 0
	for line := range strings.SplitSeq(string(b), "\n") {
		name, val, ok := strings.Cut(line, ":")
		dst := fields[name]
		if !ok || dst == nil {
			continue
		}
		kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 10, 64)
		if err != nil {
			return fmt.Errorf("parse %s %s: %w", path, name, err)
		}
		*dst = kb << 10
		found++
	}
	if found < len(fields) {
		return fmt.Errorf("parse %s: %d of the fields %v", path, found, slices.Sorted(maps.Keys(fields)))
	}
	return nil
}

// schedstat sums the first two fields of every thread's schedstat: time
// on a CPU and time waiting for one; 0 when the kernel has no schedstats.
func schedstat(pid int) (onCPU, wait time.Duration) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0
	}
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/schedstat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) < 2 {
			continue
		}
		if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			onCPU += time.Duration(n)
		}
		if n, err := strconv.ParseInt(f[1], 10, 64); err == nil {
			wait += time.Duration(n)
		}
	}
	return onCPU, wait
}

// Monitor samples a process's usage periodically and keeps the peak RSS seen
// and the CPU time between Mark and the latest sample.
type Monitor struct {
	pid  int
	stop chan struct{}
	done chan struct{}

	mu      sync.Mutex
	mark    Usage
	last    Usage
	maxRSS  uint64
	samples int
	err     error
}

// StartMonitor samples pid every interval until Stop.
func StartMonitor(pid int, interval time.Duration) (*Monitor, error) {
	u, err := ReadUsage(pid)
	if err != nil {
		return nil, err
	}
	m := &Monitor{pid: pid, stop: make(chan struct{}), done: make(chan struct{}), mark: u, last: u, maxRSS: u.RSS}
	go m.loop(interval)
	return m, nil
}

func (m *Monitor) loop(interval time.Duration) {
	defer close(m.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			m.sample()
		}
	}
}

func (m *Monitor) sample() Usage {
	u, err := ReadUsage(m.pid)
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		m.err = err
		return m.last
	}
	m.last = u
	m.maxRSS = max(m.maxRSS, u.RSS)
	m.samples++
	return u
}

// Mark starts the measured window now.
func (m *Monitor) Mark() {
	u := m.sample()
	m.mu.Lock()
	m.mark = u
	m.mu.Unlock()
}

// Window is the resource use over a measured window.
type Window struct {
	CPU      time.Duration // CPU time used in the window
	Wall     time.Duration
	PeakRSS  uint64 // VmHWM at the end: the process's high-water mark
	RSS      uint64 // VmRSS at the end
	MaxRSS   uint64 // the largest VmRSS sampled
	Samples  int
	CPUShare float64 // CPU / Wall: cores used on average
	// WaitShare is runqueue wait / Wall: how many of the collector's
	// threads, on average, were runnable but had no CPU.
	WaitShare float64
}

// Read samples now and returns the window since Mark.
func (m *Monitor) Read() (Window, error) {
	u := m.sample()
	m.mu.Lock()
	defer m.mu.Unlock()
	w := Window{
		CPU:     u.CPU - m.mark.CPU,
		Wall:    u.At.Sub(m.mark.At),
		PeakRSS: u.PeakRSS,
		RSS:     u.RSS,
		MaxRSS:  m.maxRSS,
		Samples: m.samples,
	}
	if w.Wall > 0 {
		w.CPUShare = w.CPU.Seconds() / w.Wall.Seconds()
		w.WaitShare = max(0, (u.RunqueueWait-m.mark.RunqueueWait).Seconds()/w.Wall.Seconds())
	}
	return w, m.err
}

// Stop ends sampling.
func (m *Monitor) Stop() {
	select {
	case <-m.stop:
	default:
		close(m.stop)
	}
	<-m.done
}
