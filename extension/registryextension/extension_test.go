package registryextension

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/otelgov/otelcol-governance/engine"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componentstatus"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/extension/extensiontest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelgov/otelcol-governance/extension/registryextension/internal/metadata"
	"github.com/otelgov/otelcol-governance/extension/registryextension/internal/metadatatest"
	"github.com/otelgov/otelcol-governance/extension/registryextension/registryapi"
	"github.com/otelgov/otelcol-governance/registry"
	"github.com/otelgov/otelcol-governance/vocab"
)

func TestReload(t *testing.T) {
	tt := componenttest.NewTelemetry()
	dir, file := orgDir(t, orgV1)
	e, host := newTestExtension(t, tt, dir)

	s1 := e.Current()
	require.NotNil(t, s1)
	assert.Equal(t, int64(1), s1.Generation)
	assert.Nil(t, s1.Index.Lookup("acme.cart.size"), "v1 lacks acme.cart.size")

	// Unchanged files: nothing is loaded.
	e.check()
	assert.Same(t, s1, e.Current())

	// v2 defines acme.cart.size and renames acme.cart.sz to it.
	writeAtomic(t, file, orgV2)
	e.check()
	s2 := e.Current()
	assert.Equal(t, int64(2), s2.Generation)
	assert.NotEqual(t, s1.Index.Digest(), s2.Index.Digest())
	require.NotNil(t, s2.Index.Lookup("acme.cart.size"))
	sz := s2.Index.Lookup("acme.cart.sz")
	require.NotNil(t, sz)
	require.NotNil(t, sz.Target(registry.Context{Location: registry.LocationSpan}))
	assert.Equal(t, "acme.cart.size", sz.Target(registry.Context{Location: registry.LocationSpan}).Key)
	// The old snapshot is untouched: a batch holding it finishes on it.
	assert.Nil(t, s1.Index.Lookup("acme.cart.size"))

	// A syntax error keeps generation 2 and is reported once.
	writeAtomic(t, file, orgBroken)
	e.check()
	e.check()
	assert.Same(t, s2, e.Current())
	info := e.info()
	require.NotNil(t, info.LastReloadError)
	assert.Contains(t, info.LastReloadError.Error, file+": yaml: line 5")
	assert.Equal(t, []string{file}, info.LastReloadError.Files)
	assert.Equal(t, []componentstatus.Status{componentstatus.StatusRecoverableError}, host.statuses())
	metadatatest.AssertEqualExtensionGovernanceRegistryReloadFailing(t, tt,
		[]metricdata.DataPoint[int64]{{Value: 1}}, metricdatatest.IgnoreTimestamp())

	// The fix recovers: generation 3, status OK, error cleared.
	writeAtomic(t, file, orgV2+"      - id: acme.cart.owner\n        type: string\n        stability: development\n        brief: Owner.\n")
	e.check()
	s3 := e.Current()
	assert.Equal(t, int64(3), s3.Generation)
	assert.NotNil(t, s3.Index.Lookup("acme.cart.owner"))
	assert.Nil(t, e.info().LastReloadError)
	assert.Equal(t, []componentstatus.Status{componentstatus.StatusRecoverableError, componentstatus.StatusOK}, host.statuses())

	metadatatest.AssertEqualExtensionGovernanceRegistryReloads(t, tt, []metricdata.DataPoint[int64]{
		{Value: 2, Attributes: attribute.NewSet(attribute.String("result", "success"))},
		{Value: 1, Attributes: attribute.NewSet(attribute.String("result", "failure"))},
	}, metricdatatest.IgnoreTimestamp())
	metadatatest.AssertEqualExtensionGovernanceRegistryReloadFailing(t, tt,
		[]metricdata.DataPoint[int64]{{Value: 0}}, metricdatatest.IgnoreTimestamp())
	// Only the generation in force is exported.
	metadatatest.AssertEqualExtensionGovernanceRegistryInfo(t, tt, []metricdata.DataPoint[int64]{{
		Value: 1,
		Attributes: attribute.NewSet(
			attribute.String("schema_url", s3.Index.SchemaURL()),
			attribute.String("digest", s3.Index.Digest()),
			attribute.Int64("generation", 3)),
	}}, metricdatatest.IgnoreTimestamp())
}

