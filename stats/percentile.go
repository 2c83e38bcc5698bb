package stats

import (
	"math"
	"slices"
)

// Percentile returns the p-th percentile of x, p from 0 to 100, by linear
// interpolation between closest ranks: Hyndman and Fan's type 7, the
// default of NumPy (numpy.percentile), R (quantile) and Excel
// (PERCENTILE.INC). Over the values sorted ascending, c[0..n-1], the rank
// is h = p/100 * (n-1); with k its whole part and f the rest, the
// percentile is c[k] + f*(c[k+1]-c[k]), or c[k] when f is 0. So the 0th
// percentile is the minimum, the 50th the median, the 100th the maximum.
//
// This is the one percentile rule of Assay: a run's p10 and latency
// p50/p95 and the ends of every bootstrap interval use it. It is NaN when
// x is empty or holds a NaN, and when p is NaN or outside [0, 100].
func Percentile(x []float64, p float64) float64 {
	if len(x) == 0 || !(p >= 0 && p <= 100) || slices.ContainsFunc(x, math.IsNaN) {
		return math.NaN()
	}
	return percentileSorted(slices.Sorted(slices.Values(x)), p)
}

// percentileSorted is Percentile of c, sorted ascending, not empty and
// without NaN, for p in [0, 100].
func percentileSorted(c []float64, p float64) float64 {
	h := p / 100 * float64(len(c)-1)
	k := int(h)
	f := h - float64(k)
	if f == 0 || k+1 >= len(c) || c[k] == c[k+1] {
		return c[k]
	}
	if d := c[k+1] - c[k]; !math.IsInf(d, 0) {
		return c[k] + f*d
	}
	// The gap overflows (or an end is infinite): weigh the ends apart, so
	// that two large finite values give a finite percentile.
	return (1-f)*c[k] + f*c[k+1]
}
