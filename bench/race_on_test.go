//go:build race

package bench

// raceOn says the test binary runs under the race detector, which makes
// decoding JSON about ten times slower.
const raceOn = true