// A revert to the content in force clears the error without a new generation.
func TestReloadRevert(t *testing.T) {
	dir, file := orgDir(t, orgV1)
	e, host := newTestExtension(t, nil, dir)
	writeAtomic(t, file, orgBroken)
	e.check()
	writeAtomic(t, file, orgV1)
	e.check()
	assert.Equal(t, int64(1), e.Current().Generation)
	assert.Nil(t, e.info().LastReloadError)
	assert.Equal(t, []componentstatus.Status{componentstatus.StatusRecoverableError, componentstatus.StatusOK}, host.statuses())
}

// A deleted registry file is a failed reload, not a crash.
func TestReloadMissingPath(t *testing.T) {
	dir, _ := orgDir(t, orgV1)
	e, host := newTestExtension(t, nil, dir)
	require.NoError(t, os.RemoveAll(dir))
	e.check()
	assert.Equal(t, int64(1), e.Current().Generation)
	require.NotNil(t, e.info().LastReloadError)
	assert.Contains(t, e.info().LastReloadError.Error, dir)
	assert.Equal(t, []componentstatus.Status{componentstatus.StatusRecoverableError}, host.statuses())
}

// TestConfigMapSwap lays out a directory the way the kubelet does for a
// ConfigMap volume (cart.yaml -> ..data/cart.yaml, ..data -> ..<timestamp>)
// and swaps the ..data symlink atomically.
func TestConfigMapSwap(t *testing.T) {
	root := t.TempDir()
	version := func(name, content string) {
		require.NoError(t, os.Mkdir(filepath.Join(root, name), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(root, name, "cart.yaml"), []byte(content), 0o600))
	}
	swap := func(name string) {
		tmp := filepath.Join(root, "..data_tmp")
		require.NoError(t, os.Symlink(name, tmp))
		require.NoError(t, os.Rename(tmp, filepath.Join(root, "..data")))
	}
	version("..2026_12_02_17_00_00.1", orgV1)
	swap("..2026_12_02_17_00_00.1")
	require.NoError(t, os.Symlink(filepath.Join("..data", "cart.yaml"), filepath.Join(root, "cart.yaml")))

	// The registry reads the symlinked file; point it at the file, as a
	// ConfigMap key mounted with subPath-free volumes is read.
	file := filepath.Join(root, "cart.yaml")
	e, _ := newTestExtension(t, nil, file)
	assert.Nil(t, e.Current().Index.Lookup("acme.cart.size"))

	version("..2026_12_02_17_05_00.2", orgV2)
	swap("..2026_12_02_17_05_00.2")
	e.check()
	assert.Equal(t, int64(2), e.Current().Generation)
	assert.NotNil(t, e.Current().Index.Lookup("acme.cart.size"))

	// The fingerprint of the directory sees the swap too.
	files, sum1, err := fingerprint([]string{root})
	require.NoError(t, err)
	assert.Contains(t, files, filepath.Join(root, "..data"))
	version("..2026_12_02_17_10_00.3", orgV1)
	swap("..2026_12_02_17_10_00.3")
	_, sum2, err := fingerprint([]string{root})
	require.NoError(t, err)
	assert.NotEqual(t, sum1, sum2)
}

func TestStartFailsOnBrokenRegistry(t *testing.T) {
	dir, _ := orgDir(t, orgBroken)
	cfg := createDefaultConfig().(*Config)
	cfg.OrgRegistries = []string{dir}
	cfg.PollInterval = 0
	cfg.HTTP.Get().NetAddr.Endpoint = "127.0.0.1:0"
	e, err := NewFactory().Create(context.Background(), extensiontest.NewNopSettings(metadata.Type), cfg)
	require.NoError(t, err)
	err = e.Start(context.Background(), componenttest.NewNopHost())
	require.ErrorIs(t, err, registry.ErrInvalid)
	require.ErrorContains(t, err, "cart.yaml: yaml: line 5")
	require.NoError(t, e.Shutdown(context.Background()))
}

