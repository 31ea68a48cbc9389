package keyeq

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestKeyEq: Equal answers as == does for every length up to 40 bytes,
// equal strings in separate or shared memory, a difference at every
// position (in the first, a middle and the overlapping last word), and
// strings of different lengths with a common prefix.
func TestKeyEq(t *testing.T) {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789._-/"
	for n := range 41 {
		a := alphabet[:n]
		b := strings.Clone(a) // another backing array
		require.True(t, Equal(a, b), "%q", a)
		require.True(t, Equal(a, a), "%q, same memory", a)
		for p := range n {
			c := []byte(a)
			c[p] ^= 0x20
			require.False(t, Equal(a, string(c)), "%q against %q", a, c)
			require.False(t, Equal(string(c), a), "%q against %q", c, a)
		}
		if n > 0 {
			require.False(t, Equal(a, a[:n-1]), "%q against its prefix", a)
			require.False(t, Equal(a[:n-1], a), "a prefix against %q", a)
		}
		// Equal words but a differing byte only the last, overlapping
		// word reads.
		if n > 8 {
			c := []byte(a)
			c[n-1]++
			require.False(t, Equal(a, string(c)), "%q, last byte", a)
		}
	}
	require.True(t, Equal("", ""))
	require.False(t, Equal("http.request.method", "http.request.methox"))
	require.True(t, Equal("http.request.header.content-type", strings.Clone("http.request.header.content-type")))
}
