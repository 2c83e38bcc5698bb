package stats_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/stats"
)

// TestBootstrapPercentiles checks the interval is the 2.5th and 97.5th
// percentile of the kept statistics, interpolated linearly between closest
// ranks (NumPy's default), and that NaN results are dropped and counted. The
// statistic ignores the resample and returns the call number k = 1..reps, so
// the kept values are known exactly.
func TestBootstrapPercentiles(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		reps        int
		nanEvery    int // the k-th call returns NaN when k % nanEvery == 0; 0: never
		lo, hi      float64
		wantDropped int
	}{
		// Kept 1..1000: rank 0.025*999 = 24.975 -> 25.975;
		// 0.975*999 = 974.025 -> 975.025.
		"nothing dropped": {1000, 0, 25.975, 975.025, 0},
		// Kept 750 values, the i-th (from 0) being i + i/3 + 1: rank
		// 0.025*749 = 18.725 between 25 and 26; 0.975*749 = 730.275
		// between 974 and 975.
		"every fourth dropped": {1000, 4, 25.725, 974.275, 250},
		"all dropped":          {10, 1, nan, nan, 10},
		// One kept value is its own interval.
		"one kept": {1, 0, 1, 1, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			calls := 0
			lo, hi, dropped := stats.Bootstrap(5, tc.reps, 1, func([]int) float64 {
				calls++
				if tc.nanEvery > 0 && calls%tc.nanEvery == 0 {
					return math.NaN()
				}
				return float64(calls)
			})
			assert.Equal(t, tc.reps, calls, "stat is called once per resample")
			assertFloat(t, tc.lo, lo)
			assertFloat(t, tc.hi, hi)
			assert.Equal(t, tc.wantDropped, dropped)
		})
	}
}

// TestBootstrapResamples checks what stat is given: n indexes, each in
// 0..n-1, drawn uniformly with replacement, the same for the same seed and
// different for another.
func TestBootstrapResamples(t *testing.T) {
	t.Parallel()
	const n, reps = 10, 2000
	record := func(seed uint64) (draws [][]int, counts [n]int) {
		stats.Bootstrap(n, reps, seed, func(idx []int) float64 {
			require.Len(t, idx, n)
			for _, i := range idx {
				require.GreaterOrEqual(t, i, 0)
				require.Less(t, i, n)
				counts[i]++
			}
			draws = append(draws, append([]int(nil), idx...))
			return 0
		})
		return draws, counts
	}
	first, counts := record(42)
	again, _ := record(42)
	other, _ := record(43)
	assert.Equal(t, first, again, "same seed, same resamples")
	assert.NotEqual(t, first, other, "another seed, other resamples")
	// 20,000 draws over 10 indexes: 2,000 each expected, standard deviation
	// 42; a fixed seed, so this cannot flake, and 1,800..2,200 is nearly 5
	// standard deviations wide.
	for i, c := range counts {
		assert.InDelta(t, 2000, c, 200, "index %d drawn %d times", i, c)
	}
	// With replacement: some resample repeats an index.
	repeats := false
	for _, d := range first {
		seen := map[int]bool{}
		for _, i := range d {
			repeats = repeats || seen[i]
			seen[i] = true
		}
	}
	assert.True(t, repeats)
}

// TestBootstrapCorrelation runs the bootstrap as assay agree does, on the
// Pearson correlation of a perfectly linear judge: every resample with two
// distinct items has r = 1; a resample of one item repeated has none and is
// dropped.
func TestBootstrapCorrelation(t *testing.T) {
	t.Parallel()
	x := []float64{1, 2, 3}
	y := []float64{3, 5, 7}
	lo, hi, dropped := stats.Bootstrap(len(x), 900, 7, func(idx []int) float64 {
		xs := make([]float64, len(idx))
		ys := make([]float64, len(idx))
		for k, i := range idx {
			xs[k], ys[k] = x[i], y[i]
		}
		return stats.Pearson(xs, ys)
	})
	assert.InDelta(t, 1, lo, 1e-9)
	assert.InDelta(t, 1, hi, 1e-9)
	// A resample is constant with probability 3/27 = 1/9: 100 of 900
	// expected; a fixed seed, bounds of about 3 standard deviations.
	assert.InDelta(t, 100, dropped, 30)
	assert.Positive(t, dropped)
}

