package registryextension // import "github.com/otelgov/otelcol-governance/extension/registryextension"

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/otelgov/otelcol-governance/conformance"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componentstatus"
	"go.opentelemetry.io/collector/extension"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/otelgov/otelcol-governance/extension/registryextension/internal/metadata"
	"github.com/otelgov/otelcol-governance/extension/registryextension/registryapi"
	"github.com/otelgov/otelcol-governance/registry"
)

// registryExtension holds the registry in force behind an atomic pointer.
// Processors load it once per batch, so a reload never blocks or drops a
// batch: batches that loaded the old snapshot finish on it, later batches
// get the new one.
type registryExtension struct {
	cfg    *Config
	id     component.ID
	set    component.TelemetrySettings
	logger *zap.Logger
	tb     *metadata.TelemetryBuilder
	report *conformance.Report
	// sketch is the inference sketch; nil when infer is off.
	sketch *sketch

	cur atomic.Pointer[registryapi.Snapshot]
	// shadow is the candidate against cur (shadow.go); nil without a
	// candidate section. cand is its reload state.
	shadow atomic.Pointer[registryapi.Shadow]
	cand   candidateState
	status atomic.Pointer[registryapi.ComponentStatus]

	// Reload state, written by the poll goroutine, read by the HTTP
	// handlers and the metric callbacks.
	mu        sync.Mutex
	goodFiles fileSums
	goodSum   [sha256.Size]byte
	badSum    [sha256.Size]byte
	lastErr   *registryapi.ReloadError
	lastCheck time.Time

	resultSuccess metric.AddOption
	resultFailure metric.AddOption

	host       component.Host
	stop       chan struct{}
	pollDone   chan struct{}
	server     *http.Server
	serverDone chan struct{}
}

var (
	_ extension.Extension  = (*registryExtension)(nil)
	_ registryapi.Registry = (*registryExtension)(nil)
)

func newRegistryExtension(set extension.Settings, cfg *Config) (*registryExtension, error) {
	tb, err := metadata.NewTelemetryBuilder(set.TelemetrySettings)
	if err != nil {
		return nil, fmt.Errorf("create telemetry: %w", err)
	}
	return &registryExtension{
		cfg:           cfg,
		id:            set.ID,
		set:           set.TelemetrySettings,
		logger:        set.Logger,
		tb:            tb,
		report:        conformance.New(conformance.Limits{MaxServices: cfg.Report.MaxServices, TopKeys: cfg.Report.TopKeys}, time.Now()),
		sketch:        newSketch(&cfg.Infer),
		resultSuccess: metric.WithAttributeSet(attribute.NewSet(attribute.String("result", "success"))),
		resultFailure: metric.WithAttributeSet(attribute.NewSet(attribute.String("result", "failure"))),
	}, nil
}

// Current returns the registry in force; nil only before Start.
func (e *registryExtension) Current() *registryapi.Snapshot {
	return e.cur.Load()
}

// Report merges one batch into the conformance report.
func (e *registryExtension) Report(b *registryapi.Batch) {
	if over := e.report.Add(b, time.Now()); over > 0 {
		e.tb.ExtensionGovernanceRegistryReportOverflow.Add(context.Background(), over)
	}
	if e.sketch != nil {
		e.sketch.add(b)
	}
}

// Start takes over the registry Validate resolved, or loads it when the
// files changed since or Validate did not run (a failure fails the
// collector's start: there is no last good registry yet), then starts the HTTP endpoint and the poller.
func (e *registryExtension) Start(ctx context.Context, host component.Host) error {
	e.host = host
	files, sum, err := fingerprint(e.cfg.watched())
	if err != nil {
		return err
	}
	ix, pol := e.cfg.takeValidated(sum)
	if ix == nil {
		if ix, pol, err = e.cfg.load(); err != nil {
			return err
		}
	}
	now := time.Now()
	e.mu.Lock()
	e.goodFiles, e.goodSum, e.lastCheck = files, sum, now
	e.mu.Unlock()
	e.cur.Store(&registryapi.Snapshot{Index: ix, Generation: 1, LoadedAt: now, Policies: pol})
	e.checkCandidate()

	if err := e.registerCallbacks(); err != nil {
		return err
	}
	endpoint := ""
	if srv := e.cfg.HTTP.Get(); srv != nil {
		ln, err := srv.ToListener(ctx)
		if err != nil {
			return fmt.Errorf("listen on %s: %w", srv.NetAddr.Endpoint, err)
		}
		e.server, err = srv.ToServer(ctx, host.GetExtensions(), e.set, e.handler())
		if err != nil {
			_ = ln.Close()
			return fmt.Errorf("create http server: %w", err)
		}
		endpoint = ln.Addr().String()
		e.serverDone = make(chan struct{})
		go func() {
			defer close(e.serverDone)
			if err := e.server.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				componentstatus.ReportStatus(host, componentstatus.NewFatalErrorEvent(fmt.Errorf("serve %s: %w", endpoint, err)))
			}
		}()
	}
	if e.cfg.PollInterval > 0 {
		e.stop, e.pollDone = make(chan struct{}), make(chan struct{})
		go e.poll(e.cfg.PollInterval)
	}
	e.logger.Info("Governance registry started",
		zap.Int64("generation", 1),
		zap.String("digest", ix.Digest()),
		zap.String("schema_url", ix.SchemaURL()),
		zap.Int("watched_files", len(files)),
		zap.Duration("poll_interval", e.cfg.PollInterval),
		zap.String("endpoint", endpoint))
	logWarnings(e.logger, ix)
	return nil
}

