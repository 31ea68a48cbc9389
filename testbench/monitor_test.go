package testbench

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadUsageSplitsRSS reads this test's own process: the resident set
// is its anonymous part plus its file pages (and shared memory, RssShmem,
// which a Go test process has little of), each of them present, and the
// peak is not below it.
func TestReadUsageSplitsRSS(t *testing.T) {
	u, err := ReadUsage(os.Getpid())
	require.NoError(t, err)
	assert.Positive(t, u.RSSAnon, "RssAnon")
	assert.Positive(t, u.RSSFile, "RssFile (the test binary's pages)")
	require.LessOrEqual(t, u.RSSAnon+u.RSSFile, u.RSS, "RssAnon + RssFile within VmRSS")
	assert.Less(t, u.RSS-(u.RSSAnon+u.RSSFile), uint64(1<<20), "VmRSS = RssAnon + RssFile + RssShmem, the last under 1 MiB")
	assert.GreaterOrEqual(t, u.PeakRSS, u.RSS)
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
