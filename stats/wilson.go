package stats

import "math"

// Z95 is the standard normal quantile of a two-sided 95% interval.
const Z95 = 1.959963984540054

// Wilson is the Wilson score interval of a proportion: k successes of n
// trials, at the normal quantile z (Z95 for 95%). Unlike the normal
// approximation it stays inside [0, 1] and is not empty at k = 0 or
// k = n, which matters for the few trials of a sampled judgement. Both
// bounds are NaN for n = 0.
func Wilson(k, n int, z float64) (lo, hi float64) {
	if n <= 0 {
		return math.NaN(), math.NaN()
	}
	nf := float64(n)
	p := float64(k) / nf
	z2 := z * z
	den := 1 + z2/nf
	mid := (p + z2/(2*nf)) / den
	half := z / den * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	return max(0, mid-half), min(1, mid+half)
}
