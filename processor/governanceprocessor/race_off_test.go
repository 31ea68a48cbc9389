//go:build !race

package governanceprocessor

const raceEnabled = false
