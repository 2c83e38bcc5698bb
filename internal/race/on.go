//go:build race

package race

// Enabled says the binary was built with the race detector, which makes
// decoding JSON about ten times slower and keeps about two and a half
// times the memory a process otherwise holds.
const Enabled = true
