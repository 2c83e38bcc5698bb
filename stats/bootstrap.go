package stats

import (
	"math"
	"math/bits"
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
// indexes and the call a resample, its draws inlined (indexes): a run's
// summary draws one for each of its metrics after the last judgement.
func BootstrapMean(x []float64, reps int, seed uint64) (lo, hi float64) {
	n := len(x)
	if n < 2 || reps < 1 {
		return math.NaN(), math.NaN()
	}
	src := newPCG(seed)
	draw := newIndexes(n)
	kept := make([]float64, 0, reps)
	for range reps {
		var sum float64
		for range n {
			w := src.Uint64()
			i, ok := draw.of(w)
			if !ok {
				i = draw.again(w, src)
			}
			sum += x[i]
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
	return rand.New(newPCG(seed))
}

// newPCG is the source of newRNG's generator.
func newPCG(seed uint64) *rand.PCG {
	return rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)
}

// indexes draws indexes in [0, n) from a PCG's words, each the index
// newRNG(seed).IntN(n) would give from the same source, draw for draw:
// Lemire's method as math/rand/v2 applies it on a 64-bit platform (the
// high half of the word times n, drawn again while the low half is below
// 2^64 mod n; the word masked when n is a power of two). BootstrapMean
// draws 400,000 indexes a metric for a run's summary; drawn through the
// Source interface, the calls were a third of its time. (On a 32-bit
// platform Rand.IntN draws bounds below 2^32 another way; these are the
// 64-bit draws on every platform.)
type indexes struct {
	n uint64
	// below is 2^64 mod n: a low half under it is drawn again. When n is
	// a power of two, every word goes to again, which masks it, and below
	// is past every low half but 2^64-1, which only n = 1 gives, whose
	// index is 0 either way.
	below uint64
	pow2  bool
}

// newIndexes is the indexes of [0, n), for n > 0.
func newIndexes(n int) indexes {
	u := uint64(n)
	d := indexes{n: u, below: -u % u, pow2: u&(u-1) == 0}
	if d.pow2 {
		d.below = math.MaxUint64
	}
	return d
}

// of is the index of the word w, and false when w is one of the rare
// words whose index again draws: small enough to be inlined into a
// resampling loop.
func (d indexes) of(w uint64) (int, bool) {
	hi, lo := bits.Mul64(w, d.n)
	return int(hi), lo >= d.below
}

// again is the index of a word of says false of: one that falls where a
// new word is drawn, or any word when n is a power of two.
func (d indexes) again(w uint64, src *rand.PCG) int {
	if d.pow2 {
		return int(w & (d.n - 1))
	}
	hi, lo := bits.Mul64(w, d.n)
	for lo < d.below {
		hi, lo = bits.Mul64(src.Uint64(), d.n)
	}
	return int(hi)
}
