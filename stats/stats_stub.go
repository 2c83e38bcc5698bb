// Package stats holds the agreement statistics. This file is a stand-in
// with plain textbook implementations of the package's signatures, so
// that the agree command builds on its own branch; the validated package
// replaces it at merge.
package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Weight is the disagreement weighting of WeightedKappa.
type Weight int

// The weightings: none (Cohen's kappa), |i-j|, and (i-j)^2.
const (
	Unweighted Weight = iota
	Linear
	Quadratic
)

// Level is the measurement level of KrippendorffAlpha.
type Level int

// The levels of measurement.
const (
	Nominal Level = iota
	Ordinal
	Interval
)

// Bin is one bin of a reliability table.
type Bin struct {
	Lo, Hi           float64
	N                int
	MeanPredicted    float64
	FractionPositive float64
}

func pairs(x, y []float64) int {
	if len(x) != len(y) {
		panic("stats: slices differ in length")
	}
	return len(x)
}

// Pearson is the product-moment correlation; NaN when undefined.
func Pearson(x, y []float64) float64 {
	n := pairs(x, y)
	if n < 2 {
		return math.NaN()
	}
	var mx, my float64
	for i := range n {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(n)
	my /= float64(n)
	var sxy, sxx, syy float64
	for i := range n {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// ranks are 1-based, ties averaged.
func ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case x[a] < x[b]:
			return -1
		case x[a] > x[b]:
			return 1
		}
		return 0
	})
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && x[idx[j]] == x[idx[i]] {
			j++
		}
		avg := float64(i+1+j) / 2
		for k := i; k < j; k++ {
			r[idx[k]] = avg
		}
		i = j
	}
	return r
}

// Spearman is the Pearson correlation of the ranks (ties averaged).
func Spearman(x, y []float64) float64 {
	pairs(x, y)
	return Pearson(ranks(x), ranks(y))
}

// KendallTauB is Kendall's tau-b, corrected for ties; NaN when undefined.
func KendallTauB(x, y []float64) float64 {
	n := pairs(x, y)
	var conc, disc, tx, ty float64
	for i := range n {
		for j := i + 1; j < n; j++ {
			dx, dy := x[i]-x[j], y[i]-y[j]
			switch {
			case dx == 0 && dy == 0:
			case dx == 0:
				tx++
			case dy == 0:
				ty++
			case (dx > 0) == (dy > 0):
				conc++
			default:
				disc++
			}
		}
	}
	d := math.Sqrt((conc + disc + tx) * (conc + disc + ty))
	if d == 0 {
		return math.NaN()
	}
	return (conc - disc) / d
}

// MAE is the mean absolute difference; NaN when empty.
func MAE(x, y []float64) float64 {
	n := pairs(x, y)
	if n == 0 {
		return math.NaN()
	}
	s := 0.0
	for i := range n {
		s += math.Abs(x[i] - y[i])
	}
	return s / float64(n)
}

// WeightedKappa is Cohen's weighted kappa of two raters over the
// categories grades; NaN when undefined or a value is not a grade.
func WeightedKappa(a, b []float64, grades []float64, w Weight) float64 {
	n := pairs(a, b)
	k := len(grades)
	if n == 0 || k < 2 {
		return math.NaN()
	}
	at := func(v float64) int { return slices.Index(grades, v) }
	obs := make([][]float64, k)
	for i := range obs {
		obs[i] = make([]float64, k)
	}
	ra, rb := make([]float64, k), make([]float64, k)
	for i := range n {
		x, y := at(a[i]), at(b[i])
		if x < 0 || y < 0 {
			return math.NaN()
		}
		obs[x][y]++
		ra[x]++
		rb[y]++
	}
	var num, den float64
	for i := range k {
		for j := range k {
			d := float64(i - j)
			var wt float64
			switch w {
			case Linear:
				wt = math.Abs(d) / float64(k-1)
			case Quadratic:
				wt = d * d / float64((k-1)*(k-1))
			default:
				if i != j {
					wt = 1
				}
			}
			num += wt * obs[i][j] / float64(n)
			den += wt * ra[i] * rb[j] / float64(n*n)
		}
	}
	if den == 0 {
		return math.NaN()
	}
	return 1 - num/den
}

