package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Bootstrap returns a percentile 95% confidence interval for a statistic of
// n items. It draws reps resamples of the indexes 0..n-1 with replacement,
// calls stat on each, and takes the 2.5th and 97.5th percentiles of the
// results (Percentile's rule: linear interpolation between closest ranks,
// NumPy's default). Resamples whose statistic is not a finite number (a
// correlation of a resample that happens to be constant, say) are dropped
// and counted in dropped rather than poisoning the interval.
//
// The resamples depend only on n, reps and seed, so the same call gives the
// same interval. stat is called reps times, in turn, from the calling
// goroutine; idx is reused between calls, so stat must not keep it.
// lo and hi are NaN when n is below 2, reps below 1 or every resample
// was dropped: every resample of one item is that item, which says
// nothing of how far the statistic could be, so an interval of no width
// would claim a certainty one value does not give.
func Bootstrap(n, reps int, seed uint64, stat func(idx []int) float64) (lo, hi float64, dropped int) {
	return BootstrapStrata(make([]int, max(n, 0)), reps, seed, stat)
}

// BootstrapStrata is Bootstrap with the items in strata: item i belongs to
// stratum strata[i], and each resample redraws every stratum from its own
// items, at its own size. idx[i] is the item drawn for the place of item i,
// always one of item i's stratum, so a statistic that needs each class
// present at its own count (a balanced accuracy) has it in every resample.
// With every item in one stratum it is Bootstrap, draw for draw.
//
// The places are drawn in order, 0 to n-1, each from a generator seeded
// with seed alone (PCG), so the resamples depend only on strata, reps and
// seed, across runs and platforms.
func BootstrapStrata(strata []int, reps int, seed uint64, stat func(idx []int) float64) (lo, hi float64, dropped int) {
	n := len(strata)
	if n < 2 || reps < 1 {
		return math.NaN(), math.NaN(), 0
	}
	// members[s] lists the items of stratum s; place i draws from of[i].
	members := map[int][]int{}
	for i, s := range strata {
		members[s] = append(members[s], i)
	}
	of := make([][]int, n)
	for i, s := range strata {
		of[i] = members[s]
	}
	rng := newRNG(seed)
	idx := make([]int, n)
	kept := make([]float64, 0, reps)
	for range reps {
		for i, m := range of {
			idx[i] = m[rng.IntN(len(m))]
		}
		v := stat(idx)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			dropped++
			continue
		}
		kept = append(kept, v)
	}
	if len(kept) == 0 {
		return math.NaN(), math.NaN(), dropped
	}
	slices.Sort(kept)
	return percentileSorted(kept, 2.5), percentileSorted(kept, 97.5), dropped
}

// BootstrapMean returns the percentile bootstrap 95% interval of the mean
// of x: Bootstrap of its items, the statistic their mean. A resample that
// draws a NaN or an infinite value has no finite mean and is dropped; with
// fewer than two values (one value's sample deviation is undefined too),
// reps below 1 or every resample dropped, both ends are NaN.
//
// The resamples depend on the order of x as well as on reps and seed: give
// values in an order that does not vary between runs (sorted, say) for an
// interval that does not either.
//
// It is Bootstrap with the mean as its statistic, draw for draw and sum
// for sum (TestBootstrapMeanIsBootstrapOfTheMean), without the list of
// indexes and the call a resample: a run's summary draws one for each of
// its metrics after the last judgement.
func BootstrapMean(x []float64, reps int, seed uint64) (lo, hi float64) {
	n := len(x)
	if n < 2 || reps < 1 {
		return math.NaN(), math.NaN()
	}
	rng := newRNG(seed)
	kept := make([]float64, 0, reps)
	for range reps {
		var sum float64
		for range n {
			sum += x[rng.IntN(n)]
		}
		if v := sum / float64(n); !math.IsNaN(v) && !math.IsInf(v, 0) {
			kept = append(kept, v)
		}
	}
	if len(kept) == 0 {
		return math.NaN(), math.NaN()
	}
	slices.Sort(kept)
	return percentileSorted(kept, 2.5), percentileSorted(kept, 97.5)
}

// newRNG is the generator of the resamples drawn with seed.
func newRNG(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}
