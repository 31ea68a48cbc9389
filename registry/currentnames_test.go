package registry

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCurrentNames: one entry per location, one per span kind where the
// name depends on it (net.peer.name, by the shipped rules file).
func TestCurrentNames(t *testing.T) {
	ix, err := Default()
	require.NoError(t, err)
	cs := ix.Lookup("http.method").CurrentNames("http.method", "", "")
	require.Len(t, cs, len(Locations))
	for _, c := range cs {
		assert.Equal(t, ContextName{Context: c.Context, Name: "http.request.method", Renamed: true}, c)
	}
	cs = ix.Lookup("net.peer.name").CurrentNames("net.peer.name", "", "")
	require.Len(t, cs, len(Locations)-3+3*len(SpanKinds))
	got := map[string]string{}
	for _, c := range cs {
		k := c.Context.Location.String()
		if c.ByKind {
			k += " " + c.Context.SpanKind.String()
		}
		if c.Renamed {
			got[k] = c.Name
		}
	}
	assert.Equal(t, map[string]string{
		"span server": "client.address", "span consumer": "client.address", "span client": "server.address", "span producer": "server.address",
		"span_event server": "client.address", "span_event consumer": "client.address", "span_event client": "server.address", "span_event producer": "server.address",
		"span_link server": "client.address", "span_link consumer": "client.address", "span_link client": "server.address", "span_link producer": "server.address",
	}, got)
}
