//go:build race

package engine

// raceEnabled: the race detector makes sync.Pool drop items on purpose, so
// allocation counts mean nothing under -race.
const raceEnabled = true
