package stats

import (
	"math"
	"math/rand/v2"

	mstats "github.com/montanaflynn/stats"
)

// Bootstrap returns a percentile 95% confidence interval for a statistic of
// n paired items. It draws reps resamples of the indexes 0..n-1 with
// replacement, calls stat on each, and takes the 2.5th and 97.5th
// percentiles of the results (linear interpolation between closest ranks,
// NumPy's default). Resamples whose statistic is NaN (a correlation of a
// resample that happens to be constant, say) are dropped and counted in
// dropped rather than poisoning the interval.
//
// The resamples depend only on n, reps and seed, so the same call gives the
// same interval. stat is called reps times, in turn, from the calling
// goroutine; idx is reused between calls, so stat must not keep it.
// lo and hi are NaN when n or reps is below 1 or every resample was
// dropped.
func Bootstrap(n, reps int, seed uint64, stat func(idx []int) float64) (lo, hi float64, dropped int) {
	if n < 1 || reps < 1 {
		return math.NaN(), math.NaN(), 0
	}
	// PCG seeded from seed alone: reproducible across runs and platforms.
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	idx := make([]int, n)
	kept := make([]float64, 0, reps)
	for range reps {
		for i := range idx {
			idx[i] = rng.IntN(n)
		}
		v := stat(idx)
		if math.IsNaN(v) {
			dropped++
			continue
		}
		kept = append(kept, v)
	}
	if len(kept) == 0 {
		return math.NaN(), math.NaN(), dropped
	}
	lo, errLo := mstats.Percentile(kept, 2.5)
	hi, errHi := mstats.Percentile(kept, 97.5)
	if errLo != nil || errHi != nil {
		return math.NaN(), math.NaN(), dropped
	}
	return lo, hi, dropped
}