// TestBootstrapNothingToResample checks that no items or no resamples give
// no interval and no call.
func TestBootstrapNothingToResample(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ n, reps int }{
		"no items":      {0, 100},
		"no resamples":  {10, 0},
		"negative reps": {10, -1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			calls := 0
			lo, hi, dropped := stats.Bootstrap(tc.n, tc.reps, 1, func([]int) float64 { calls++; return 0 })
			assert.True(t, math.IsNaN(lo))
			assert.True(t, math.IsNaN(hi))
			assert.Zero(t, dropped)
			assert.Zero(t, calls)
		})
	}
}

// TestBootstrapDropsInfinite checks that a statistic that is infinite, like
// one that is NaN, is dropped and counted.
func TestBootstrapDropsInfinite(t *testing.T) {
	t.Parallel()
	calls := 0
	lo, hi, dropped := stats.Bootstrap(3, 100, 1, func([]int) float64 {
		calls++
		switch calls % 4 {
		case 1:
			return math.Inf(1)
		case 2:
			return math.Inf(-1)
		}
		return 0.5
	})
	assert.Equal(t, 50, dropped)
	assertFloat(t, 0.5, lo)
	assertFloat(t, 0.5, hi)
}

// TestBootstrapStrata checks that each place is redrawn from its own
// stratum, uniformly, and that one stratum is Bootstrap draw for draw.
func TestBootstrapStrata(t *testing.T) {
	t.Parallel()
	strata := []int{7, 3, 7, 7, 3, 9}
	const reps = 3000
	counts := make([]int, len(strata))
	stats.BootstrapStrata(strata, reps, 5, func(idx []int) float64 {
		require.Len(t, idx, len(strata))
		for i, j := range idx {
			require.Equal(t, strata[i], strata[j], "place %d drew item %d of another stratum", i, j)
			counts[j]++
		}
		return 0
	})
	// Stratum 7 has three places and three items, so each of its items is
	// drawn reps*3/3 times expected; stratum 3 two and two, the same; item
	// 5, alone in 9, fills its place every time. A fixed seed: the bounds
	// (about 5 standard deviations) cannot flake.
	for i, c := range counts {
		if strata[i] == 9 {
			assert.Equal(t, reps, c)
			continue
		}
		assert.InDelta(t, reps, c, 250, "item %d", i)
	}

	var plain, one [][]int
	stats.Bootstrap(6, 50, 9, func(idx []int) float64 { plain = append(plain, slices.Clone(idx)); return 0 })
	stats.BootstrapStrata(make([]int, 6), 50, 9, func(idx []int) float64 { one = append(one, slices.Clone(idx)); return 0 })
	assert.Equal(t, plain, one)
}

// TestBootstrapMean checks the interval of a mean in cases whose every
// resample is known.
func TestBootstrapMean(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		values []float64
		lo, hi float64
	}{
		"constant values give a point":          {values: []float64{0.7, 0.7, 0.7}, lo: 0.7, hi: 0.7},
		"resamples that draw a NaN are dropped": {values: []float64{1, math.NaN()}, lo: 1, hi: 1},
		"resamples that draw an Inf too":        {values: []float64{1, math.Inf(1)}, lo: 1, hi: 1},
		"no values, no interval":                {values: nil, lo: nan, hi: nan},
		"only NaN: every resample dropped":      {values: []float64{math.NaN()}, lo: nan, hi: nan},
		// A mean of two draws of {0, 1} is 0 a quarter of the time and 1
		// a quarter: each tail of 2.5% lies inside an end.
		"two values: the interval spans the mean": {values: []float64{0, 1}, lo: 0, hi: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			lo, hi := stats.BootstrapMean(tc.values, 2000, 18)
			assertFloat(t, tc.lo, lo)
			assertFloat(t, tc.hi, hi)
		})
	}
}