// logWarnings logs, once per load, what the registry accepted with
// leniency (registry.Index.Warnings: a shipped rule left out on another
// release, a manifest's remote dependency pinning another release than
// the one in force), as otelgov check and diff print them.
func logWarnings(logger *zap.Logger, ix *registry.Index) {
	for _, w := range ix.Warnings() {
		logger.Warn("Registry loaded with a warning", zap.String("warning", w))
	}
}

// Shutdown stops the poller and the HTTP endpoint. It is safe without Start.
func (e *registryExtension) Shutdown(ctx context.Context) error {
	if e.stop != nil {
		close(e.stop)
		<-e.pollDone
		e.stop = nil
	}
	var err error
	if e.server != nil {
		err = e.server.Shutdown(ctx)
		<-e.serverDone
		e.server = nil
	}
	e.tb.Shutdown()
	if err != nil {
		return fmt.Errorf("shut down http server: %w", err)
	}
	return nil
}

func (e *registryExtension) registerCallbacks() error {
	err := e.tb.RegisterExtensionGovernanceRegistryInfoCallback(func(_ context.Context, o metric.Int64Observer) error {
		if s := e.cur.Load(); s != nil {
			o.Observe(1, metric.WithAttributes(
				attribute.String("schema_url", s.Index.SchemaURL()),
				attribute.String("digest", s.Index.Digest()),
				attribute.Int64("generation", s.Generation)))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("register registry info callback: %w", err)
	}
	err = e.tb.RegisterExtensionGovernanceRegistryReloadFailingCallback(func(_ context.Context, o metric.Int64Observer) error {
		e.mu.Lock()
		failing := e.lastErr != nil
		e.mu.Unlock()
		v := int64(0)
		if failing {
			v = 1
		}
		o.Observe(v)
		return nil
	})
	if err != nil {
		return fmt.Errorf("register reload failing callback: %w", err)
	}
	return nil
}

// poll checks the watched files every interval. Polling, not inotify: see
// fingerprint for why content is compared.
func (e *registryExtension) poll(interval time.Duration) {
	defer close(e.pollDone)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-t.C:
			e.check()
			e.checkCandidate()
		}
	}
}

// check reloads the registry when the content of the watched files changed.
// Only the poll goroutine (and tests) call it.
func (e *registryExtension) check() {
	ctx := context.Background()
	files, sum, ferr := fingerprint(e.cfg.watched())
	if ferr != nil {
		// A missing or unreadable file: remember the error as the state.
		sum = sha256.Sum256([]byte(ferr.Error()))
	}
	e.mu.Lock()
	e.lastCheck = time.Now()
	good, bad, failing, before := e.goodSum, e.badSum, e.lastErr != nil, e.goodFiles
	e.mu.Unlock()

	switch {
	case sum == good:
		if failing {
			// The files are back to what is in force: nothing to load.
			e.recovered()
			e.logger.Info("Registry files are back to the registry in force", zap.Int64("generation", e.cur.Load().Generation))
		}
		return
	case failing && sum == bad:
		return // already reported
	}

	if ferr != nil {
		e.fail(ctx, sum, nil, ferr)
		return
	}
	ix, pol, err := e.cfg.load()
	diff := changed(before, files)
	if err != nil {
		e.fail(ctx, sum, diff, err)
		return
	}
	prev := e.cur.Load()
	next := &registryapi.Snapshot{Index: ix, Generation: prev.Generation + 1, LoadedAt: time.Now(), Policies: pol}
	e.cur.Store(next)
	e.mu.Lock()
	e.goodFiles, e.goodSum = files, sum
	e.mu.Unlock()
	if failing {
		e.recovered()
	}
	e.tb.ExtensionGovernanceRegistryReloads.Add(ctx, 1, e.resultSuccess)
	e.logger.Info("Registry reloaded",
		zap.Int64("generation", next.Generation),
		zap.String("digest", ix.Digest()),
		zap.String("previous_digest", prev.Index.Digest()),
		zap.String("schema_url", ix.SchemaURL()),
		zap.Strings("changed_files", diff))
	logWarnings(e.logger, ix)
}

// fail keeps the last good registry and reports the error once per distinct
// state of the files.
func (e *registryExtension) fail(ctx context.Context, sum [sha256.Size]byte, files []string, err error) {
	if files == nil {
		files = []string{}
	}
	e.mu.Lock()
	e.badSum = sum
	e.lastErr = &registryapi.ReloadError{At: time.Now(), Error: err.Error(), Files: files}
	e.mu.Unlock()
	cur := e.cur.Load()
	e.tb.ExtensionGovernanceRegistryReloads.Add(ctx, 1, e.resultFailure)
	// The registry's errors read "file:line: key: message".
	e.logger.Error("Registry reload failed; the last good registry stays in force",
		zap.Error(err),
		zap.Strings("changed_files", files),
		zap.Int64("generation", cur.Generation),
		zap.String("digest", cur.Index.Digest()))
	componentstatus.ReportStatus(e.host, componentstatus.NewRecoverableErrorEvent(fmt.Errorf("registry reload: %w", err)))
}

func (e *registryExtension) recovered() {
	e.mu.Lock()
	e.lastErr = nil
	e.mu.Unlock()
	componentstatus.ReportStatus(e.host, componentstatus.NewEvent(componentstatus.StatusOK))
}

// Changed records this extension's own status as the collector delivers it
// to status watchers, so that /registry shows what health checks see.
func (e *registryExtension) Changed(source *componentstatus.InstanceID, event *componentstatus.Event) {
	if source.Kind() != component.KindExtension || source.ComponentID() != e.id {
		return
	}
	st := &registryapi.ComponentStatus{Status: event.Status().String(), At: event.Timestamp()}
	if err := event.Err(); err != nil {
		st.Error = err.Error()
	}
	e.status.Store(st)
}
