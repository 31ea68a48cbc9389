package registry

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sharedSemconv is ../shared/semconv/v1.44.0 relative to the repository
// root; $SEMCONV_DIR (as in the Makefile) overrides it.
var sharedSemconv = filepath.Join("..", "..", "shared", "semconv", "v1.44.0")

// requireShared skips when the shared semantic-conventions data is absent,
// except in CI (CI set), where a missing input must fail rather than pass.
func requireShared(t testing.TB) string {
	t.Helper()
	dir := sharedSemconv
	if d := os.Getenv("SEMCONV_DIR"); d != "" {
		dir = d
	}
	if _, err := os.Stat(filepath.Join(dir, "model")); err != nil { //nolint:gosec // the test input directory, from the developer\'s SEMCONV_DIR
		if os.Getenv("CI") != "" {
			t.Fatalf("shared semconv data absent in CI (%s; set SEMCONV_DIR): %v", dir, err)
		}
		t.Skipf("shared semconv data absent (%s; set SEMCONV_DIR): %v", dir, err)
	}
	return dir
}

func freshLoad(t testing.TB) *Index {
	t.Helper()
	ix, err := Load(Sources{SemconvDir: requireShared(t)})
	require.NoError(t, err)
	return ix
}

func targetKey(a *Attribute, ctx Context) string {
	if t := a.Target(ctx); t != nil {
		return t.Key
	}
	return ""
}