// TestBootstrapMeanIsBootstrapOfTheMean holds BootstrapMean to Bootstrap
// with the mean as its statistic, to the bit: values drawn at random
// (ties, NaN, infinities among them), of sizes 1 to 300, with several
// seeds and counts of resamples.
func TestBootstrapMeanIsBootstrapOfTheMean(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(34, 6))
	for i := range 200 {
		x := make([]float64, 1+r.IntN(300))
		for j := range x {
			switch r.IntN(40) {
			case 0:
				x[j] = math.NaN()
			case 1:
				x[j] = math.Inf(1 - 2*r.IntN(2))
			default:
				x[j] = float64(r.IntN(9)) / 8 * r.Float64()
			}
		}
		reps, seed := 1+r.IntN(3000), r.Uint64()
		wantLo, wantHi, _ := stats.Bootstrap(len(x), reps, seed, func(idx []int) float64 {
			var sum float64
			for _, j := range idx {
				sum += x[j]
			}
			return sum / float64(len(idx))
		})
		lo, hi := stats.BootstrapMean(x, reps, seed)
		if math.Float64bits(lo) != math.Float64bits(wantLo) && !(math.IsNaN(lo) && math.IsNaN(wantLo)) ||
			math.Float64bits(hi) != math.Float64bits(wantHi) && !(math.IsNaN(hi) && math.IsNaN(wantHi)) {
			t.Fatalf("case %d (n %d, reps %d, seed %d): BootstrapMean %v..%v, Bootstrap %v..%v", i, len(x), reps, seed, lo, hi, wantLo, wantHi)
		}
	}
}

// TestBootstrapOfOneItemIsUndefined: every resample of one item is that
// item, so the percentile bootstrap (Efron and Tibshirani 1993, ch. 13)
// has nothing to say of the statistic's spread: the interval of one value
// is undefined, NaN, as its sample standard deviation (divisor n - 1) is,
// not [x, x], which claims certainty beside a deviation shown as
// undefined. Two values give an interval (their mean's: each resample mean
// is x0, (x0+x1)/2 or x1 with chances 1/4, 1/2, 1/4).
func TestBootstrapOfOneItemIsUndefined(t *testing.T) {
	t.Parallel()
	mean := func(x []float64) func(idx []int) float64 {
		return func(idx []int) float64 {
			var s float64
			for _, j := range idx {
				s += x[j]
			}
			return s / float64(len(idx))
		}
	}
	tests := map[string]struct {
		interval func() (lo, hi float64)
		lo, hi   float64 // NaN: undefined
	}{
		"BootstrapMean of one value": {func() (float64, float64) { return stats.BootstrapMean([]float64{0.7}, 2000, 1) }, math.NaN(), math.NaN()},
		"Bootstrap of one item": {func() (float64, float64) {
			lo, hi, _ := stats.Bootstrap(1, 2000, 1, mean([]float64{0.7}))
			return lo, hi
		}, math.NaN(), math.NaN()},
		"BootstrapStrata of one item": {func() (float64, float64) {
			lo, hi, _ := stats.BootstrapStrata([]int{0}, 2000, 1, mean([]float64{0.7}))
			return lo, hi
		}, math.NaN(), math.NaN()},
		"PairedMeanDiff of one pair": {func() (float64, float64) {
			d := stats.PairedMeanDiff([]float64{0.2}, []float64{0.9}, 2000, 1)
			return d.Lo, d.Hi
		}, math.NaN(), math.NaN()},
		"BalancedAccuracyCI of one pair": {func() (float64, float64) {
			return stats.BalancedAccuracyCI([]float64{0.9}, []bool{true}, 0.5, 2000, 1)
		}, math.NaN(), math.NaN()},
		"BootstrapMean of two values": {func() (float64, float64) { return stats.BootstrapMean([]float64{0, 1}, 2000, 1) }, 0, 1},
		"PairedMeanDiff of two pairs": {func() (float64, float64) {
			d := stats.PairedMeanDiff([]float64{0, 0}, []float64{0, 1}, 2000, 1)
			return d.Lo, d.Hi
		}, 0, 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			lo, hi := tc.interval()
			assertFloat(t, tc.lo, lo)
			assertFloat(t, tc.hi, hi)
		})
	}
	// The point estimate of one pair stays: only its interval is undefined.
	assert.InDelta(t, 0.7, stats.PairedMeanDiff([]float64{0.2}, []float64{0.9}, 2000, 1).Mean, 1e-12)
}
