//go:build !race

package main

// raceOn says the test binary runs under the race detector.
const raceOn = false
