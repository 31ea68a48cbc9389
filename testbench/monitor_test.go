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

// TestReadPSS reads this test's own proportional set size: present, and
// not above its resident set (a shared page counts at most whole).
func TestReadPSS(t *testing.T) {
	pss, err := ReadPSS(os.Getpid())
	require.NoError(t, err)
	u, err := ReadUsage(os.Getpid())
	require.NoError(t, err)
	assert.Positive(t, pss)
	assert.LessOrEqual(t, pss, u.RSS+(1<<20), "PSS within RSS (1 MiB for what changed between the two reads)")
	_, err = ReadPSS(1 << 30) // no such process
	assert.Error(t, err)
}