// TestSemconv checks the resolved v1.44.0 semantic conventions, both as a
// fresh load of the shared checkout and as the embedded default.
func TestSemconv(t *testing.T) {
	def, err := Default()
	require.NoError(t, err)
	indexes := map[string]*Index{"embedded": def}
	if _, err := os.Stat(filepath.Join(sharedSemconv, "model")); err == nil {
		indexes["fresh"] = freshLoad(t)
	}
	for name, ix := range indexes {
		t.Run(name, func(t *testing.T) {
			span := Context{Location: LocationSpan, SpanKind: SpanKindClient}

			a := ix.Lookup("http.method")
			require.NotNil(t, a)
			assert.Equal(t, DeprecatedRenamed, a.Deprecation.Reason)
			assert.Equal(t, "http.request.method", targetKey(a, span))
			assert.Equal(t, "http.request.method", targetKey(a, Context{Location: LocationLog}))

			a = ix.Lookup("deployment.environment")
			require.NotNil(t, a)
			assert.Equal(t, "deployment.environment.name", targetKey(a, Context{Location: LocationResource}))

			a = ix.Lookup("net.peer.name")
			require.NotNil(t, a)
			assert.Equal(t, DeprecatedUncategorized, a.Deprecation.Reason)
			for _, tt := range []struct {
				kind SpanKind
				want string
			}{
				{SpanKindClient, "server.address"},
				{SpanKindProducer, "server.address"},
				{SpanKindServer, "client.address"},
				{SpanKindConsumer, "client.address"},
				{SpanKindInternal, ""},
				{SpanKindUnspecified, ""},
			} {
				assert.Equal(t, tt.want, targetKey(a, Context{Location: LocationSpan, SpanKind: tt.kind}), "kind %d", tt.kind)
			}
			assert.Empty(t, targetKey(a, Context{Location: LocationDataPoint, MetricName: "http.client.request.duration"}))
			port := ix.Lookup("net.peer.port")
			require.NotNil(t, port)
			assert.Equal(t, "server.port", targetKey(port, span))
			assert.Equal(t, "client.port", targetKey(port, Context{Location: LocationSpan, SpanKind: SpanKindServer}))

			a = ix.Lookup("http.request.header.x-custom")
			require.NotNil(t, a)
			assert.True(t, a.Template)
			assert.Equal(t, "http.request.header", a.Key)
			assert.Equal(t, TypeStringArray, a.Type)
			assert.Equal(t, "http.request.header", ix.Lookup("http.request.header.content-type").Key)
			assert.Nil(t, ix.Lookup("http.request.headerx"), "template prefix must end on a '.' boundary")

			a = ix.Lookup("http.request.method")
			require.NotNil(t, a)
			assert.Equal(t, TypeString, a.Type)
			assert.Equal(t, StabilityStable, a.Stability)
			assert.Contains(t, a.EnumStrings, "GET")
			assert.Contains(t, a.EnumStrings, "_OTHER")
			assert.True(t, a.AllowsString("GET"))
			assert.False(t, a.AllowsString("get"))
			assert.True(t, a.AllowsInt(7), "not an int enum")
			assert.Nil(t, a.Target(span))

			assert.Nil(t, ix.Lookup("acme.cart.size"))

			// Metric-scoped: `state` only on the metrics the schema names.
			st := ix.Lookup("state")
			require.NotNil(t, st)
			dp := func(m string) Context { return Context{Location: LocationDataPoint, MetricName: m} }
			assert.Equal(t, "db.client.connection.state", targetKey(st, dp("db.client.connections.usage")))
			assert.Equal(t, "db.client.connection.state", targetKey(st, dp("db.client.connection.count")))
			assert.Equal(t, "cpu.mode", targetKey(st, dp("system.cpu.time")))
			assert.Empty(t, targetKey(st, dp("http.server.request.duration")))
			assert.Empty(t, targetKey(st, span))

			// Placeholder: not a registry attribute, but scoped renames.
			dir := ix.Lookup("direction")
			require.NotNil(t, dir)
			assert.True(t, dir.Placeholder)
			assert.Equal(t, TypeUnknown, dir.Type)
			assert.Equal(t, "disk.io.direction", targetKey(dir, dp("process.disk.io")))
			assert.Empty(t, targetKey(dir, span))
			// hostmetrics' `direction` through the hop the schema file
			// misnames (shipped rules: system.{disk,network}.direction):
			// schema 1.22.0 metric scopes, old and current metric names.
			for m, want := range map[string]string{
				"system.network.io":             "network.io.direction",
				"system.network.dropped":        "network.io.direction",
				"system.network.packet.dropped": "network.io.direction",
				"system.network.packets":        "network.io.direction",
				"system.network.errors":         "network.io.direction",
				"system.disk.io":                "disk.io.direction",
				"system.disk.operations":        "disk.io.direction",
				"system.disk.merged":            "disk.io.direction",
				"system.paging.operations":      "system.paging.direction",
				"system.memory.usage":           "",
				"hw.network.io":                 "",
			} {
				assert.Equal(t, want, targetKey(dir, dp(m)), m)
			}
			assert.Empty(t, targetKey(dir, Context{Location: LocationResource}))
			for old, want := range map[string]string{"system.network.direction": "network.io.direction", "system.disk.direction": "disk.io.direction"} {
				a := ix.Lookup(old)
				require.NotNil(t, a, old)
				assert.True(t, a.Placeholder, old)
				assert.Equal(t, want, targetKey(a, dp("system.network.io")), old)
				assert.Empty(t, targetKey(a, span), old)
			}
			// The other two schema entries that name keys or metrics no
			// version defined: protocol (1.22.0) and daemon (1.22.0).
			for _, tt := range []struct{ key, metric, want string }{
				{"protocol", "system.network.connections", "network.transport"},
				{"protocol", "system.network.connection.count", "network.transport"},
				{"protocol", "system.network.io", ""},
				{"protocol", "http.server.request.duration", ""},
				{"daemon", "process.runtime.jvm.threads.count", "jvm.thread.daemon"},
				{"daemon", "jvm.thread.count", "jvm.thread.daemon"},
				{"daemon", "jvm.class.count", ""},
			} {
				a := ix.Lookup(tt.key)
				require.NotNil(t, a, tt.key)
				assert.Equal(t, tt.want, targetKey(a, dp(tt.metric)), "%s on %s", tt.key, tt.metric)
				assert.Empty(t, targetKey(a, span), tt.key)
			}
			for _, d := range ix.Disagreements() {
				if d.Kind == "unknown_target" && d.Key == "direction" {
					assert.NotContains(t, d.Schema, "system.network.direction", "the rule closes the chain")
					assert.NotContains(t, d.Schema, "system.disk.direction", "the rule closes the chain")
				}
			}

			// Chains collapse: net.peer.ip -> net.sock.peer.addr (schema) and
			// registry net.peer.ip -> network.peer.address.
			assert.Equal(t, "network.peer.address", targetKey(ix.Lookup("net.peer.ip"), span))
			// Schema-only chain: messaging.kafka.consumer_group (1.17.0)
			// -> messaging.kafka.consumer.group -> messaging.consumer.group.name.
			assert.Equal(t, "messaging.consumer.group.name", targetKey(ix.Lookup("messaging.kafka.consumer_group"), span))

			// Many-to-one.
			assert.Contains(t, ix.Sources("db.collection.name"), "db.mongodb.collection")
			assert.Contains(t, ix.Sources("db.collection.name"), "db.cassandra.table")

			m := ix.Metric("http.server.request.duration")
			require.NotNil(t, m)
			assert.Equal(t, "histogram", m.Instrument)
			assert.Equal(t, "s", m.Unit)
			m = ix.Metric("http.server.duration")
			require.NotNil(t, m)
			assert.Equal(t, "http.server.request.duration", m.RenamedTo)
			assert.Nil(t, ix.Metric("acme.cart.items"))

			assert.Equal(t, "https://opentelemetry.io/schemas/1.44.0", ix.SchemaURL())
		})
	}
}

