//go:build race

package main

// raceOn says the test binary runs under the race detector, which keeps
// about two and a half times the memory a process otherwise holds.
const raceOn = true
