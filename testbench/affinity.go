package testbench

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// Pin sets the CPU affinity of every thread of pid to cpus (a list such as
// "0" or "0-1"), as `taskset -a -p -c` does. Threads the process starts
// later inherit it from the thread that starts them.
func Pin(pid int, cpus string) error {
	out, err := exec.Command("taskset", "-a", "-p", "-c", cpus, strconv.Itoa(pid)).CombinedOutput() //nolint:gosec // a CPU list and a PID
	if err != nil {
		return fmt.Errorf("taskset -a -p -c %s %d (taskset is in util-linux): %w: %s", cpus, pid, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// ThreadCPUs returns, for every thread of pid, its Cpus_allowed_list from
// /proc/<pid>/task/<tid>/status, keyed by thread ID. Threads that end while
// it reads are left out.
func ThreadCPUs(pid int) (map[string]string, error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(tasks))
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/status")
		if err != nil {
			continue
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
				out[t.Name()] = strings.TrimSpace(v)
			}
		}
	}
	return out, nil
}

// checkPinned reports the threads of pid allowed on other CPUs than cpus.
func checkPinned(pid int, cpus string) error {
	threads, err := ThreadCPUs(pid)
	if err != nil {
		return err
	}
	var off []string
	for tid, allowed := range threads {
		if allowed != cpus {
			off = append(off, tid+":"+allowed)
		}
	}
	if len(off) > 0 {
		return fmt.Errorf("%d of %d threads of %d not pinned to CPU %s: %s", len(off), len(threads), pid, cpus, strings.Join(off, ", "))
	}
	return nil
}