// KrippendorffAlpha is Krippendorff's alpha over units of rater values
// (NaN missing), from the coincidence matrix; NaN when undefined.
func KrippendorffAlpha(units [][]float64, level Level) float64 {
	var vals []float64
	for _, u := range units {
		for _, v := range u {
			if !math.IsNaN(v) && !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
	}
	slices.Sort(vals)
	k := len(vals)
	o := make([][]float64, k)
	for i := range o {
		o[i] = make([]float64, k)
	}
	for _, u := range units {
		var got []int
		for _, v := range u {
			if !math.IsNaN(v) {
				got = append(got, slices.Index(vals, v))
			}
		}
		m := len(got)
		if m < 2 {
			continue
		}
		for i := range got {
			for j := range got {
				if i != j {
					o[got[i]][got[j]] += 1 / float64(m-1)
				}
			}
		}
	}
	nc := make([]float64, k)
	var n float64
	for i := range k {
		for j := range k {
			nc[i] += o[i][j]
		}
		n += nc[i]
	}
	delta := func(c, d int) float64 {
		switch level {
		case Interval:
			x := vals[c] - vals[d]
			return x * x
		case Ordinal:
			lo, hi := min(c, d), max(c, d)
			s := 0.0
			for g := lo; g <= hi; g++ {
				s += nc[g]
			}
			s -= (nc[c] + nc[d]) / 2
			return s * s
		}
		if c == d {
			return 0
		}
		return 1
	}
	var do, de float64
	for c := range k {
		for d := range k {
			do += o[c][d] * delta(c, d)
			de += nc[c] * nc[d] * delta(c, d)
		}
	}
	if n < 2 || de == 0 {
		return math.NaN()
	}
	return 1 - (n-1)*do/de
}

// Bootstrap is the percentile 95% interval of stat over reps resamples of
// the indexes 0..n-1, with a generator seeded by seed; resamples whose
// statistic is NaN or infinite are dropped and counted.
func Bootstrap(n, reps int, seed uint64, stat func(idx []int) float64) (lo, hi float64, dropped int) {
	if n == 0 || reps <= 0 {
		return math.NaN(), math.NaN(), 0
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	idx := make([]int, n)
	var got []float64
	for range reps {
		for i := range idx {
			idx[i] = rng.IntN(n)
		}
		v := stat(idx)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			dropped++
			continue
		}
		got = append(got, v)
	}
	if len(got) == 0 {
		return math.NaN(), math.NaN(), dropped
	}
	slices.Sort(got)
	q := func(p float64) float64 {
		h := p * float64(len(got)-1)
		i := int(h)
		if i+1 >= len(got) {
			return got[len(got)-1]
		}
		return got[i] + (h-float64(i))*(got[i+1]-got[i])
	}
	return q(0.025), q(0.975), dropped
}

func boolPairs(p []float64, y []bool) int {
	if len(p) != len(y) {
		panic("stats: slices differ in length")
	}
	return len(p)
}

// Brier is the mean squared difference of p and y; NaN when empty.
func Brier(p []float64, y []bool) float64 {
	n := boolPairs(p, y)
	if n == 0 {
		return math.NaN()
	}
	s := 0.0
	for i := range n {
		t := 0.0
		if y[i] {
			t = 1
		}
		s += (p[i] - t) * (p[i] - t)
	}
	return s / float64(n)
}

// ECE is the expected calibration error over bins equal-width bins.
func ECE(p []float64, y []bool, bins int) float64 {
	n := boolPairs(p, y)
	if n == 0 || bins < 1 {
		return math.NaN()
	}
	e := 0.0
	for _, b := range Reliability(p, y, bins) {
		if b.N > 0 {
			e += float64(b.N) / float64(n) * math.Abs(b.MeanPredicted-b.FractionPositive)
		}
	}
	return e
}

// Reliability is the reliability table over bins equal-width bins of
// [0, 1]; the last bin holds 1. Empty bins have NaN means.
func Reliability(p []float64, y []bool, bins int) []Bin {
	boolPairs(p, y)
	if bins < 1 {
		return nil
	}
	out := make([]Bin, bins)
	sumP, pos := make([]float64, bins), make([]float64, bins)
	for i := range out {
		out[i].Lo, out[i].Hi = float64(i)/float64(bins), float64(i+1)/float64(bins)
	}
	for i, v := range p {
		b := min(max(int(v*float64(bins)), 0), bins-1)
		out[b].N++
		sumP[b] += v
		if y[i] {
			pos[b]++
		}
	}
	for i := range out {
		if out[i].N == 0 {
			out[i].MeanPredicted, out[i].FractionPositive = math.NaN(), math.NaN()
			continue
		}
		out[i].MeanPredicted = sumP[i] / float64(out[i].N)
		out[i].FractionPositive = pos[i] / float64(out[i].N)
	}
	return out
}
