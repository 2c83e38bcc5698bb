package stats

import (
	"math"
	"slices"
	"strconv"
)

// Level is the measurement level Krippendorff's alpha assumes of the values,
// which fixes how far apart two different values are.
type Level int

const (
	// Nominal: any two different values disagree equally.
	Nominal Level = iota
	// Ordinal: values are ranks; the distance between two values grows with
	// how many observed values lie between them.
	Ordinal
	// Interval: the distance is the squared difference of the values.
	Interval
)

// String names the level as the JSON keys of assay agree do.
func (l Level) String() string {
	switch l {
	case Nominal:
		return "nominal"
	case Ordinal:
		return "ordinal"
	case Interval:
		return "interval"
	}
	return "Level(" + strconv.Itoa(int(l)) + ")"
}

// KrippendorffAlpha returns Krippendorff's alpha reliability of the values
// in units: units[i] holds the values the raters gave unit i, NaN where a
// rater gave none, and rows may differ in length. It follows Krippendorff's
// "Computing Krippendorff's Alpha-Reliability" (2011): values are paired
// within each unit into a coincidence matrix, units with fewer than two
// values are left out, and alpha = 1 - observed/expected disagreement.
//
// It is NaN when fewer than two values can be paired, when every paired
// value is the same (no expected disagreement), or for a level that is not
// a Level constant.
func KrippendorffAlpha(units [][]float64, level Level) float64 {
	if level != Nominal && level != Ordinal && level != Interval {
		return math.NaN()
	}
	// The pairable values of each unit.
	var pairable [][]float64
	var values []float64
	for _, unit := range units {
		var vs []float64
		for _, v := range unit {
			if !math.IsNaN(v) {
				vs = append(vs, v)
			}
		}
		if len(vs) >= 2 {
			pairable = append(pairable, vs)
			values = append(values, vs...)
		}
	}
	slices.Sort(values)
	values = slices.Compact(values)
	k := len(values)
	if k == 0 {
		return math.NaN()
	}

	// Coincidence matrix: each ordered pair of values from different raters
	// within a unit of m values adds 1/(m-1).
	o := make([][]float64, k)
	for c := range o {
		o[c] = make([]float64, k)
	}
	for _, vs := range pairable {
		idx := make([]int, len(vs))
		for i, v := range vs {
			idx[i], _ = slices.BinarySearch(values, v)
		}
		share := 1 / float64(len(vs)-1)
		for i := range idx {
			for j := range idx {
				if i != j {
					o[idx[i]][idx[j]] += share
				}
			}
		}
	}
	return alphaFromCoincidences(o, values, level)
}

// alphaFromCoincidences returns alpha from the coincidence matrix o of the
// sorted distinct values (o[c][d]: how often value c was paired with d
// within a unit), as KrippendorffAlpha defines it; level is checked.
func alphaFromCoincidences(o [][]float64, values []float64, level Level) float64 {
	k := len(values)
	marg := make([]float64, k)
	var n float64
	for c := range k {
		for j := range k {
			marg[c] += o[c][j]
		}
		n += marg[c]
	}

	delta := alphaDistance(level, values, marg)
	var observed, expected float64
	for c := range k {
		for j := range k {
			d := delta(c, j)
			observed += o[c][j] * d
			expected += marg[c] * marg[j] * d
		}
	}
	if expected == 0 {
		return math.NaN()
	}
	return 1 - (n-1)*observed/expected
}

// alphaDistance returns the squared difference function delta^2(c, k) of
// Krippendorff's alpha for values at positions c and k of the sorted values,
// marg being how often each value occurs among the pairable values.
func alphaDistance(level Level, values, marg []float64) func(c, k int) float64 {
	switch level {
	case Interval:
		return func(c, k int) float64 {
			d := values[c] - values[k]
			return d * d
		}
	case Ordinal:
		// cum[i] = marg[0] + ... + marg[i-1], so the sum of marg over
		// positions lo..hi is cum[hi+1] - cum[lo].
		cum := make([]float64, len(marg)+1)
		for i, m := range marg {
			cum[i+1] = cum[i] + m
		}
		return func(c, k int) float64 {
			lo, hi := min(c, k), max(c, k)
			d := cum[hi+1] - cum[lo] - (marg[c]+marg[k])/2
			return d * d
		}
	default:
		return func(c, k int) float64 {
			if c == k {
				return 0
			}
			return 1
		}
	}
}
