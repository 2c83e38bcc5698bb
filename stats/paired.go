package stats

import "math"

// PairedDiff is the mean of paired differences with a bootstrap 95%
// interval.
type PairedDiff struct {
	// N is the number of pairs.
	N int
	// Mean is the mean of after[i] - before[i].
	Mean float64
	// Lo and Hi are the percentile bootstrap 95% interval of Mean.
	Lo, Hi float64
}

// PairedMeanDiff is the mean difference after - before over paired
// values (item i measured twice: before[i], then after[i]) and its paired
// bootstrap 95% interval: each resample draws whole pairs with
// replacement, so that what the two measurements share (a hard item is
// hard both times) stays out of the interval. It is BootstrapMean of the
// differences, [Bootstrap]'s resamples and [Percentile]'s rule, reps
// resamples from seed.
//
// The resamples depend on the order of the pairs: give them in an order
// that does not vary between runs. With no pair, values of different
// lengths or a NaN among them, Mean, Lo and Hi are NaN; with one pair,
// Lo and Hi (BootstrapMean's of one value).
func PairedMeanDiff(before, after []float64, reps int, seed uint64) PairedDiff {
	r := PairedDiff{N: len(before), Mean: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	if len(before) != len(after) || len(before) == 0 {
		return r
	}
	d := make([]float64, len(before))
	sum := 0.0
	for i := range before {
		d[i] = after[i] - before[i]
		if math.IsNaN(d[i]) {
			return r
		}
		sum += d[i]
	}
	r.Mean = sum / float64(len(d))
	r.Lo, r.Hi = BootstrapMean(d, reps, seed)
	return r
}
