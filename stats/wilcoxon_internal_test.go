package stats

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The normal approximation on SciPy's documented example (the darwin of
// wilcoxon_test.go, which Wilcoxon tests exactly, n = 15): z = (24 -
// 60)/sqrt(310) and SciPy's p-value for method='approx'.
func TestWilcoxonNormalDocumented(t *testing.T) {
	t.Parallel()
	darwin := []float64{6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75}
	_, wplus, _, tieTerm := signedRanks(darwin)
	z, p := wilcoxonNormal(len(darwin), wplus, tieTerm)
	assert.InDelta(t, 2.0446626032894333, z, 1e-9)
	assert.InDelta(t, 0.04088813291185591, p, 1e-9)
}
