package testbench

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadUsageSplitsRSS reads this test's own process: the resident set
// is its anonymous part plus its file pages (shared memory, the rest of
// VmRSS, is none here), each of them present, and the peak is not below it.
func TestReadUsageSplitsRSS(t *testing.T) {
	u, err := ReadUsage(os.Getpid())
	require.NoError(t, err)
	assert.Positive(t, u.RSSAnon, "RssAnon")
	assert.Positive(t, u.RSSFile, "RssFile (the test binary's pages)")
	assert.Equal(t, u.RSS, u.RSSAnon+u.RSSFile, "VmRSS = RssAnon + RssFile")
	assert.GreaterOrEqual(t, u.PeakRSS, u.RSS)
	assert.Positive(t, u.CPU)
}
