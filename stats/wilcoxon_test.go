package stats_test

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/stats"
)

// Darwin's Zea mays data as SciPy's scipy.stats.wilcoxon documentation
// gives it: the height differences of 15 pairs of cross- and
// self-fertilised plants. Its documented output: statistic 24.0, p-value
// 0.041259765625 (exact).
var darwin = []float64{6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75}

func TestWilcoxon(t *testing.T) {
	t.Parallel()
	// Hollander & Wolfe's depression scores (x first visit, y second),
	// the example of R's wilcox.test: V = 40, one-sided p 0.01953
	// (10/512), so two-sided 20/512.
	x := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
	y := []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}
	hw := make([]float64, len(x))
	for i := range x {
		hw[i] = x[i] - y[i]
	}
	// Twenty +1s, six -2s and four zeros (n = 26 > 25): ranks 10.5 and
	// 23.5, W+ = 210, mean 26*27/4 = 175.5, variance 26*27*53/24 -
	// (20^3-20 + 6^3-6)/48 = 1379.625, z = 34.5/sqrt(1379.625) =
	// 0.928834990031152, p = erfc(z/sqrt 2) = 0.3529746080769698.
	tiesZeros := slices.Concat(slices.Repeat([]float64{1}, 20), slices.Repeat([]float64{-2}, 6), []float64{0, 0, 0, 0})
	tests := map[string]struct {
		d             []float64
		n, zeros      int
		wplus, wminus float64
		exact         bool
		z, p          float64
	}{
		"scipy's documented example, exact": {d: darwin, n: 15, wplus: 96, wminus: 24, exact: true, z: math.NaN(), p: 0.041259765625},
		"R's wilcox.test example, exact":    {d: hw, n: 9, wplus: 40, wminus: 5, exact: true, z: math.NaN(), p: 20.0 / 512},
		// |d| 1, 1, 2, 3: ranks 1.5, 1.5, 3, 4; W+ = 7. Of the 16 sign
		// assignments (doubled ranks 3, 3, 6, 8) 5 have 2W+ >= 14, so
		// p = 2*5/16.
		"ties, exact over mean ranks":     {d: []float64{1, 1, -2, 3}, n: 4, wplus: 7, wminus: 3, exact: true, z: math.NaN(), p: 0.625},
		"zeros dropped, ties corrected":   {d: tiesZeros, n: 26, zeros: 4, wplus: 210, wminus: 141, z: 0.928834990031152, p: 0.3529746080769698},
		"floating noise is a zero":        {d: []float64{0.1 + 0.2 - 0.3, 0.5}, n: 1, zeros: 1, wplus: 1, exact: true, z: math.NaN(), p: 1},
		"nothing changed: p undefined":    {d: []float64{0, 0}, zeros: 2, z: math.NaN(), p: math.NaN()},
		"one change alone: p capped at 1": {d: []float64{-0.2}, n: 1, wminus: 1, exact: true, z: math.NaN(), p: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := stats.Wilcoxon(tc.d)
			assert.Equal(t, tc.n, r.N)
			assert.Equal(t, tc.zeros, r.Zeros)
			assert.InDelta(t, tc.wplus, r.WPlus, 1e-9)
			assert.InDelta(t, tc.wminus, r.WMinus, 1e-9)
			assert.Equal(t, tc.exact, r.Exact)
			assertFloat(t, tc.z, r.Z)
			assertFloat(t, tc.p, r.P)
		})
	}
	assert.Equal(t, "wilcoxon signed-rank (exact)", stats.Wilcoxon(darwin).Name())
	assert.InDelta(t, 24, stats.Wilcoxon(darwin).Statistic(), 0, "min(W+, W-), as SciPy reports it")
	assert.Equal(t, "wilcoxon signed-rank (normal approximation)", stats.Wilcoxon(tiesZeros).Name())
	assert.Equal(t, "wilcoxon signed-rank (no change)", stats.Wilcoxon([]float64{0}).Name())
}