func TestOrgRegistry(t *testing.T) {
	ix, err := Load(Sources{
		Embedded:      true,
		OrgRegistries: []string{filepath.Join("testdata", "acme")},
		RulesFiles:    []string{filepath.Join("testdata", "acme-rules.yaml")},
	})
	require.NoError(t, err)
	def, err := Default()
	require.NoError(t, err)

	a := ix.Lookup("acme.cart.size")
	require.NotNil(t, a)
	assert.False(t, a.Placeholder)
	assert.Equal(t, TypeInt, a.Type)
	assert.Equal(t, filepath.Join("testdata", "acme", "model", "cart.yaml"), a.Source)
	assert.Nil(t, a.Target(Context{Location: LocationSpan}))

	sz := ix.Lookup("acme.cart.sz")
	require.NotNil(t, sz)
	assert.Equal(t, DeprecatedRenamed, sz.Deprecation.Reason)
	assert.Equal(t, "acme.cart.size", targetKey(sz, Context{Location: LocationLog}))
	assert.Equal(t, []string{"acme.cart.sz"}, ix.Sources("acme.cart.size"))

	assert.Equal(t, "acme.cart.item.label", ix.Lookup("acme.cart.item.label.colour").Key)
	pay := ix.Lookup("acme.payment.method")
	require.NotNil(t, pay)
	assert.Equal(t, []string{"card", "invoice"}, pay.EnumStrings)
	assert.False(t, pay.AllowsString("cash"))

	// Local dependency layer.
	assert.Equal(t, "acme.tenant.id", targetKey(ix.Lookup("acme.tenant"), Context{Location: LocationResource}))

	// User rules file.
	peer := ix.Lookup("acme.peer")
	require.NotNil(t, peer)
	assert.True(t, peer.Placeholder)
	assert.Equal(t, "service.peer.name", targetKey(peer, Context{Location: LocationSpan, SpanKind: SpanKindClient}))
	assert.Empty(t, targetKey(peer, Context{Location: LocationSpan, SpanKind: SpanKindServer}))

	m := ix.Metric("acme.cart.items")
	require.NotNil(t, m)
	assert.Equal(t, "{item}", m.Unit)

	// Semconv is still there and unchanged.
	assert.Equal(t, "http.request.method", targetKey(ix.Lookup("http.method"), Context{Location: LocationSpan}))
	assert.Equal(t, "https://telemetry.acme.example/schemas/1.2.0", ix.SchemaURL())
	assert.NotEqual(t, def.Digest(), ix.Digest())
	assert.Equal(t, def.Stats().Known+7, ix.Stats().Known)
}

