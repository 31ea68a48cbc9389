// Package e2e is the end-to-end harness: it runs the OCB-built
// otelcol-governance binary as a child process, talks real OTLP to it, receives
// its output at a real OTLP sink and scrapes its real internal telemetry.
// The e2e tests and the testbench build on it.
package e2e // import "github.com/otelgov/otelcol-governance/internal/e2e"

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BinaryEnv overrides the path of the collector binary under test.
const BinaryEnv = "OTELCOL_GOVERNANCE_BINARY"

// RepoRoot returns the directory holding the root go.mod.
func RepoRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatalf("getwd: %v", err)
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(data, []byte("module github.com/otelgov/otelcol-governance\n")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatalf("no otelcol-governance go.mod above the working directory")
		}
		dir = parent
	}
}

// Binary returns the path of the built collector. It fails the test, with the
// command that fixes it, when the binary has not been built.
func Binary(tb testing.TB) string {
	tb.Helper()
	path := os.Getenv(BinaryEnv)
	if path == "" {
		path = filepath.Join(RepoRoot(tb), "_build", "otelcol-governance")
	}
	if _, err := os.Stat(path); err != nil { //nolint:gosec // the binary path is the test operator's own choice
		tb.Fatalf("collector binary not found at %s (run `make build`, or set %s): %v", path, BinaryEnv, err)
	}
	return path
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago and
// that no other FreePort call of this process has returned: the kernel may
// hand a port just closed to the next listen(":0"), so the ports of one
// collector (FreePorts asks four in a row) or of two parallel tests could
// otherwise collide ("bind: address already in use").
func FreePort(tb testing.TB) int {
	tb.Helper()
	freePorts.Lock()
	defer freePorts.Unlock()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatalf("free port: %v", err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
		if !freePorts.given[p] {
			freePorts.given[p] = true
			return p
		}
	}
	tb.Fatalf("free port: 100 tries returned ports already handed out")
	return 0
}

// freePorts are the ports FreePort returned; guarded by its mutex.
var freePorts = struct {
	sync.Mutex
	given map[int]bool
}{given: map[int]bool{}}

// Run runs the binary with args to completion and returns its combined output.
func Run(tb testing.TB, args ...string) (string, error) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, Binary(tb), args...).CombinedOutput()
	return string(out), err
}

// Collector is a running collector child process.
type Collector struct {
	tb      testing.TB
	cmd     *exec.Cmd
	log     *syncBuffer
	done    chan struct{}
	waitErr error

	// HealthPort and MetricsPort are where health_check and the internal
	// telemetry Prometheus reader listen.
	HealthPort  int
	MetricsPort int
}

// Options tune StartCollector.
type Options struct {
	// Env is added to the child's environment, e.g. "GOMAXPROCS=1".
	Env []string
	// StartTimeout bounds the wait for health_check; default 30s.
	StartTimeout time.Duration
	// Cgroup, when set, is a cgroup directory (v1 or v2) the collector runs
	// in from its first instruction, so that what it reads of its memory
	// limit at start (the memory limiter's percentages) is that cgroup's:
	// a shell writes its own PID into cgroup.procs, then execs the
	// collector, which keeps that PID.
	Cgroup string
}

// StartCollector writes config to a temp file, starts the collector on it and
// waits until health_check on healthPort answers 200. metricsPort is where the
// config puts the internal telemetry reader (0 if it has none). The process is
// stopped in t.Cleanup, and its log is printed when the test failed.
func StartCollector(tb testing.TB, config string, healthPort, metricsPort int, opts Options) *Collector {
	tb.Helper()
	cfgPath := filepath.Join(tb.TempDir(), "config.yaml")
	if err := os.WriteFile(cfgPath, []byte(config), 0o600); err != nil {
		tb.Fatalf("write config: %v", err)
	}
	return StartCollectorFile(tb, cfgPath, healthPort, metricsPort, opts)
}

// StartCollectorFile is StartCollector for a config file that already exists.
func StartCollectorFile(tb testing.TB, cfgPath string, healthPort, metricsPort int, opts Options) *Collector {
	tb.Helper()
	c := &Collector{
		tb:          tb,
		log:         &syncBuffer{},
		done:        make(chan struct{}),
		HealthPort:  healthPort,
		MetricsPort: metricsPort,
	}
	c.cmd = exec.Command(Binary(tb), "--config", cfgPath)
	if opts.Cgroup != "" {
		c.cmd = exec.Command("/bin/sh", "-c", `echo $$ > "$0/cgroup.procs" && exec "$@"`, opts.Cgroup, Binary(tb), "--config", cfgPath) //nolint:gosec // the test's own binary and cgroup
	}
	c.cmd.Env = append(os.Environ(), opts.Env...)
	c.cmd.Stdout = c.log
	c.cmd.Stderr = c.log
	if err := c.cmd.Start(); err != nil {
		tb.Fatalf("start collector: %v", err)
	}
	go func() {
		c.waitErr = c.cmd.Wait()
		close(c.done)
	}()
	tb.Cleanup(func() {
		c.Stop()
		if tb.Failed() {
			tb.Logf("collector log:\n%s", c.log.String())
		}
	})
	timeout := opts.StartTimeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	if err := c.waitHealthy(timeout); err != nil {
		tb.Fatalf("collector not healthy: %v\ncollector log:\n%s", err, c.log.String())
	}
	return c
}

func (c *Collector) waitHealthy(timeout time.Duration) error {
	url := "http://127.0.0.1:" + strconv.Itoa(c.HealthPort) + "/"
	deadline := time.Now().Add(timeout)
	var lastErr error
	for time.Now().Before(deadline) {
		select {
		case <-c.done:
			return fmt.Errorf("collector exited during start-up: %w", c.waitErr)
		default:
		}
		resp, err := http.Get(url) //nolint:gosec // loopback URL built from a port number
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			lastErr = fmt.Errorf("health_check answered %d", resp.StatusCode)
		} else {
			lastErr = err
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("no 200 from %s within %s: %w", url, timeout, lastErr)
}

// PID of the child process.
func (c *Collector) PID() int { return c.cmd.Process.Pid }

// Log returns what the collector has written so far.
func (c *Collector) Log() string { return c.log.String() }

// Exited reports whether the process has ended.
func (c *Collector) Exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// Stop sends SIGTERM and waits for a clean exit (SIGKILL after 20s). It fails
// the test when the collector did not shut down cleanly. Safe to call twice.
func (c *Collector) Stop() {
	c.tb.Helper()
	if c.Exited() {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(20 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
		c.tb.Errorf("collector did not stop within 20s of SIGTERM")
		return
	}
	var exitErr *exec.ExitError
	if c.waitErr != nil && !errors.As(c.waitErr, &exitErr) {
		c.tb.Errorf("collector wait: %v", c.waitErr)
	} else if c.waitErr != nil {
		c.tb.Errorf("collector exited uncleanly: %v", c.waitErr)
	}
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
