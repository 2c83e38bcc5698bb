package stats

import (
	"math"
	"slices"
)

// scored is a value with its label.
type scored struct {
	v     float64
	label bool
}

// sortedPairs returns the pairs without NaN values, sorted by value.
func sortedPairs(values []float64, labels []bool) []scored {
	mustPair(values, labels)
	ps := make([]scored, 0, len(values))
	for i, v := range values {
		if !math.IsNaN(v) {
			ps = append(ps, scored{v, labels[i]})
		}
	}
	slices.SortFunc(ps, func(a, b scored) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	return ps
}

// BestThreshold finds the threshold whose predictions (value >= threshold)
// have the highest balanced accuracy. The candidates are the smallest value
// (everything predicted true), the midpoints between consecutive distinct
// values, and the next float above the largest value (everything predicted
// false). Ties go to the candidate closest to 0.5, then to the smaller one,
// so the result is deterministic. NaN values are left out; with no values
// the result is 0.5 and an empty Confusion. It panics if the slices differ
// in length.
func BestThreshold(values []float64, labels []bool) (threshold float64, c Confusion) {
	ps := sortedPairs(values, labels)
	if len(ps) == 0 {
		return 0.5, Confusion{}
	}
	// Start with everything predicted true, then move the threshold up one
	// group of equal values at a time.
	for _, p := range ps {
		if p.label {
			c.TP++
		} else {
			c.FP++
		}
	}
	best, bestC := ps[0].v, c
	bestBA := c.BalancedAccuracy()
	const eps = 1e-12
	for i := 0; i < len(ps); {
		j := i
		for j < len(ps) && ps[j].v == ps[i].v {
			if ps[j].label {
				c.TP--
				c.FN++
			} else {
				c.FP--
				c.TN++
			}
			j++
		}
		var t float64
		if j < len(ps) {
			t = midpoint(ps[i].v, ps[j].v)
		} else {
			t = math.Nextafter(ps[i].v, math.Inf(1))
		}
		ba := c.BalancedAccuracy()
		better := ba > bestBA+eps
		if !better && ba > bestBA-eps {
			dt, db := math.Abs(t-0.5), math.Abs(best-0.5)
			better = dt < db || (dt == db && t < best)
		}
		if better {
			best, bestC, bestBA = t, c, ba
		}
		i = j
	}
	return best, bestC
}

// midpoint returns a threshold t with a < t <= b, halfway where the floats
// allow.
func midpoint(a, b float64) float64 {
	t := (a + b) / 2
	if math.IsInf(t, 0) {
		t = a/2 + b/2
	}
	if t <= a || t > b {
		return b
	}
	return t
}

// AUC is the area under the ROC curve of values against labels: the
// chance that a random true-labelled pair has a higher value than a random
// false-labelled one, ties counting one half (the Mann-Whitney U statistic
// over the product of the class sizes). NaN values are left out. It is 0
// when either class is empty, where it is undefined. It panics if the slices
// differ in length.
func AUC(values []float64, labels []bool) float64 {
	ps := sortedPairs(values, labels)
	var pos, neg int
	var rankSum float64 // of the true-labelled pairs, 1-based, ties averaged
	for i := 0; i < len(ps); {
		j := i
		var groupPos int
		for j < len(ps) && ps[j].v == ps[i].v {
			if ps[j].label {
				groupPos++
			}
			j++
		}
		avg := float64(i+1+j) / 2 // mean of the ranks i+1..j
		rankSum += avg * float64(groupPos)
		pos += groupPos
		neg += j - i - groupPos
		i = j
	}
	if pos == 0 || neg == 0 {
		return 0
	}
	u := rankSum - float64(pos)*float64(pos+1)/2
	return u / (float64(pos) * float64(neg))
}
