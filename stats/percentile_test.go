package stats_test

import (
	"math"
	"testing"

	"github.com/assaylabs/assay/stats"
)

// TestPercentile checks the rule, linear interpolation between closest
// ranks (Hyndman and Fan type 7), on published examples and by hand.
func TestPercentile(t *testing.T) {
	t.Parallel()
	// Wikipedia's "Percentile" article works this list through the same
	// rule (its second variant, C = 1): rank 1 + p/100*(n-1), 1-based.
	wiki := []float64{15, 20, 35, 40, 50}
	// numpy.percentile's documentation: np.percentile(a, 50) of
	// [[10, 7, 4], [3, 2, 1]] is 3.5.
	numpyDoc := []float64{10, 7, 4, 3, 2, 1}
	tests := map[string]struct {
		x    []float64
		p    float64
		want float64
	}{
		"wikipedia 5th: 15 + 0.2*5":   {wiki, 5, 16},
		"wikipedia 30th: 20 + 0.2*15": {wiki, 30, 23},
		"wikipedia 40th: 20 + 0.6*15": {wiki, 40, 29},
		"wikipedia 95th: 40 + 0.8*10": {wiki, 95, 48},
		"wikipedia 100th: the max":    {wiki, 100, 50},
		"numpy's documented median":   {numpyDoc, 50, 3.5},
		"0th: the min":                {numpyDoc, 0, 1},
		// Unsorted input, rank 0.1*4 = 0.4 between 1 and 2.
		"order does not matter": {[]float64{5, 1, 4, 2, 3}, 10, 1.4},
		// Rank 0.975*999 = 974.025 over 1..1000.
		"a bootstrap end": {seq(1000), 97.5, 975.025},
		"an exact rank":   {[]float64{1, 2, 3, 4, 5}, 75, 4},
		"ties":            {[]float64{2, 2, 2, 9}, 50, 2},
		"one value":       {[]float64{7}, 10, 7},
		// The gap overflows; the ends are weighed apart.
		"huge values stay finite": {[]float64{-math.MaxFloat64, math.MaxFloat64}, 50, 0},
		"empty":                   {nil, 50, nan},
		"a NaN value":             {[]float64{1, nan, 3}, 50, nan},
		"p below 0":               {wiki, -1, nan},
		"p above 100":             {wiki, 100.5, nan},
		"p NaN":                   {wiki, nan, nan},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assertFloat(t, tc.want, stats.Percentile(tc.x, tc.p))
		})
	}
}

// TestPercentileKeepsInput checks the input is not sorted in place.
func TestPercentileKeepsInput(t *testing.T) {
	t.Parallel()
	x := []float64{3, 1, 2}
	stats.Percentile(x, 50)
	assertFloat(t, 3, x[0])
	assertFloat(t, 1, x[1])
}

// seq is 1..n.
func seq(n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(i + 1)
	}
	return x
}
