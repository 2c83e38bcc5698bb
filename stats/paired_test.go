package stats_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/stats"
)

// TestPairedMeanDiff checks the paired interval where the bootstrap
// distribution of the mean is known by hand: the ends are the
// distribution's 2.5% and 97.5% points, each inside a mass of resamples
// large enough that 2,000 draws cannot miss it.
func TestPairedMeanDiff(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	tests := map[string]struct {
		before, after []float64
		n             int
		mean, lo, hi  float64 // NaN when undefined
	}{
		// Differences -0.4, -0.1, -0.4, 0: mean -0.225. A resample of A
		// draws of -0.4, B of -0.1 and C of 0 (chances 1/2, 1/4, 1/4) has
		// mean -(0.4A + 0.1B)/4. P(A = 4) = 1/16 > 2.5%: the low end is
		// -0.4. P(mean >= -0.025) = P(C = 4) + P(B = 1, C = 3) = 5/256 <
		// 2.5% and P(mean >= -0.05) adds P(B = 2, C = 2) = 6/256, 11/256 >
		// 2.5%: the high end is -0.05.
		"four judgements, three fell": {before: []float64{0.9, 0.8, 0.8, 0.7}, after: []float64{0.5, 0.7, 0.4, 0.7}, n: 4, mean: -0.225, lo: -0.4, hi: -0.05},
		// Differences 0, 0, 0, 1: the resampled mean is K/4 with K ~
		// Binomial(4, 1/4). P(K = 0) = 81/256 > 2.5%: the low end is 0;
		// P(K >= 3) = 13/256 > 2.5% > P(K = 4) = 1/256: the high end 3/4.
		"one of four moved by one": {before: []float64{0.5, 0.5, 0.5, 0.5}, after: []float64{0.5, 0.5, 0.5, 1.5}, n: 4, mean: 0.25, lo: 0, hi: 0.75},
		// Differences -1 and 1: resampled means -1, 0, 1 with chances
		// 1/4, 1/2, 1/4: the interval is the whole range.
		"one up, one down":       {before: []float64{1, 0}, after: []float64{0, 1}, n: 2, mean: 0, lo: -1, hi: 1},
		"every pair moved alike": {before: []float64{0.1, 0.4, 0.7}, after: []float64{0.3, 0.6, 0.9}, n: 3, mean: 0.2, lo: 0.2, hi: 0.2},
		"no pair":                {n: 0, mean: nan, lo: nan, hi: nan},
		"lengths differ":         {before: []float64{1, 2}, after: []float64{1}, n: 2, mean: nan, lo: nan, hi: nan},
		"a NaN":                  {before: []float64{1, nan}, after: []float64{1, 2}, n: 2, mean: nan, lo: nan, hi: nan},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := stats.PairedMeanDiff(tc.before, tc.after, 2000, 7)
			assert.Equal(t, tc.n, r.N)
			for _, c := range []struct {
				what      string
				want, got float64
			}{{"mean", tc.mean, r.Mean}, {"lo", tc.lo, r.Lo}, {"hi", tc.hi, r.Hi}} {
				if math.IsNaN(c.want) {
					assert.True(t, math.IsNaN(c.got), "%s %v", c.what, c.got)
					continue
				}
				assert.InDelta(t, c.want, c.got, 1e-9, c.what)
			}
		})
	}
}

// TestPairedMeanDiffIsTheBootstrapOfTheDifferences: the paired interval
// is stats' one bootstrap over the differences, draw for draw, and it
// does not depend on where the pairs sit (values shifted alike).
func TestPairedMeanDiffIsTheBootstrapOfTheDifferences(t *testing.T) {
	t.Parallel()
	before := []float64{0.2, 0.9, 0.4, 0.6, 0.5, 0.8, 0.1, 0.7}
	after := []float64{0.3, 0.7, 0.6, 0.6, 0.9, 0.5, 0.4, 0.8}
	d := make([]float64, len(before))
	shifted := make([]float64, len(before))
	for i := range before {
		d[i] = after[i] - before[i]
		shifted[i] = before[i] + 10
	}
	r := stats.PairedMeanDiff(before, after, 2000, 18)
	lo, hi := stats.BootstrapMean(d, 2000, 18)
	assert.InDelta(t, 0.075, r.Mean, 1e-12)
	assert.Equal(t, lo, r.Lo)
	assert.Equal(t, hi, r.Hi)
	assert.Less(t, r.Lo, r.Mean)
	assert.Greater(t, r.Hi, r.Mean)
	s := stats.PairedMeanDiff(shifted, func() []float64 {
		out := make([]float64, len(after))
		for i := range after {
			out[i] = after[i] + 10
		}
		return out
	}(), 2000, 18)
	assert.InDelta(t, r.Lo, s.Lo, 1e-9)
	assert.InDelta(t, r.Hi, s.Hi, 1e-9)
}
