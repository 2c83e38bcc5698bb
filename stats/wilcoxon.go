package stats

import (
	"cmp"
	"math"
	"slices"
)

// WilcoxonExactMax is the largest number of non-zero differences for which
// Wilcoxon computes the exact p-value; above it, the normal approximation.
const WilcoxonExactMax = 25

// WilcoxonResult is a Wilcoxon signed-rank test of paired differences.
type WilcoxonResult struct {
	// N is the number of non-zero differences, the ones ranked; Zeros the
	// differences dropped for being zero.
	N, Zeros int
	// WPlus and WMinus are the sums of the ranks of the positive and of
	// the negative differences (tied differences share their mean rank).
	WPlus, WMinus float64
	// Exact is true when P is the exact permutation p-value, false when it
	// is the normal approximation's; Z is the latter's statistic (NaN
	// when Exact).
	Exact bool
	Z     float64
	// P is the two-sided p-value, NaN when no difference is non-zero.
	P float64
}

// Statistic is min(W+, W-), the statistic tables and SciPy report.
func (r WilcoxonResult) Statistic() float64 { return math.Min(r.WPlus, r.WMinus) }

// Name names the test and how P was computed.
func (r WilcoxonResult) Name() string {
	if r.N == 0 {
		return "wilcoxon signed-rank (no change)"
	}
	if r.Exact {
		return "wilcoxon signed-rank (exact)"
	}
	return "wilcoxon signed-rank (normal approximation)"
}

// Wilcoxon is the Wilcoxon signed-rank test of the paired differences d
// (current minus baseline), two-sided: do the values move one way more
// than chance would explain?
//
// Zero differences are dropped (Wilcoxon's own method, SciPy's default
// zero_method "wilcox"); tied absolute differences get their mean rank.
// Differences are rounded to 1e-9 first, so that values equal but for
// floating-point noise tie, and tiny ones count as zero.
//
// For up to WilcoxonExactMax non-zero differences, P is exact: the share
// of the 2^N sign assignments whose W+ is at least as far in either tail
// as the one observed, counted over the ranks as they are (ties included),
// doubled and capped at 1. Above that, P is the normal approximation
// without continuity correction, its variance reduced for ties by
// sum(t^3-t)/48 over the groups of t tied ranks (SciPy's method
// "approx").
func Wilcoxon(d []float64) WilcoxonResult {
	ranks, wplus, zeros, tieTerm := signedRanks(d)
	r := WilcoxonResult{N: len(ranks), Zeros: zeros, WPlus: wplus, Z: math.NaN(), P: math.NaN()}
	total := 0.0
	for _, rk := range ranks {
		total += rk
	}
	r.WMinus = total - wplus
	switch {
	case r.N == 0:
	case r.N <= WilcoxonExactMax:
		r.Exact = true
		r.P = wilcoxonExactP(ranks, wplus)
	default:
		r.Z, r.P = wilcoxonNormal(r.N, wplus, tieTerm)
	}
	return r
}

// signedRanks ranks the absolute non-zero differences of d (mean ranks
// for ties) and returns the ranks, W+, the number of zeros dropped and
// sum(t^3-t) over the groups of ties.
func signedRanks(d []float64) (ranks []float64, wplus float64, zeros int, tieTerm float64) {
	type diff struct {
		abs float64
		pos bool
	}
	ds := make([]diff, 0, len(d))
	for _, x := range d {
		x = math.Round(x*1e9) / 1e9
		if x == 0 {
			zeros++
			continue
		}
		ds = append(ds, diff{math.Abs(x), x > 0})
	}
	slices.SortFunc(ds, func(a, b diff) int { return cmp.Compare(a.abs, b.abs) })
	ranks = make([]float64, len(ds))
	for i := 0; i < len(ds); {
		j := i
		for j < len(ds) && ds[j].abs == ds[i].abs {
			j++
		}
		mean := float64(i+1+j) / 2 // ranks i+1..j
		t := float64(j - i)
		tieTerm += t*t*t - t
		for k := i; k < j; k++ {
			ranks[k] = mean
			if ds[k].pos {
				wplus += mean
			}
		}
		i = j
	}
	return ranks, wplus, zeros, tieTerm
}

// wilcoxonExactP counts, by dynamic programming over the doubled ranks
// (whole numbers, mean ranks included), how many of the 2^n sign
// assignments give each W+, and returns the two-sided p-value of wplus.
func wilcoxonExactP(ranks []float64, wplus float64) float64 {
	total := 0
	for _, r := range ranks {
		total += int(math.Round(2 * r))
	}
	counts := make([]float64, total+1)
	counts[0] = 1
	top := 0
	for _, r := range ranks {
		r2 := int(math.Round(2 * r))
		for s := top; s >= 0; s-- {
			if counts[s] != 0 {
				counts[s+r2] += counts[s]
			}
		}
		top += r2
	}
	obs := int(math.Round(2 * wplus))
	var low, high, all float64
	for s, c := range counts {
		all += c
		if s <= obs {
			low += c
		}
		if s >= obs {
			high += c
		}
	}
	return math.Min(1, 2*math.Min(low, high)/all)
}

// wilcoxonNormal is the normal approximation of W+ for n ranks with the
// tie term sum(t^3-t): its z and two-sided p-value.
func wilcoxonNormal(n int, wplus, tieTerm float64) (z, p float64) {
	fn := float64(n)
	mean := fn * (fn + 1) / 4
	variance := fn*(fn+1)*(2*fn+1)/24 - tieTerm/48
	if variance <= 0 {
		return math.NaN(), math.NaN()
	}
	z = (wplus - mean) / math.Sqrt(variance)
	return z, math.Erfc(math.Abs(z) / math.Sqrt2)
}
