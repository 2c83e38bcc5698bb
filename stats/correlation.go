package stats

import (
	"math"

	mstats "github.com/montanaflynn/stats"
)

// Pearson returns the Pearson product-moment correlation of x and y. It is
// NaN when the slices differ in length, hold fewer than two pairs, contain a
// NaN, or when either is constant.
func Pearson(x, y []float64) float64 {
	// montanaflynn's variance of a constant can round to a little above 0
	// (eight times 0.619 gave a correlation of 0 or -1), so constants are
	// caught here.
	if !pairable(x, y) || constant(x) || constant(y) {
		return math.NaN()
	}
	r, err := mstats.Pearson(x, y)
	return definedOrNaN(r, err)
}

// Spearman returns Spearman's rank correlation of x and y: the Pearson
// correlation of their ranks, tied values sharing the average of their ranks
// (as SciPy's spearmanr does). It is NaN under the same conditions as Pearson.
func Spearman(x, y []float64) float64 {
	if !pairable(x, y) {
		return math.NaN()
	}
	r, err := mstats.Spearman(x, y)
	return definedOrNaN(r, err)
}

// MAE returns the mean absolute error between x and y, in their own units
// (grade points for grades). It is NaN when the slices are empty, differ in
// length or contain a NaN.
func MAE(x, y []float64) float64 {
	if len(x) == 0 || len(x) != len(y) || hasNaN(x) || hasNaN(y) {
		return math.NaN()
	}
	var sum float64
	for i := range x {
		sum += math.Abs(x[i] - y[i])
	}
	return sum / float64(len(x))
}

// pairable reports whether x and y can be correlated at all: equal lengths,
// at least two pairs, no NaN.
func pairable(x, y []float64) bool {
	return len(x) >= 2 && len(x) == len(y) && !hasNaN(x) && !hasNaN(y)
}

// definedOrNaN maps montanaflynn's "0 with an error" for an undefined
// statistic (a constant input) to NaN, so that an undefined figure cannot be
// read as "no correlation".
func definedOrNaN(r float64, err error) float64 {
	if err != nil {
		return math.NaN()
	}
	return r
}

// constant reports whether every value of v is v[0].
func constant(v []float64) bool {
	for _, x := range v[1:] {
		if x != v[0] {
			return false
		}
	}
	return true
}

func hasNaN(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) {
			return true
		}
	}
	return false
}
