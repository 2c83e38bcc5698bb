package stats_test

import (
	"math/rand/v2"
	"testing"

	"github.com/assaylabs/assay/stats"
)

// grades returns n judge and human grades 1-5 that agree loosely.
func grades(n int) (x, y []float64) {
	r := rand.New(rand.NewPCG(1, 2))
	x, y = make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = float64(1 + r.IntN(5))
		y[i] = min(5, max(1, x[i]+float64(r.IntN(3)-1)))
	}
	return x, y
}

func BenchmarkWeightedKappa(b *testing.B) {
	x, y := grades(1000)
	for b.Loop() {
		stats.WeightedKappa(x, y, nil, stats.Quadratic)
	}
}

func BenchmarkKrippendorffAlpha(b *testing.B) {
	x, y := grades(1000)
	units := make([][]float64, len(x))
	for i := range x {
		units[i] = []float64{x[i], y[i]}
	}
	for b.Loop() {
		stats.KrippendorffAlpha(units, stats.Ordinal)
	}
}

// BenchmarkBootstrapSpearman: 1,000 resamples of 1,000 items, as assay agree
// runs per statistic.
func BenchmarkBootstrapSpearman(b *testing.B) {
	x, y := grades(1000)
	xs, ys := make([]float64, len(x)), make([]float64, len(y))
	for b.Loop() {
		stats.Bootstrap(len(x), 1000, 1, func(idx []int) float64 {
			for k, i := range idx {
				xs[k], ys[k] = x[i], y[i]
			}
			return stats.Spearman(xs, ys)
		})
	}
}

// BenchmarkBootstrapMean: a run summary's interval of one metric, 2,000
// resamples of 200 results.
func BenchmarkBootstrapMean(b *testing.B) {
	x, _ := grades(200)
	for b.Loop() {
		stats.BootstrapMean(x, 2000, 18)
	}
}
