//go:build !race

package bench

// raceOn says the test binary runs under the race detector.
const raceOn = false