func TestOrgRegistryAlone(t *testing.T) {
	// Without semconv, refs to semconv keys do not resolve.
	_, err := Load(Sources{OrgRegistries: []string{filepath.Join("testdata", "acme")}})
	require.ErrorIs(t, err, ErrInvalid)
	require.ErrorContains(t, err, `ref "http.request.method" is not a known attribute`)

	// A plain YAML file needs nothing else.
	ix, err := Load(Sources{OrgRegistries: []string{filepath.Join("testdata", "acme", "model", "payment.yaml")}})
	require.NoError(t, err)
	assert.NotNil(t, ix.Lookup("acme.payment.method"))
	assert.Nil(t, ix.Lookup("http.method"))
}

// TestOrgRegistryConfigMapVolume loads a directory laid out the way the
// kubelet lays out a ConfigMap volume: each file is a symlink through the
// "..data" symlink into a hidden "..<timestamp>" directory. The hidden copy
// must not be read as a second definition.
func TestOrgRegistryConfigMapVolume(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "acme", "model", "payment.yaml"))
	require.NoError(t, err)
	dir := t.TempDir()
	stamp := filepath.Join(dir, "..2026_12_02_18_00_00.123")
	require.NoError(t, os.Mkdir(stamp, 0o750))
	require.NoError(t, os.WriteFile(filepath.Join(stamp, "payment.yaml"), data, 0o600)) //nolint:gosec // a test temp dir
	require.NoError(t, os.Symlink(filepath.Base(stamp), filepath.Join(dir, "..data")))
	require.NoError(t, os.Symlink(filepath.Join("..data", "payment.yaml"), filepath.Join(dir, "payment.yaml")))

	ix, err := Load(Sources{OrgRegistries: []string{dir}})
	require.NoError(t, err)
	assert.NotNil(t, ix.Lookup("acme.payment.method"))
}

// TestOrgRegistryNoFile: a path that yields no registry file is an error
// naming the path, never an empty organisation layer.
func TestOrgRegistryNoFile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "acme", "model", "payment.yaml"))
	require.NoError(t, err)
	// The kubelet's layout: the hidden "..data" symlink to a hidden
	// timestamped directory that holds the files.
	mount := t.TempDir()
	stamp := filepath.Join(mount, "..2026_12_02_18_00_00.123")
	require.NoError(t, os.Mkdir(stamp, 0o750))
	require.NoError(t, os.WriteFile(filepath.Join(stamp, "payment.yaml"), data, 0o600)) //nolint:gosec // a test temp dir
	require.NoError(t, os.Symlink(filepath.Base(stamp), filepath.Join(mount, "..data")))
	require.NoError(t, os.Symlink(filepath.Join("..data", "payment.yaml"), filepath.Join(mount, "payment.yaml")))
	onlyHidden := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(onlyHidden, ".payment.yaml"), data, 0o600)) //nolint:gosec // a test temp dir
	noYAML := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(noYAML, "README.md"), []byte("# registry\n"), 0o600))

	for _, tt := range []struct{ name, path string }{
		{name: "empty directory", path: t.TempDir()},
		{name: "kubelet ..data symlink", path: filepath.Join(mount, "..data")},
		{name: "only hidden files", path: onlyHidden},
		{name: "no yaml file", path: noYAML},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ix, err := Load(Sources{Embedded: true, OrgRegistries: []string{tt.path}})
			require.ErrorIs(t, err, ErrNoRegistryFile)
			require.ErrorContains(t, err, tt.path)
			assert.Nil(t, ix)
		})
	}

	// The mount itself loads.
	ix, err := Load(Sources{Embedded: true, OrgRegistries: []string{mount}})
	require.NoError(t, err)
	assert.NotNil(t, ix.Lookup("acme.payment.method"))
}
