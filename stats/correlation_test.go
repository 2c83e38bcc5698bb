package stats_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/stats"
)

var nan = math.NaN()

// TestCorrelations checks each coefficient against the value SciPy's
// documentation prints for its own example, re-derived here by hand in
// closed form, and the values LIBRARIES.md recorded for a judge against a
// human on eight grades.
func TestCorrelations(t *testing.T) {
	t.Parallel()
	type fn func(x, y []float64) float64
	tests := map[string]struct {
		stat fn
		x, y []float64
		want float64
	}{
		// scipy.stats.pearsonr docs: x = [1..7], y = [10, 9, 2.5, 6, 4, 3, 2]
		// gives -0.828503883588428. By hand: Sxy = -34.5, Sxx = 28,
		// Syy = 61.9286 (Sxx*Syy = 1734), r = -34.5/sqrt(1734).
		"pearson scipy example": {stats.Pearson, []float64{1, 2, 3, 4, 5, 6, 7}, []float64{10, 9, 2.5, 6, 4, 3, 2}, -34.5 / math.Sqrt(1734)},
		// scipy.stats.spearmanr docs: [1,2,3,4,5] vs [5,6,7,8,7] gives
		// 0.8207826816681233. Ranks of y with the tie averaged: 1, 2, 3.5,
		// 5, 3.5; Sxy = 8, Sxx = 10, Syy = 9.5, rho = 8/sqrt(95).
		"spearman scipy example": {stats.Spearman, []float64{1, 2, 3, 4, 5}, []float64{5, 6, 7, 8, 7}, 8 / math.Sqrt(95)},
		// scipy.stats.kendalltau docs: [12,2,1,12,2] vs [1,4,7,1,0] gives
		// -0.47140452079103173. Of the 10 pairs, 2 concordant, 6 discordant,
		// 1 tied in x only, 1 tied in both (dropped):
		// tau-b = (2-6)/sqrt((8+1)*8) = -sqrt(2)/3.
		"kendall tau-b scipy example": {stats.KendallTauB, []float64{12, 2, 1, 12, 2}, []float64{1, 4, 7, 1, 0}, -math.Sqrt2 / 3},
		// LIBRARIES.md, judge [4,3,5,2,4,1,3,5] vs human [5,3,4,2,4,1,2,5]:
		// Pearson 0.9035 = (53/4)/sqrt(3441/16) by hand.
		"pearson judge vs human": {stats.Pearson, judge, human, 13.25 / math.Sqrt(3441.0/16)},
		// Spearman 0.8827 = (143/4)/sqrt(6561/4) = 143/162 by hand.
		"spearman judge vs human": {stats.Spearman, judge, human, 143.0 / 162},
		// tau-b 0.8000: C=21, D=1, 3 ties in x only, 3 in y only:
		// 20/sqrt(25*25). gonum's tau-a would give 0.7143.
		"kendall tau-b judge vs human": {stats.KendallTauB, judge, human, 0.8},

		"pearson of a constant is undefined": {stats.Pearson, []float64{1, 2, 3}, []float64{2, 2, 2}, nan},
		// montanaflynn's own variance of eight times 0.619 is not 0.
		"pearson of a constant that rounds is undefined": {stats.Pearson, []float64{0.619, 0.619, 0.619, 0.619, 0.619, 0.619, 0.619, 0.619}, []float64{1, 2, 3, 4, 5, 6, 7, 8}, nan},
		"spearman of a constant is undefined":            {stats.Spearman, []float64{3, 3, 3}, []float64{1, 2, 3}, nan},
		"kendall of a constant is undefined":             {stats.KendallTauB, []float64{1, 2, 3}, []float64{4, 4, 4}, nan},
		"one pair is undefined":                          {stats.Pearson, []float64{1}, []float64{2}, nan},
		"no pairs are undefined":                         {stats.Spearman, nil, nil, nan},
		"lengths differ":                                 {stats.KendallTauB, []float64{1, 2, 3}, []float64{1, 2}, nan},
		"a NaN is undefined":                             {stats.Pearson, []float64{1, 2, nan}, []float64{1, 2, 3}, nan},
		"a NaN has no rank":                              {stats.Spearman, []float64{1, 2, 3}, []float64{nan, 2, 3}, nan},
		"a NaN is neither concordant nor not":            {stats.KendallTauB, []float64{1, nan, 3}, []float64{1, 2, 3}, nan},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assertFloat(t, tc.want, tc.stat(tc.x, tc.y))
		})
	}
}

var (
	judge = []float64{4, 3, 5, 2, 4, 1, 3, 5}
	human = []float64{5, 3, 4, 2, 4, 1, 2, 5}
)

// TestMAE checks the mean absolute error against sums done by hand.
func TestMAE(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		x, y []float64
		want float64
	}{
		// |1-2| + |2-2| + |3-5| = 3, over 3.
		"hand example": {[]float64{1, 2, 3}, []float64{2, 2, 5}, 1},
		// 1+0+1+0+0+0+1+0 = 3, over 8.
		"judge vs human": {judge, human, 0.375},
		"identical":      {[]float64{0.5, 4}, []float64{0.5, 4}, 0},
		"one pair":       {[]float64{3}, []float64{1}, 2},
		"empty":          {nil, nil, nan},
		"lengths differ": {[]float64{1}, []float64{1, 2}, nan},
		"a NaN":          {[]float64{1, nan}, []float64{1, 2}, nan},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assertFloat(t, tc.want, stats.MAE(tc.x, tc.y))
		})
	}
}

// assertFloat asserts got equals want to 1e-9, NaN only matching NaN.
func assertFloat(t *testing.T, want, got float64) {
	t.Helper()
	if math.IsNaN(want) {
		assert.True(t, math.IsNaN(got), "want NaN, got %v", got)
		return
	}
	assert.InDelta(t, want, got, 1e-9)
}