// An org registry path that holds no registry file fails validation and
// start, naming the path.
func TestNoRegistryFile(t *testing.T) {
	empty := t.TempDir()
	cfg := createDefaultConfig().(*Config)
	cfg.OrgRegistries = []string{empty}
	cfg.PollInterval = 0
	err := cfg.Validate()
	require.ErrorIs(t, err, registry.ErrNoRegistryFile)
	require.ErrorContains(t, err, empty)

	cfg.HTTP.Get().NetAddr.Endpoint = "127.0.0.1:0"
	e, err := NewFactory().Create(context.Background(), extensiontest.NewNopSettings(metadata.Type), cfg)
	require.NoError(t, err)
	err = e.Start(context.Background(), componenttest.NewNopHost())
	require.ErrorIs(t, err, registry.ErrNoRegistryFile)
	require.ErrorContains(t, err, empty)
	require.NoError(t, e.Shutdown(context.Background()))
}

// A reload that finds the path emptied keeps the last good registry, as
// for any failed reload.
func TestReloadNoRegistryFile(t *testing.T) {
	dir, file := orgDir(t, orgV2)
	e, host := newTestExtension(t, nil, dir)
	s1 := e.Current()
	require.NoError(t, os.Remove(file))
	e.check()
	assert.Same(t, s1, e.Current())
	assert.NotNil(t, e.Current().Index.Lookup("acme.cart.size"), "the org's keys stay known")
	require.NotNil(t, e.info().LastReloadError)
	assert.Contains(t, e.info().LastReloadError.Error, dir)
	assert.Contains(t, e.info().LastReloadError.Error, "no registry file")
	assert.Equal(t, []componentstatus.Status{componentstatus.StatusRecoverableError}, host.statuses())
}

// The real poll goroutine picks a change up within the interval.
func TestPollPicksUpChange(t *testing.T) {
	dir, file := orgDir(t, orgV1)
	cfg := createDefaultConfig().(*Config)
	cfg.OrgRegistries = []string{dir}
	cfg.PollInterval = 100 * time.Millisecond
	cfg.HTTP.Get().NetAddr.Endpoint = "127.0.0.1:0"
	e, err := NewFactory().Create(context.Background(), extensiontest.NewNopSettings(metadata.Type), cfg)
	require.NoError(t, err)
	require.NoError(t, e.Start(context.Background(), componenttest.NewNopHost()))
	defer func() { require.NoError(t, e.Shutdown(context.Background())) }()
	r := e.(registryapi.Registry)
	writeAtomic(t, file, orgV2)
	assert.Eventually(t, func() bool { return r.Current().Generation == 2 }, 5*time.Second, 20*time.Millisecond)
}

func TestChangedRecordsOwnStatus(t *testing.T) {
	e, _ := newTestExtension(t, nil)
	other := componentstatus.NewInstanceID(component.MustNewID("zpages"), component.KindExtension)
	self := componentstatus.NewInstanceID(e.id, component.KindExtension)
	e.Changed(other, componentstatus.NewEvent(componentstatus.StatusStopping))
	assert.Nil(t, e.info().Status)
	e.Changed(self, componentstatus.NewRecoverableErrorEvent(assert.AnError))
	require.NotNil(t, e.info().Status)
	assert.Equal(t, "StatusRecoverableError", e.info().Status.Status)
	assert.Equal(t, assert.AnError.Error(), e.info().Status.Error)
}

