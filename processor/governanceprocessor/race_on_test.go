//go:build race

package governanceprocessor

// raceEnabled: the race detector makes sync.Pool drop items on purpose, so
// allocation counts mean nothing under -race.
const raceEnabled = true
