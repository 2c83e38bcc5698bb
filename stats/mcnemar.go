package stats

import "math"

// McNemarResult is McNemar's exact test of paired pass/fail outcomes: did
// more items flip one way than the other, beyond what chance explains?
type McNemarResult struct {
	// Lost counts the pairs that passed before and fail now; Gained those
	// that failed before and pass now. The concordant pairs (passed or
	// failed both times) carry no information and are not counted.
	Lost, Gained int
	// P is the two-sided exact conditional p-value, the default and the
	// one to report: 2 * P(X <= min(Lost, Gained)) for X ~ Binomial(Lost
	// + Gained, 1/2), capped at 1. It never rejects more often than the
	// nominal level says, and is conservative for few flips.
	P float64
	// MidP is the mid-p-value, the exact p-value less the probability of
	// the count observed (1 - P(X = k)/2 when both counts are equal):
	// Fagerland, Lydersen and Laake (2013) recommend it for its power. It
	// is given beside P, never in its place.
	MidP float64
}

// Discordant is the number of pairs that flipped either way.
func (r McNemarResult) Discordant() int { return r.Lost + r.Gained }

// McNemar is McNemar's exact test on the discordant pairs of a paired
// pass/fail comparison: lost pairs passed in the first measurement and
// fail in the second, gained the other way. Under the null hypothesis
// (no change in the pass rate) each discordant pair is equally likely to
// go either way, so lost is Binomial(lost+gained, 1/2).
//
// With no discordant pair, P and MidP are NaN: nothing flipped, so there
// is nothing to test. Negative counts are NaN too.
//
// The binomial terms are computed by the recurrence from the observed
// count down, starting from the log-gamma of the first, so the test is
// exact to floating point for any number of flips (100,000 or more).
func McNemar(lost, gained int) McNemarResult {
	r := McNemarResult{Lost: lost, Gained: gained, P: math.NaN(), MidP: math.NaN()}
	n := lost + gained
	if lost < 0 || gained < 0 || n == 0 {
		return r
	}
	k := min(lost, gained)
	if 2*k == n {
		r.P = 1
		r.MidP = 1 - binomialHalfPMF(n, k)/2
		return r
	}
	pk := binomialHalfPMF(n, k)
	cdf := binomialHalfCDF(n, k, pk)
	r.P = math.Min(1, 2*cdf)
	r.MidP = math.Min(1, 2*cdf-pk)
	return r
}

// binomialHalfPMF is P(X = k) for X ~ Binomial(n, 1/2).
func binomialHalfPMF(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	ln := lgammaOf(n+1) - lgammaOf(k+1) - lgammaOf(n-k+1) - float64(n)*math.Ln2
	return math.Exp(ln)
}

// binomialHalfCDF is P(X <= k) for X ~ Binomial(n, 1/2), k < n/2, given
// pk = P(X = k): the terms from k down, each from the one above it
// (P(X = i-1) = P(X = i) * i / (n-i+1)), until they no longer add to the
// sum.
func binomialHalfCDF(n, k int, pk float64) float64 {
	sum, term := 0.0, pk
	for i := k; i >= 0; i-- {
		sum += term
		if term < sum*1e-17 {
			break
		}
		term *= float64(i) / float64(n-i+1)
	}
	return sum
}

// lgammaOf is log Γ(x) of a positive whole number.
func lgammaOf(x int) float64 {
	v, _ := math.Lgamma(float64(x))
	return v
}
