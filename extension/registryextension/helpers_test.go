package registryextension

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componentstatus"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configoptional"

	"github.com/otelgov/otelcol-governance/extension/registryextension/internal/metadata"
	"github.com/otelgov/otelcol-governance/extension/registryextension/internal/metadatatest"
)

// Org registry versions used by the reload tests: v1 lacks acme.cart.size;
// v2 defines it and deprecates acme.cart.sz in its favour.
const (
	orgV1 = `groups:
  - id: registry.acme.cart
    type: attribute_group
    brief: Acme cart attributes.
    attributes:
      - id: acme.cart.state
        type: string
        stability: development
        brief: State of the cart.
`
	orgV2 = orgV1 + `      - id: acme.cart.size
        type: int
        stability: development
        brief: Number of items in the cart.
      - id: acme.cart.sz
        type: int
        stability: development
        brief: Deprecated, use acme.cart.size.
        deprecated:
          reason: renamed
          renamed_to: acme.cart.size
`
	// orgBroken has a YAML syntax error: an unclosed flow sequence (yaml.v3
	// reports it at line 5).
	orgBroken = `groups:
  - id: registry.acme.cart
    type: attribute_group
    brief: Acme cart attributes.
    attributes:
      - id: [acme.cart.state
`
)

// writeAtomic replaces path the way an editor or a ConfigMap update does:
// write a temporary file, then rename it over the old one.
func writeAtomic(t testing.TB, path, content string) {
	t.Helper()
	tmp := path + ".tmp"
	require.NoError(t, os.WriteFile(tmp, []byte(content), 0o600))
	require.NoError(t, os.Rename(tmp, path))
}

// orgDir returns a directory holding one org registry model file.
func orgDir(t testing.TB, content string) (dir, file string) {
	t.Helper()
	dir = t.TempDir()
	file = filepath.Join(dir, "cart.yaml")
	writeAtomic(t, file, content)
	return dir, file
}

// statusHost is a host that records the status events components report.
type statusHost struct {
	mu     sync.Mutex
	events []*componentstatus.Event
	exts   map[component.ID]component.Component
}

func (h *statusHost) GetExtensions() map[component.ID]component.Component { return h.exts }

func (h *statusHost) Report(e *componentstatus.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, e)
}

func (h *statusHost) statuses() []componentstatus.Status {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]componentstatus.Status, 0, len(h.events))
	for _, e := range h.events {
		out = append(out, e.Status())
	}
	return out
}

// newTestExtension starts an extension without HTTP and without the poll
// goroutine (tests call check themselves) on the given org registry.
func newTestExtension(t *testing.T, tt *componenttest.Telemetry, orgs ...string) (*registryExtension, *statusHost) {
	t.Helper()
	return startTestExtension(t, tt, func(cfg *Config) { cfg.OrgRegistries = orgs })
}

func startTestExtension(t *testing.T, tt *componenttest.Telemetry, configure func(*Config)) (*registryExtension, *statusHost) {
	t.Helper()
	cfg := createDefaultConfig().(*Config)
	cfg.PollInterval = 0
	cfg.HTTP = configoptional.None[confighttp.ServerConfig]()
	configure(cfg)
	if tt == nil {
		tt = componenttest.NewTelemetry()
	}
	set := metadatatest.NewSettings(tt)
	set.ID = component.NewID(metadata.Type)
	e, err := newRegistryExtension(set, cfg)
	require.NoError(t, err)
	host := &statusHost{}
	require.NoError(t, e.Start(context.Background(), host))
	t.Cleanup(func() { require.NoError(t, e.Shutdown(context.Background())) })
	return e, host
}