// TestConcurrentReloadAndReport runs processors' per-batch calls from many
// goroutines while the registry is rewritten and reloaded; run with -race.
// Every batch must see exactly one generation from start to end.
func TestConcurrentReloadAndReport(t *testing.T) {
	dir, file := orgDir(t, orgV1)
	e, _ := newTestExtension(t, nil, dir)
	var stop atomic.Bool
	var wg sync.WaitGroup
	var batches atomic.Int64
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := &registryapi.Batch{}
			for !stop.Load() {
				snap := e.Current()
				b.Reset()
				b.Generation = snap.Generation
				b.Services = append(b.Services, registryapi.ServiceTally{Service: []string{"checkout", "cart", "payment", "search"}[w]})
				if snap.Index.Lookup("acme.cart.size") != nil {
					b.Services[0].Outcomes[vocab.OutcomeConformant]++
				} else {
					b.Services[0].Outcomes[vocab.OutcomeUnknown]++
					b.Keys = append(b.Keys, registryapi.KeyTally{Service: 0, Key: "acme.cart.size", Kind: engine.KeyUnknown, Count: 1})
				}
				e.Report(b)
				if e.Current().Generation < snap.Generation {
					t.Error("generation went backwards")
				}
				batches.Add(1)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			_ = e.info()
			_ = e.report.Document(e.Current().Index, e.Current().Generation, "", time.Now())
		}
	}()
	for i := range 20 {
		if i%2 == 0 {
			writeAtomic(t, file, orgV2)
		} else {
			writeAtomic(t, file, orgV1)
		}
		e.check()
	}
	stop.Store(true)
	wg.Wait()
	assert.Equal(t, int64(21), e.Current().Generation)
	rep := e.report.Document(e.Current().Index, e.Current().Generation, "", time.Now())
	assert.Equal(t, batches.Load(), rep.Totals.Attributes["conformant"]+rep.Totals.Attributes["unknown"])
}

// TestReloadErrorLog: a failed reload is logged once, naming the file, the
// line and the key.
func TestReloadErrorLog(t *testing.T) {
	dir, file := orgDir(t, orgV1)
	core, logs := observer.New(zap.InfoLevel)
	tt := componenttest.NewTelemetry()
	cfg := createDefaultConfig().(*Config)
	cfg.OrgRegistries = []string{dir}
	cfg.PollInterval = 0
	cfg.HTTP = configoptional.None[confighttp.ServerConfig]()
	set := metadatatest.NewSettings(tt)
	set.Logger = zap.New(core)
	e, err := newRegistryExtension(set, cfg)
	require.NoError(t, err)
	require.NoError(t, e.Start(context.Background(), &statusHost{}))
	defer func() { require.NoError(t, e.Shutdown(context.Background())) }()

	writeAtomic(t, file, strings.Replace(orgV2, "        type: int\n        stability: development\n        brief: Number", "        type: integer\n        stability: development\n        brief: Number", 1))
	e.check()
	e.check()
	failed := logs.FilterMessage("Registry reload failed; the last good registry stays in force").All()
	require.Len(t, failed, 1, "logged once per broken state")
	msg := failed[0].ContextMap()["error"].(string)
	assert.Contains(t, msg, file+`:11: acme.cart.size: unknown attribute type "integer"`)
	assert.Equal(t, []any{file}, failed[0].ContextMap()["changed_files"])
}

// TestRemoteDependencyLogged: an org registry whose manifest depends on a
// remote semantic-conventions release other than the one in force
// (v1.26.0 beside the embedded v1.44.0) is named in the collector's log
// at start with both versions; a reload logs it again.
func TestRemoteDependencyLogged(t *testing.T) {
	dir, _ := orgDir(t, orgV1)
	manifest := filepath.Join(dir, "registry_manifest.yaml")
	require.NoError(t, os.WriteFile(manifest, []byte("name: acme\ndependencies:\n  - name: otel\n    registry_path: https://github.com/open-telemetry/semantic-conventions/archive/refs/tags/v1.26.0.zip[model]\n"), 0o600))
	core, logs := observer.New(zap.InfoLevel)
	cfg := createDefaultConfig().(*Config)
	cfg.OrgRegistries = []string{dir}
	cfg.PollInterval = 0
	cfg.HTTP = configoptional.None[confighttp.ServerConfig]()
	set := metadatatest.NewSettings(componenttest.NewTelemetry())
	set.Logger = zap.New(core)
	e, err := newRegistryExtension(set, cfg)
	require.NoError(t, err)
	require.NoError(t, e.Start(context.Background(), &statusHost{}))
	defer func() { require.NoError(t, e.Shutdown(context.Background())) }()
	warned := logs.FilterMessage("Registry loaded with a warning").All()
	require.Len(t, warned, 1)
	w := warned[0].ContextMap()["warning"].(string)
	assert.Contains(t, w, manifest+":3: dependency \"otel\"")
	assert.Contains(t, w, "pins semantic conventions 1.26.0, which otelgov and the collector do not download: the semantic conventions in force are 1.44.0 (the embedded release)")
}
