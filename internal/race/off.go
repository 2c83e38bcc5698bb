//go:build !race

// Package race says whether the binary was built with the race detector,
// for tests whose bounds on time or memory it changes.
package race

// Enabled says the binary was built with the race detector.
const Enabled = false
